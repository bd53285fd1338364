from django import forms

from accounts.models import Team
from core.tracks import track_choices
from corpus.models import Collection
from pooling.models import Evaluation


class EvaluationForm(forms.Form):
    slug = forms.SlugField(max_length=100)
    title = forms.CharField(max_length=200, required=False, help_text="defaults to the track's title")
    track = forms.ChoiceField(choices=track_choices)
    collections = forms.ModelMultipleChoiceField(
        queryset=Collection.objects.all(), required=False, to_field_name="name"
    )


class StateForm(forms.Form):
    state = forms.ChoiceField(choices=Evaluation.STATES)


class SettingsForm(forms.Form):
    judged_priorities = forms.CharField(max_length=40, help_text="comma-separated, e.g. 1,2")
    max_answer_chars = forms.IntegerField(
        min_value=0, required=False, help_text="non-white-space characters per question; empty: no limit"
    )
    allow_nil = forms.BooleanField(required=False, label="NIL allowed")
    submission_opens = forms.DateTimeField(
        required=False, help_text="UTC, e.g. 2008-06-24 00:00; empty: open from the start"
    )
    submission_closes = forms.DateTimeField(
        required=False,
        help_text="UTC, e.g. 2008-07-02 03:59; empty: no closing time (the track may set a per-team one)",
    )
    assessor_conflicts = forms.ChoiceField(
        choices=[("warn", "warn"), ("refuse", "refuse")],
        initial="warn",
        required=False,  # a form without it (a script's POST) keeps the default
        label="An assessor of a team with runs in a series' pool",
        help_text="assigned with a warning, or refused",
    )

    def clean_judged_priorities(self):
        raw = self.cleaned_data["judged_priorities"]
        try:
            values = sorted({int(p) for p in raw.replace(" ", "").split(",") if p})
        except ValueError:
            raise forms.ValidationError("give run priorities as numbers separated by commas") from None
        if not values or min(values) < 1:
            raise forms.ValidationError("give at least one priority, 1 or more")
        return values


class TopicFileForm(forms.Form):
    """The topic file of the evaluation's track (labelled by its format's FILE_LABEL), or, where the track's
    format says teams got them (TOP_DOCS: TREC/TAC QA, ciQA), NIST's top-documents lists."""

    kind = forms.ChoiceField(initial="questions")
    file = forms.FileField()

    def __init__(self, evaluation, *args, **kwargs):
        super().__init__(*args, **kwargs)
        module = evaluation.track_spec.topic_format
        kinds = [("questions", getattr(module, "FILE_LABEL", "Topics"))]
        if getattr(module, "TOP_DOCS", False):
            kinds.append(("top_docs", "Top-documents lists (qnum rank docid rsv)"))
        self.fields["kind"].choices = kinds


class RunUploadForm(forms.Form):
    team = forms.ModelChoiceField(
        queryset=Team.objects.all(), required=False, to_field_name="name", help_text="or type a new team name below"
    )
    new_team = forms.CharField(max_length=100, required=False)
    priority = forms.IntegerField(
        min_value=1,
        max_value=32767,
        required=False,  # Run.priority is a smallint
        help_text="empty: the run tag's last digit",
    )
    manual = forms.BooleanField(required=False, label="Manual runs")
    partial_collection = forms.BooleanField(required=False, label="Searched only part of the collection")
    manifest = forms.FileField(
        required=False,
        help_text="optional: lines 'FILE TEAM PRIORITY [automatic|manual] [whole|partial]' (replaces the fields above)",
    )
    description = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 2}), help_text="the manual processing of manual runs"
    )
    override_reason = forms.CharField(
        required=False,
        max_length=1000,
        label="Override the submission rules, because",
        help_text="only to accept runs that break a submission rule (never the format); the reason is logged",
    )


class SubmissionForm(forms.Form):
    """What a team says of a run it submits (seed 000: manual or fully automatic, with a description of the manual
    processing; whether the whole collection was searched). The priority defaults to what the run says."""

    file = forms.FileField(label="Run file")
    priority = forms.IntegerField(
        min_value=1, max_value=32767, required=False, help_text="empty: from the run (TAC: the tag's last digit)"
    )
    manual = forms.BooleanField(required=False, label="Manual run (not fully automatic)")
    description = forms.CharField(
        required=False,
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 3}),
        label="Manual processing",
        help_text="what was done by hand (required for a manual run)",
    )
    partial_collection = forms.BooleanField(
        required=False, label="Searched only the top documents distributed, not the whole collection"
    )
    kind = forms.ChoiceField(
        required=False, choices=[("", "—"), ("initial", "initial run"), ("final", "final run")], label="Run kind"
    )
    initial_tag = forms.CharField(required=False, max_length=100, label="Its initial run (final runs)")

    def __init__(self, *args, other_kinds=(), **kwargs):
        """`other_kinds`: (kind, label) of the files a track's teams send besides runs (ciQA's URL files)."""
        super().__init__(*args, **kwargs)
        self.fields["kind"].choices = [*self.fields["kind"].choices, *other_kinds]

"""Request bodies the API reads (validated here) and the shapes it answers with (for the OpenAPI schema)."""

import json

from rest_framework import serializers

from config.roles import ROLES
from pooling.models import Evaluation


def no_nul(value):
    """jsonb cannot hold a NUL character (PostgreSQL would refuse it with a 500)."""
    if "\\u0000" in json.dumps(value):
        raise serializers.ValidationError("settings may not contain NUL characters")
    return value


class EvaluationCreate(serializers.Serializer):
    slug = serializers.SlugField(max_length=100)
    track = serializers.CharField(max_length=40)
    title = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    collections = serializers.ListField(child=serializers.CharField(max_length=100), required=False, default=list)
    settings = serializers.DictField(required=False, default=dict, validators=[no_nul])


class EvaluationOut(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    track = serializers.CharField()
    state = serializers.ChoiceField(choices=[s for s, _ in Evaluation.STATES])
    collections = serializers.ListField(child=serializers.CharField())
    settings = serializers.DictField()
    url = serializers.CharField()


class SettingsChange(serializers.Serializer):
    settings = serializers.DictField(validators=[no_nul])


class StateChange(serializers.Serializer):
    state = serializers.ChoiceField(choices=[s for s, _ in Evaluation.STATES])


class FileUpload(serializers.Serializer):
    file = serializers.FileField()


class RunFormFields(serializers.Serializer):
    """What the submission form says about a run (pooling.runs.RUN_FORM_FIELDS), on every API path taking runs."""

    priority = serializers.IntegerField(min_value=1, max_value=32767, required=False, allow_null=True, default=None)
    manual = serializers.BooleanField(required=False, default=False)
    whole_collection = serializers.BooleanField(required=False, default=True)
    description = serializers.CharField(
        max_length=5000,
        required=False,
        allow_blank=True,
        default="",
        help_text="of the manual processing (TAC 2008 asks it)",
    )
    initial_tag = serializers.CharField(
        max_length=100, required=False, allow_blank=True, default="", help_text="ciQA: a final run's initial run"
    )


class RunUpload(RunFormFields):
    files = serializers.ListField(child=serializers.FileField())
    team = serializers.CharField(max_length=100)
    kind = serializers.ChoiceField(
        choices=["", "initial", "final"], required=False, default="", help_text="ciQA: initial or final run"
    )
    override_reason = serializers.CharField(
        max_length=1000,
        required=False,
        allow_blank=True,
        default="",
        help_text="accept runs breaking the submission rules (runs frozen once judging starts too); logged",
    )


class RunOut(serializers.Serializer):
    tag = serializers.CharField()
    team = serializers.CharField()
    priority = serializers.IntegerField()
    manual = serializers.BooleanField()
    whole_collection = serializers.BooleanField()
    lines = serializers.IntegerField()
    loaded_at = serializers.DateTimeField()


class AssignmentChange(serializers.Serializer):
    series = serializers.CharField(max_length=50)
    username = serializers.CharField(max_length=150)
    second = serializers.BooleanField(required=False, default=False)


class UserCreate(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(choices=ROLES)
    password = serializers.CharField(required=False, allow_blank=True, default="", write_only=True)
    team = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")


class TeamCreate(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    members = serializers.ListField(child=serializers.CharField(max_length=150), required=False, default=list)


class Job(serializers.Serializer):
    status_url = serializers.CharField()


class SubmissionUpload(RunFormFields):
    """One file a team sends, as the participant's page asks: a run, or a file of the track's that is not a run."""

    file = serializers.FileField()
    team = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")
    action = serializers.ChoiceField(choices=["submit", "check"], required=False, default="submit")
    kind = serializers.CharField(
        max_length=40,
        required=False,
        allow_blank=True,
        default="",
        help_text="ciQA: initial, final (runs) or urls (a URL file)",
    )


class JudgmentSetUpload(serializers.Serializer):
    """A judgment set (issue 29): the file, its format, a name, and who or what produced it."""

    file = serializers.FileField()
    name = serializers.CharField(max_length=100)
    format = serializers.ChoiceField(choices=["qrels", "nuggetizer", "jsonl"], default="qrels")
    team = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")
    producer = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")
    model = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")
    prompt = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")
    version = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")
    date = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")
    note = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")


class JudgmentSetRelease(serializers.Serializer):
    released = serializers.BooleanField()


class JudgmentSetPromote(serializers.Serializer):
    reason = serializers.CharField(max_length=500)
    only_unjudged = serializers.BooleanField(default=False)

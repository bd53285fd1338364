from django.conf import settings
from django.db import models


class Assignment(models.Model):
    """A series (or topic) handed to an assessor: the primary judge, or a second one for double judging."""

    PRIMARY = "primary"
    SECONDARY = "secondary"
    ROLES = [(PRIMARY, "Primary"), (SECONDARY, "Second (double judging)")]

    evaluation = models.ForeignKey("pooling.Evaluation", on_delete=models.CASCADE, related_name="assignments")
    topic = models.ForeignKey("pooling.Topic", on_delete=models.CASCADE, related_name="assignments")
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="assignments")
    role = models.CharField(max_length=20, choices=ROLES, default=PRIMARY)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["evaluation", "topic__position"]
        constraints = [
            models.UniqueConstraint(fields=["topic", "role"], name="one_assessor_per_role_per_topic"),
            models.UniqueConstraint(fields=["topic", "assessor"], name="assessor_once_per_topic"),
        ]

    def __str__(self):
        return f"{self.topic} → {self.assessor} ({self.role})"


# AnswerClass and Nugget are QA's (tracks/qa) but stay here (issue 27 looked at moving them behind the track):
# Judgment.nugget below is a ForeignKey to Nugget, so a Nugget in tracks.qa would make this stage's model and its
# migrations depend on a track; and assess/assessor_views.py reads both for the history's words (class labels,
# nugget texts). AnswerClass alone could move only once the history asks the track for those words.
class AnswerClass(models.Model):
    """An equivalence class of correct answers to a list question: one distinct answer, however many instances."""

    topic = models.ForeignKey("pooling.Topic", on_delete=models.CASCADE, related_name="answer_classes")
    label = models.CharField(max_length=500)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["topic", "id"]

    def __str__(self):
        return self.label


class Nugget(models.Model):
    """An information nugget of a squishy-list, Other or ciQA question."""

    topic = models.ForeignKey("pooling.Topic", on_delete=models.CASCADE, related_name="nuggets")
    text = models.TextField()
    position = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["topic", "position", "id"]

    def __str__(self):
        return self.text[:60]

    @staticmethod
    def comparable(text):
        """How nugget texts are compared for duplicates: white space collapsed, case folded."""
        return " ".join(text.split()).casefold()

    @classmethod
    def duplicate_of(cls, topic, text, exclude=None):
        """(number as the list shows it, nugget) of the topic's nugget saying the same as `text`, or None."""
        wanted = cls.comparable(text)
        for number, nugget in enumerate(cls.objects.filter(topic=topic).order_by("position", "id"), start=1):
            if nugget.pk != exclude and cls.comparable(nugget.text) == wanted:
                return number, nugget
        return None


class Judgment(models.Model):
    """What one assessor decided about one thing; the same table serves every track and judgment kind.

    kind names a judgment kind of the track declaration (instance, nugget_match, nugget_vote, citation, ...);
    the subject is a pool item or a nugget; `value` holds the track's fields (a label and answer class, the set
    of matched nuggets, vital/okay, rel/trans/relspans...). `role` says whose judgment it is: the primary
    assessor's, the second assessor's in double judging, or the adjudicator's decision, which then counts.
    Every save bumps `version` (two tabs cannot overwrite each other) and appends a JudgmentChange.
    """

    PRIMARY = "primary"
    SECONDARY = "secondary"
    ADJUDICATED = "adjudicated"
    ROLES = [(PRIMARY, "Primary"), (SECONDARY, "Second"), (ADJUDICATED, "Adjudicated")]

    # The evaluation and topic are the subject's own (copied from the item or nugget, which keep their database
    # constraint): no constraint of their own, whose checks were two lookups and two row locks in every save's
    # commit, the evaluation's row locked by every assessor's save at once (issue 32). Deleting either still
    # deletes the judgments (Django's cascade, as for every relation here).
    evaluation = models.ForeignKey(
        "pooling.Evaluation", on_delete=models.CASCADE, related_name="judgments", db_constraint=False
    )
    # topic, item and nugget have no index of their own: each leads one below (every save maintains each index
    # of this table; a single-column copy of a leading column was three more per save, issue 32)
    topic = models.ForeignKey(
        "pooling.Topic", on_delete=models.CASCADE, related_name="judgments", db_index=False, db_constraint=False
    )
    kind = models.CharField(max_length=30)
    item = models.ForeignKey(
        "pooling.PoolItem", null=True, blank=True, on_delete=models.CASCADE, related_name="judgments", db_index=False
    )
    nugget = models.ForeignKey(
        Nugget, null=True, blank=True, on_delete=models.CASCADE, related_name="judgments", db_index=False
    )
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="judgments")
    role = models.CharField(max_length=12, choices=ROLES, default=PRIMARY)
    value = models.JSONField(default=dict)
    version = models.PositiveIntegerField(default=1)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["item", "kind", "assessor"],
                condition=models.Q(item__isnull=False),
                name="one_item_judgment_per_assessor",
            ),
            models.UniqueConstraint(
                fields=["nugget", "kind", "assessor"],
                condition=models.Q(nugget__isnull=False),
                name="one_nugget_judgment_per_assessor",
            ),
        ]
        indexes = [models.Index(fields=["topic", "kind"])]

    def __str__(self):
        return f"{self.kind} {self.item_id or self.nugget_id} by {self.assessor_id}: {self.value}"


class JudgmentChange(models.Model):
    """Append-only history: who changed a judgment, when, from what to what. Never updated or deleted."""

    judgment = models.ForeignKey(Judgment, on_delete=models.CASCADE, related_name="changes")
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    changed_at = models.DateTimeField(auto_now_add=True)
    version = models.PositiveIntegerField()
    before = models.JSONField(null=True)
    after = models.JSONField()

    class Meta:
        ordering = ["judgment", "version"]


class TopicClosure(models.Model):
    """A question the organizer has closed: its judgments can no longer be changed by assessors."""

    topic = models.OneToOneField("pooling.Topic", on_delete=models.CASCADE, related_name="closure")
    closed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    closed_at = models.DateTimeField(auto_now_add=True)


class Invitation(models.Model):
    """The organizer's invitation to someone beyond the assigned assessors: a further vital/okay voter on a
    series' nuggets (pyramid votes), or an adjudicator of an evaluation's double-judging disagreements."""

    VOTER = "voter"
    ADJUDICATOR = "adjudicator"
    KINDS = [(VOTER, "Nugget voter"), (ADJUDICATOR, "Adjudicator")]

    evaluation = models.ForeignKey("pooling.Evaluation", on_delete=models.CASCADE, related_name="invitations")
    topic = models.ForeignKey(
        "pooling.Topic", null=True, blank=True, on_delete=models.CASCADE, related_name="invitations"
    )  # the series, for voters; empty for adjudicators
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assess_invitations")
    kind = models.CharField(max_length=20, choices=KINDS)
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["evaluation", "kind", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "topic", "user"],
                condition=models.Q(topic__isnull=False),
                name="one_invitation_per_topic",
            ),
            models.UniqueConstraint(
                fields=["kind", "evaluation", "user"],
                condition=models.Q(topic__isnull=True),
                name="one_invitation_per_evaluation",
            ),
        ]

    def __str__(self):
        return f"{self.kind} {self.user} on {self.topic or self.evaluation}"


class StructureChange(models.Model):
    """Append-only log of the changes that are not judgments: answer classes and nuggets created, renamed,
    edited, merged, split, reordered or deleted, and questions closed or reopened. Never updated or deleted."""

    topic = models.ForeignKey("pooling.Topic", on_delete=models.CASCADE, related_name="structure_changes")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    action = models.CharField(max_length=40)  # e.g. "class.merge", "nugget.delete", "question.close"
    before = models.JSONField(null=True)
    after = models.JSONField(null=True)

    class Meta:
        ordering = ["topic", "at", "id"]


class SearchLog(models.Model):
    """One search an assessor ran from a judging page's search panel (assess.search_panel): the query and
    filters, how many results came back, and the documents opened from it (in order, with when). Kept per
    assessor and item, exported with the judgments (scoring.judgments_jsonl, record type "search")."""

    evaluation = models.ForeignKey("pooling.Evaluation", on_delete=models.CASCADE, related_name="+")
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    topic = models.ForeignKey("pooling.Topic", on_delete=models.CASCADE, related_name="+")  # question or topic
    item = models.ForeignKey("pooling.PoolItem", null=True, on_delete=models.SET_NULL, related_name="+")
    query = models.TextField()
    filters = models.JSONField(default=dict)  # collections, from, to, page
    hits = models.PositiveIntegerField(default=0)  # results shown (one page)
    opened = models.JSONField(default=list)  # [{"collection", "docno", "at"}]
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["evaluation", "at", "id"]
        indexes = [models.Index(fields=["evaluation", "assessor", "topic"], name="assess_search_who_what")]


class JudgingPreference(models.Model):
    """How an assessor likes the judging pages to behave, kept on the server so it follows them to every browser:
    auto-advance (move on after each complete judgment, across questions) is on or off."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="judging_preference")
    auto_advance = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"{self.user}: auto-advance {'on' if self.auto_advance else 'off'}"


class AssistDesign(models.Model):
    """The assisted-judging experiment of an evaluation (issue 30, docs/assist.md): which conditions are in play,
    whether they are drawn per item or per topic, and the seed the draw was made with. The draw itself is kept
    in AssistCondition rows; assess.assist.draw recomputes it from the seed (the split is reproducible)."""

    ITEM = "item"
    TOPIC = "topic"
    UNITS = [(ITEM, "per item"), (TOPIC, "per topic")]

    evaluation = models.OneToOneField("pooling.Evaluation", on_delete=models.CASCADE, related_name="assist_design")
    unit = models.CharField(max_length=10, choices=UNITS, default=ITEM)
    conditions = models.JSONField(default=list)  # e.g. ["none", "reveal_after", "suggest_first"]
    seed = models.BigIntegerField()
    # {topic ident: condition} of the work done per topic, not per item (building a topic's nugget list from
    # machine proposals): drawn with the same seed, kept as drawn
    topics = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)


class AssistCondition(models.Model):
    """The condition one pool item is judged under (a per-topic draw gives every item of the topic the same)."""

    NONE = "none"
    REVEAL_AFTER = "reveal_after"
    SUGGEST_FIRST = "suggest_first"
    CONDITIONS = [(NONE, "none"), (REVEAL_AFTER, "reveal after"), (SUGGEST_FIRST, "suggest first")]

    evaluation = models.ForeignKey("pooling.Evaluation", on_delete=models.CASCADE, related_name="+")
    item = models.OneToOneField("pooling.PoolItem", on_delete=models.CASCADE, related_name="assist_condition")
    condition = models.CharField(max_length=20, choices=CONDITIONS)

    class Meta:
        indexes = [models.Index(fields=["evaluation", "condition"], name="assess_assist_cond")]


class Suggestion(models.Model):
    """A machine suggestion for one judgment (kind) of one pool item or nugget, with where it came from: a file
    (source "file", source_name the file's name) or a model server (source "model", source_name the model, with
    the prompt, parameters, raw output, time and cost it reported). A call that failed is kept as a row with
    `error` set and no value: it is never shown. Rows are only added; the newest good row of a subject counts."""

    FILE = "file"
    MODEL = "model"
    SOURCES = [(FILE, "file"), (MODEL, "model server")]

    evaluation = models.ForeignKey("pooling.Evaluation", on_delete=models.CASCADE, related_name="+")
    topic = models.ForeignKey("pooling.Topic", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=30)
    item = models.ForeignKey("pooling.PoolItem", null=True, on_delete=models.CASCADE, related_name="suggestions")
    nugget = models.ForeignKey(Nugget, null=True, on_delete=models.CASCADE, related_name="suggestions")
    value = models.JSONField(null=True)  # the kind's shape (the keys given must fit it); None for an error row
    rationale = models.TextField(blank=True)
    source = models.CharField(max_length=10, choices=SOURCES)
    source_name = models.CharField(max_length=300)  # the file name, or the model name
    prompt = models.TextField(blank=True)
    parameters = models.JSONField(default=dict, blank=True)  # temperature, max_tokens, base URL, line of a file
    raw_output = models.TextField(blank=True)
    seconds = models.FloatField(null=True)  # the call's duration
    cost = models.JSONField(null=True)  # what the server reported: usage tokens, a price
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["evaluation", "topic", "id"]
        indexes = [models.Index(fields=["item", "kind"], name="assess_suggestion_item")]

    @property
    def failed(self):
        return bool(self.error)

    PROVENANCE = (
        "value", "rationale", "source", "source_name", "prompt", "parameters", "raw_output", "seconds", "cost", "error"
    )  # fmt: skip

    def provenance(self):
        """What was suggested and where it came from, as the API and the judgments file give it."""
        return {name: getattr(self, name) for name in self.PROVENANCE}


class SuggestionShown(models.Model):
    """When the server first sent a suggestion to an assessor (in a page, a panel or the API), and the version of
    the assessor's judgment of that kind then (0: none yet): the line between the assessor's own judgment (versions
    up to it) and one made with the suggestion visible (later versions) — by version, not by clock, so the web
    and database servers' clocks need not agree. One row per assessor and suggestion."""

    suggestion = models.ForeignKey(Suggestion, on_delete=models.CASCADE, related_name="shown")
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    item = models.ForeignKey("pooling.PoolItem", null=True, on_delete=models.CASCADE, related_name="+")
    condition = models.CharField(max_length=20)
    judgment_version = models.PositiveIntegerField(default=0)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["suggestion", "assessor"], name="suggestion_shown_once")]
        indexes = [models.Index(fields=["assessor", "item"], name="assess_shown_who_item")]

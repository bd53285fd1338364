from django.conf import settings
from django.db import models


class Score(models.Model):
    """A stored value of one measure for one run, at the scope of a question, a series or the whole run.

    Pages read scores from here and never compute them; rescoring tasks overwrite them.
    """

    RUN = "run"
    SERIES = "series"
    QUESTION = "question"
    SCOPES = [(RUN, "Run"), (SERIES, "Series/topic"), (QUESTION, "Question")]

    # No foreign-key constraints in the database (db_constraint=False): PostgreSQL checked every new row's run and
    # topic with a trigger query each at commit, 60,000 of them and a quarter of a full TREC 2007-sized rescoring
    # (benchmarks/scoring.py). Rows are only written by scoring.rescore.store, which locks their runs and topics
    # FOR KEY SHARE first (what the checks took); deletes cascade through Django's collector (on_delete) as before.
    run = models.ForeignKey("pooling.Run", on_delete=models.CASCADE, related_name="scores", db_constraint=False)
    scope = models.CharField(max_length=10, choices=SCOPES)
    topic = models.ForeignKey(
        "pooling.Topic", null=True, blank=True, on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    measure = models.CharField(max_length=50)
    value = models.FloatField(null=True)  # None where a measure is undefined (shown as "–")
    # The numbers behind the value (D, N, S of a list question; matched nuggets, length; components and flags of
    # a series), so reports and exports never recompute.
    detail = models.JSONField(default=dict, blank=True)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        # Two partial constraints rather than nulls_distinct, which SQLite (the demo database) lacks.
        constraints = [
            models.UniqueConstraint(
                fields=["run", "scope", "topic", "measure"],
                condition=models.Q(topic__isnull=False),
                name="unique_topic_score",
            ),
            models.UniqueConstraint(
                fields=["run", "scope", "measure"], condition=models.Q(topic__isnull=True), name="unique_run_score"
            ),
        ]

    def __str__(self):
        return f"{self.run} {self.scope} {self.topic_id or ''} {self.measure}={self.value}"


class PoolCount(models.Model):
    """Per question: how many of its pool items have an official judgment, as its last rescoring counted them.

    Kept once per question, not in each run's score detail: the count changes with every save while most runs'
    scores do not, and held in every run's question, series and run rows it made a live pass rewrite them all
    (issue 32). Written only by scoring.rescore.store; readers add it back where the detail showed it
    (scoring.pool_counts: "pool" of a question, "pool_judged"/"pool_items" of a series and of a run's score).

    With it, what else about the question is the same in every run's rows and was repeated in each of them: the
    answers of judged runs no pool item holds yet, and whether its score is left out (a list question whose final
    answer set is empty); it is unjudged while judged < items or unpooled > 0. From them readers make a question's
    "unpooled" and "unjudged", their sums per series and run ("unpooled", "questions_judged") and the lists of
    unjudged and left-out questions (a run's with one entry per question of the evaluation), which live passes
    rewrote in every run's rows before: for every save, and again when a question became fully judged."""

    topic = models.OneToOneField("pooling.Topic", primary_key=True, on_delete=models.CASCADE, related_name="+")
    evaluation = models.ForeignKey("pooling.Evaluation", on_delete=models.CASCADE, related_name="+")
    judged = models.PositiveIntegerField()
    items = models.PositiveIntegerField()
    unpooled = models.PositiveIntegerField(db_default=0)
    left_out = models.BooleanField(db_default=False)

    def __str__(self):
        return f"{self.topic_id}: {self.judged} of {self.items} judged"


class ScoringState(models.Model):
    """Per evaluation: how fresh its stored scores are. Its row is also the lock that keeps at most one
    recomputation of an evaluation in flight (select_for_update), so bursts of judgments coalesce."""

    evaluation = models.OneToOneField("pooling.Evaluation", on_delete=models.CASCADE, related_name="scoring_state")
    fresh_as_of = models.DateTimeField(null=True, blank=True)  # last committed recomputation
    full_rescore_at = models.DateTimeField(null=True, blank=True)
    last_seconds = models.FloatField(null=True, blank=True)  # how long the last recomputation took
    questions_last = models.PositiveIntegerField(default=0)  # questions it recomputed

    def __str__(self):
        return f"{self.evaluation_id} fresh as of {self.fresh_as_of}"


class JudgmentSet(models.Model):
    """A named set of judgments beside the official ones (issue 29): a machine judge's labels, an external
    assessor's qrels, or a team's judge run. It never writes assess.models.Judgment, never marks a score stale,
    and is never shown on an assessor's page; teams see it only once `released` (the organizer's decision).
    Its values can become official only through scoring.judgment_sets.promote (an audited organizer action)."""

    FILE = "file"
    TEAM = "team"
    DERIVED = "derived"
    ORIGINS = [(FILE, "Loaded from a file"), (TEAM, "A team's judge run"), (DERIVED, "Derived")]

    evaluation = models.ForeignKey("pooling.Evaluation", on_delete=models.CASCADE, related_name="judgment_sets")
    name = models.CharField(max_length=100)
    origin = models.CharField(max_length=10, choices=ORIGINS, default=FILE)
    # who or what produced it: {"producer", "model", "prompt", "version", "date", "note"} (all optional text)
    provenance = models.JSONField(default=dict, blank=True)
    team = models.ForeignKey(
        "accounts.Team", null=True, blank=True, on_delete=models.PROTECT, related_name="judgment_sets"
    )
    released = models.BooleanField(default=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    file_name = models.CharField(max_length=255, blank=True)
    sha256 = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["evaluation", "name"]
        constraints = [models.UniqueConstraint(fields=["evaluation", "name"], name="judgment_set_name_unique")]

    def __str__(self):
        return f"{self.evaluation_id}: {self.name}"


class SetJudgment(models.Model):
    """One judgment of a JudgmentSet: the same subject and value shape as assess.models.Judgment (the value in
    exactly the shape assess/official.py documents for its kind), without assessor, role or history."""

    judgment_set = models.ForeignKey(JudgmentSet, on_delete=models.CASCADE, related_name="judgments")
    topic = models.ForeignKey("pooling.Topic", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=30)
    item = models.ForeignKey("pooling.PoolItem", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    nugget = models.ForeignKey("assess.Nugget", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    value = models.JSONField(default=dict)

    class Meta:
        indexes = [models.Index(fields=["judgment_set", "topic", "kind"], name="set_judgment_set_topic_kind")]
        constraints = [
            models.UniqueConstraint(
                fields=["judgment_set", "kind", "item"],
                condition=models.Q(item__isnull=False),
                name="one_item_judgment_per_set",
            ),
            models.UniqueConstraint(
                fields=["judgment_set", "kind", "nugget"],
                condition=models.Q(nugget__isnull=False),
                name="one_nugget_judgment_per_set",
            ),
        ]

    def __str__(self):
        return f"{self.judgment_set_id} {self.kind} {self.item_id or self.nugget_id}: {self.value}"


class Agreement(models.Model):
    """Stored agreement between judges, per evaluation, comparison, kind and topic (topic empty: all topics),
    written only by the rescoring worker (scoring.agreement_store) and read by pages, never computed by them.

    `judgment_set` empty is the human comparison (second assessors against primary assessors); otherwise the set
    against the official judgments. `stats`: items, percent, kappa, weighted_kappa, alpha, labels, confusion."""

    evaluation = models.ForeignKey("pooling.Evaluation", on_delete=models.CASCADE, related_name="+")
    judgment_set = models.ForeignKey(
        JudgmentSet, null=True, blank=True, on_delete=models.CASCADE, related_name="agreements"
    )
    topic = models.ForeignKey("pooling.Topic", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=30)
    stats = models.JSONField(default=dict)
    computed_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["evaluation", "judgment_set"], name="agreement_eval_set")]


class RankingState(models.Model):
    """Per evaluation: the runs' rankings under every reading of the judgments (official, primary-only,
    second-only, each judgment set), how alike they are, and how robust each run's rank is (issue 29). Written
    only by the rescoring worker (scoring.rankings.refresh), after the official scores are stored; read by pages
    and the API, never computed by them. Its row is also the lock that keeps one refresh per evaluation."""

    evaluation = models.OneToOneField("pooling.Evaluation", on_delete=models.CASCADE, related_name="ranking_state")
    computed_at = models.DateTimeField(null=True, blank=True)  # "as of": judgments committed before it are in
    official_as_of = models.DateTimeField(null=True, blank=True)  # the official scores' fresh_as_of it read
    seconds = models.FloatField(null=True, blank=True)  # how long the last refresh took
    # the last time official scores or a judgment set changed: a refresh is pending while it is after computed_at
    requested_at = models.DateTimeField(null=True, blank=True)
    scheduled_for = models.DateTimeField(null=True, blank=True)  # a refresh task waits until then
    data = models.JSONField(default=dict, blank=True)  # scoring.rankings.refresh says what it holds

    def __str__(self):
        return f"{self.evaluation_id} rankings as of {self.computed_at}"

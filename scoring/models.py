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

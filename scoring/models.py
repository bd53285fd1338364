from django.db import models


class Score(models.Model):
    """A stored value of one measure for one run, at the scope of a question, a series or the whole run.

    Pages read scores from here and never compute them; rescoring tasks overwrite them.
    """

    RUN = "run"
    SERIES = "series"
    QUESTION = "question"
    SCOPES = [(RUN, "Run"), (SERIES, "Series/topic"), (QUESTION, "Question")]

    run = models.ForeignKey("pooling.Run", on_delete=models.CASCADE, related_name="scores")
    scope = models.CharField(max_length=10, choices=SCOPES)
    topic = models.ForeignKey("pooling.Topic", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    measure = models.CharField(max_length=50)
    value = models.FloatField(null=True)  # None where a measure is undefined (shown as "–")
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

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

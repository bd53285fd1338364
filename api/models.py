from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """A user's API token (one per user). Only its SHA-256 is stored: the key is shown once, when created."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_token")
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8)  # the key's first characters, so its owner can tell which it is
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"{self.user} {self.prefix}…"


class ApiJob(models.Model):
    """Long work an API call started (a judgment import, a full rescoring): its status URL reads this row."""

    QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
    STATUSES = [(s, s) for s in (QUEUED, RUNNING, DONE, FAILED)]
    IMPORT, RESCORE = "import-judgments", "rescore"

    kind = models.CharField(max_length=30)
    evaluation = models.ForeignKey("pooling.Evaluation", on_delete=models.CASCADE, related_name="+")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=10, choices=STATUSES, default=QUEUED)
    payload = models.TextField(blank=True)  # the uploaded file of an import
    filename = models.CharField(max_length=255, blank=True)
    result = models.JSONField(default=dict, blank=True)
    message = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

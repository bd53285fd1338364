"""What every stage shares: the audit log of organizer actions (core.audit writes and reads it)."""

from django.conf import settings
from django.db import models


class AuditEntry(models.Model):
    """One organizer action (a run replaced, a rule overridden, a release, settings or users changed): who, when,
    what, the state before and after. Written by core.audit.record in the action's transaction."""

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    username = models.CharField(max_length=150, blank=True)  # kept when the user is deleted; commands: "(server)"
    action = models.CharField(max_length=60)
    target = models.CharField(max_length=255, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        db_table = "pooling_auditentry"  # moved from pooling (issue 27); the table kept its name, so no row moved

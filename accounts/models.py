"""People: the teams that take part (their members are users, django.contrib.auth)."""

from django.conf import settings
from django.db import models


class Team(models.Model):
    """A participating group; its members (participant users) see its runs and released reports."""

    name = models.CharField(max_length=100, unique=True)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="teams")

    class Meta:
        ordering = ["name"]
        db_table = "pooling_team"  # moved from pooling (issue 27); the table kept its name, so no row moved

    def __str__(self):
        return self.name

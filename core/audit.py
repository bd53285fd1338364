"""The audit log of organizer actions: `record` is called by the function doing the action, inside its
transaction, so the log and the change commit together (or neither). Every later stage may import it."""

import csv
import io

from django.db.models import Q

from core.models import AuditEntry

COLUMNS = ["at", "username", "action", "target", "before", "after", "reason"]

# Organizer actions that change scores once runs are frozen (issue 26); each needs a reason, and a released report
# lists those made since its release: "re-scored on … because …" (scoring.reports). Target "SLUG" or "SLUG:…".
FROZEN_RUN_LOADED = "frozen run loaded"
RUN_DELETED = "run deleted"
GOLD_CHANGED = "gold changed"
SET_PROMOTED = "judgment set promoted"  # a judgment set's values made official (scoring.judgment_sets.promote)
RESCORING = (FROZEN_RUN_LOADED, RUN_DELETED, GOLD_CHANGED, SET_PROMOTED)


def record(by, action, target="", before=None, after=None, reason=""):
    """Log `action` on `target` by `by` (a user, a user name, or None for the server's command line)."""
    user = by if getattr(by, "pk", None) else None
    name = by.get_username() if user else (by or "(server)")
    return AuditEntry.objects.create(
        user=user,
        username=str(name)[:150],
        action=action,
        target=str(target)[:255],
        before=before,
        after=after,
        reason=reason or "",
    )


def entries(action="", target=""):
    rows = AuditEntry.objects.all()
    if action:
        rows = rows.filter(action=action)
    if target:
        rows = rows.filter(target__icontains=target)
    return rows


def rescorings(slug, since=None):
    """The RESCORING entries of evaluation `slug` (made after `since`, an instant, when given), oldest first."""
    rows = AuditEntry.objects.filter(action__in=RESCORING).filter(Q(target=slug) | Q(target__startswith=f"{slug}:"))
    if since is not None:
        rows = rows.filter(at__gt=since)
    return rows.order_by("at", "id")


def as_csv(rows):
    import json

    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    for e in rows:
        writer.writerow(
            [
                e.at.isoformat(),
                e.username,
                e.action,
                e.target,
                "" if e.before is None else json.dumps(e.before, sort_keys=True),
                "" if e.after is None else json.dumps(e.after, sort_keys=True),
                e.reason,
            ]
        )
    return out.getvalue()

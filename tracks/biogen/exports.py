"""BioGen's judgment export beside the generic JSON Lines one: every judgment as a CSV row (organizers' analyses),
with the run lines it stands for found by the pool key."""

import csv
import io

from assess.models import Judgment
from scoring.registry import Export
from tracks.biogen.labels import KIND

COLUMNS = ["topic", "pool_id", "item_kind", "pmid", "text", "assessor", "role", "label", "evidence", "version",
           "updated_at"]  # fmt: skip


def judgments_csv(evaluation):
    """Header line, then one line per judgment (primary, second and adjudicated), in topic and pool order."""
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="\n")
    out.writerow(COLUMNS)
    yield _take(buffer)
    rows = (
        Judgment.objects.filter(evaluation=evaluation, kind=KIND, item__isnull=False)
        .select_related("item", "topic", "assessor")
        .order_by("topic__position", "item__position", "item_id", "role", "assessor__username")
    )
    for j in rows.iterator():
        value = j.value or {}
        out.writerow(
            [
                j.topic.ident,
                j.item.pool_id,
                j.item.data.get("kind", ""),
                j.item.docid,
                j.item.text,
                j.assessor.username,
                j.role,
                value.get("label", ""),
                " | ".join(value.get("evidence") or []),
                j.version,
                j.updated_at.isoformat(),
            ]
        )
        yield _take(buffer)


def _take(buffer):
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text


EXPORTS = (Export("csv", "All judgments (CSV)", judgments_csv),)

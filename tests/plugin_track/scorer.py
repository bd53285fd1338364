"""The plug-in test track's scorer (core.extension_points.scorer): each run's number of lines, as "lines" and as
the headline "score"."""

from collections import Counter

from pooling.models import RunEntry
from scoring.models import Score
from scoring.registry import ScoreBatch, ScoreRow
from tests.plugin_track.measures import LINES


def score(evaluation, topic_ids=None):
    counts = Counter(RunEntry.objects.filter(run__evaluation=evaluation).values_list("run_id", flat=True))
    rows = [
        ScoreRow(run_id, Score.RUN, None, measure, float(LINES.function(range(n))))
        for run_id, n in counts.items()
        for measure in (LINES.name, "score")
    ]
    return ScoreBatch(rows=rows, run_level=True, full=True)

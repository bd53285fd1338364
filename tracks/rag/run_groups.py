"""TREC RAG's run groups (core.extension_points.run_groups): an answer run's "score" is nugget All, a retrieval
run's nDCG@20 (tracks.rag.scorer), so the two are never compared in one ANOVA or randomization test, nor ranked in
one list under other judgments (scoring.rankings). A run is a retrieval run as the scorer tells: its shape, or
ranked entries."""

from pooling.models import RunEntry

ANSWER, RETRIEVAL = "answer runs", "retrieval runs"


def run_groups(evaluation, runs):
    ranked = set(RunEntry.objects.filter(run__in=runs, data__kind="ranked").values_list("run_id", flat=True).distinct())
    retrieval = {r.pk for r in runs if (r.data or {}).get("shape") == "retrieval" or r.pk in ranked}
    return [(ANSWER, [r for r in runs if r.pk not in retrieval]), (RETRIEVAL, [r for r in runs if r.pk in retrieval])]

"""Reading stored scores (never computing them) for the scoreboard, the `score` command, reports and access."""
from collections import defaultdict

from config.roles import ORGANIZER, has_role
from pooling.models import Run, Topic
from scoring.models import Score
from scoring.release import released_for

RUN_MEASURE_ORDER = ["score", "factoid", "list", "rigidlist", "other", "squishylist", "ciqa", "nil_precision",
                     "nil_recall"]


def judged_priorities(evaluation):
    return set(evaluation.setting("judged_priorities") or [])


def run_measures(evaluation):
    """{run id: {measure: Score}} of run-scope scores."""
    out = defaultdict(dict)
    for s in Score.objects.filter(run__evaluation=evaluation, scope=Score.RUN):
        out[s.run_id][s.measure] = s
    return out


def ranked_runs(evaluation):
    """[(run, {measure: Score})] best score first; runs without a score last."""
    measures = run_measures(evaluation)
    runs = list(Run.objects.filter(evaluation=evaluation).select_related("team"))

    def key(run):
        s = measures.get(run.id, {}).get("score")
        return (s is None or s.value is None, -(s.value or 0) if s else 0, run.tag)

    return [(run, measures.get(run.id, {})) for run in sorted(runs, key=key)]


def component_measures(evaluation, measures_by_run):
    """The run-level measure names present, in display order (score first, then components)."""
    present = {m for ms in measures_by_run for m in ms} - {"judged"}
    ordered = [m for m in RUN_MEASURE_ORDER if m in present]
    return ordered + sorted(present - set(ordered))


def score_tree(evaluation):
    """Everything stored, keyed by run tag, then series ident and question ident (the `score --json` shape)."""
    idents = dict(Topic.objects.filter(evaluation=evaluation).values_list("id", "ident"))
    tree = {}
    for run in Run.objects.filter(evaluation=evaluation).order_by("tag"):
        tree[run.tag] = {"team": run.team.name, "run": {}, "series": {}, "questions": {}}
    for tag, scope, topic_id, measure, value, detail in Score.objects.filter(
            run__evaluation=evaluation).values_list("run__tag", "scope", "topic_id", "measure", "value", "detail"):
        node = tree[tag]
        if scope == Score.RUN:
            node["run"][measure] = value
            if measure == "score":
                node["run_detail"] = detail
        else:
            group = node["series" if scope == Score.SERIES else "questions"]
            entry = group.setdefault(idents[topic_id], {})
            entry[measure] = value
            if detail:
                entry["detail"] = detail
    return tree


def can_see_run_scores(user, run):
    """Organizers always; a participant only for their own team's runs, and only once scores are released."""
    if has_role(user, ORGANIZER):
        return True
    if not released_for(run.evaluation, run.team_id):
        return False
    return run.team.members.filter(pk=user.pk).exists()


def visible_runs(user, evaluation=None):
    """Runs whose report the user may open (a queryset for organizers, a list otherwise)."""
    runs = Run.objects.select_related("evaluation", "team")
    if evaluation is not None:
        runs = runs.filter(evaluation=evaluation)
    if has_role(user, ORGANIZER):
        return runs
    return [r for r in runs.filter(team__members=user) if released_for(r.evaluation, r.team_id)]


def significance_of(evaluation, alpha=0.05):
    """(tukey_two_way result or None, {run tag: team name}) over the judged runs' stored per-series scores."""
    from scoring.measures.significance import tukey_two_way
    from scoring.reports import compared_runs

    runs = {r.id: r for r in compared_runs(evaluation).select_related("team")}
    rows = Score.objects.filter(run_id__in=list(runs), scope=Score.SERIES, measure="score").exclude(
        value__isnull=True).values_list("run__tag", "topic_id", "value")
    return tukey_two_way(list(rows), alpha=alpha), {r.tag: r.team.name for r in runs.values()}

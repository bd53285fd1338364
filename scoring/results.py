"""Reading stored scores (never computing them) for the scoreboard, the `score` command, reports and access."""

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Q

from config.roles import ORGANIZER, has_role
from core import extension_points as ep
from pooling.models import Run, StaleTopic, Topic
from scoring import pool_counts
from scoring.models import Score, ScoringState
from scoring.release import released_for


def judged_priorities(evaluation):
    return set(evaluation.setting("judged_priorities") or [])


def compared_runs(evaluation):
    """The judged runs (judged priorities of the evaluation; all runs if it names none)."""
    runs = Run.objects.filter(evaluation=evaluation)
    priorities = judged_priorities(evaluation)
    return runs.filter(priority__in=priorities) if priorities else runs


def run_score_values(runs):
    """{run id: stored run score} of the given runs."""
    return dict(Score.objects.filter(run__in=runs, scope=Score.RUN, measure="score").values_list("run_id", "value"))


# --- how far judging has got ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Judging:
    """How far judging has got, as the stored scores saw it (so it describes the very numbers shown beside it):
    the scorers store, with each run's score, the pool items of its questions and how many have an official
    judgment, and which questions are not fully judged. Plus what is still waiting for rescoring."""

    items: int | None  # None: the track's scores say nothing about judging (scored before this was recorded)
    judged: int | None
    questions: int | None
    questions_judged: int | None
    unjudged: tuple
    stale: int  # questions whose scores wait for a worker
    as_of: object  # datetime of ScoringState.fresh_as_of, or None (never scored)
    unit: str = "pool items"
    unpooled: int = 0  # answers of judged runs no pool item holds yet (pools not rebuilt since a run came)

    @property
    def share(self):
        if self.items is None:
            return None
        return self.judged / self.items if self.items else 1.0

    @property
    def complete(self):
        # (no pool at all is no judging at all, not a complete one)
        return (
            bool(self.items)
            and self.judged >= self.items
            and not self.unpooled
            and not self.unjudged
            and not self.stale
            and self.as_of is not None
        )

    def describe(self):
        if self.items is None:
            text = "judged share unknown (rescore to record it)"
        else:
            text = f"{self.judged} of {self.items} {self.unit} judged ({100 * self.share:.1f} %)"
            if self.questions:
                text += f", {self.questions_judged} of {self.questions} questions fully judged"
            if self.unpooled:
                text += f", {self.unpooled} answer{'s' if self.unpooled != 1 else ''} of judged runs not pooled yet"
        if self.stale:
            text += f", {self.stale} question{'s' if self.stale != 1 else ''} waiting to be rescored"
        return text

    def as_dict(self):
        return {
            "judged": self.judged,
            "items": self.items,
            "unit": self.unit,
            "share": self.share,
            "questions": self.questions,
            "questions_judged": self.questions_judged,
            "unjudged_questions": list(self.unjudged),
            "unpooled_answers": self.unpooled,
            "stale_questions": self.stale,
            "scores_as_of": self.as_of.isoformat() if self.as_of else None,
            "complete": self.complete,
        }


def _judging(evaluation, counts):
    state = ScoringState.objects.filter(evaluation=evaluation).values_list("fresh_as_of", flat=True).first()
    stale = StaleTopic.objects.filter(evaluation=evaluation).count()
    if not counts or "pool_items" not in counts:
        return Judging(None, None, None, None, (), stale, state)
    return Judging(
        counts["pool_items"],
        counts["pool_judged"],
        counts.get("questions"),
        counts.get("questions_judged"),
        tuple(counts.get("unjudged_questions") or ()),
        stale,
        state,
        counts.get("unit", "pool items"),
        counts.get("unpooled", 0),
    )


def _run_score_detail(evaluation, rows):
    """The first run "score" detail of `rows` that counts the pools (its own "pool_items", or a QA run's, to which
    scoring.pool_counts adds the per-question counts), as shown."""
    detail = (
        rows.filter(scope=Score.RUN, measure="score")
        .filter(Q(detail__has_key="pool_items") | Q(detail__has_key="partial_series"))
        .order_by("run_id")
        .values_list("detail", flat=True)
        .first()
    )
    if detail is None:
        return None
    return pool_counts.Shown(evaluation).detail(Score.RUN, None, "score", detail)


def evaluation_judging(evaluation):
    """Judging of the whole evaluation: the track's own count (core.extension_points.judging_progress), else the
    counts the scorer stored with the run scores (every run's are the same: they count the questions' pools)."""
    hook = ep.judging_progress.get(evaluation.track)
    if hook is not None:
        return _judging(evaluation, hook(evaluation))
    return _judging(evaluation, _run_score_detail(evaluation, Score.objects.filter(run__evaluation=evaluation)))


def run_judging(run):
    """Judging of the questions a run's score is computed over (the evaluation's, when the run stores none)."""
    if ep.judging_progress.get(run.evaluation.track) is None:
        detail = _run_score_detail(run.evaluation, Score.objects.filter(run=run))
        if detail and "pool_items" in detail:
            return _judging(run.evaluation, detail)
    return evaluation_judging(run.evaluation)


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


def nothing_judged(measures):
    """Whether none of the run's own answers is judged yet (its stored "judged" share is 0): its score says
    nothing of the run, so the board lists it apart, unranked. A track that stores no share ranks every run."""
    judged = measures.get("judged")
    return judged is not None and judged.value == 0


def measure_order(evaluation, present):
    """The run-level measure names `present`, in display order: the score, then the measures the evaluation's
    track declares (Track.measures) in their declaration order, then any others, sorted."""
    declared = ["score", *(m.name for m in evaluation.track_spec.measures)]
    ordered = [m for m in dict.fromkeys(declared) if m in present]
    return ordered + sorted(set(present) - set(ordered))


def component_measures(evaluation, measures_by_run):
    """The run-level measure names present on the board, in display order (measure_order; "judged" apart)."""
    return measure_order(evaluation, {m for ms in measures_by_run for m in ms} - {"judged"})


def score_tree(evaluation):
    """Everything stored, keyed by run tag, then series ident and question ident (the `score --json` shape)."""
    idents = dict(Topic.objects.filter(evaluation=evaluation).values_list("id", "ident"))
    shown = pool_counts.Shown(evaluation)
    tree = {}
    for run in Run.objects.filter(evaluation=evaluation).order_by("tag"):
        tree[run.tag] = {"team": run.team.name, "run": {}, "series": {}, "questions": {}}
    for tag, scope, topic_id, measure, value, detail in Score.objects.filter(run__evaluation=evaluation).values_list(
        "run__tag", "scope", "topic_id", "measure", "value", "detail"
    ):
        node = tree[tag]
        detail = shown.detail(scope, topic_id, measure, detail)
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


def result_rows(evaluation):
    """The stored scores as scoring.formats.trec.Result rows, for the IR tools' result files (issue 28): a
    question's or series' value under its ident, a run's under "all"; an undefined value (None) left out. Runs
    by tag, then topics in file order, then measures by name."""
    from scoring.formats.trec import ALL, Result

    topics = dict(Topic.objects.filter(evaluation=evaluation).values_list("id", "ident"))
    order = {
        pk: n
        for n, pk in enumerate(
            Topic.objects.filter(evaluation=evaluation).order_by("position", "id").values_list("id", flat=True)
        )
    }
    rows = Score.objects.filter(run__evaluation=evaluation, value__isnull=False).values_list(
        "run__tag", "topic_id", "measure", "value"
    )
    ranked = sorted(rows, key=lambda r: (r[0], r[1] is None, order.get(r[1], 0), r[2]))
    return [Result(tag, ALL if tid is None else topics[tid], measure, value) for tag, tid, measure, value in ranked]


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


@dataclass
class SignificanceRun:
    result: object  # scoring.measures.significance.Significance, or None (fewer than two runs or series)
    teams: dict  # {run tag: team name}
    runs: list  # tags of the runs analysed
    over: str  # which runs, in words
    best_per_team: bool
    judging: Judging
    alpha: float = 0.05
    randomization: object = None  # scoring.measures.randomization.Randomization, or None (fewer than two runs)
    groups: tuple = ()  # the labels of the track's run groups (core.extension_points.run_groups), if it has them
    group: str = ""  # the group analysed

    @property
    def warning(self):
        if self.judging.complete:
            return ""
        return (
            f"Judging is incomplete ({self.judging.describe()}): these differences are computed from "
            "provisional scores and may change as judging goes on."
        )

    def as_dict(self):
        r = self.result
        out = {
            "over": self.over,
            "group": self.group,
            "groups": list(self.groups),
            "best_per_team": self.best_per_team,
            "runs_analysed": self.runs,
            "judging": self.judging.as_dict(),
            "warning": self.warning or None,
        }
        if r is not None:
            out.update(
                {
                    "mse": r.mse,
                    "df_error": r.df_error,
                    "q": r.q,
                    "hsd": r.hsd,
                    "p_run": r.p_run,
                    "series": r.n_series,
                    "anova": r.anova,
                    "runs": [{"run": t, "team": self.teams.get(t), "mean": m, "letters": ltr} for t, m, ltr in r.runs],
                }
            )
        if self.randomization is not None:
            out["randomization"] = self.randomization_dict()
        return out

    def randomization_dict(self):
        test = self.randomization
        return {
            "test": "paired two-sided randomization (sign flips of per-series differences)",
            "permutations": test.permutations,
            "seed": test.seed,
            "alpha": self.alpha,
            "corrected_for_multiple_comparisons": False,
            "pairs": [
                {
                    "a": pair.a,
                    "b": pair.b,
                    "series": pair.n_series,
                    "mean_difference": pair.mean_difference,
                    "p": pair.p,
                    "exact": pair.exact,
                    "significant": self.significant(pair),
                }
                for pair in test.pairs
            ],
        }

    def significant(self, pair):
        return pair.p <= self.alpha


def best_run_per_team(runs, scores):
    """The run with the highest run score of each team (ties: the first tag), as TREC overviews compare them."""
    best = {}
    for run in sorted(runs, key=lambda r: r.tag):
        value = scores.get(run.id)
        held = best.get(run.team_id)
        if held is None or (value is not None and (scores.get(held.id) is None or value > scores[held.id])):
            best[run.team_id] = run
    return list(best.values())


class UnknownGroup(ValueError):
    """A run group the evaluation's track does not have."""


def run_groups(evaluation, runs):
    """[(label, runs)] of the track's run groups (core.extension_points.run_groups), or [("", runs)]."""
    grouping = ep.run_groups.get(evaluation.track)
    return grouping(evaluation, runs) if grouping is not None else [("", runs)]


def significance_of(evaluation, alpha=0.05, best_per_team=False, permutations=None, seed=None, group=None):
    """Two-way ANOVA + Tukey HSD over the stored per-series scores of the judged runs (or of the best judged run
    per team), and the paired randomization test of every pair of them (`permutations`, `seed`: None for the
    defaults), with the run set in words and how far judging has got (SignificanceRun)."""
    from scoring.measures import randomization as rand
    from scoring.measures.significance import tukey_two_way

    runs = list(compared_runs(evaluation).select_related("team"))
    groups = run_groups(evaluation, runs)
    chosen = groups[0][0] if group is None else group
    if chosen not in dict(groups):
        raise UnknownGroup(f"no run group {group!r}; the groups are {', '.join(label for label, _ in groups)}")
    runs = dict(groups)[chosen]
    priorities = sorted(judged_priorities(evaluation))
    judged = (
        f"runs of the judged priorities ({', '.join(map(str, priorities))})"
        if priorities
        else "runs (every priority: the evaluation names no judged priorities)"
    )
    if best_per_team:
        runs = best_run_per_team(runs, run_score_values([r.id for r in runs]))
        over = f"the best run of each of {len(runs)} teams (highest run score among its {judged})"
    else:
        over = f"all {len(runs)} {judged}"
    if chosen:
        over += f", {chosen} only (the track scores other runs on another measure)"
    by_id = {r.id: r for r in runs}
    rows = list(
        Score.objects.filter(run_id__in=list(by_id), scope=Score.SERIES, measure="score")
        .exclude(value__isnull=True)
        .values_list("run__tag", "topic_id", "value")
    )
    return SignificanceRun(
        result=tukey_two_way(rows, alpha=alpha),
        teams={r.tag: r.team.name for r in runs},
        runs=sorted(r.tag for r in runs),
        over=over,
        best_per_team=best_per_team,
        judging=evaluation_judging(evaluation),
        alpha=alpha,
        randomization=rand.randomization_pairs(
            rows,
            permutations=rand.DEFAULT_PERMUTATIONS if permutations is None else permutations,
            seed=rand.DEFAULT_SEED if seed is None else seed,
        ),
        groups=tuple(label for label, _ in groups if label),
        group=chosen,
    )

"""What a team downloads once its results are released: the judgments of its own runs (one file in a generic
layout, and the track's official formats, e.g. NIST's list and nugget files, keeping only its own runs' lines) and
its runs' reports. Registered with pooling.campaign, which lists them on the team's page."""

import json
from urllib.parse import urlencode

from django.urls import reverse

from assess.official import official_values
from core import extension_points as ep
from pooling.campaign import TeamDownload
from pooling.models import Evaluation, PoolItem, Run
from scoring.registry import get_exports
from scoring.release import released_for

OWN = "own"  # the generic file's kind


def team_may_have(evaluation, export):
    return not export.everyones or evaluation.state == Evaluation.RELEASED


def downloads(evaluation, team):
    """TeamDownload entries of `team` for `evaluation`: none until its results are released to it."""
    if not released_for(evaluation, team.pk):
        return []
    runs = list(Run.objects.filter(evaluation=evaluation, team=team).order_by("priority", "tag"))
    if not runs:
        return []
    query = "?" + urlencode({"team": team.name})
    found = []
    if evaluation.track_spec.human_judging:
        found.append(
            TeamDownload(
                "Judgments of your runs (tab-separated)",
                reverse("scoring:team_judgments", args=[evaluation.slug, OWN]) + query,
                "topic, run, line, docid, kind, judgment",
            )
        )
        for export in get_exports(evaluation)[0]:
            if not team_may_have(evaluation, export):
                continue
            whose = "every judged document" if export.everyones else "official format, your runs"
            found.append(
                TeamDownload(
                    f"{export.label} ({whose})",
                    reverse("scoring:team_judgments", args=[evaluation.slug, export.kind]) + query,
                )
            )
    writer = ep.run_judgments.get(evaluation.track)
    if writer is not None:
        applies = getattr(writer, "applies", lambda run: True)
        found += [
            TeamDownload(
                f"Judgments of {run.tag} (official format)",
                reverse("scoring:team_run_judgments", args=[evaluation.slug, run.tag]),
            )
            for run in runs
            if applies(run)
        ]
    found += [
        TeamDownload(f"Report of {run.tag}", reverse("scoring:run_report", args=[evaluation.slug, run.tag]))
        for run in runs
    ]
    return found


def own_judgments(evaluation, team):
    """Lines "topic<TAB>run<TAB>line<TAB>docid<TAB>kind<TAB>judgment" for every line of the team's runs that a
    pool item holds, with that item's official judgment of each of the track's kinds."""
    runs = Run.objects.filter(evaluation=evaluation, team=team)
    through = PoolItem.sources.through
    links = list(
        through.objects.filter(runentry__run__in=runs)
        .order_by("runentry__run__tag", "runentry__line_no")
        .values_list(
            "poolitem_id",
            "runentry__topic_id",
            "runentry__topic__ident",
            "runentry__run__tag",
            "runentry__line_no",
            "runentry__docid",
        )
    )
    topic_ids = {link[1] for link in links}
    kinds = [k for k in evaluation.track_spec.judgment_kinds if not k.startswith("nugget_vote")]
    values = {kind: official_values(topic_ids, kind) for kind in kinds}
    yield "topic\trun\tline\tdocid\tkind\tjudgment\n"
    for item_id, _, ident, tag, line, docid in links:
        for kind in kinds:
            value = values[kind].get(item_id)
            if value is not None:
                shown = value.get("label") or value.get("rel") if isinstance(value, dict) else None
                yield f"{ident}\t{tag}\t{line}\t{docid}\t{kind}\t{shown or json.dumps(value, sort_keys=True)}\n"


def official_export(evaluation, team, kind):
    """The track's export `kind`, keeping only lines that name no other team's run (a line naming a run tag is
    one run's; lines naming none, like a question's nugget list, are everyone's once released)."""
    exports = {e.kind: e for e in get_exports(evaluation)[0]}
    if kind not in exports or not team_may_have(evaluation, exports[kind]):
        return None
    others = set(Run.objects.filter(evaluation=evaluation).exclude(team=team).values_list("tag", flat=True))
    export = exports[kind]
    if export.run_of is not None:  # a JSON line names its run in a field (nuggetizer's run_id)
        run_of = export.run_of
        return (line for line in export.writer(evaluation) if run_of(line) not in others)
    return (line for line in export.writer(evaluation) if not others.intersection(line.split()))

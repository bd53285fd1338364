"""Judgment sets and agreement (issue 29): the organizer's sets (list, load, release, promote, delete), the stored
agreement and the disagreeing items, and a team's judge runs. They call what the pages and the `judgment_sets`
command call (scoring.judgment_sets, scoring.agreement_store, scoring.judge_runs)."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from api import serializers as s
from api.common import RoleAPIView, evaluation_or_404, read
from config import params
from config.celery import run_here_or_send
from config.roles import PARTICIPANT
from pooling import campaign
from pooling.models import Topic
from scoring import agreement_store, judge_runs, judgment_sets
from scoring.models import JudgmentSet
from scoring.tasks import refresh_agreement


def set_data(judgment_set):
    return {
        "id": judgment_set.pk,
        "name": judgment_set.name,
        "origin": judgment_set.origin,
        "team": judgment_set.team.name if judgment_set.team_id else None,
        "provenance": judgment_set.provenance,
        "released": judgment_set.released,
        "file_name": judgment_set.file_name,
        "sha256": judgment_set.sha256,
        "created_by": judgment_set.created_by.username,
        "created_at": judgment_set.created_at.isoformat(),
        "judgments": judgment_set.judgments.count(),
    }


def agreement_data(rows):
    return [r | {"computed_at": r["computed_at"].isoformat()} for r in rows]


def _provenance(d):
    return {k: d[k] for k in judgment_sets.PROVENANCE_KEYS if d.get(k)}


def _set_or_404(evaluation, pk):
    return get_object_or_404(JudgmentSet.objects.select_related("team", "created_by"), evaluation=evaluation, pk=pk)


class JudgmentSets(RoleAPIView):
    """Who: organizers. The evaluation's judgment sets (GET); POST multipart loads one (`file`, `format` qrels,
    nuggetizer or jsonl, `name`, provenance fields `producer`, `model`, `prompt`, `version`, `date`, `note`;
    `team`: as that team's judge run): 201 with the set, or 400 with every problem as FILE:LINE."""

    def get(self, request, slug):
        evaluation = evaluation_or_404(slug)
        rows = JudgmentSet.objects.filter(evaluation=evaluation).select_related("team", "created_by")
        return Response([set_data(js) for js in rows])

    @extend_schema(request={"multipart/form-data": s.JudgmentSetUpload})
    def post(self, request, slug):
        from accounts.models import Team

        evaluation = evaluation_or_404(slug)
        body = s.JudgmentSetUpload(data=request.data)
        body.is_valid(raise_exception=True)
        d = body.validated_data
        team = None
        if d["team"]:
            team = Team.objects.filter(name=d["team"]).first()
            if team is None:
                raise NotFound(f"no team {d['team']!r}")
        made = judgment_sets.load_set(
            evaluation,
            read(d["file"], "judgments"),
            d["file"].name,
            d["format"],
            d["name"],
            by=request.user,
            provenance=_provenance(d),
            team=team,
            origin=JudgmentSet.TEAM if team else JudgmentSet.FILE,
        )
        run_here_or_send(refresh_agreement, evaluation.id)
        return Response(
            set_data(made) | {"loaded": made.loaded_count, "skipped": made.skipped}, status=status.HTTP_201_CREATED
        )


class JudgmentSetDetail(RoleAPIView):
    """Who: organizers. One set with its stored agreement per kind and topic (GET); DELETE removes it (audited)."""

    def get(self, request, slug, pk):
        evaluation = evaluation_or_404(slug)
        found = _set_or_404(evaluation, pk)
        rows = agreement_store.table(evaluation, found, per_topic=True)
        return Response(set_data(found) | {"agreement": agreement_data(rows)})

    def delete(self, request, slug, pk):
        evaluation = evaluation_or_404(slug)
        judgment_sets.delete_set(_set_or_404(evaluation, pk), by=request.user)
        run_here_or_send(refresh_agreement, evaluation.id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class JudgmentSetRelease(RoleAPIView):
    """Who: organizers. Release the set to the teams (`released`: true) or withdraw it (false); audited."""

    @extend_schema(request=s.JudgmentSetRelease)
    def post(self, request, slug, pk):
        body = s.JudgmentSetRelease(data=request.data)  # the body first: a malformed one is a 400 whatever the set
        body.is_valid(raise_exception=True)
        found = _set_or_404(evaluation_or_404(slug), pk)
        judgment_sets.set_release(found, body.validated_data["released"], by=request.user)
        return Response(set_data(found))


class JudgmentSetPromote(RoleAPIView):
    """Who: organizers. Make the set's values official judgments (`reason` required; `only_unjudged`: only
    subjects nobody has judged), each saved through the judgment writer as your decision, audited; the released
    reports state it. 200 with the counts; 400 naming what refused it (a closed question, another's decision)."""

    @extend_schema(request=s.JudgmentSetPromote)
    def post(self, request, slug, pk):
        body = s.JudgmentSetPromote(data=request.data)
        body.is_valid(raise_exception=True)
        found = _set_or_404(evaluation_or_404(slug), pk)
        d = body.validated_data
        return Response(
            judgment_sets.promote(found, by=request.user, reason=d["reason"], only_unjudged=d["only_unjudged"])
        )


class Agreement(RoleAPIView):
    """Who: organizers. The stored agreement of every comparison (each set against the official judgments; set
    "assessors": the second assessors against the primary), totals per kind (?per_topic=1: each topic's too),
    with "computed_at" (as of)."""

    def get(self, request, slug):
        evaluation = evaluation_or_404(slug)
        per_topic = params.text(request.query_params.get("per_topic"), "per_topic") in ("1", "true")
        return Response(agreement_data(agreement_store.table(evaluation, per_topic=per_topic)))


class Disagreements(RoleAPIView):
    """Who: organizers. The items of one comparison whose labels differ: ?set= (a set's id; none: the second
    assessors against the primary), ?kind= (required), ?topic=, and ?first=&second= for one cell of the
    confusion matrix."""

    def get(self, request, slug):
        evaluation = evaluation_or_404(slug)
        q = request.query_params
        pk = params.optional_integer(q.get("set"), "set")
        found = _set_or_404(evaluation, pk) if pk is not None else None
        kind = params.text(q.get("kind"), "kind")
        if not kind:
            raise params.BadParameter("kind: name a judgment kind")
        topic = None
        if q.get("topic"):
            topic = get_object_or_404(Topic, evaluation=evaluation, ident=params.text(q.get("topic"), "topic"))
        cell = None
        if "first" in q or "second" in q:
            cell = (params.text(q.get("first"), "first"), params.text(q.get("second"), "second"))
        rows = agreement_store.disagreements(evaluation, found, kind, topic, cell)
        return Response(rows[:5000])


class JudgeRuns(RoleAPIView):
    """Who: participants, for a team they belong to (?team= / `team` when several). GET: the team's judge runs,
    why none is taken now, and once the results are released to the team each one's agreement with the official
    judgments and how the runs' ranking under each compares with the official one (Kendall's τ, τ_AP, top-k
    overlap: scoring.rankings). POST multipart (`file`, `format`, `name`, provenance fields): submit one within
    the campaign's rules: 201, or 400 naming each rule or problem."""

    allowed_roles = (PARTICIPANT,)

    def _team(self, request, name):
        team = campaign.team_of(request.user, (name or "").strip())
        if team is None:
            raise NotFound("name one of your teams (team)")
        return team

    def get(self, request, slug):
        evaluation = evaluation_or_404(slug)
        team = self._team(request, params.text(request.query_params.get("team"), "team"))
        agreement = judge_runs.agreement_for(evaluation, team)
        rankings = judge_runs.rankings_for(evaluation, team)
        return Response(
            {
                "team": team.name,
                "judge_runs": [
                    set_data(js) for js in judge_runs.of_team(evaluation, team).select_related("team", "created_by")
                ],
                "closed": judge_runs.refusals(evaluation, team),
                "agreement": None if agreement is None else agreement_data(agreement),
                "rankings": None
                if rankings is None
                else {
                    "as_of": rankings[1] and rankings[1].isoformat(),
                    "judge_runs": {str(k): v for k, v in rankings[0].items()},
                },
            }
        )

    @extend_schema(request={"multipart/form-data": s.JudgmentSetUpload})
    def post(self, request, slug):
        evaluation = evaluation_or_404(slug)
        body = s.JudgmentSetUpload(data=request.data)
        body.is_valid(raise_exception=True)
        d = body.validated_data
        team = self._team(request, d["team"])
        made = judge_runs.submit(
            evaluation,
            team,
            read(d["file"], "judgments"),
            d["file"].name,
            d["format"],
            d["name"],
            by=request.user,
            provenance=_provenance(d),
        )
        run_here_or_send(refresh_agreement, evaluation.id)
        return Response(set_data(made), status=status.HTTP_201_CREATED)

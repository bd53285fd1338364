"""Scores (per run, series and question; how fresh), full rescoring (202) and run reports, as the scoreboard and
report pages show them: organizers see all, participants their own teams' runs once released."""

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from api import serializers as s
from api.common import RoleAPIView, accepted, evaluation_or_404
from api.jobs import start_job
from api.models import ApiJob
from config import params
from config.roles import ORGANIZER, PARTICIPANT
from pooling.models import Run
from scoring import pool_counts
from scoring.models import Score
from scoring.reports import build_report
from scoring.rescore import freshness
from scoring.results import can_see_run_scores, visible_runs


class Scores(RoleAPIView):
    """Who: organizers (every run); participants (their own teams' runs, once released). Stored scores, filtered
    by `scope` (run, series, question), `run` (tag) and `measure`; with how fresh they are."""

    allowed_roles = (ORGANIZER, PARTICIPANT)

    @extend_schema(
        parameters=[
            OpenApiParameter("scope", str, enum=[s for s, _ in Score.SCOPES]),
            OpenApiParameter("run", str),
            OpenApiParameter("measure", str),
        ]
    )
    def get(self, request, slug):
        evaluation = evaluation_or_404(slug)
        rows = Score.objects.filter(run__evaluation=evaluation).select_related("run", "topic").order_by("id")
        runs = visible_runs(request.user, evaluation)
        if isinstance(runs, list):
            rows = rows.filter(run__in=[r.pk for r in runs])
        scope = params.text(request.query_params.get("scope"), "scope")
        if scope:
            if scope not in {s for s, _ in Score.SCOPES}:
                raise ValidationError({"scope": "one of run, series, question"})
            rows = rows.filter(scope=scope)
        for field, column in (("run", "run__tag"), ("measure", "measure")):
            value = params.text(request.query_params.get(field), field)  # a NUL would reach PostgreSQL: 400
            if value:
                rows = rows.filter(**{column: value})
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(rows, request, view=self)
        shown = pool_counts.Shown(evaluation)  # (the per-question pool counts, shown where a detail showed them)
        response = paginator.get_paginated_response(
            [
                {
                    "run": x.run.tag,
                    "scope": x.scope,
                    "topic": x.topic.ident if x.topic_id else None,
                    "measure": x.measure,
                    "value": x.value,
                    "detail": shown.detail(x.scope, x.topic_id, x.measure, x.detail),
                    "computed_at": x.computed_at.isoformat(),
                }
                for x in page
            ]
        )
        fresh = freshness(evaluation)
        response.data["freshness"] = {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in fresh.items()}
        return response


class Rankings(RoleAPIView):
    """Who: organizers. The runs' rankings under every reading of the judgments (official, primary assessors only,
    second assessors, each judgment set), Kendall's τ, τ_AP and top-k overlap between them per run-level measure,
    and each run's rank interval and bounds for unjudged answers, with "as_of" (scoring.rankings; stored by the
    rescoring worker; before its first refresh, "as_of" is null and nothing else is given)."""

    def get(self, request, slug):
        from scoring.rankings import present

        shown = present(evaluation_or_404(slug))
        if shown is None:
            return Response({"as_of": None, "detail": "not computed yet: the worker ranks after its next pass"})
        for key in ("as_of", "official_as_of"):
            shown[key] = shown[key].isoformat() if shown[key] else None
        for row in shown["robustness"]["runs"]:
            row.pop("by_reading", None)  # (the page's pairs; "scores" holds the same by reading key)
        return Response(shown)


class Rescore(RoleAPIView):
    """Who: organizers. Recompute every score of the evaluation: 202 with a status URL."""

    @extend_schema(request=None, responses={202: s.Job})
    def post(self, request, slug):
        job = start_job(ApiJob.RESCORE, evaluation_or_404(slug), request.user)
        return accepted(request.build_absolute_uri(reverse("api:job", args=[job.pk])), id=job.pk)


class RunReport(RoleAPIView):
    """Who: as the run's report page: organizers; participants for their own teams' runs once released. The
    track's report of one run (the same numbers as its CSV/JSON downloads)."""

    allowed_roles = (ORGANIZER, PARTICIPANT)

    def get(self, request, slug, tag):
        run = Run.objects.select_related("evaluation", "team").filter(evaluation__slug=slug, tag=tag).first()
        if run is None or not can_see_run_scores(request.user, run):
            raise NotFound("no report for this run")
        return Response(build_report(run).as_dict())

"""Runs (check without storing, upload, list, delete) and pools (build: 202 with a status URL; progress), through
pooling.runs and pooling.pools as the pages and commands."""

from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from api import serializers as s
from api.common import RoleAPIView, TooLarge, accepted, evaluation_or_404, read, upload
from config import params
from config import uploads as uploads_limits
from config.roles import ORGANIZER, PARTICIPANT, has_role
from pooling.models import Evaluation, PoolBuild, Run
from pooling.pools import start_pool_build
from pooling.runs import check_run_file, delete_run, load_run_files, run_file_from_form


def run_data(run):
    return {
        "tag": run.tag,
        "team": run.team.name,
        "priority": run.priority,
        "manual": run.is_manual,
        "whole_collection": run.whole_collection,
        "lines": (run.data or {}).get("lines", 0),
        "loaded_at": run.loaded_at.isoformat(),
    }


class Runs(RoleAPIView):
    """Who: organizers (every run; POST uploads run files); participants (GET: their own teams' runs only).
    Upload: multipart `files` (one or more), `team`, optional `priority`, `manual`, `whole_collection`,
    `description` (of manual processing), `kind` and `initial_tag` (ciQA's initial/final pairs), as the upload
    page asks, and `override_reason` (accept breaches of the submission rules, frozen runs included: logged);
    each file is checked and stored only when it passes (pooling.runs.load_run_files)."""

    allowed_roles = (ORGANIZER, PARTICIPANT)
    method_roles = {"POST": (ORGANIZER,)}

    @extend_schema(responses=s.RunOut(many=True))
    def get(self, request, slug):
        evaluation = evaluation_or_404(slug)
        runs = (
            Run.objects.filter(evaluation=evaluation).select_related("team").order_by("team__name", "priority", "tag")
        )
        if not has_role(request.user, ORGANIZER):
            runs = runs.filter(team__members=request.user)
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(runs, request, view=self)
        return paginator.get_paginated_response([run_data(r) for r in page])

    @extend_schema(request={"multipart/form-data": s.RunUpload})
    def post(self, request, slug):
        evaluation = evaluation_or_404(slug)
        body = s.RunUpload(data=request.data)
        body.is_valid(raise_exception=True)
        d = body.validated_data
        too_big = [m for m in (uploads_limits.oversized(f, "runs") for f in d["files"]) if m]
        if too_big:  # every file's size is known before any is read
            raise TooLarge({"problems": too_big})
        files = [run_file_from_form(f.name, read(f, "runs"), d["team"], d) for f in d["files"]]
        # the receipt and audit name the caller
        results = load_run_files(evaluation, files, by=request.user, override_reason=d["override_reason"])
        out = [
            {
                "file": r.filename,
                "stored": r.run is not None,
                "replaced": r.replaced,
                "tag": r.run.tag if r.run else None,
                "problems": r.problems,
            }
            for r in results
        ]
        failed = any(r.problems for r in results)
        return Response({"runs": out}, status=status.HTTP_400_BAD_REQUEST if failed else status.HTTP_201_CREATED)


class RunCheck(RoleAPIView):
    """Who: organizers and participants. Check a run file (multipart `file`) against an evaluation open for runs
    or judging; nothing is stored. Answers every problem as `FILE:LINE: message`."""

    allowed_roles = (ORGANIZER, PARTICIPANT)

    @extend_schema(request={"multipart/form-data": s.FileUpload})
    def post(self, request, slug):
        evaluation = evaluation_or_404(slug)
        if evaluation.state == Evaluation.RELEASED and not has_role(request.user, ORGANIZER):
            raise NotFound("no evaluation open for runs with that slug")  # as the checker page offers it
        name, data = upload(request, "runs")
        problems, parsed = check_run_file(evaluation, data, name)
        body = {"file": name, "ok": not problems, "problems": problems}
        if parsed is not None:
            body |= {"tag": parsed.tag, "lines": len(parsed.entries)}
        return Response(body)


class RunDetail(RoleAPIView):
    """Who: organizers (any run; DELETE removes it with its scores, `?reason=` required once runs are frozen);
    participants (GET: their own teams' runs)."""

    allowed_roles = (ORGANIZER, PARTICIPANT)
    method_roles = {"DELETE": (ORGANIZER,)}

    def _run(self, request, slug, tag):
        run = Run.objects.select_related("team").filter(evaluation__slug=slug, tag=tag).first()
        if run is None or not (
            has_role(request.user, ORGANIZER) or run.team.members.filter(pk=request.user.pk).exists()
        ):
            raise NotFound("no such run")  # the same answer for another team's run: nothing leaks
        return run

    @extend_schema(responses=s.RunOut)
    def get(self, request, slug, tag):
        return Response(run_data(self._run(request, slug, tag)))

    def delete(self, request, slug, tag):
        run = self._run(request, slug, tag)
        reason = params.text(request.query_params.get("reason", ""), "reason")
        delete_run(run.evaluation, run.tag, by=request.user, reason=reason)
        return Response(status=status.HTTP_204_NO_CONTENT)


def build_data(request, build):
    return {
        "id": build.pk,
        "evaluation": build.evaluation.slug,
        "status": build.status,
        "done": build.done,
        "total": build.total,
        "percent": build.percent,
        "message": build.message,
        "counts": build.counts,
        "status_url": request.build_absolute_uri(reverse("api:pool_build", args=[build.pk])),
    }


class Pools(RoleAPIView):
    """Who: organizers. Start a pool build (202 with its status URL; a build already queued or running is
    reused), or see the latest builds (GET)."""

    def get(self, request, slug):
        evaluation = evaluation_or_404(slug)
        return Response([build_data(request, b) for b in evaluation.pool_builds.all()[:10]])

    @extend_schema(request=None, responses={202: s.Job})
    def post(self, request, slug):
        build = start_pool_build(evaluation_or_404(slug), request.user)
        data = build_data(request, build)
        return accepted(data.pop("status_url"), **data)


class PoolBuildStatus(RoleAPIView):
    """Who: organizers. How a pool build goes: status, series done of total, counts when done."""

    def get(self, request, pk):
        build = get_object_or_404(PoolBuild.objects.select_related("evaluation"), pk=pk)
        return Response(build_data(request, build))

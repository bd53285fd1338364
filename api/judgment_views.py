"""Assignments and judgments: who judges which series (assess.assignments), the judgments listed, exported (Assay
JSON Lines or the track's official formats, scoring.registry) and imported (202: api.jobs)."""

from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from api import serializers as s
from api.common import RoleAPIView, accepted, evaluation_or_404, upload
from api.jobs import start_job
from api.models import ApiJob
from assess.assignments import assign, unassign
from assess.models import Assignment, Judgment
from scoring.judgments_jsonl import export_jsonl
from scoring.registry import get_exports


class Assignments(RoleAPIView):
    """Who: organizers. Who judges which series (GET); POST makes a user the primary (or `second`) assessor of a
    series; DELETE (same body) removes that assignment."""

    def get(self, request, slug):
        evaluation = evaluation_or_404(slug)
        rows = Assignment.objects.filter(evaluation=evaluation).select_related("topic", "assessor")
        return Response([{"series": a.topic.ident, "username": a.assessor.username, "role": a.role} for a in rows])

    @extend_schema(request=s.AssignmentChange)
    def post(self, request, slug):
        evaluation = evaluation_or_404(slug)
        body = s.AssignmentChange(data=request.data)
        body.is_valid(raise_exception=True)
        d = body.validated_data
        a = assign(evaluation, d["series"], d["username"], d["second"])
        return Response(
            {"series": a.topic.ident, "username": a.assessor.username, "role": a.role, "warnings": a.warnings},
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(request=s.AssignmentChange)
    def delete(self, request, slug):
        evaluation = evaluation_or_404(slug)
        body = s.AssignmentChange(data=request.data)
        body.is_valid(raise_exception=True)
        if not unassign(evaluation, body.validated_data["series"], body.validated_data["second"]):
            raise NotFound("no such assignment")
        return Response(status=status.HTTP_204_NO_CONTENT)


class Judgments(RoleAPIView):
    """Who: organizers. Every judgment of the evaluation, a page at a time (topic, item key, kind, assessor,
    role, value, version, when)."""

    def get(self, request, slug):
        evaluation = evaluation_or_404(slug)
        rows = Judgment.objects.filter(evaluation=evaluation).select_related("topic", "item", "assessor").order_by("id")
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(rows, request, view=self)
        return paginator.get_paginated_response(
            [
                {
                    "topic": j.topic.ident,
                    "item": j.item.key if j.item_id else None,
                    "nugget": j.nugget_id,
                    "kind": j.kind,
                    "assessor": j.assessor.username,
                    "role": j.role,
                    "value": j.value,
                    "version": j.version,
                    "updated_at": j.updated_at.isoformat(),
                }
                for j in page
            ]
        )


class JudgmentExport(RoleAPIView):
    """Who: organizers. The judgments as a file: `jsonl` (Assay's lossless JSON Lines, searches included) or a
    format of the track's own (QA: NIST's list, nuggets, matches; BOLT: its DTD-valid XML)."""

    def get(self, request, slug, kind):
        evaluation = evaluation_or_404(slug)
        exports = {e.kind: e for e in get_exports(evaluation)[0]}
        writers = {"jsonl": export_jsonl} | {k: e.writer for k, e in exports.items()}
        if kind not in writers:
            raise NotFound(f"no {kind!r} export; this track has: {', '.join(sorted(writers))}")
        response = StreamingHttpResponse(writers[kind](evaluation), content_type="text/plain; charset=utf-8")
        ext = "jsonl" if kind == "jsonl" else exports[kind].ext
        response["Content-Disposition"] = f'attachment; filename="{slug}-{kind}.{ext}"'
        return response


class JudgmentImport(RoleAPIView):
    """Who: organizers. Import an Assay JSON Lines export (multipart `file`) into an evaluation without
    judgments: 202 with a status URL; all or nothing, a bad line named FILE:LINE in the job's message."""

    @extend_schema(request={"multipart/form-data": s.FileUpload}, responses={202: s.Job})
    def post(self, request, slug):
        evaluation = evaluation_or_404(slug)
        name, data = upload(request, "judgments")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ValidationError({"file": f"{name} is not UTF-8 text"}) from None
        job = start_job(ApiJob.IMPORT, evaluation, request.user, payload=text, filename=name)
        return accepted(request.build_absolute_uri(reverse("api:job", args=[job.pk])), id=job.pk)


class JobStatus(RoleAPIView):
    """Who: organizers. How a long job (judgment import, full rescoring) goes, and its outcome."""

    def get(self, request, pk):
        job = get_object_or_404(ApiJob.objects.select_related("evaluation"), pk=pk)
        return Response(
            {
                "id": job.pk,
                "kind": job.kind,
                "evaluation": job.evaluation.slug,
                "status": job.status,
                "result": job.result,
                "message": job.message,
                "created_at": job.created_at.isoformat(),
                "finished_at": job.finished_at.isoformat() if job.finished_at else None,
            }
        )

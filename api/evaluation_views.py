"""Evaluations: create, list, settings, state, topics. Each calls what the organizer's pages and commands call
(pooling.evaluations, pooling.topics), so a rule added there holds here too."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from api import serializers as s
from api.common import RoleAPIView, evaluation_or_404, upload
from config.roles import ORGANIZER
from pooling.evaluations import create_evaluation, effective_settings, set_state, update_settings
from pooling.models import Evaluation, Topic
from pooling.topics import load_topics


def evaluation_data(request, evaluation):
    return {
        "slug": evaluation.slug,
        "title": evaluation.title,
        "track": evaluation.track,
        "state": evaluation.state,
        "collections": sorted(c.name for c in evaluation.collections.all()),
        "settings": effective_settings(evaluation),
        "url": request.build_absolute_uri(f"/api/evaluations/{evaluation.slug}/"),
    }


class EvaluationList(RoleAPIView):
    """Who: organizers. List the evaluations, or create one (POST: slug, track, title, collections, settings)."""

    allowed_roles = (ORGANIZER,)

    @extend_schema(responses=s.EvaluationOut(many=True))
    def get(self, request):
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(Evaluation.objects.prefetch_related("collections"), request, view=self)
        return paginator.get_paginated_response([evaluation_data(request, e) for e in page])

    @extend_schema(request=s.EvaluationCreate, responses={201: s.EvaluationOut})
    def post(self, request):
        body = s.EvaluationCreate(data=request.data)
        body.is_valid(raise_exception=True)
        d = body.validated_data
        evaluation = create_evaluation(d["slug"], d["track"], d["collections"], d["title"], d["settings"])
        return Response(evaluation_data(request, evaluation), status=status.HTTP_201_CREATED)


class EvaluationDetail(RoleAPIView):
    """Who: organizers. One evaluation; PATCH changes some of its settings (the others are kept)."""

    @extend_schema(responses=s.EvaluationOut)
    def get(self, request, slug):
        return Response(evaluation_data(request, evaluation_or_404(slug)))

    @extend_schema(request=s.SettingsChange, responses=s.EvaluationOut)
    def patch(self, request, slug):
        evaluation = evaluation_or_404(slug)
        body = s.SettingsChange(data=request.data)
        body.is_valid(raise_exception=True)
        update_settings(evaluation, body.validated_data["settings"], by=request.user)
        return Response(evaluation_data(request, evaluation))


class EvaluationState(RoleAPIView):
    """Who: organizers. Set the evaluation's state (open, judging, released)."""

    @extend_schema(request=s.StateChange, responses=s.EvaluationOut)
    def post(self, request, slug):
        evaluation = evaluation_or_404(slug)
        body = s.StateChange(data=request.data)
        body.is_valid(raise_exception=True)
        set_state(evaluation, body.validated_data["state"], by=request.user)
        return Response(evaluation_data(request, evaluation))


class Topics(RoleAPIView):
    """Who: organizers. The evaluation's topics (series and questions), or upload its topic file (POST, multipart
    `file`; parsed by the track's topic format, nothing stored when it has a problem)."""

    def get(self, request, slug):
        evaluation = evaluation_or_404(slug)
        paginator = PageNumberPagination()
        rows = Topic.objects.filter(evaluation=evaluation).select_related("parent").order_by("position")
        page = paginator.paginate_queryset(rows, request, view=self)
        return paginator.get_paginated_response(
            [
                {"ident": t.ident, "kind": t.kind, "text": t.text, "parent": t.parent.ident if t.parent else None}
                for t in page
            ]
        )

    @extend_schema(request={"multipart/form-data": s.FileUpload})
    def post(self, request, slug):
        evaluation = evaluation_or_404(slug)
        name, data = upload(request, "topics")
        return Response({"loaded": load_topics(evaluation, data, name)}, status=status.HTTP_201_CREATED)

"""Assisted judging in the API (issue 30; docs/assist.md): the design, the suggestions (listed, loaded from a file,
asked of the model server), the report, and an assessor's view of one item's suggestion — which obeys the same
rule as the judging pages (assess.assist.visible): nothing of a *reveal after* suggestion before the first save."""

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from api.common import RoleAPIView, accepted, evaluation_or_404, upload
from assess import assist, assist_client, assist_nuggets, assist_report
from assess.formats.suggestion_files import SuggestionFileError, parse_grades
from assess.judging import JudgingError
from assess.models import Assignment, AssistDesign, Suggestion
from assess.tasks import suggest_topic
from config import params
from config.celery import run_here_or_send
from config.roles import ASSESSOR
from pooling.models import PoolItem, Topic


class DesignBody(serializers.Serializer):
    unit = serializers.ChoiceField(choices=["item", "topic"], default="item")
    conditions = serializers.ListField(
        child=serializers.ChoiceField(choices=list(assist.CONDITIONS)), min_length=1, max_length=3
    )
    seed = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=2**63 - 1)


class SuggestionUpload(serializers.Serializer):
    file = serializers.FileField()
    format = serializers.ChoiceField(choices=list(assist.FORMATS))
    kind = serializers.CharField(required=False, max_length=30)
    grades = serializers.CharField(required=False, max_length=1000, help_text="qrels: 0=no,1=maybe,2=yes")


class PassBody(serializers.Serializer):
    topic = serializers.CharField(max_length=50)
    kind = serializers.CharField(max_length=30)


def _design(evaluation):
    d = AssistDesign.objects.filter(evaluation=evaluation).first()
    if d is None:
        return {"design": None, "split": assist.split_counts(evaluation)}
    return {
        "design": {"unit": d.unit, "conditions": d.conditions, "seed": d.seed, "created_at": d.created_at.isoformat()},
        "split": assist.split_counts(evaluation),
    }


class Design(RoleAPIView):
    """Who: organizers. The assisted-judging design (GET); POST draws the conditions per item or topic with a
    seed (a new random one, recorded, if none is given) — refused (400) once any judgment exists."""

    @extend_schema(request=DesignBody)
    def post(self, request, slug):
        evaluation = evaluation_or_404(slug)
        body = DesignBody(data=request.data)
        body.is_valid(raise_exception=True)
        d = body.validated_data
        assist.set_design(evaluation, unit=d["unit"], conditions=d["conditions"], seed=d.get("seed"), by=request.user)
        return Response(_design(evaluation), status=status.HTTP_201_CREATED)

    def get(self, request, slug):
        return Response(_design(evaluation_or_404(slug)))


def _row(s):
    return {
        "id": s.pk,
        "topic": s.topic.ident,
        "item": s.item.key if s.item_id else None,
        "pool_id": s.item.pool_id if s.item_id else None,
        "nugget": s.nugget_id,
        "kind": s.kind,
        **s.provenance(),
        "created_at": s.created_at.isoformat(),
    }


class Suggestions(RoleAPIView):
    """Who: organizers. Every suggestion and failed call of the evaluation with its provenance, a page at a time
    (?topic= one topic); POST loads a file (multipart `file`, `format` jsonl/qrels/nuggetizer, `kind` and
    `grades` for qrels): all or nothing, each problem named FILE:LINE."""

    def get(self, request, slug):
        evaluation = evaluation_or_404(slug)
        rows = Suggestion.objects.filter(evaluation=evaluation).select_related("topic", "item").order_by("id")
        topic = params.text(request.query_params.get("topic"), "topic")  # NUL and bad UTF-8: 400
        if topic:
            rows = rows.filter(topic__ident=topic[:50])
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(rows, request, view=self)
        return paginator.get_paginated_response([_row(s) for s in page])

    @extend_schema(request={"multipart/form-data": SuggestionUpload})
    def post(self, request, slug):
        evaluation = evaluation_or_404(slug)
        name, data = upload(request, "judgments")
        fmt = request.data.get("format")
        if fmt not in assist.FORMATS:
            raise ValidationError({"format": f"one of {', '.join(assist.FORMATS)}"})
        try:
            grades = parse_grades(request.data["grades"]) if request.data.get("grades") else None
        except SuggestionFileError as e:
            raise ValidationError({"grades": e.problems}) from None
        kind = request.data.get("kind") or None
        stored = assist.load_suggestions(evaluation, fmt, data, name, kind=kind, grades=grades, by=request.user)
        return Response({"stored": len(stored)}, status=status.HTTP_201_CREATED)


class SuggestionPass(RoleAPIView):
    """Who: organizers. Ask the evaluation's model server for one kind on every item of one topic (a Celery task;
    202 with where the stored rows appear). 400 when the model server is off."""

    @extend_schema(request=PassBody)
    def post(self, request, slug):
        evaluation = evaluation_or_404(slug)
        body = PassBody(data=request.data)
        body.is_valid(raise_exception=True)
        topic = Topic.objects.filter(evaluation=evaluation, ident=body.validated_data["topic"]).first()
        if topic is None:
            raise NotFound("no such topic")
        kind = body.validated_data["kind"]
        if kind not in assist_client.suggestible_kinds(evaluation):
            raise ValidationError({"kind": f"{evaluation.track} has no judgment kind {kind!r}"})
        try:
            assist_client.settings_of(evaluation)
        except assist_client.Off as e:
            raise ValidationError({"assist_model": str(e)}) from None
        run_here_or_send(suggest_topic, evaluation.pk, topic.pk, kind, request.user.pk)
        url = reverse("api:assist_suggestions", args=[slug]) + f"?topic={topic.ident}"
        return accepted(request.build_absolute_uri(url), topic=topic.ident, kind=kind)


class Report(RoleAPIView):
    """Who: organizers. The report per condition and assessor for one kind (?kind=; ?output=csv for CSV,
    ?output=facts for one CSV line per judgment; not ?format=, which DRF keeps for its renderers)."""

    def get(self, request, slug):
        evaluation = evaluation_or_404(slug)
        kinds = assist_report.assisted_kinds(evaluation)
        kind = request.query_params.get("kind") or (kinds[0] if kinds else "")
        if kind not in kinds:
            raise ValidationError({"kind": f"one of {', '.join(kinds) or 'none'}"})
        if request.query_params.get("output") == "facts":
            return HttpResponse(
                assist_report.facts_csv(assist_report.facts(evaluation, kind), kind),
                content_type="text/csv; charset=utf-8",
            )
        rows = assist_report.report(evaluation, kind)
        if request.query_params.get("output") == "csv":
            return HttpResponse(assist_report.as_csv(rows, kind), content_type="text/csv; charset=utf-8")
        return Response(
            {"kind": kind, "official": assist_report.official_value(evaluation), **_design(evaluation), "rows": rows}
        )


class ItemSuggestion(RoleAPIView):
    """Who: the assessors assigned to the item's topic. The machine suggestion of one kind for the item, as the
    judging page would show it now: state "off", "waiting" (reveal after: only after your first save) or "shown"
    with the suggestion."""

    allowed_roles = (ASSESSOR,)

    def get(self, request, item_id, kind):
        item = get_object_or_404(PoolItem.objects.select_related("topic", "evaluation"), pk=item_id)
        if not Assignment.objects.filter(
            assessor=request.user, topic_id__in={item.topic_id, item.topic.parent_id or item.topic_id}
        ).exists():
            raise NotFound("no such item among your assignments")
        if kind not in item.evaluation.track_spec.judgment_kinds:
            raise NotFound("no such judgment kind")
        seen = assist.visible(request.user, item, kind)
        body = {"item": item.pk, "kind": kind, "state": seen.state, "suggestion": None}
        if seen.state == "shown":
            s = seen.suggestion
            body["suggestion"] = {
                "value": s.value,
                "rationale": s.rationale,
                "source": s.source,
                "source_name": s.source_name,
                "shown_at": seen.shown_at.isoformat(),
            }
        return Response(body)


class TopicProposals(RoleAPIView):
    """Who: the assessors assigned to the topic. The model server's nugget proposals for the topic, as its nugget
    page would show them now: state "off", "waiting" (reveal after: only once your own list is marked done) or
    "shown" with the proposals not yet accepted or rejected. POST marks your own nugget list done (the topic's
    primary assessor; 403 otherwise)."""

    allowed_roles = (ASSESSOR,)

    def _topic(self, request, topic_id):
        topic = get_object_or_404(Topic.objects.select_related("evaluation"), pk=topic_id)
        if not Assignment.objects.filter(
            assessor=request.user, topic_id__in={topic.pk, topic.parent_id or topic.pk}
        ).exists():
            raise NotFound("no such topic among your assignments")
        return topic

    def get(self, request, topic_id):
        topic = self._topic(request, topic_id)
        seen = assist_nuggets.visible(request.user, topic)
        body = {"topic": topic.ident, "state": seen.state, "list_done": seen.done, "proposals": None}
        if seen.state == "shown":
            s = seen.suggestion
            body["proposals"] = {
                "id": s.pk,
                "nuggets": [{"index": n + 1, **p} for n, p in seen.pending],
                "rationale": s.rationale,
                "source": s.source,
                "source_name": s.source_name,
                "shown_at": seen.shown_at.isoformat(),
            }
        return Response(body)

    def post(self, request, topic_id):
        request.data  # noqa: B018 (no fields: a body sent anyway is read within its limits, hostile JSON a 400)
        topic = self._topic(request, topic_id)
        try:
            new = assist_nuggets.mark_list_done(request.user, topic)
        except JudgingError as e:
            return Response({"error": str(e)}, status=e.status)
        return Response({"topic": topic.ident, "list_done": True, "new": new})

"""A team's submissions through the API, as on its page (pooling.campaign_views.participate): a run (checked by
the track's format and submission rules, stored by pooling.runs.load_run_files) or a file of the track's that
is not a run (pooling.campaign.other_submissions: ciQA's URL files), each stored with a receipt."""

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response

from api import serializers as s
from api.common import RoleAPIView, evaluation_or_404, read
from config.roles import ORGANIZER, PARTICIPANT, has_role
from pooling import campaign
from pooling.models import Submission
from pooling.runs import check_run_file, load_run_files, run_file_from_form

RUN_KINDS = ("", "initial", "final")


def receipt_data(request, receipt):
    return {
        "id": receipt.pk,
        "team": receipt.team.name,
        "tag": receipt.tag,
        "kind": receipt.form.get("kind", ""),
        "initial_tag": receipt.form.get("initial_tag", ""),
        "filename": receipt.filename,
        "sha256": receipt.sha256,
        "size": receipt.size,
        "replaced": receipt.replaced,
        "submitted_at": receipt.submitted_at.isoformat(),
        "submitted_by": receipt.user.get_username() if receipt.user else None,
        "url": request.build_absolute_uri(reverse("pooling:receipt", args=[receipt.pk])),
    }


class Submissions(RoleAPIView):
    """Who: participants, for a team they belong to (GET: their teams' receipts; POST: check or submit one file
    within the track's rules and the window); organizers (GET: every receipt of the evaluation).
    POST multipart: `file`, `team` (may be left out by a member of one team), `action` (`submit`, the default, or
    `check`: nothing stored), `kind` (ciQA: `initial` or `final` run, or `urls` for a URL file), `initial_tag` (a
    final run's initial run), `priority`, `manual`, `whole_collection`, `description` (of manual processing)."""

    allowed_roles = (ORGANIZER, PARTICIPANT)
    method_roles = {"POST": (PARTICIPANT,)}

    def get(self, request, slug):
        evaluation = evaluation_or_404(slug)
        receipts = Submission.objects.filter(evaluation=evaluation).select_related("team", "user")
        if not has_role(request.user, ORGANIZER):
            receipts = receipts.filter(team__members=request.user)
        return Response([receipt_data(request, r) for r in receipts[:1000]])

    @extend_schema(request={"multipart/form-data": s.SubmissionUpload})
    def post(self, request, slug):
        evaluation = evaluation_or_404(slug)
        body = s.SubmissionUpload(data=request.data)
        body.is_valid(raise_exception=True)
        d = body.validated_data
        team = campaign.team_of(request.user, d["team"].strip())
        if team is None:
            raise NotFound("name one of your teams (team)")
        others = campaign.other_submissions(evaluation)
        if d["kind"] not in RUN_KINDS and d["kind"] not in others:
            raise ValidationError({"kind": f"one of {', '.join(k for k in (*RUN_KINDS[1:], *others))}, or none"})
        store = d["action"] == "submit"
        if d["kind"] in others:
            problems, parsed, receipt = campaign.submit_other(
                others[d["kind"]], evaluation, team, d["file"], request.user, store
            )
        else:
            run_file = run_file_from_form(d["file"].name, read(d["file"], "runs"), team.name, d)
            receipt = None
            if store:
                [result] = load_run_files(evaluation, [run_file], by=request.user)
                problems, parsed, receipt = result.problems, result.run, result.submission
            else:
                problems, parsed = check_run_file(evaluation, run_file.data, run_file.filename, submission=run_file)
        if problems:
            return Response({"file": d["file"].name, "problems": problems}, status=status.HTTP_400_BAD_REQUEST)
        if receipt is None:
            return Response({"file": d["file"].name, "ok": True, "tag": parsed.tag, "problems": []})
        return Response({"receipt": receipt_data(request, receipt)}, status=status.HTTP_201_CREATED)

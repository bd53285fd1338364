"""What every API view shares: the role check (config.roles, through api.auth.RolePermission), the pages'
errors as JSON (a LoadError's `FILE:LINE: message` problems, 400), and small readers of uploads."""

from django.shortcuts import get_object_or_404
from rest_framework import status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from config import uploads as uploads_limits
from config.params import BadParameter
from config.roles import ORGANIZER
from pooling.evaluations import LoadError
from pooling.models import Evaluation


class RoleAPIView(APIView):
    """Base of every API view: `allowed_roles` (and `method_roles`) as the pages; subclasses say "Who:"."""

    allowed_roles = (ORGANIZER,)
    method_roles: dict = {}

    def handle_exception(self, exc):
        if isinstance(exc, LoadError):
            return Response({"problems": exc.problems}, status=status.HTTP_400_BAD_REQUEST)
        if isinstance(exc, BadParameter):  # config.params: a malformed query value, named
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return super().handle_exception(exc)


def evaluation_or_404(slug):
    return get_object_or_404(Evaluation, slug=slug)


def read(f, kind):
    """The bytes of uploaded file `f` of `kind` (config.uploads: runs, topics, judgments...); a file over the
    kind's limit answers 413 naming it, its size and the limit, before anything is read."""
    try:
        return uploads_limits.read(f, kind)
    except uploads_limits.TooLarge as exc:
        raise TooLarge({"problems": [str(exc)]}) from None


class TooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "the file is larger than allowed"


def upload(request, kind, field="file"):
    """(file name, bytes) of a multipart upload of `kind` (read()); 400 naming the field when missing."""
    f = request.FILES.get(field)
    if f is None:
        raise ValidationError({field: "attach a file (multipart/form-data)"})
    return f.name, read(f, kind)


def accepted(job_url, **body):
    """202 with where to ask how the work goes."""
    return Response({"status_url": job_url, **body}, status=status.HTTP_202_ACCEPTED, headers={"Location": job_url})

"""What every API view shares: the role check (config.roles, through api.auth.RolePermission), the pages'
errors as JSON (a LoadError's `FILE:LINE: message` problems, 400), and small readers of uploads."""

from django.shortcuts import get_object_or_404
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from config.params import BadParameter
from config.roles import ORGANIZER
from pooling.loading import LoadError
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


def upload(request, field="file"):
    """(file name, bytes) of a multipart upload; 400 naming the field when missing."""
    f = request.FILES.get(field)
    if f is None:
        raise ValidationError({field: "attach a file (multipart/form-data)"})
    return f.name, f.read()


def uploads(request, field="files"):
    files = request.FILES.getlist(field)
    if not files:
        raise ValidationError({field: "attach one or more files (multipart/form-data)"})
    return [(f.name, f.read()) for f in files]


def accepted(job_url, **body):
    """202 with where to ask how the work goes."""
    return Response({"status_url": job_url, **body}, status=status.HTTP_202_ACCEPTED, headers={"Location": job_url})

"""Helpers shared by the pooling management commands."""

from django.core.management.base import CommandError

from pooling.models import Evaluation


def get_evaluation(slug):
    try:
        return Evaluation.objects.get(slug=slug)
    except Evaluation.DoesNotExist:
        raise CommandError(f"no evaluation with slug {slug!r}") from None


def read_file(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise CommandError(f"{path}: {exc.strerror}") from None


def fail_with(problems):
    """CommandError whose message lists every problem, one per line."""
    return CommandError("\n".join(problems))

"""An assessor's judging preferences, kept on the server (assess.models.JudgingPreference) so they are the same in
every browser they judge from: read when a judging page renders, saved when the assessor changes one."""

from assess.models import JudgingPreference


def auto_advance(user) -> bool:
    """Whether the judging pages move on by themselves after each complete judgment (off until turned on)."""
    if not getattr(user, "is_authenticated", False):
        return False
    return JudgingPreference.objects.filter(user=user, auto_advance=True).exists()


def set_auto_advance(user, on: bool) -> None:
    JudgingPreference.objects.update_or_create(user=user, defaults={"auto_advance": on})

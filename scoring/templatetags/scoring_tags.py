from django import template

from scoring import release
from scoring.release import released_for

register = template.Library()


@register.filter
def report_released(run):
    """Whether the run's team may see its report (whole evaluation or per-team release)."""
    return released_for(run.evaluation, run.team_id)


@register.filter
def when(value):
    """An instant (datetime or ISO text, as release records keep it) as "YYYY-MM-DD HH:MM:SS UTC"; "–" if none."""
    return release.when(value)


@register.filter
def percent(share):
    """A share in [0, 1] as "92.5 %"; "–" when unknown."""
    return "–" if share is None else f"{100 * share:.1f} %"


@register.filter
def num3(value):
    """A statistic to three decimals; "–" when undefined."""
    return "–" if value is None else f"{value:.3f}"


@register.filter
def index(sequence, position):
    """sequence[position] ("" outside it)."""
    try:
        return sequence[position]
    except (IndexError, TypeError, KeyError):
        return ""

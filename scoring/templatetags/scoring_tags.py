from django import template

from scoring.release import released_for

register = template.Library()


@register.filter
def report_released(run):
    """Whether the run's team may see its report (whole evaluation or per-team release)."""
    return released_for(run.evaluation, run.team_id)

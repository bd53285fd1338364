"""Judging progress in templates: {% load progress %}, then {{ seconds|duration }} and {% progress_bar p "label" %}."""

from django import template

register = template.Library()


@register.filter
def duration(seconds):
    """Seconds as people read them: "42 s", "7 min", "2 h 5 min"; "–" when unknown (none, or no gap between saves
    measured yet)."""
    if not seconds:
        return "–"
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60} min" if minutes % 60 else f"{minutes // 60} h"


@register.inclusion_tag("assess/_progress_bar.html")
def progress_bar(progress, label=""):
    """A bar of judged / total (assess.progress.Progress) with the counts beside it."""
    return {"p": progress, "label": label}

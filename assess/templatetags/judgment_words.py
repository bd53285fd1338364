"""Judgment values in words for the history: {% load judgment_words %}{% in_words kind value names %}."""

from django import template

from assess import kinds

register = template.Library()


@register.simple_tag
def in_words(kind, value, names=None):
    return kinds.in_words(kind, value, names)

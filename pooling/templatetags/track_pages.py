"""Links a track adds to the stage apps' pages (core.tracks.Track.*_links), so no template names a track."""

from django import template
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from core.tracks import TRACKS

register = template.Library()


def _links(links, slug):
    return format_html_join(
        "; ",
        '<a href="{}" id="{}">{}</a>{}',
        (
            (
                reverse(link.url_name, args=[slug]),
                link.ident,
                link.label,
                format_html(" (<code>{}</code>)", link.note.replace("SLUG", slug)) if link.note else "",
            )
            for link in links
        ),
    )


@register.simple_tag
def organizer_links(evaluation):
    """The track's own organizer pages for `evaluation`, as one paragraph (nothing when it has none)."""
    track = TRACKS.get(evaluation.track)
    if track is None or not track.organizer_links:
        return ""
    return format_html('<p class="track-links">{}</p>', _links(track.organizer_links, evaluation.slug))


@register.simple_tag
def participant_links(evaluation):
    """The track's pages for a participant of `evaluation`, in parentheses (nothing when it has none)."""
    track = TRACKS.get(evaluation.track)
    if track is None or not track.participant_links:
        return ""
    return format_html(" ({})", _links(track.participant_links, evaluation.slug))


@register.simple_tag
def assignment_url(assignment):
    """The assessor's page of `assignment`: the one its track judges on."""
    return reverse(TRACKS[assignment.evaluation.track].assignment_page, args=[assignment.pk])


@register.simple_tag
def adjudication_url(evaluation):
    """The page deciding `evaluation`'s disagreements: its track's (empty when the track has none)."""
    track = TRACKS.get(evaluation.track)
    return reverse(track.adjudication_page, args=[evaluation.slug]) if track and track.adjudication_page else ""


@register.simple_tag
def invitation_url(invitation):
    """Where an invitation leads: a voter to the series' voting page, an adjudicator to the disagreements."""
    if invitation.topic_id is not None:
        track = TRACKS.get(invitation.evaluation.track)
        return reverse(track.vote_page, args=[invitation.topic_id]) if track and track.vote_page else ""
    return adjudication_url(invitation.evaluation)

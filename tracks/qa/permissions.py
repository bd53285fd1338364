"""Who may change a QA question's structure (answer classes, nuggets) and who may vote on its nuggets."""

from assess.judging import Forbidden, assignment_role, may_adjudicate, refuse_if_closed, series_id, series_ident
from assess.models import Assignment, Invitation


def _standing(read):
    """(primary, voter) on the series as assess.judging.load_nugget read them with the nugget, or None."""
    if read is None or not hasattr(read, "series_voter"):
        return None
    return read.series_primary, read.series_voter


def may_vote(user, question, read=None):
    """`read`: the nugget as assess.judging.load_nugget read it (its series standing then asks nothing)."""
    standing = _standing(read)
    if standing is not None:
        return any(standing)
    sid = series_id(question)
    return (
        Assignment.objects.filter(assessor=user, topic_id=sid, role=Assignment.PRIMARY).exists()
        or Invitation.objects.filter(topic_id=sid, user=user, kind=Invitation.VOTER).exists()
    )


def revote_asked(user, question, read=None):
    """Whether the organizer asked `user`, the primary assessor of the question's series, for a later vote set
    (a voter invitation of the primary on their own series; TREC 2006/2007's ninth vote set). `read`: as
    may_vote's."""
    standing = _standing(read)
    if standing is not None:
        return all(standing)
    sid = series_id(question)
    return (
        Assignment.objects.filter(assessor=user, topic_id=sid, role=Assignment.PRIMARY).exists()
        and Invitation.objects.filter(topic_id=sid, user=user, kind=Invitation.VOTER).exists()
    )


def may_edit_structure(user, question):
    """Answer classes and nuggets are the primary assessor's (an organizer or adjudicator may fix them)."""
    role = assignment_role(user, question)
    return role == Assignment.PRIMARY or (role is None and may_adjudicate(user, question.evaluation))


def require_structure(user, question):
    if not may_edit_structure(user, question):
        raise Forbidden(
            f"only the primary assessor of series {series_ident(question)} may change its answer classes and nuggets"
        )
    refuse_if_closed(question)

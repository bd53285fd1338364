"""The document beside a pool item: the corpus viewer's sandboxed frame with the answer string highlighted, and
which collections an assessor may open in that viewer."""

from django.db.models import Q

from corpus import viewer
from corpus.models import Document


def frame_url(evaluation, docid, marks=()):
    """URL of the viewer frame for `docid` in the evaluation's collections, or None (no viewer yet, NIL, or a
    docid that is not loaded — the page then says so instead of showing a frame)."""
    if not docid:
        return None
    name = (
        Document.objects.filter(docno=docid, collection__evaluations=evaluation)
        .values_list("collection__name", flat=True)
        .first()
    )
    if name is None:
        return None
    return viewer.frame_url(
        name, docid, marks=tuple(m for m in marks if m), allow_images=bool(evaluation.setting("allow_images", False))
    )


def readable_collection_ids(user):
    """The collections whose documents `user` may open in the corpus viewer (registered with
    corpus.access from AssessConfig.ready): those of every evaluation where the user holds an assignment (primary
    or second) or an invitation (voter, adjudicator). A QuerySet, so the viewer uses it as a subquery."""
    from assess.models import Assignment, Invitation
    from pooling.models import Evaluation

    evaluations = Q(evaluation_id__in=Assignment.objects.filter(assessor=user).values("evaluation_id")) | Q(
        evaluation_id__in=Invitation.objects.filter(user=user).values("evaluation_id")
    )
    return Evaluation.collections.through.objects.filter(evaluations).values("collection_id")

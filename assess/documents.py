"""The document beside a pool item: the corpus viewer's sandboxed frame with the answer string highlighted, and
which collections an assessor may open in that viewer."""

from functools import cache

from django.db.models.expressions import RawSQL

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
    or second) or an invitation (voter, adjudicator). An SQL expression, so the viewer uses it as a subquery: the
    same subquery built as QuerySets cost each document frame 0.6 ms of Django's query building (issue 32)."""
    return RawSQL(_readable_sql(), [user.pk, user.pk])


@cache
def _readable_sql():  # (made once, when the models are loaded)
    from assess.models import Assignment, Invitation
    from pooling.models import Evaluation

    through = Evaluation.collections.through._meta
    evaluation = through.get_field("evaluation").column
    return (
        f"SELECT ec.{through.get_field('collection').column} FROM {through.db_table} ec WHERE ec.{evaluation} IN "
        f"(SELECT a.evaluation_id FROM {Assignment._meta.db_table} a WHERE a.assessor_id = %s UNION ALL "
        f"SELECT i.evaluation_id FROM {Invitation._meta.db_table} i WHERE i.user_id = %s)"
    )

"""Which collections' documents a user may open in the viewer.

corpus is the first stage (config <- corpus <- pooling <- assess <- scoring), so it knows nothing of
evaluations, assignments or invitations. A later app says who may read what by registering a function from its
AppConfig.ready() (a stage point of core.extension_points):

    ep.document_access.register(self.label, grant)    # grant(user) -> collection ids: an iterable, a values()
                                                      # QuerySet or an SQL expression (RawSQL) selecting them

Organizers read every collection. Anyone else reads the union of what the registered functions grant, and nothing
when none is registered: the viewer fails closed. (assess registers: the collections of the evaluations where the
user has an assignment or an invitation.)
"""

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from django.db.models import Q, QuerySet
from django.db.models.expressions import RawSQL

from config.roles import ORGANIZER, has_role
from core import extension_points as ep

if TYPE_CHECKING:  # named in annotations only (corpus.models is not imported at run time here)
    from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

    from corpus.models import Document

# grant(user) -> the ids of the collections the user may read: an iterable, a values() QuerySet, or an SQL
# expression selecting them (RawSQL: no query building per request)
type Grant = Callable[[AbstractBaseUser | AnonymousUser], Iterable[int] | QuerySet | RawSQL]


def _grants() -> list[Grant]:
    return [grant for _, grant in ep.document_access.items()]


def readable_documents(
    user: "AbstractBaseUser | AnonymousUser", documents: "QuerySet[Document]"
) -> "QuerySet[Document]":
    """`documents` (a Document QuerySet) narrowed to the collections `user` may read; a QuerySet given by a grant
    becomes a subquery, so the check costs no extra round trip."""
    if has_role(user, ORGANIZER):
        return documents
    allowed = Q(pk__in=[])  # matches nothing
    for grant in _grants():
        allowed |= Q(collection_id__in=grant(user))
    return documents.filter(allowed)


def readable_collections(user: "AbstractBaseUser | AnonymousUser", collections: "QuerySet") -> "QuerySet":
    """`collections` (a Collection QuerySet) narrowed to those `user` may read, as readable_documents."""
    if has_role(user, ORGANIZER):
        return collections
    allowed = Q(pk__in=[])
    for grant in _grants():
        allowed |= Q(pk__in=grant(user))
    return collections.filter(allowed)


def readable_condition(user: "AbstractBaseUser | AnonymousUser", column: str) -> tuple[str, list] | None:
    """The SQL condition that `column` (a collection id) is one `user` may read, with its parameters, for a
    statement written by hand: what readable_documents filters on (each grant a subquery or a list), FALSE when
    nothing is granted, None for organizers (they read everything)."""
    if has_role(user, ORGANIZER):
        return None
    parts, params = [], []
    for grant in _grants():
        granted = grant(user)
        if isinstance(granted, RawSQL):
            sql, more = granted.sql, list(granted.params)
        elif isinstance(granted, QuerySet):
            sql, query_params = granted.query.sql_with_params()
            more = list(query_params)
        else:
            more = [int(pk) for pk in granted]
            if not more:
                continue
            sql = ", ".join(["%s"] * len(more))
        parts.append(f"{column} IN ({sql})")
        params += more
    return ("(" + " OR ".join(parts) + ")" if parts else "FALSE"), params

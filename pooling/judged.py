"""Which pool items carry judgments: asked by pool rebuilding (an item judged is never dropped), answered by the
judging stage, which registers itself from its AppConfig.ready() — pooling comes first and cannot import it."""

from collections.abc import Callable, Iterable

_sources: list[Callable[[Iterable[int]], set[int]]] = []


def register_judged_items(source: Callable[[Iterable[int]], set[int]]) -> None:
    """`source(question_ids)` returns the ids of those questions' pool items that have a judgment."""
    if source not in _sources:
        _sources.append(source)


def judged_item_ids(question_ids: Iterable[int]) -> set[int]:
    question_ids = list(question_ids)
    judged: set[int] = set()
    for source in _sources:
        judged |= source(question_ids)
    return judged

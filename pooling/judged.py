"""Which pool items carry judgments: asked by pool rebuilding (an item judged is never dropped), answered by the
judging stage through core.extension_points.judged_items (pooling comes first and cannot import it)."""

from collections.abc import Iterable

from core import extension_points as ep


def judged_item_ids(question_ids: Iterable[int]) -> set[int]:
    question_ids = list(question_ids)
    judged: set[int] = set()
    for _, source in ep.judged_items.items():
        judged |= source(question_ids)
    return judged

"""The pool items that carry a judgment, for pool rebuilding (registered in AssessConfig.ready())."""

from assess.models import Judgment


def judged_item_ids(question_ids):
    return set(
        Judgment.objects.filter(topic_id__in=list(question_ids), item__isnull=False).values_list("item_id", flat=True)
    )

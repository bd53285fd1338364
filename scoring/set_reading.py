"""A judgment set read as the judgments (assess.official.reading's source object), so a track's scorer scores the
runs under it. Reading only: nothing here writes a judgment or a score."""

from scoring.models import SetJudgment


class SetReading:
    """The judgments of one JudgmentSet. A kind the set holds none of at all (a nuggetizer file of matches holds no
    vital/okay votes) is read from the official judgments (rows returns None): the set replaces what it judged."""

    def __init__(self, judgment_set_id):
        self.judgment_set_id = judgment_set_id
        self._kinds = None

    def kinds(self):
        if self._kinds is None:
            self._kinds = set(
                SetJudgment.objects.filter(judgment_set_id=self.judgment_set_id)
                .order_by()
                .values_list("kind", flat=True)
                .distinct()
            )
        return self._kinds

    def rows(self, topic_ids, kind):
        if kind not in self.kinds():
            return None
        return [
            (item_id if item_id is not None else nugget_id, value)
            for item_id, nugget_id, value in SetJudgment.objects.filter(
                judgment_set_id=self.judgment_set_id, topic_id__in=list(topic_ids), kind=kind
            )
            .order_by("id")
            .values_list("item_id", "nugget_id", "value")
        ]

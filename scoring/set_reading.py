"""A judgment set read as the judgments (assess.official.reading's source object), so a track's scorer scores the
runs under it. Reading only: nothing here writes a judgment or a score."""

from assess.official import VOTE_KINDS, official_by_subject
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

    def differing_topics(self, evaluation_id):
        """The topics where reading the set differs from the official reading: a subject of a kind the set holds
        that the two judge differently or only one of them judges; for votes, every topic either votes on (the
        set's votes replace the pyramid's). Elsewhere the official scores stand for the set's."""
        kinds = self.kinds()
        if not kinds:
            return set()
        official = official_by_subject(evaluation_id, kinds)
        mine = {}
        topics = set()
        for kind, topic_id, item_id, nugget_id, value in (
            SetJudgment.objects.filter(judgment_set_id=self.judgment_set_id)
            .order_by("id")
            .values_list("kind", "topic_id", "item_id", "nugget_id", "value")
        ):
            mine[(kind, item_id if item_id is not None else nugget_id)] = (topic_id, value)
        for key in official.keys() | mine.keys():
            theirs, ours = official.get(key), mine.get(key)
            if key[0] in VOTE_KINDS or theirs is None or ours is None or theirs[1] != ours[1]:
                topics.add((theirs or ours)[0])
                if ours is not None and theirs is not None:
                    topics.add(ours[0])
        return topics

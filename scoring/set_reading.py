"""A judgment set read as the judgments (assess.official.reading's source object), so a track's scorer scores the
runs under it. Reading only: nothing here writes a judgment or a score."""

from django.db import connection

from assess.models import Judgment
from assess.official import VOTE_KINDS, key_texts, official_by_subject
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

    def fields(self, topic_ids, kind, keys):
        """assess.official.official_fields under this set: the values' top-level keys as text, from the database."""
        if kind not in self.kinds():
            return None
        rows = key_texts(
            SetJudgment.objects.filter(
                judgment_set_id=self.judgment_set_id, topic_id__in=list(topic_ids), kind=kind
            ).order_by("id"),
            ("item_id", "nugget_id"),
            keys,
        )
        return {item_id if item_id is not None else nugget_id: tuple(fields) for item_id, nugget_id, *fields in rows}

    def differing_topics(self, evaluation_id):
        """The topics where reading the set differs from the official reading: a subject of a kind the set holds
        that the two judge differently or only one of them judges; for votes, every topic either votes on (the
        set's votes replace the pyramid's). Elsewhere the official scores stand for the set's."""
        kinds = self.kinds()
        if not kinds:
            return set()
        if connection.vendor == "postgresql":
            return self._differing_in_the_database(evaluation_id, kinds)
        return self._differing_in_python(evaluation_id, kinds)

    def _differing_in_python(self, evaluation_id, kinds):
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

    def _differing_in_the_database(self, evaluation_id, kinds):
        """differing_topics by one query: the official judgment of each subject (adjudicated first, then the latest,
        as assess.official reads it) fully joined to the set's, compared as jsonb; no value comes to Python."""
        sql = f"""
            WITH official AS (
                SELECT DISTINCT ON (kind, coalesce(item_id, nugget_id)) topic_id, kind,
                       coalesce(item_id, nugget_id) AS subject, value
                FROM "{Judgment._meta.db_table}"
                WHERE evaluation_id = %s AND kind = ANY(%s) AND role = ANY(%s)
                ORDER BY kind, coalesce(item_id, nugget_id), role = %s DESC, id DESC
            ), mine AS (
                SELECT DISTINCT ON (kind, coalesce(item_id, nugget_id)) topic_id, kind,
                       coalesce(item_id, nugget_id) AS subject, value
                FROM "{SetJudgment._meta.db_table}"
                WHERE judgment_set_id = %s AND kind = ANY(%s)
                ORDER BY kind, coalesce(item_id, nugget_id), id DESC
            )
            SELECT DISTINCT unnest(ARRAY[o.topic_id, m.topic_id])
            FROM official o FULL JOIN mine m ON m.kind = o.kind AND m.subject = o.subject
            WHERE o.value IS DISTINCT FROM m.value OR coalesce(o.kind, m.kind) = ANY(%s)"""
        with connection.cursor() as cursor:
            cursor.execute(
                sql,
                [
                    evaluation_id,
                    sorted(kinds),
                    [Judgment.PRIMARY, Judgment.ADJUDICATED],
                    Judgment.ADJUDICATED,
                    self.judgment_set_id,
                    sorted(kinds),
                    list(VOTE_KINDS),
                ],
            )
            return {topic_id for (topic_id,) in cursor if topic_id is not None}

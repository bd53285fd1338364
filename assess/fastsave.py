"""The judgment save path on PostgreSQL in as few round trips as it takes: one query to read the item with its
question, evaluation, closure and the user's assignment; one statement to write the judgment, its history row and
the question's stale mark together (data-modifying CTE, row-locked by the UPDATE itself, its own transaction).
assess.judging uses these when the database is PostgreSQL and falls back to the ORM elsewhere (the SQLite demo);
both paths keep the same rules and are tested.
"""

import functools
import json

from django.db import DEFAULT_DB_ALIAS, connection, connections

from assess.models import Assignment, Invitation, Judgment, JudgmentChange, Nugget, TopicClosure
from config import prepared
from pooling.models import StaleTopic

# data too: BOLT refuses a grouping view by it and BioGen's answer names its frame's PMIDs there; left out, the
# first access to it would send a statement of its own
ITEM_FIELDS = ("id", "evaluation_id", "topic_id", "key", "pool_id", "docid", "text", "origin", "position", "data")
TOPIC_FIELDS = ("id", "evaluation_id", "parent_id", "ident", "kind", "text", "position")
EVALUATION_FIELDS = ("id", "slug", "title", "track", "state", "settings")


def available():
    return connection.vendor == "postgresql"


@functools.cache
def _plan(model, names):
    """(attnames, [(position, converter)]) of `names` (attnames such as topic_id are known to get_field too):
    looked up once per model, not on every save."""
    fields = [model._meta.get_field(n) for n in names]
    converters = [(i, f.from_db_value) for i, f in enumerate(fields) if hasattr(f, "from_db_value")]
    return [f.attname for f in fields], converters


def _build(model, names, values, conn):
    attnames, converters = _plan(model, names)
    if converters:
        values = list(values)
        for i, convert in converters:
            if values[i] is not None:
                values[i] = convert(values[i], None, conn)
    return model.from_db(conn.alias, attnames, values)


_COLUMNS = [f"i.{c}" for c in ITEM_FIELDS] + [f"t.{c}" for c in TOPIC_FIELDS] + [f"e.{c}" for c in EVALUATION_FIELDS]


def _item_sql(user):
    return (
        f"SELECT {', '.join(_COLUMNS)}, "
        "EXISTS (SELECT 1 FROM assess_topicclosure c WHERE c.topic_id = t.id OR c.topic_id = t.parent_id), "
        f"(SELECT a.role FROM assess_assignment a WHERE a.assessor_id = {user} "
        " AND (a.topic_id = t.id OR a.topic_id = t.parent_id) LIMIT 1) "
        "FROM pooling_poolitem i JOIN pooling_topic t ON t.id = i.topic_id "
        "JOIN pooling_evaluation e ON e.id = i.evaluation_id WHERE i.id = %s::bigint"
    )


_ITEM = _item_sql("%s::integer")
# load_item's query as config.auth.read_with_session takes it: the session's user is u.id, TRUE marks a row found
ITEM_WITH_SESSION = "SELECT TRUE, " + _item_sql("u.id").removeprefix("SELECT ")


# A nugget with its question and evaluation, the user's assignment role on the question's series (as load_item's),
# and whether the user is that series' primary assessor and an invited voter on it (the vote's permissions).
NUGGET_FIELDS = ("id", "topic_id", "text", "position", "created_by_id", "created_at")
_SERIES = "COALESCE(t.parent_id, t.id)"


def _nugget_sql(users):
    """`users`: what the FROM clause starts with, binding the user as u.id."""
    columns = [f"n.{c}" for c in NUGGET_FIELDS] + _COLUMNS[len(ITEM_FIELDS) :]
    return (
        f"SELECT {', '.join(columns)}, "
        "(SELECT a.role FROM assess_assignment a WHERE a.assessor_id = u.id "
        " AND (a.topic_id = t.id OR a.topic_id = t.parent_id) LIMIT 1), "
        f"EXISTS (SELECT 1 FROM assess_assignment a WHERE a.assessor_id = u.id AND a.topic_id = {_SERIES} "
        f" AND a.role = '{Assignment.PRIMARY}'), "
        f"EXISTS (SELECT 1 FROM assess_invitation v WHERE v.user_id = u.id AND v.topic_id = {_SERIES} "
        f" AND v.kind = '{Invitation.VOTER}') "
        f"FROM {users}assess_nugget n JOIN pooling_topic t ON t.id = n.topic_id "
        "JOIN pooling_evaluation e ON e.id = t.evaluation_id WHERE n.id = %s::bigint"
    )


_NUGGET = _nugget_sql("(SELECT %s::integer AS id) u CROSS JOIN ")
# load_nugget's query as config.auth.read_with_session takes it (the session's user is u.id already)
NUGGET_WITH_SESSION = "SELECT TRUE, " + _nugget_sql("").removeprefix("SELECT ")


def load_nugget(user_id, nugget_id):
    """(Nugget with .topic (.evaluation), .my_role, .series_primary, .series_voter) or None."""
    row = prepared.fetchone(_NUGGET, [user_id, nugget_id])
    return None if row is None else nugget_from_row(row)


def nugget_from_row(row):
    """load_nugget's answer from its row (or NUGGET_WITH_SESSION's, without its first column)."""
    from pooling.models import Evaluation, Topic

    conn = connections[DEFAULT_DB_ALIAS]
    a, b = len(NUGGET_FIELDS), len(NUGGET_FIELDS) + len(TOPIC_FIELDS)
    nugget = _build(Nugget, NUGGET_FIELDS, row[:a], conn)
    nugget.topic = _build(Topic, TOPIC_FIELDS, row[a:b], conn)
    nugget.topic.evaluation = _build(Evaluation, EVALUATION_FIELDS, row[b : b + len(EVALUATION_FIELDS)], conn)
    nugget.my_role, nugget.series_primary, nugget.series_voter = row[-3:]
    return nugget


def load_item(user_id, item_id):
    """(PoolItem with .topic, .evaluation, .closed, .my_role) or None."""
    row = prepared.fetchone(_ITEM, [user_id, item_id])
    return None if row is None else item_from_row(row)


def item_from_row(row):
    """load_item's answer from its row (or ITEM_WITH_SESSION's, without its first column)."""
    from pooling.models import Evaluation, PoolItem, Topic

    conn = connections[DEFAULT_DB_ALIAS]
    a, b = len(ITEM_FIELDS), len(ITEM_FIELDS) + len(TOPIC_FIELDS)
    item = _build(PoolItem, ITEM_FIELDS, row[:a], conn)
    item.topic = _build(Topic, TOPIC_FIELDS, row[a:b], conn)
    evaluation = _build(Evaluation, EVALUATION_FIELDS, row[b : b + len(EVALUATION_FIELDS)], conn)
    item.evaluation = item.topic.evaluation = evaluation
    item.closed, item.my_role = row[-2], row[-1]
    return item


_J, _C = Judgment._meta.db_table, JudgmentChange._meta.db_table
_S, _CLOSURE = StaleTopic._meta.db_table, TopicClosure._meta.db_table

# Refused inside the statement too, so a closure committed after load_item read "open" still stops the save.
_OPEN = f"NOT EXISTS (SELECT 1 FROM {_CLOSURE} c WHERE c.topic_id IN (%(topic)s::bigint, %(series)s::bigint))"

# The stale mark of pooling.staleness, written by the same statement: the judgment, its history row and the mark
# commit together or not at all. clock_timestamp(), not now(): rescoring clears a mark only if changed_at is
# still what it read, so two saves must not share a stamp. One stamp for both columns: two calls differ.
_STALE = f"""
stale AS (
  INSERT INTO {_S} (topic_id, evaluation_id, since, changed_at)
  SELECT %(topic)s::bigint, %(evaluation)s::bigint, stamp, stamp FROM saved, clock_timestamp() AS stamp
  ON CONFLICT (topic_id) DO UPDATE SET changed_at = EXCLUDED.changed_at)"""

_INSERT = f"""
WITH saved AS (
  INSERT INTO {_J} (evaluation_id, topic_id, kind, item_id, nugget_id, assessor_id, role, value, version, updated_at)
  SELECT %(evaluation)s::bigint, %(topic)s::bigint, %(kind)s::varchar, %(item)s::bigint, %(nugget)s::bigint,
         %(user)s::integer, %(role)s::varchar, %(value)s::jsonb, 1, now()
  WHERE {_OPEN}
  ON CONFLICT DO NOTHING RETURNING id, version, updated_at),
chg AS (
  INSERT INTO {_C} (judgment_id, changed_by_id, changed_at, version, before, after)
  SELECT id, %(user)s::integer, now(), version, NULL, %(value)s::jsonb FROM saved),
{_STALE}
SELECT id, version, updated_at, NULL::jsonb, %(value)s::jsonb FROM saved"""

# {value} is the new value: the parameter, or the parameter with keys kept from the locked row (_value_sql).
_UPDATE = f"""
WITH saved AS (
  UPDATE {_J} j SET value = {{value}}, role = %(role)s::varchar, version = j.version + 1, updated_at = now()
  FROM (SELECT id, value FROM {_J} WHERE kind = %(kind)s::varchar AND assessor_id = %(user)s::integer
              AND {{subject}} = %(subject)s::bigint
        FOR UPDATE) old
  WHERE j.id = old.id AND j.version = %(expected)s::integer
    AND (j.value <> {{value}} OR j.role <> %(role)s::varchar)
    AND {_OPEN}
  RETURNING j.id, j.version, j.updated_at, old.value AS before, j.value AS after),
chg AS (
  INSERT INTO {_C} (judgment_id, changed_by_id, changed_at, version, before, after)
  SELECT id, %(user)s::integer, now(), version, before, after FROM saved),
{_STALE}
SELECT id, version, updated_at, before, after FROM saved"""


def _value_sql(keep):
    """The new value's SQL: the parameter, with each `keep` key taken from the locked current row instead."""
    if not keep:
        return "%(value)s::jsonb"
    pairs = ", ".join(f"%(keep{i})s::text, old.value -> %(keep{i})s::text" for i in range(len(keep)))
    return f"(%(value)s::jsonb || jsonb_build_object({pairs}))"


def write(user, *, topic, kind, role, value, expected_version, item=None, nugget=None, keep=()):
    """Insert (expected_version 0) or update (expected_version N) the judgment, its history row and the question's
    stale mark in one statement, which is its own transaction when the caller has none (no BEGIN/COMMIT round
    trips). An update keeps the `keep` keys of the current value (assess.judging.save_judgment). Returns (the
    saved Judgment, the value before), or None when nothing was written (stale, closed, or the same value): the
    caller then reads the current state to tell which. The caller asks for rescoring after commit."""
    params = {
        "evaluation": topic.evaluation_id,
        "topic": topic.pk,
        "series": topic.parent_id or topic.pk,
        "kind": kind,
        "user": user.pk,
        "role": role,
        "value": json.dumps(value),
        "item": item.pk if item is not None else None,
        "nugget": nugget.pk if nugget is not None else None,
        "expected": expected_version,
        "subject": item.pk if item is not None else nugget.pk,
    }
    params.update((f"keep{i}", key) for i, key in enumerate(keep))
    if not expected_version:
        sql = _INSERT
    else:
        sql = _UPDATE.format(subject="item_id" if item is not None else "nugget_id", value=_value_sql(keep))
    row = prepared.fetchone(sql, params)
    if row is None:
        return None
    judgment = Judgment(
        id=row[0],
        evaluation_id=topic.evaluation_id,
        topic=topic,
        kind=kind,
        assessor=user,
        role=role,
        value=_loaded(row[4]),
        version=row[1],
        item=item,
        nugget=nugget,
    )
    judgment.updated_at = row[2]
    judgment._state.adding = False
    return judgment, _loaded(row[3])


def _loaded(value):
    """A jsonb column as Python: Django's connection hands jsonb over as text (JSONField parses it itself)."""
    return json.loads(value) if isinstance(value, str) else value

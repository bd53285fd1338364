"""QA's records in Assay's judgments file (scoring.judgments_jsonl): answer classes and nuggets, the ids of them
that judgment values (an instance's "answer_class", a nugget_match's "nuggets") and the structure log ("class.*",
"nugget.*" actions, nugget orders, the votes a merge or deletion took away) name. Registered for every QA track
(tracks/qa/apps.py) at core.extension_points.judgments_jsonl."""

from assess.models import AnswerClass, Nugget
from scoring.judgments_jsonl import TrackRecords, item_ids


def structure_ids(action, value, answer_class, nugget, item, user):
    """A structure-log value (before or after) with its ids put through the given functions (id -> id): the
    class or nugget the action is about ("id", "sources"), nugget orders, pool items ("item", "items") and the
    votes a merge or deletion took away ("nugget_id", "assessor_id"). The shapes are those of the QA saves
    (tracks.qa.instance_judging, nugget_judging) and assess.judging's closures."""
    if not isinstance(value, dict):
        return value
    own = answer_class if action.startswith("class.") else nugget if action.startswith("nugget.") else None
    out = item_ids(value, item)
    if own is not None and isinstance(out.get("id"), int):
        out["id"] = own(out["id"])
    if own is not None and isinstance(out.get("sources"), list):
        out["sources"] = [dict(x, id=own(x["id"])) if isinstance(x, dict) and "id" in x else x for x in out["sources"]]
    if isinstance(out.get("order"), list):
        out["order"] = [nugget(i) for i in out["order"]]
    if isinstance(out.get("votes"), list):
        out["votes"] = [_vote_ids(v, nugget, user) for v in out["votes"]]
    return out


def _vote_ids(vote, nugget, user):
    if not isinstance(vote, dict):
        return vote
    vote = dict(vote)
    if isinstance(vote.get("nugget_id"), int):
        vote["nugget_id"] = nugget(vote["nugget_id"])
    if isinstance(vote.get("assessor_id"), int):
        vote["assessor_id"] = user(vote["assessor_id"])
    return vote


class QaRecords(TrackRecords):
    """Answer classes and nuggets out (before the judgments that name them) and back in, with their ids mapped:
    source id -> the target's, and a class or nugget deleted in the source (named only by history) negated."""

    def __init__(self, evaluation, importing=None):
        super().__init__(evaluation, importing)
        self.class_ids, self.nugget_ids = {}, {}
        self.readers = {"answer_class": self.read_class, "nugget": self.read_nugget}

    def export(self, names):
        for c in AnswerClass.objects.filter(topic__evaluation=self.evaluation).order_by("id"):
            yield {
                "type": "answer_class",
                "id": c.id,
                "topic": names.ident[c.topic_id],
                "label": c.label,
                "created_by": names.users[c.created_by_id],
                "created_at": c.created_at.isoformat(),
            }
        for n in Nugget.objects.filter(topic__evaluation=self.evaluation).order_by("id"):
            yield {
                "type": "nugget",
                "id": n.id,
                "topic": names.ident[n.topic_id],
                "text": n.text,
                "position": n.position,
                "created_by": names.users[n.created_by_id],
                "created_at": n.created_at.isoformat(),
            }

    def held(self):
        on = {"topic__evaluation": self.evaluation}
        return Nugget.objects.filter(**on).exists() or AnswerClass.objects.filter(**on).exists()

    def read_class(self, imp, rec):
        imp.once(("answer_class", rec["id"]), f"answer class id {rec['id']!r}")
        c = AnswerClass.objects.create(
            topic=imp.topic(rec["topic"]), label=rec["label"], created_by=imp.user(rec["created_by"])
        )
        self.class_ids[rec["id"]] = c.id
        imp.stamp(AnswerClass, c.id, "created_at", rec.get("created_at"))

    def read_nugget(self, imp, rec):
        imp.once(("nugget", rec["id"]), f"nugget id {rec['id']!r}")
        n = Nugget.objects.create(
            topic=imp.topic(rec["topic"]),
            text=rec["text"],
            position=rec.get("position", 0),
            created_by=imp.user(rec["created_by"]),
        )
        self.nugget_ids[rec["id"]] = n.id
        imp.stamp(Nugget, n.id, "created_at", rec.get("created_at"))

    def nugget(self, source_id):
        if source_id not in self.nugget_ids:
            raise self.importing.error(f"nugget {source_id} not defined before this line")
        return self.nugget_ids[source_id]

    def value(self, kind, value, history):
        if value.get("answer_class") is not None:
            if value["answer_class"] not in self.class_ids and not history:
                raise self.importing.error(f"answer class {value['answer_class']} not defined before this line")
            value["answer_class"] = self._own(self.class_ids, "answer class")(value["answer_class"])
        if kind == "nugget_match":
            nuggets = value.get("nuggets", [])
            missing = [n for n in nuggets if n not in self.nugget_ids]
            if missing and not history:
                raise self.importing.error(f"nugget {missing[0]} not defined before this line")
            value["nuggets"] = [self._own(self.nugget_ids, "nugget")(n) for n in nuggets]
        return value

    def structure_ids(self, action, value, item, user):
        classes, nuggets = self._own(self.class_ids, "answer class"), self._own(self.nugget_ids, "nugget")
        return structure_ids(action, value, classes, nuggets, item, user)

    def _own(self, ids, what):
        """An export names the source's own ids as they are; an import maps them (Importing.source_ids)."""
        return int if self.importing is None else self.importing.source_ids(ids, what)

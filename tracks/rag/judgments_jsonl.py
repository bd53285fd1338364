"""TREC RAG's records in Assay's judgments file (scoring.judgments_jsonl): the topics' nuggets and their pending
suggestions, and the nugget ids that answer judgments ("nuggets" keys) and the structure log ("nugget.*" actions)
name. Registered at core.extension_points.judgments_jsonl (plugin.py). QA has its own for its nuggets
(tracks/qa/judgments_jsonl.py); the two could move to a stage module if a third track needs them."""

from assess.models import Nugget
from pooling.models import Topic
from scoring.judgments_jsonl import TrackRecords, item_ids
from tracks.rag.judging import SUGGESTIONS
from tracks.rag.labels import KIND


class RagRecords(TrackRecords):
    def __init__(self, evaluation, importing=None):
        super().__init__(evaluation, importing)
        self.nugget_ids = {}
        self.readers = {"nugget": self.read_nugget, "nugget_suggestions": self.read_suggestions}

    def export(self, names):
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
        for t in Topic.objects.filter(evaluation=self.evaluation).order_by("position", "id"):
            if SUGGESTIONS in (t.data or {}):  # an empty list too: a rebuild may have loaded them again
                yield {"type": "nugget_suggestions", "topic": t.ident, "suggestions": t.data[SUGGESTIONS]}

    def held(self):
        return Nugget.objects.filter(topic__evaluation=self.evaluation).exists()

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

    def read_suggestions(self, imp, rec):
        topic = imp.topic(rec["topic"])
        pending = rec.get("suggestions")
        if not isinstance(pending, list) or not all(
            isinstance(s, dict) and isinstance(s.get("text"), str) and s.get("importance") in ("vital", "okay")
            for s in pending
        ):
            raise imp.error("suggestions must be a list of {text, importance: vital|okay}")
        topic.data = dict(
            topic.data or {}, **{SUGGESTIONS: [{"text": s["text"], "importance": s["importance"]} for s in pending]}
        )
        topic.save(update_fields=["data"])

    def nugget(self, source_id):
        if source_id not in self.nugget_ids:
            raise self.importing.error(f"nugget {source_id} not defined before this line")
        return self.nugget_ids[source_id]

    def value(self, kind, value, history):
        held = value.get("nuggets") if kind == KIND else None
        if held:
            to = self._own("nugget")
            out = {}
            for key, assigned in held.items():
                if not str(key).lstrip("-").isdigit():
                    raise self.importing.error(f"nugget {key!r} is not an id")
                if self.importing is not None and int(key) not in self.nugget_ids and not history:
                    raise self.importing.error(f"nugget {key} not defined before this line")
                out[str(to(int(key)))] = assigned
            value["nuggets"] = out
        return value

    def structure_ids(self, action, value, item, user):
        out = item_ids(value, item)
        if action.startswith("nugget.") and isinstance(out, dict) and isinstance(out.get("id"), int):
            out["id"] = self._own("nugget")(out["id"])
        return out

    def _own(self, what):
        """An export names the source's own ids as they are; an import maps them (Importing.source_ids)."""
        return int if self.importing is None else self.importing.source_ids(self.nugget_ids, what)

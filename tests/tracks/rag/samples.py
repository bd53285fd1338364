"""Real requests for TREC RAG's pages (tests/samples.py): the RAG demo, whose two assessors disagree on a segment."""

from django.urls import reverse

from assess.models import Assignment, Nugget
from pooling.models import Evaluation
from tests.samples import Route, shown_proposals, suggest_first
from tracks.rag import judging, keys

SUGGESTIONS = (
    b'{"qid": "2025-31", "query": "", "nuggets": [{"text": "Compost feeds microbes", "importance": "okay"}]}\n'
)


def _objects(world):
    ev = Evaluation.objects.get(slug="rag-demo")
    mine = (
        Assignment.objects.filter(evaluation=ev, assessor=world["everyone"], role=Assignment.PRIMARY)
        .order_by("topic__position")
        .first()
    )
    relevance = judging.topic_items(mine.topic, "relevance")[0]
    answer = judging.topic_items(mine.topic, "answer")[0]
    nugget = Nugget.objects.filter(topic=mine.topic).order_by("position").first()
    disputed = judging.adjudication_queue(ev)[0][0]
    return ev, mine, relevance, answer, nugget, disputed


def _suggesting(ev, world):
    """The everyone's primary assignment whose topic still has suggestions (2024-212: only its relevance judged)."""
    mine = Assignment.objects.filter(evaluation=ev, assessor=world["everyone"], role=Assignment.PRIMARY)
    found = next(a for a in mine.select_related("topic") if judging.suggestions(a.topic))
    suggest_first(ev, found.topic)  # (file suggestions follow the topic's condition once a design exists)
    return found


def routes(world):
    ev, mine, relevance, answer, nugget, disputed = _objects(world)
    a = {"pk": mine.pk}
    return {
        "rag:topic": [Route(a)],
        "rag:support": [Route(a | {"number": 1})],
        "rag:relevance": [Route(a | {"item_id": relevance.pk})],
        "rag:assign": [Route(a | {"item_id": answer.pk})],
        "rag:nuggets": [Route(a, query={"at": "0"})],
        "rag:nugget_create": [Route(a, ("POST",), json={"text": "A new fact", "importance": "okay"})],
        "rag:nugget": [Route(a | {"nugget_id": nugget.pk}, ("POST",), json={"action": "edit", "text": nugget.text})],
        "rag:suggestion": [Route({"pk": _suggesting(ev, world).pk, "index": 1}, ("POST",), json={"action": "reject"})],
        "rag:nuggets_done": [Route(a, ("POST",))],
        "rag:proposal": [
            Route(
                a | {"suggestion_id": shown_proposals(ev, mine.topic).pk, "index": 1},
                ("POST",),
                json={"action": "reject"},
            )
        ],
        "rag:judge": [Route({"item_id": relevance.pk}, ("POST",), json={"version": 1, "value": {"label": "3"}})],
        "rag:overview": [Route({"slug": ev.slug})],
        "rag:suggestions_upload": [
            Route({"slug": ev.slug}, ("POST",), files={"file": ("s.jsonl", SUGGESTIONS)}, post_as_is=False)
        ],
        "rag:adjudication": [Route({"slug": ev.slug}, adjudication=True)],
        "rag:adjudicate": [Route({"slug": ev.slug, "item_id": disputed.pk}, adjudication=True)],
        "rag:decide": [
            Route(
                {"slug": ev.slug, "item_id": disputed.pk},
                ("POST",),
                form={"version": "0", "label": "2", "adopt": ""},
                adjudication=True,
            )
        ],
    }


def key_pages(world):
    ev, mine, relevance, answer, nugget, disputed = _objects(world)
    return {
        keys.TOPIC.ident: ("everyone", reverse("rag:topic", args=[mine.pk])),
        keys.SUPPORT.ident: ("everyone", reverse("rag:support", args=[mine.pk, 1])),
        keys.RELEVANCE.ident: ("everyone", reverse("rag:relevance", args=[mine.pk, relevance.pk])),
        keys.NUGGETS.ident: ("everyone", reverse("rag:nuggets", args=[mine.pk])),
        keys.ASSIGN.ident: ("everyone", reverse("rag:assign", args=[mine.pk, answer.pk])),
        keys.QUEUE.ident: ("organizer", reverse("rag:adjudication", args=[ev.slug])),
        keys.ADJUDICATION.ident: ("organizer", reverse("rag:adjudicate", args=[ev.slug, disputed.pk])),
    }

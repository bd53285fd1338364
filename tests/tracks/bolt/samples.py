"""Real requests for BOLT's pages (tests/samples.py): the BOLT demo, with a citation the demo's two assessors
disagree on, so the adjudication pages have one to decide."""

from django.urls import reverse

from assess.models import Assignment
from corpus.models import Document
from pooling.models import Evaluation, PoolItem, Run
from tests.samples import Route
from tracks.bolt import judging, keys


def _objects(world):
    bolt_ev = Evaluation.objects.get(slug="bolt-demo")
    b_mine = Assignment.objects.get(evaluation=bolt_ev, assessor=world["everyone"])
    citation = next(i for i in judging.citation_items(b_mine.topic) if i.origin != PoolItem.ASSESSOR)
    view_item = next(iter(judging.grouping_views(b_mine.topic).values()))
    thread = Document.objects.get(collection__name=judging.collection_of(bolt_ev).name, docno=citation.docid)
    return bolt_ev, b_mine, citation, view_item, thread


def routes(world):
    bolt_ev, b_mine, citation, view_item, thread = _objects(world)
    # a disagreement, so the BOLT adjudication pages have a citation to decide
    judging.judge_citation(world["everyone"], citation, {"rel": "yes", "relspans": [[0, 3]]}, 0)
    judging.judge_citation(world["assessor2"], citation, {"rel": "no"}, 0)
    groups = judging.view_structure(view_item)
    # one field of each kind stands for the rest
    view_form = {
        "version": "0",
        "view-relevant": "yes",
        f"g{groups[0]['number']}-scope": "no",
        f"g{groups[0]['number']}-m0": "yes",
    }
    bolt_slug = bolt_ev.slug
    bolt_alpha_tag = Run.objects.filter(evaluation=bolt_ev, team__name="Team Alpha").order_by("tag").first().tag
    post = thread.meta["posts"][0]
    return {
        "bolt:topic": [Route({"pk": b_mine.pk})],
        "bolt:item": [Route({"pk": b_mine.pk, "item_id": citation.pk})],
        "bolt:find": [Route({"pk": b_mine.pk}, query={"thread": thread.docno})],
        "bolt:add_found": [
            Route(
                {"pk": b_mine.pk},
                ("POST",),
                json={
                    "thread": thread.docno,
                    "post": post["id"],
                    "offset": 0,
                    "length": 5,
                    "passage": "found",
                    "rel": "yes",
                },
            )
        ],
        "bolt:view": [
            Route({"pk": b_mine.pk, "item_id": view_item.pk}, ("GET", "POST"), query={"saved": "1"}, form=view_form)
        ],
        "bolt:view_answer": [
            Route(
                {"pk": b_mine.pk, "item_id": view_item.pk},
                ("POST",),
                json={"group": "", "name": "relevant", "member": "", "answer": "yes", "version": 0},
            ),
            Route(
                {"pk": b_mine.pk, "item_id": view_item.pk},
                ("POST",),
                vary=("group", "member"),
                json={
                    "group": groups[0]["number"],
                    "name": "belongs",
                    "member": groups[0]["citations"][0]["key"],
                    "answer": "no",
                    "version": 0,
                },
            ),
        ],
        "bolt:judge": [
            Route(
                {"item_id": citation.pk},
                ("POST",),
                json={"version": 1, "value": {"rel": "yes", "trans": "accept", "chksrc": True, "relspans": [[0, 3]]}},
            )
        ],
        "bolt:agreement": [Route({"slug": bolt_slug})],
        "bolt:adjudication": [Route({"slug": bolt_slug}, adjudication=True)],
        "bolt:near_duplicates": [Route({"slug": bolt_slug}, query={"run": bolt_alpha_tag})],
        "bolt:groupings": [Route({"slug": bolt_slug})],
        "bolt:adjudicate": [
            Route(
                {"slug": bolt_slug, "item_id": citation.pk},
                ("GET", "POST"),
                query={"decided": "1"},
                form={"version": "0", "rel": "yes", "trans": "accept", "chksrc": "on", "spans": "primary", "adopt": ""},
                adjudication=True,
            )
        ],
        "bolt:team_topics": [Route({"slug": bolt_slug})],
        "bolt:export": [Route({"slug": bolt_slug, "tag": "alpha1"})],
    }


def key_pages(world):
    bolt_ev, b_mine, citation, view_item, thread = _objects(world)
    return {
        keys.TOPIC.ident: ("everyone", reverse("bolt:topic", args=[b_mine.pk])),
        keys.CITATIONS.ident: ("everyone", reverse("bolt:item", args=[b_mine.pk, citation.pk])),
        keys.FIND.ident: ("everyone", reverse("bolt:find", args=[b_mine.pk]) + f"?thread={thread.docno}"),
        keys.GROUPINGS.ident: ("everyone", reverse("bolt:view", args=[b_mine.pk, view_item.pk])),
        keys.QUEUE.ident: ("organizer", reverse("bolt:adjudication", args=[bolt_ev.slug])),
        keys.ADJUDICATION.ident: ("organizer", reverse("bolt:adjudicate", args=[bolt_ev.slug, citation.pk])),
    }

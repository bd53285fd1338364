"""Real requests for BioGen's pages (tests/samples.py): the BioGen demo, whose two assessors disagree on an item."""

from django.urls import reverse

from assess.models import Assignment
from pooling.models import Evaluation
from tests.samples import Route
from tracks.biogen import judging, keys
from tracks.biogen.labels import labels_for


def _objects(world):
    bg_ev = Evaluation.objects.get(slug="biogen-demo")
    bg_mine = (
        Assignment.objects.filter(evaluation=bg_ev, assessor=world["everyone"]).order_by("topic__position").first()
    )
    bg_item = judging.topic_items(bg_mine.topic)[0]
    bg_disputed = judging.adjudication_queue(bg_ev)[0][0]
    return bg_ev, bg_mine, bg_item, bg_disputed


def routes(world):
    bg_ev, bg_mine, bg_item, bg_disputed = _objects(world)
    return {
        "biogen:topic": [Route({"pk": bg_mine.pk})],
        "biogen:item": [Route({"pk": bg_mine.pk, "item_id": bg_item.pk})],
        "biogen:judge": [
            Route(
                {"item_id": bg_item.pk}, ("POST",), json={"version": 1, "value": {"label": "accurate", "evidence": []}}
            )
        ],
        "biogen:overview": [Route({"slug": bg_ev.slug})],
        "biogen:adjudication": [Route({"slug": bg_ev.slug}, adjudication=True)],
        "biogen:adjudicate": [Route({"slug": bg_ev.slug, "item_id": bg_disputed.pk}, adjudication=True)],
        "biogen:decide": [
            Route(
                {"slug": bg_ev.slug, "item_id": bg_disputed.pk},
                ("POST",),
                form={"version": "0", "label": labels_for(bg_disputed.data["kind"])[0], "adopt": ""},
                adjudication=True,
            )
        ],
    }


def key_pages(world):
    bg_ev, bg_mine, bg_item, bg_disputed = _objects(world)
    return {
        keys.TOPIC.ident: ("everyone", reverse("biogen:topic", args=[bg_mine.pk])),
        keys.ITEM.ident: ("everyone", reverse("biogen:item", args=[bg_mine.pk, bg_item.pk])),
        keys.QUEUE.ident: ("organizer", reverse("biogen:adjudication", args=[bg_ev.slug])),
        keys.ADJUDICATION.ident: ("organizer", reverse("biogen:adjudicate", args=[bg_ev.slug, bg_disputed.pk])),
    }

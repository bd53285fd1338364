"""Real requests for the QA tracks' pages (tests/samples.py): the TAC 2008, TREC 2007 and ciQA demos, a second
ciQA evaluation whose questionnaire is open, and a ciQA session of each kind."""

from django.urls import reverse
from django.utils import timezone

from assess.models import AnswerClass, Assignment, Judgment, Nugget
from pooling.evaluations import create_evaluation
from pooling.models import Evaluation, PoolItem, Topic
from pooling.topics import load_topics
from tests.samples import Route, shown_proposals
from tracks.qa import demo_evaluation as tac_demo
from tracks.qa import keys
from tracks.qa.adjudication import adjudication_queue
from tracks.qa.ciqa import demo as ciqa_demo
from tracks.qa.ciqa.models import InteractionSession, Screenshot, UrlFile
from tracks.qa.ciqa.submissions import load_url_file


def _tac(world):
    everyone = world["everyone"]
    tac = Evaluation.objects.get(slug=tac_demo.SLUG)
    mine = Assignment.objects.get(evaluation=tac, assessor=everyone, topic__ident="1001")
    rigid, squishy = (Topic.objects.get(evaluation=tac, ident=i) for i in ("1001.1", "1001.2"))
    return tac, mine, rigid, squishy


def routes(world):
    from corpus.models import Document

    everyone = world["everyone"]
    tac, mine, rigid, squishy = _tac(world)
    rigid_items = list(PoolItem.objects.filter(topic=rigid).order_by("position"))
    classes = list(AnswerClass.objects.filter(topic=rigid).order_by("pk"))
    nuggets = list(Nugget.objects.filter(topic=squishy).order_by("position"))
    squishy_item = PoolItem.objects.filter(topic=squishy).order_by("position").first()
    assert len(classes) >= 2 and len(nuggets) >= 2 and squishy_item is not None

    def version(kind, **subject):
        judgment = Judgment.objects.filter(kind=kind, assessor=everyone, **subject).first()
        return str(judgment.version if judgment else 0)

    qa_disputed = adjudication_queue(tac)[0][0]
    trec_factoid = Topic.objects.filter(evaluation__slug="demo-trec2007", kind="FACTOID").order_by("position").first()
    blog_doc = Document.objects.filter(collection__name=tac_demo.COLLECTION).order_by("docno").first()
    documents = tac_demo._documents()

    # ciQA: a session of the demo's baseline interaction (running) and one of Team Alpha's system for "everyone"
    ciqa = Evaluation.objects.get(slug=ciqa_demo.SLUG)
    t901 = Topic.objects.get(evaluation=ciqa, ident="901")
    base_file = UrlFile.objects.get(evaluation=ciqa, baseline_run__isnull=False)
    alpha_file = UrlFile.objects.get(evaluation=ciqa, tag="AlphaURL1")
    s_base = InteractionSession.objects.create(
        evaluation=ciqa, assessor=everyone, topic=t901, url_file=base_file, started_at=timezone.now()
    )
    s_alpha = InteractionSession.objects.create(evaluation=ciqa, assessor=everyone, topic=t901, url_file=alpha_file)
    sentence = base_file.baseline_run.entries.filter(topic=t901).first()
    png = b"\x89PNG\r\n\x1a\n" + b"0" * 16
    shot = Screenshot.objects.create(url_file=alpha_file, name="s.png", content_type="image/png", image=png)
    ciqa_run = tac_demo.run_file_bytes("AlphaCI1", ciqa_demo.RUNS[0][5], documents)
    ciqa_urls = ciqa_demo.url_file_bytes("AlphaURL1", "Team Alpha", ["ciQA2007throwaway", "901", "902"])
    c_slug = ciqa.slug
    # a second ciQA evaluation where "everyone" has done every session: its questionnaire is open
    done = create_evaluation("ciqa-done", "trec2007-ciqa", settings={"allow_private_urls": True})  # the demo's host
    load_topics(done, ciqa_demo.TOPICS.read_bytes(), "topics.txt")
    done_file = load_url_file(done, ciqa_urls, "u.txt", "Team Alpha")[0]
    InteractionSession.objects.create(
        evaluation=done,
        assessor=everyone,
        topic=Topic.objects.get(evaluation=done, ident="901"),
        url_file=done_file,
        started_at=timezone.now(),
        ended_at=timezone.now(),
    )
    tac_slug = tac.slug
    a, q1, q2 = mine.pk, rigid.pk, squishy.pk
    item = rigid_items[0]
    proposals = shown_proposals(tac, squishy)
    return {
        "qa:nuggets_done": [Route({"pk": a, "qid": q2}, ("POST",))],
        "qa:proposal": [
            Route({"pk": a, "qid": q2, "suggestion_id": proposals.pk, "index": 1, "action": "reject"}, ("POST",))
        ],
        "qa:search_found": [
            Route({"pk": a}, ("POST",), form={"question": str(q1), "docid": blog_doc.docno, "text": "found by search"})
        ],
        "qa:assignment": [Route({"pk": a})],
        "qa:question": [Route({"pk": a, "qid": q1}, query={"item": str(item.pk)}), Route({"pk": a, "qid": q2})],
        "qa:item_panel": [Route({"pk": a, "qid": q1, "item_id": item.pk}, query={"want": "unjudged"})],
        "qa:judge": [
            Route(
                {"item_id": item.pk},
                ("POST",),
                form={
                    "version": version("instance", item=item),
                    "label": "correct",
                    "answer_class": str(classes[0].pk),
                },
            ),
            Route(
                {"item_id": item.pk},
                ("POST",),
                vary=("new_class", "class_label"),
                form={"version": version("instance", item=item), "new_class": "1", "class_label": "New class"},
            ),
        ],
        "qa:classes": [Route({"pk": a, "qid": q1})],
        "qa:class_action": [
            Route(
                {"pk": a, "qid": q1, "class_id": classes[0].pk, "action": "rename"},
                ("POST",),
                form={"label": "Renamed"},
            ),
            Route(
                {"pk": a, "qid": q1, "class_id": classes[0].pk, "action": "merge"},
                ("POST",),
                form={"sources": [str(classes[1].pk)]},
            ),
            Route(
                {"pk": a, "qid": q1, "class_id": classes[0].pk, "action": "split"},
                ("POST",),
                form={"items": [str(item.pk)], "label": "Split off"},
            ),
        ],
        "qa:found_answer": [
            Route(
                {"pk": a, "qid": q1},
                ("POST",),
                form={"docid": blog_doc.docno, "text": "found it", "answer_class": str(classes[0].pk)},
            )
        ],
        "qa:nuggets": [Route({"pk": a, "qid": q2})],
        "qa:nugget_create": [Route({"pk": a, "qid": q2}, ("POST",), form={"text": "a nugget"})],
        "qa:nugget_order": [
            Route({"pk": a, "qid": q2}, ("POST",), form={"order": [str(n.pk) for n in reversed(nuggets)]})
        ],
        "qa:nugget_action": [
            Route(
                {"pk": a, "qid": q2, "nugget_id": nuggets[0].pk, "action": "edit"}, ("POST",), form={"text": "edited"}
            ),
            Route({"pk": a, "qid": q2, "nugget_id": nuggets[0].pk, "action": "down"}, ("POST",)),
            Route(
                {"pk": a, "qid": q2, "nugget_id": nuggets[0].pk, "action": "merge"},
                ("POST",),
                form={"sources": [str(nuggets[1].pk)]},
            ),
            Route(
                {"pk": a, "qid": q2, "nugget_id": nuggets[0].pk, "action": "delete"}, ("POST",), form={"confirm": "yes"}
            ),
        ],
        "qa:match": [
            Route(
                {"item_id": squishy_item.pk},
                ("POST",),
                form={"version": version("nugget_match", item=squishy_item), "nuggets": [str(nuggets[0].pk)]},
            )
        ],
        "qa:vote": [
            Route(
                {"nugget_id": nuggets[0].pk},
                ("POST",),
                form={"version": version("nugget_vote", nugget=nuggets[0]), "vote": "vital", "set": "first"},
            )
        ],
        "qa:vote_series": [Route({"series_id": mine.topic_id})],
        "qa:adjudication": [Route({"slug": tac_slug}, adjudication=True)],
        "qa:adjudicate": [
            Route(
                {"item_id": qa_disputed.pk},
                ("POST",),
                form={"version": "0", "label": "correct", "answer_class": str(classes[0].pk)},
                adjudication=True,
            )
        ],
        "qa:nil_answers": [
            Route({"slug": "demo-trec2007"}, ("GET", "POST"), form={"qid": trec_factoid.ident, "decision": "nil"})
        ],
        "qa:ciqa_overview": [Route({"slug": c_slug})],
        "qa:ciqa_upload_run": [
            Route(
                {"slug": c_slug},
                ("POST",),
                form={"team": "Team Alpha", "stage": "initial", "initial": ""},
                files={"file": ("AlphaCI1.txt", ciqa_run)},
                post_as_is=False,
            )
        ],
        "qa:ciqa_upload_urls": [
            Route({"slug": c_slug}, ("POST",), form={"team": "Team Alpha"}, files={"file": ("u.txt", ciqa_urls)})
        ],
        "qa:ciqa_upload_screenshot": [
            Route({"slug": c_slug, "pk": alpha_file.pk}, ("POST",), files={"file": ("s.png", png)})
        ],
        "qa:ciqa_make_baseline": [Route({"slug": c_slug}, ("POST",), form={"run": "NISTbaseI"})],
        "qa:ciqa_plan": [Route({"slug": c_slug}, ("POST",), form={"seconds": "300"})],
        "qa:ciqa_define_questionnaire": [
            Route({"slug": c_slug}, ("POST",), form={"definition": "[interaction]\ntext a | Q\n"})
        ],
        "qa:ciqa_questionnaire_csv": [Route({"slug": c_slug})],
        "qa:ciqa_questionnaire_summary": [Route({"slug": c_slug})],
        "qa:ciqa_board": [Route({"slug": c_slug})],
        "qa:ciqa_screenshot": [Route({"pk": shot.pk})],
        "qa:ciqa_sessions": [Route({"slug": c_slug})],
        "qa:ciqa_questionnaire": [
            Route({"slug": done.slug}, ("GET", "POST"), form={f"{done_file.pk}-understand": "3", "all-favourite": "x"})
        ],
        "qa:ciqa_session": [Route({"pk": s_alpha.pk})],
        "qa:ciqa_session_start": [Route({"pk": s_alpha.pk}, ("POST",))],
        "qa:ciqa_session_end": [Route({"pk": s_base.pk}, ("POST",), form={"early": "1"})],
        "qa:ciqa_session_skip": [Route({"pk": s_alpha.pk}, ("POST",), form={"reason": "the system is down"})],
        "qa:ciqa_sentences": [Route({"pk": s_base.pk}, ("GET", "POST"), form={f"s-{sentence.pk}": "relevant"})],
        "qa:ciqa_demo_system": [Route({"ident": "901"}, query={"team": "Alpha"})],
    }


def key_pages(world):
    tac, mine, rigid, squishy = _tac(world)
    return {
        keys.SERIES.ident: ("everyone", reverse("qa:assignment", args=[mine.pk])),
        keys.INSTANCES.ident: ("everyone", reverse("qa:question", args=[mine.pk, rigid.pk])),
        keys.NUGGETS.ident: ("everyone", reverse("qa:question", args=[mine.pk, squishy.pk])),
        keys.VOTES.ident: ("everyone", reverse("qa:vote_series", args=[mine.topic_id])),
        keys.ADJUDICATION.ident: ("organizer", reverse("qa:adjudication", args=[tac.slug])),
    }

"""In Chromium: the frame scrolls to the first mark by itself (no script runs in it), charsets read right,
forum spans are marked, and a participant cannot open a document."""

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from config.patience import Deadline
from corpus import viewer
from corpus.loading import load_collection
from corpus.models import Collection, Document

pytestmark = pytest.mark.browser
User = get_user_model()
FIX = Path(__file__).resolve().parent.parent / "fixtures" / "corpus"


@pytest.fixture
def docs(live_server, make_user):
    load_collection("demo-blog06", "blog06", [FIX / "blog06-demo.txt", FIX / "blog06-demo-2.txt.gz"])
    load_collection("forum", "bolt-forum", [FIX / "forum" / "bolt-forum-demo.xml"])
    filler = "".join(f"<p>Paragraph {i} says nothing of interest.</p>" for i in range(300))
    raw = f"<html><body>{filler}<p>The <b>answer</b> is   forty-two.</p>{filler}</body></html>".encode()
    Document.objects.create(
        collection=Collection.objects.create(name="long", format="blog06"),
        docno="LONG-1",
        raw=raw,
        charset="utf-8",
        meta={},
    )
    assessor = make_user("viewer-assessor", "assessor")
    make_user("viewer-participant", "participant", team="Team Alpha")
    from tests.test_corpus_access import assign

    assign(assessor, "demo-blog06", "forum", "long")  # assessors read the collections of their evaluations


def _frame(page):
    page.wait_for_load_state("load")
    frame = next(f for f in page.frames if "/frame/" in f.url)
    frame.wait_for_load_state("load")
    return frame


def test_first_mark_is_scrolled_into_view_without_script(page, login, live_server, docs):
    login(page, "viewer-assessor")
    page.goto(f"{live_server.url}/corpus/long/doc/LONG-1/?m=ANSWER+is+forty-two")
    frame = _frame(page)
    assert frame.url.endswith("#mark-1")
    mark = frame.locator("#mark-1")
    assert mark.inner_text() == "answer"
    assert frame.locator("mark.hl").all_inner_texts() == ["answer", "is forty-two"]
    # The browser scrolls to the #mark-1 fragment itself as the frame loads; wait until the mark is in view.
    # (Evaluated by the test through CDP, not by the page, which runs no script.)
    in_view = (
        "(() => { const r = document.getElementById('mark-1').getBoundingClientRect();"
        " return [r.top >= 0 && r.bottom <= innerHeight, scrollY]; })()"
    )
    seen = []
    deadline = Deadline(5)
    while True:
        visible, scroll_y = frame.evaluate(in_view)
        seen.append(scroll_y)
        if visible or deadline.passed():
            break
        page.wait_for_timeout(100)
    assert visible, f"mark-1 not in view; frame scrollY went {seen[:3]} ... {seen[-3:]}"
    assert scroll_y > 1000  # far down the page
    box, frame_box = mark.bounding_box(), page.locator("iframe.doc-frame").bounding_box()
    assert frame_box["y"] <= box["y"] <= frame_box["y"] + frame_box["height"]  # visible inside the frame


def test_charsets_and_forum_spans_in_the_browser(page, login, live_server, docs):
    login(page, "viewer-assessor")
    page.goto(f"{live_server.url}/corpus/demo-blog06/doc/BLOG06-20060105-003-0000033310/")
    assert "\u8584\u304f\u3066\u304b\u3063\u3053\u3044\u3044" in _frame(page).locator("body").inner_text()
    page.goto(f"{live_server.url}/corpus/demo-blog06/doc/BLOG06-20051212-011-0000341122/")
    assert "Dana Whitfield\u2019s interviews" in _frame(page).locator("body").inner_text()
    page.goto(f"{live_server.url}/corpus/forum/doc/bolt-eng-DF-200-192451-5470531/?s=p1:33:20")
    frame = _frame(page)
    assert frame.locator("#mark-1").inner_text() == "lages & displace"
    assert frame.locator("blockquote.quote .quote-author").first.inner_text() == "riverwatch wrote:"


def test_participant_cannot_open_a_document(page, login, live_server, docs):
    login(page, "viewer-participant")
    response = page.goto(live_server.url + viewer.frame_url("demo-blog06", "BLOG06-20051212-011-0000341122"))
    assert response.status == 403
    assert "Dana Whitfield" not in page.content()


THREADS = """<doc id="bolt-arz-DF-001-000001-0001">
<headline>
السد الجديد هيغرق القرى؟
</headline>
<post author="نيلي" datetime="2011-03-02T10:15:00" id="p1">
السد هيغرق أربعين قرية.
</post>
<post author="reader" datetime="2011-03-02T11:00:00" id="p2">
<quote orig_author="نيلي">
السد هيغرق أربعين قرية.
</quote>
I read the same numbers.
</post>
</doc>
<doc id="bolt-cmn-DF-001-000002-0002">
<headline>
新水坝值得吗？
</headline>
<post author="水电" datetime="2011-03-03T08:40:00" id="p1">
发电量为1200兆瓦。
</post>
</doc>
"""


def test_arabic_and_chinese_threads_take_their_direction_from_their_text(page, login, live_server, docs, tmp_path):
    """BOLT's threads are English, Egyptian Arabic or Mandarin (seed 004): an Arabic headline, post and quote read
    right to left, starting at the right edge; Chinese and the English around an Arabic quote left to right."""
    threads = tmp_path / "threads.xml"
    threads.write_text(THREADS, encoding="utf-8")
    load_collection("forum-lang", "bolt-forum", [threads])
    from tests.test_corpus_access import assign

    assign(User.objects.get(username="viewer-assessor"), "forum-lang", slug="lang-eval")
    login(page, "viewer-assessor")
    # (evaluated by the test through CDP; the frame itself runs no script)
    layout = """(sel) => { const el = document.querySelector(sel), box = el.getBoundingClientRect();
        const text = document.createRange(); text.selectNodeContents(el);
        const line = [...text.getClientRects()].find((r) => r.width > 2);
        return [getComputedStyle(el).direction, Math.round(box.right - line.right), Math.round(line.left - box.left)]; }"""
    page.goto(f"{live_server.url}/corpus/forum-lang/doc/bolt-arz-DF-001-000001-0001/")
    frame = _frame(page)
    rtl = {}
    for sel in ("h1.headline", "#post-p1 .post-body", "#post-p2 blockquote.quote"):
        direction, right_gap, left_gap = frame.evaluate(layout, sel)
        rtl[sel] = direction
        assert right_gap < left_gap, (sel, right_gap, left_gap)  # the Arabic text starts at the right edge
    assert set(rtl.values()) == {"rtl"}, rtl
    # the English reply around the Arabic quote, and the "… wrote:" line, stay left to right
    assert frame.evaluate("document.querySelector('#post-p2 .post-body').matches(':dir(ltr)')")
    assert frame.evaluate("document.querySelector('.quote-author').matches(':dir(ltr)')")
    page.goto(f"{live_server.url}/corpus/forum-lang/doc/bolt-cmn-DF-001-000002-0002/")
    frame = _frame(page)
    for sel in ("h1.headline", "#post-p1 .post-body"):
        direction, right_gap, left_gap = frame.evaluate(layout, sel)
        assert direction == "ltr" and left_gap < right_gap, (sel, direction)

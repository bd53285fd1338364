"""The viewer: who may open documents, the frame's headers (CSP, framing), rendering, marks and spans."""

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command

from corpus import viewer
from corpus.loading import load_collection

FIX = Path(__file__).resolve().parent / "fixtures" / "corpus"
HOSTILE = "BLOG06-20051228-019-0000455601"
RAZR = "BLOG06-20060118-014-0000188734"
FORUM = "bolt-eng-DF-200-192451-5470531"

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(db):
    load_collection("demo-blog06", "blog06", [FIX / "blog06-demo.txt", FIX / "blog06-demo-2.txt.gz"])
    load_collection("forum", "bolt-forum", [FIX / "forum" / "bolt-forum-demo.xml"])
    load_collection("news", "aquaint2", [FIX / "aquaint2-sample.xml"])


@pytest.fixture
def assessor(make_user, demo):
    """An assessor of an evaluation over demo-blog06, so the viewer lets them read it (tests/test_corpus_access.py
    has the rest of who reads what)."""
    from tests.test_corpus_access import assign

    user = make_user("ass", "assessor")
    assign(user, "demo-blog06")
    return user


def _get(client, user, url):
    if user is not None:
        client.force_login(user)
    return client.get(url)


@pytest.mark.parametrize(
    "who, frame, page, browser",
    [("organizer", 200, 200, 200), ("assessor", 200, 200, 403), ("participant", 403, 403, 403), (None, 302, 302, 302)],
)
def test_who_may_open_documents(client, demo, request, who, frame, page, browser):
    user = request.getfixturevalue(who) if who else None
    if user is not None:
        client.force_login(user)
    assert client.get(viewer.frame_url("demo-blog06", RAZR)).status_code == frame
    assert client.get(f"/corpus/demo-blog06/doc/{RAZR}/").status_code == page
    assert client.get("/corpus/").status_code == browser
    assert client.get("/corpus/demo-blog06/").status_code == browser


def test_frame_headers_are_strict(client, demo, assessor):
    r = _get(client, assessor, viewer.frame_url("demo-blog06", HOSTILE))
    csp = r["Content-Security-Policy"]
    directives = dict((d.split(" ", 1) + [""])[:2] for d in csp.split("; "))
    assert directives["default-src"] == "'none'" and directives["img-src"] == "'none'"
    assert directives["script-src"] == "'none'" and directives["style-src"] == "'unsafe-inline'"
    assert directives["frame-ancestors"] == "'self'" and directives["form-action"] == "'none'"
    assert "sandbox" in directives and directives["sandbox"] == ""
    assert r["X-Frame-Options"] == "SAMEORIGIN"
    assert r["Referrer-Policy"] == "no-referrer"
    page = _get(client, assessor, f"/corpus/demo-blog06/doc/{HOSTILE}/")
    assert page["X-Frame-Options"] == "DENY"  # the site default stays for everything but the frame
    assert "script-src 'self'" in page["Content-Security-Policy"]


def test_hostile_page_rendered_without_code(client, demo, organizer):
    body = _get(client, organizer, viewer.frame_url("demo-blog06", HOSTILE)).content.decode()
    assert "I like her laugh" in body and "I dislike her political jokes" in body
    lowered = body.lower()
    for bad in (
        "<script",
        "onload",
        "onerror",
        "onmouseover",
        "javascript:",
        "tracker.example.net",
        "ads.example.net",
        "images.example.net",
    ):
        assert bad not in lowered, bad
    assert 'alt="Dana Whitfield"' in body  # the image's place stays, its source does not


def test_images_only_with_a_valid_token(client, demo, organizer):
    client.force_login(organizer)
    url = viewer.frame_url("demo-blog06", HOSTILE, allow_images=True)
    r = client.get(url)
    assert "img-src http: https:" in r["Content-Security-Policy"]
    assert 'src="http://images.example.net/dana.jpg"' in r.content.decode()
    token = dict(p.split("=") for p in urlsplit(url).query.split("&"))["img"]
    other = client.get(viewer.frame_url("demo-blog06", RAZR) + "?img=" + token)  # not this document's token
    assert "img-src 'none'" in other["Content-Security-Policy"]
    forged = client.get(viewer.frame_url("demo-blog06", HOSTILE) + "?img=1")
    assert "img-src 'none'" in forged["Content-Security-Policy"] and "images.example.net" not in forged.content.decode()


def test_marks_across_tags_case_and_white_space(client, demo, organizer):
    url = viewer.frame_url("demo-blog06", "BLOG06-20051212-011-0000341122", marks=["used to love MORNING   desk, but"])
    assert url.endswith("#mark-1")
    body = _get(client, organizer, url).content.decode()
    assert (
        'I <mark class="hl start" id="mark-1">used to love</mark> <i><mark class="hl">Morning Desk</mark></i>'
        '<mark class="hl">, but</mark> Dana'
    ) in body


def test_windows_1252_and_gb2312_pages_render_as_text(client, demo, organizer):
    client.force_login(organizer)
    body = client.get(viewer.frame_url("demo-blog06", "BLOG06-20051212-011-0000341122")).content.decode()
    assert "Dana Whitfield\u2019s interviews" in body and "caf\u00e9" in body
    assert 'style="background-color: #ffffee"' in body  # <body bgcolor> kept as a safe style
    body = client.get(viewer.frame_url("demo-blog06", "BLOG06-20051222-055-0000912840")).content.decode()
    assert "\u91d1\u521a\u89c2\u540e\u611f" in body


def test_forum_spans_count_raw_characters(client, demo, organizer):
    # p1's raw text: "\nThe Zephyr Dam will flood 40 villages &amp; displace ..."; "&amp;" is raw 39..44,
    # so 20 characters from 33 end right after "displace" only because "&amp;" counts as five
    url = viewer.frame_url("forum", FORUM, spans=[("p1", 33, 20)])
    assert "s=p1%3A33%3A20" in url
    body = _get(client, organizer, url).content.decode()
    assert 'flood 40 vil<mark class="span start" id="mark-1">lages &amp; displace</mark> 12,000' in body
    assert (
        '<blockquote class="quote" dir="auto"><div class="quote-author" dir="ltr"><bdi>riverwatch</bdi> wrote:</div>'
        in body
    )
    assert '<span class="author">gridguy</span> <time>2011-03-02T11:02:00</time>' in body


def test_newswire_renders_as_structured_text(client, demo, organizer):
    body = _get(client, organizer, viewer.frame_url("news", "APW_ENG_20050101.0001", marks=["7,500 people"])).content
    body = body.decode()
    assert '<h1 class="headline">Dam project &amp; villagers reach agreement</h1>' in body
    assert '<p class="dateline">ZEPHYR VALLEY, Jan. 1 (AP)</p>' in body
    assert '<mark class="hl start" id="mark-1">7,500 people</mark>' in body


def test_document_page_embeds_a_sandboxed_frame(client, demo, assessor):
    body = _get(client, assessor, f"/corpus/demo-blog06/doc/{RAZR}/?m=camera+is+poor").content.decode()
    frame = re.search(r"<iframe[^>]*>", body).group()
    assert re.search(r"\ssandbox(\s|>)", frame) and "allow-scripts" not in frame
    assert f"/corpus/demo-blog06/frame/{RAZR}/?m=camera+is+poor#mark-1" in frame


def test_a_frame_sent_for_later_is_inert_and_as_sandboxed():
    from django.template import engines

    html = engines["django"].from_string("{% load corpus_viewer %}{% document_frame url later=True %}")
    body = html.render({"url": "/corpus/c/frame/d/"})
    # the parser makes no frame of a <template>'s content: frames.js puts it in at DOMContentLoaded
    assert re.fullmatch(r"<template data-frame-later><iframe[^>]*></iframe></template>", body.strip().splitlines()[-1])
    frame = re.search(r"<iframe[^>]*>", body).group()
    assert (
        re.search(r"\ssandbox(\s|>)", frame)
        and "allow-" not in frame
        and 'data-frame-src="/corpus/c/frame/d/"' in frame
    )
    assert "<template" not in engines["django"].from_string("{% load corpus_viewer %}{% document_frame url %}").render(
        {"url": "/x/"}
    )


def test_browser_lists_and_searches(client, demo, organizer):
    client.force_login(organizer)
    body = client.get("/corpus/?q=20060105").content.decode()
    assert "BLOG06-20060105-003-0000033310" in body and "BLOG06-20051212" not in body.split('id="collections"')[0]
    body = client.get("/corpus/demo-blog06/?q=2006011").content.decode()
    assert body.count("/corpus/demo-blog06/doc/BLOG06-200601") == 2  # 20060112 and 20060118, not 20060109


def test_a_page_cannot_plant_marks_or_ids(client, demo, organizer):
    from corpus.models import Collection, Document

    raw = b'<p><mark class="hl start">fake</mark><a id="mark-1" name="mark-1">anchor</a> the real answer</p>'
    Document.objects.create(
        collection=Collection.objects.get(name="demo-blog06"), docno="PLANT-1", raw=raw, charset="utf-8", meta={}
    )
    body = _get(client, organizer, viewer.frame_url("demo-blog06", "PLANT-1", marks=["real answer"])).content
    body = body.decode()
    assert body.count('id="mark-1"') == 1 and '<mark class="hl start" id="mark-1">real answer</mark>' in body
    assert 'id="doc-mark-1"' in body and "fake" in body and '<a id="doc-mark-1">anchor' in body


def test_show_document_and_render_html_commands(demo, capsys, tmp_path):
    call_command("show_document", "demo-blog06", RAZR, "--mark", "best phone")
    out = capsys.readouterr()
    assert '<mark class="hl start" id="mark-1">Best phone</mark>' in out.out and "2 mark(s)" in out.err
    page = tmp_path / "p.html"
    page.write_bytes(b'<p onclick="x()">caf\xe9<script>alert(1)</script><a href="javascript:alert(1)">a</a></p>')
    call_command("render_html", str(page), "--charset", "ISO-8859-1")
    out = capsys.readouterr()
    assert out.out.strip() == "<p>caf\u00e9<a>a</a></p>" and "windows-1252" in out.err

"""Hundreds of hostile vectors through the real viewer in Chromium: dialogs hooked, every request recorded.

Each vector is stored as its own Blog06 page and shown in its own viewer frame; frames are loaded in batches
inside one page (one navigation per batch, not one browser context per vector). Three walls are tested apart:
the sandboxed iframe with the frame's CSP (what assessors get), the CSP alone (frame not sandboxed), and the
sanitizer alone (its output in a page with neither). A control proves the hooks do catch a dialog and a request.
"""

from pathlib import Path

import pytest
from django.template.loader import render_to_string

from config.patience import Deadline, scaled
from corpus import viewer
from corpus.models import Collection, Document

pytestmark = pytest.mark.browser

HOSTILE = Path(__file__).resolve().parent.parent / "fixtures" / "corpus" / "hostile"
BATCH = 50
SETTLE_MS = 700  # time for meta refresh 0, animations and lazy loads to fire after the frames load


def _vectors():
    out = []
    for path in sorted(HOSTILE.glob("*.txt")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip() and not line.startswith("#"):
                out.append((f"{path.name}:{number}", line))
    return out


VECTORS = _vectors()


def test_corpus_is_big_enough():
    assert len(VECTORS) >= 200


def _page_bytes(vector):
    return f"<html><head><title>hostile</title></head><body><p>before</p>{vector}<p>after</p></body></html>".encode()


@pytest.fixture
def hostile_docs(live_server, make_user):
    collection = Collection.objects.create(name="hostile", format="blog06")
    Document.objects.bulk_create(
        [
            Document(
                collection=collection,
                docno=f"HOSTILE-{i:03d}",
                raw=_page_bytes(v),
                charset="utf-8",
                meta={"PERMALINK": "http://blog.example/post.html", "where": where},
            )
            for i, (where, v) in enumerate(VECTORS)
        ]
    )
    from tests.test_corpus_access import assign

    assign(make_user("hostile-assessor", "assessor"), "hostile")  # assessors read their evaluations' collections
    return [f"HOSTILE-{i:03d}" for i in range(len(VECTORS))]


class Watch:
    """Records every dialog (and dismisses it) and every request made in a browser context."""

    def __init__(self, page):
        self.dialogs, self.requests = [], []
        page.on("dialog", self._dialog)
        page.context.on("request", self._request)

    def _dialog(self, dialog):
        self.dialogs.append((dialog.type, dialog.message, dialog.page.url if dialog.page else ""))
        dialog.dismiss()

    def _request(self, request):
        try:
            frame_url = request.frame.url
        except Exception:  # a request without a frame (e.g. a worker) is reported as such
            frame_url = "?"
        self.requests.append((request.url, frame_url))


_INJECT = """([html, n]) => {
  const box = document.createElement('div');
  box.id = 'hostile-batch';
  box.innerHTML = html;
  window.__loaded = 0;
  for (const f of box.querySelectorAll('iframe')) f.addEventListener('load', () => window.__loaded++);
  document.querySelector('main').replaceChildren(box);
}"""


def _load_batch(page, docnos, sandboxed):
    urls = [viewer.frame_url("hostile", d) for d in docnos]
    html = "".join(
        render_to_string("corpus/_frame.html", {"url": u, "title": d, "css_class": "doc-frame"})
        for u, d in zip(urls, docnos)
    )
    # The page's frames.js gives frames their src on load; frames injected here get it directly.
    html = html.replace(" data-frame-src=", " src=")
    if not sandboxed:
        html = html.replace(" sandbox ", " ")
    page.evaluate(_INJECT, [html, len(urls)])
    page.wait_for_function(f"() => window.__loaded >= {len(urls)}", timeout=scaled(30_000))
    page.wait_for_timeout(SETTLE_MS)
    return urls


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed-frame", "csp-only"])
def test_hostile_vectors_neither_run_nor_reach_out(page, login, live_server, hostile_docs, sandboxed):
    login(page, "hostile-assessor")
    watch = Watch(page)  # from here on, every request must be the viewer's own page, its assets or a frame
    start = f"{live_server.url}/corpus/hostile/doc/{hostile_docs[0]}/"
    page.goto(start)
    allowed = {start, f"{live_server.url}{viewer.frame_url('hostile', hostile_docs[0])}"}
    rendered = 0
    for i in range(0, len(hostile_docs), BATCH):
        batch = hostile_docs[i : i + BATCH]
        allowed.update(f"{live_server.url}{u}" for u in _load_batch(page, batch, sandboxed))
        frames = [f for f in page.frames if "/corpus/hostile/frame/" in f.url]
        for frame in frames:
            # (read in the frame's main world: frame.content(), which reads through Playwright's utility world,
            # took 25-36 ms a frame against 4-5 ms, a third of the test)
            content = frame.evaluate("() => document.documentElement.outerHTML")
            assert "<p>before</p>" in content or "before" in content, frame.url  # the frame did render
            rendered += 1
    assert rendered >= len(hostile_docs)
    own_assets = f"{live_server.url}/static/"
    leaks = [
        (url, where)
        for url, where in watch.requests
        if url not in allowed
        and not (url.startswith(own_assets) and where == start)
        and url != f"{live_server.url}/favicon.ico"
    ]
    assert watch.dialogs == []
    assert leaks == [], "\n".join(f"{u} from {w}" for u, w in leaks)


def test_sanitizer_alone_in_an_unprotected_page(page):
    """No CSP and no sandbox: the sanitizer's output by itself must neither run nor fetch."""
    from corpus.render import sanitize_html

    watch = Watch(page)
    body = "".join(f'<div class="v">{sanitize_html(v)}</div>' for _, v in VECTORS)
    page.set_content(f"<!DOCTYPE html><html><body>{body}</body></html>")
    page.wait_for_timeout(SETTLE_MS)
    for link in page.locator("a, button, input, area").all():
        link.dispatch_event("click")  # a click on whatever is left of links and controls leads nowhere
    page.wait_for_timeout(200)
    assert watch.dialogs == []
    assert [url for url, _ in watch.requests if not url.startswith(("about:", "data:"))] == []
    assert page.url == "about:blank"


def test_control_the_hooks_do_catch_code_and_requests(page):
    """Without the viewer, the same hooks see a dialog and a request: the tests above can fail."""
    watch = Watch(page)
    page.set_content('<img src="http://evil.example/control.png"><img src=x onerror="alert(1)">')
    deadline = Deadline(5)  # (until both are seen: events reach this side only while Playwright is waiting)
    while not (watch.dialogs and any("evil.example" in url for url, _ in watch.requests)) and not deadline.passed():
        page.wait_for_timeout(50)
    assert [d[0] for d in watch.dialogs] == ["alert"]
    assert any(url == "http://evil.example/control.png" for url, _ in watch.requests)

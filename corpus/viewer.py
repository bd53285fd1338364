"""What the document viewer serves, and the helper other parts call to point a sandboxed frame at a document.

    frame_url(collection_name, docno, marks=(), spans=(), allow_images=False) -> str
    {% load corpus_viewer %}{% document_frame url %}   (templates/corpus/_frame.html)

The frame URL carries the strings to mark (m=), the BOLT spans (s=post:offset:length) and, when the evaluation
allows images, a signature for that document (img=), so an assessor cannot turn images on by editing the URL.
When there is anything to mark the URL ends in #mark-1: the browser scrolls the frame to the first mark itself.
"""

from urllib.parse import urlencode

from django.core import signing
from django.urls import reverse
from django.utils.csp import CSP

from corpus import render
from corpus.formats import aquaint2, bolt_forum, charset
from corpus.forum_render import render_forum
from corpus.highlight import highlight_strings, number_marks

_SIGNER = signing.Signer(salt="corpus.viewer.images")
MAX_MARK_STRINGS = 50

# The frame's policy: nothing may load or run; inline styles (the page's layout) may apply.
FRAME_CSP = {
    "default-src": [CSP.NONE],
    "style-src": [CSP.UNSAFE_INLINE],
    "img-src": [CSP.NONE],
    "font-src": [CSP.NONE],
    "media-src": [CSP.NONE],
    "object-src": [CSP.NONE],
    "script-src": [CSP.NONE],
    "connect-src": [CSP.NONE],
    "frame-src": [CSP.NONE],
    "child-src": [CSP.NONE],
    "worker-src": [CSP.NONE],
    "manifest-src": [CSP.NONE],
    "form-action": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "frame-ancestors": [CSP.SELF],
    "sandbox": True,  # even opened on its own, the document gets a unique origin and no scripts
}
FRAME_CSP_IMAGES = FRAME_CSP | {"img-src": ["http:", "https:"]}


def _image_token(collection_name, docno):
    return _SIGNER.sign(f"{collection_name}\x00{docno}").rsplit(":", 1)[1]


def images_allowed(collection_name, docno, token):
    if not token:
        return False
    try:
        _SIGNER.unsign(f"{collection_name}\x00{docno}:{token}")
        return True
    except signing.BadSignature:
        return False


def frame_url(collection_name, docno, marks=(), spans=(), allow_images=False):
    """URL of the sandboxed frame showing `docno` of `collection_name` with `marks` (strings) and `spans`
    ((post_id, offset, length) in raw characters) highlighted; images only if the evaluation allows them."""
    params = [("m", s) for s in marks if s and s.strip()][:MAX_MARK_STRINGS]
    params += [("s", f"{post}:{int(offset)}:{int(length)}") for post, offset, length in spans]
    if allow_images:
        params.append(("img", _image_token(collection_name, docno)))
    url = reverse("corpus:frame", args=[collection_name, docno])
    if params:
        url += "?" + urlencode(params)
    if marks or spans:
        url += "#mark-1"
    return url


def parse_spans(values):
    """s=post:offset:length values -> [(post, offset, length)]; malformed ones are ignored."""
    out = []
    for v in values:
        post, _, rest = v.rpartition(":")
        post, _, offset = post.rpartition(":")
        if post and offset.isascii() and offset.isdigit() and rest.isascii() and rest.isdigit():  # int() refuses "²"
            out.append((post, int(offset), int(rest)))
    return out


def render_body(document, spans=(), allow_images=False):
    """A stored document (corpus.models.Document) as a safe HTML fragment; returns (html, body style)."""
    fmt = document.collection.format
    raw = bytes(document.raw)
    if fmt == "blog06":
        codec = (charset.normalise(document.charset) or ("", "cp1252"))[1]
        page = charset.decode(raw, codec)
        base = document.meta.get("PERMALINK")
        return render.sanitize_html(page, allow_images, base), render.body_style(page)
    if fmt == "aquaint2":
        return render.render_newswire(aquaint2.structure(raw)), ""
    if fmt == "bolt-forum":
        text, _ = bolt_forum.decode(raw)
        return render_forum(text, document.meta, spans), ""
    return render.render_abstract(document.meta, document.text), ""


FRAME_STYLE = """
mark.hl { background: #ffe14d; color: #000; outline: 1px solid #c79a00; }
mark.span { background: #a8d8ff; color: #000; outline: 1px solid #2a7fc0; }
mark.hl.start, mark.span.start { outline-width: 2px; }
article.newswire, article.forum, article.abstract { font: 16px/1.5 Georgia, serif; max-width: 48em; margin: 1em auto; }
.dateline { font-variant: small-caps; color: #555; }
section.post { border-top: 1px solid #ccc; padding: .5em 0; }
.post-head { font: 13px sans-serif; color: #555; }
.post-head .author { font-weight: bold; color: #000; }
.post-id { color: #999; }
.post-body { white-space: pre-wrap; }
blockquote.quote { margin: .3em 0 .3em 1em; padding: .2em .6em; border-left: 3px solid #bbb; background: #f4f4f4;
  white-space: pre-wrap; }
.quote-author { font: italic 13px sans-serif; color: #666; }
"""


def frame_html(document, marks=(), spans=(), allow_images=False):
    """The complete HTML document the frame view serves. Returns (html, number of marks)."""
    body, style = render_body(document, spans, allow_images)
    if marks:
        body, _ = highlight_strings(body, list(marks)[:MAX_MARK_STRINGS])
    body, count = number_marks(body)
    body_attr = f' style="{style}"' if style else ""
    title = render._p(f"{document.collection.name} {document.docno}")
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">'
        f"<title>{title}</title><style>{FRAME_STYLE}</style></head>"
        f"<body{body_attr}>\n{body}\n</body></html>\n"
    ), count

"""The renderer, CSS filter, highlighter and forum spans as pure functions (no database, no browser)."""

import gzip
import io
import random
import re

import pytest

from corpus.css import _DANGER, clean_css
from corpus.formats.base import GzipStream
from corpus.forum_render import render_post_body
from corpus.highlight import highlight_strings, number_marks
from corpus.render import _STYLE_ELEMENT, _styles, body_style, sanitize_html


@pytest.mark.parametrize(
    "doc, strings, expected",
    [
        (
            "<p>Dana  Whitfield&nbsp;rocks</p>",
            ["dana whitfield"],
            '<p><mark class="hl start">Dana  Whitfield</mark>&nbsp;rocks</p>',
        ),
        ('<p title="Dana Whitfield">x</p>', ["dana whitfield"], '<p title="Dana Whitfield">x</p>'),  # not in attributes
        ("<style>p{dana:whitfield}</style>", ["dana:whitfield"], "<style>p{dana:whitfield}</style>"),  # nor in CSS
        (
            "<table><tr><td>Dana</td>\n<td>Whitfield</td></tr></table>",
            ["DANA WHITFIELD"],
            '<table><tr><td><mark class="hl start">Dana</mark></td>\n<td><mark class="hl">Whitfield</mark></td></tr></table>',
        ),
        (
            "<p>Bluetooth &amp; lower</p>",
            ["bluetooth&lower"],
            '<p><mark class="hl start">Bluetooth &amp; lower</mark></p>',
        ),
        ("<p>a &lt;b&gt; c</p>", ["<b>"], '<p>a <mark class="hl start">&lt;b&gt;</mark> c</p>'),
        ("<p>x</p>", ["", "  "], "<p>x</p>"),
    ],
)
def test_highlight_strings(doc, strings, expected):
    assert highlight_strings(doc, strings)[0] == expected


def test_marks_numbered_in_document_order_and_matches_do_not_overlap():
    html, n = highlight_strings("<p>one two one</p><p>two</p>", ["two", "one two"])
    html, count = number_marks(html)
    assert (n, count) == (2, 2)  # leftmost match wins; the second "one two" runs across the paragraph break
    assert html == (
        '<p><mark class="hl start" id="mark-1">one two</mark> <mark class="hl start" id="mark-2">one'
        '</mark></p><p><mark class="hl">two</mark></p>'
    )


def test_forum_spans_cover_raw_characters_with_entities_whole():
    raw = '\nA &amp; B <quote orig_author="x">\nquoted\n</quote>\nreply'
    # raw offsets: "&amp;" is 3..8; a span of 1 character at 5 (inside the entity) marks the whole "&"
    assert render_post_body(raw, [(5, 6)]) == (
        '\nA <mark class="span start">&amp;</mark> B <blockquote class="quote" dir="auto">'
        '<div class="quote-author" dir="ltr"><bdi>x</bdi> wrote:</div>\nquoted\n</blockquote>\nreply'
    )
    html = render_post_body(raw, [(1, raw.index("quoted") + 3)])
    assert html.count('<mark class="span start">') == 1 and "</mark><blockquote" in html  # closed before the tag
    assert html.index("quo</mark>") > html.index("<blockquote")


@pytest.mark.parametrize(
    "css, kept, gone",
    [
        ("color: red; background: url(http://evil.example/a.png)", "color: red", "evil.example"),
        ("background: u\\72 l(http://evil.example/a.png)", "background", "evil.example"),
        ("@import 'http://evil.example/x.css'; p { color: navy }", "color: navy", "evil.example"),
        ("width: expression(alert(1))", "width", "alert"),
        ("background-image: image-set('http://evil.example/a.png' 1x)", "background-image", "evil.example"),
    ],
)
def test_clean_css(css, kept, gone):
    out = clean_css(css)
    assert kept in out and gone not in out


def test_style_element_cannot_be_closed_by_css_escapes():
    out = sanitize_html("<style>\\3c /style\\3e \\3c img src=x onerror=alert(1)\\3e</style><p>x</p>")
    assert out.count("</style>") == 1 and "<img" not in out


def _styles_in_two_passes(out):
    """The oracle: what the renderer did before one scan did both (every style element's CSS cleaned, then each
    ' style="' of that text read left to right from the end of the value before it)."""

    def element(m):
        return m.group(1) + clean_css(m.group(2)).replace("<", "\\3c ") + m.group(3)

    out = _STYLE_ELEMENT.sub(element, out)
    i = out.find(' style="')
    while i >= 0:
        j = out.find('"', i + 8)
        if j < 0 or _DANGER.search(out, i + 8, j):
            return out, True
        i = out.find(' style="', j)
    return out, False


@pytest.mark.parametrize(
    "out",
    [
        "",
        'x style="color: red"',
        'x style="background: url(a)"',
        'x style="color: red',  # unterminated: cleaned
        '<style>a{b:url(x)}</style><p style="color:red">t</p><b style="src: y">u</b>',  # shifted by the CSS
        '<style style="url(x)">a{}</style>',  # in the element's own opening tag
        '<style>a{x: url(y)} p style="url(z)"</style>',  # in the CSS
        '<style>p style="color:red"</style> style="url(q)"',  # unchanged CSS, then a risky one
        'a style="b style="url(c)"',  # inside the value before it: skipped
        "<style>a</style><style>b:url(c)</style></style><style>",  # several, one unclosed
        '<style\n>a{url(x)}</style>xstyle="url(y)" style="z"',
    ],
)
def test_one_scan_for_styles_says_what_the_two_passes_said(out):
    assert _styles(out) == _styles_in_two_passes(out)


def test_one_scan_for_styles_agrees_on_random_markup():
    pieces = [
        "<style>",
        '<style type="t">',
        "</style>",
        ' style="',
        'style="',
        '"',
        "url(a)",
        " ",
        "x",
        "<",
        ">",
        "/*",
        "*/",
        "\\",
        "import",
        "color:red",
        "<styles>",
        "<style\n>",
        "sty",
        'le="',
        '<b style="x">',
    ]
    rng = random.Random(32)
    for _ in range(20_000):
        out = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        assert _styles(out) == _styles_in_two_passes(out), out


def test_risky_style_attribute_after_a_cleaned_style_element_is_cleaned():
    out = sanitize_html(
        "<style>body{background:url(http://evil.example/a.png)} p{margin:0}</style>"
        '<p style="color: red">a</p><p style="background: url(http://evil.example/b.png)">b</p>'
    )
    assert "evil.example" not in out and '<p style="color: red">a</p>' in out and "p{margin:0}" in out
    assert re.search(r'<p style="background: ?none;?">b</p>', out), out


def test_layout_kept_code_gone():
    out = sanitize_html(
        '<table border="1" bgcolor="#eee"><tr><td style="color: red">a</td></tr></table>'
        '<font face="Georgia" color="navy">b</font><a href="http://x.example/" onclick="x()">c</a>'
        '<img src="http://x.example/i.png" alt="pic" width="10"><svg><text>d</text></svg>'
    )
    assert '<table border="1" bgcolor="#eee">' in out and '<td style="color: red">a</td>' in out
    assert '<font face="Georgia" color="navy">b</font>' in out and "<a>c</a>" in out
    assert '<img alt="pic" width="10">' in out and "svg" not in out
    with_images = sanitize_html('<img src="/i.png">', allow_images=True, base_url="http://blog.example/p/1.html")
    assert with_images == '<img src="http://blog.example/i.png">'


def test_body_style_keeps_colours_only():
    assert body_style('<body bgcolor="#ffe" text=navy onload="x()">') == "background-color: #ffe; color: navy"
    assert body_style('<body bgcolor="red;background:url(x)">') == ""


def test_gzip_stream_reads_every_member():
    data = gzip.compress(b"<DOC>\na</DOC>\n") + gzip.compress(b"<DOC>\nb</DOC>\n")
    stream = GzipStream(io.BytesIO(data))
    out = b""
    while chunk := stream.read():
        out += chunk
    assert out == b"<DOC>\na</DOC>\n<DOC>\nb</DOC>\n"

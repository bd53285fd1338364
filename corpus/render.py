"""Raw document -> the HTML the viewer serves. Pure functions, no Django.

Web pages go through nh3 (ammonia on html5ever, a spec-conformant HTML5 parser, so the tree it cleans is the tree a
browser would build; see docs/architecture.md for the benchmark behind the choice). What stays is layout: tables,
fonts, colours, inline styles and style elements (their CSS with every fetch removed, corpus/css.py). What goes is
everything that can run code or leave the machine: scripts, handlers, frames, objects, forms, meta, base, links'
targets, SVG and MathML, and images unless the evaluation allows them.
"""

import html
import re

import nh3

from corpus.css import _DANGER, clean_css

# Layout and text elements that cannot run code or fetch anything (img is handled apart). <mark> is left out:
# marks are ours, and a page must not plant one to steer where the frame scrolls.
TAGS = {
    "a",
    "abbr",
    "acronym",
    "address",
    "article",
    "aside",
    "b",
    "bdi",
    "bdo",
    "big",
    "blink",
    "blockquote",
    "br",
    "caption",
    "center",
    "cite",
    "code",
    "col",
    "colgroup",
    "dd",
    "del",
    "dfn",
    "dir",
    "div",
    "dl",
    "dt",
    "em",
    "fieldset",
    "figcaption",
    "figure",
    "font",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "i",
    "ins",
    "kbd",
    "label",
    "legend",
    "li",
    "listing",
    "main",
    "menu",
    "nav",
    "nobr",
    "ol",
    "p",
    "pre",
    "q",
    "rp",
    "rt",
    "ruby",
    "s",
    "samp",
    "section",
    "small",
    "span",
    "strike",
    "strong",
    "style",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "time",
    "tr",
    "tt",
    "u",
    "ul",
    "var",
    "wbr",
}
# Removed together with everything inside them (a reader never saw their content, or it is code).
DROP_WITH_CONTENT = {
    "script",
    "noscript",
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "template",
    "noembed",
    "noframes",
    "xmp",
    "select",
    "textarea",
    "button",
    "title",
    "svg",
    "math",
    "head",
    "audio",
    "video",
    "canvas",
    "map",
    "datalist",
    "dialog",
    "portal",
}
_COMMON = {
    "align",
    "bgcolor",
    "border",
    "cellpadding",
    "cellspacing",
    "class",
    "clear",
    "color",
    "cols",
    "colspan",
    "compact",
    "dir",
    "face",
    "headers",
    "height",
    "hspace",
    "id",
    "lang",
    "noshade",
    "nowrap",
    "rowspan",
    "rules",
    "scope",
    "size",
    "span",
    "start",
    "style",
    "summary",
    "title",
    "type",
    "valign",
    "value",
    "vspace",
    "width",
    "abbr",
    "axis",
    "char",
    "charoff",
    "frame",
    "datetime",
    "reversed",
}
IMG_ATTRS = {"alt", "width", "height", "border", "align", "hspace", "vspace", "title"}
ID_PREFIX = "doc-"  # so a page cannot plant its own "mark-1" and steer where the frame scrolls


# Style attributes are cleaned after nh3, and only on pages where one looks risky: a Python attribute filter called
# for every attribute cost a third of the renderer's time. nh3 writes every attribute as name="value" with " and &
# escaped (never < or >), so a tag is exactly matched by _TAG_RE and a style value by _STYLE_ATTR.


_TAG_RE = re.compile(r"""<[a-zA-Z][^\s/>]*(?:\s+[^\s="'<>/]+(?:="[^"]*")?)*\s*/?>""")
_STYLE_ATTR = re.compile(r'(\sstyle=")([^"]*)(")')


def _clean_style_value(m):
    css = clean_css(html.unescape(m.group(2))).replace("<", " ")
    return m.group(1) + html.escape(css, quote=True) + m.group(3)


def _clean_tag_styles(m):
    tag = m.group()
    return _STYLE_ATTR.sub(_clean_style_value, tag) if ' style="' in tag else tag


def _cleaner(allow_images, base_url=None):
    attributes = {"*": _COMMON, "img": IMG_ATTRS | ({"src"} if allow_images else set())}
    relative = "deny"
    if allow_images and base_url and base_url.startswith(("http://", "https://")):
        relative = ("rewrite_with_base", base_url)
    return dict(
        tags=TAGS | ({"img"} if allow_images else {"img"}),
        clean_content_tags=DROP_WITH_CONTENT,
        attributes=attributes,
        strip_comments=True,
        link_rel=None,
        url_schemes={"http", "https"},
        url_relative=relative,
        id_prefix=ID_PREFIX,
    )


_NO_IMAGES = nh3.Cleaner(**_cleaner(False))
_STYLE_ELEMENT = re.compile(r"(<style(?:\s[^>]*)?>)(.*?)(</style>)", re.S)  # nh3 writes tag names in lower case
_BODY = re.compile(r"<body\b([^>]*)>", re.I)
_BODY_ATTR = re.compile(r"""\b(bgcolor|text|style)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I)
_COLOR = re.compile(r"^#?[0-9a-zA-Z]{1,20}$")


_STYLE_WORD = re.compile("style")  # a literal: the regex engine's prefix scan, the fastest pass over a page found


def _styles(out):
    """nh3's output -> (it with each style element's CSS cleaned, whether a style="..." in that holds something
    clean_css would remove or is unterminated), from one scan for "style" instead of one per question (a pass over a
    page costs about 6 % of the renderer's time). Same result as the two passes it replaces: `_STYLE_ELEMENT.sub`
    of every element (left to right, not overlapping), then, in the text that gave, each ' style="' found left to
    right from the end of the value before it (tests/test_corpus_render.py keeps those as the oracle). A ' style="'
    cannot straddle an element's CSS (a ">" before it, a "<" after), so the ones of the result are those outside the
    cleaned CSS, moved by the length the CSS before them changed, and those in it."""
    found = []  # positions of ' style="' in the result
    changed = []  # (start, end, cleaned CSS) of each element whose CSS the cleaning changed
    elem_end = css_from = css_to = 0
    before = delta = 0  # length changes: of the elements before the latest one, of the latest one
    unordered = False
    for m in _STYLE_WORD.finditer(out):
        k = m.start()
        if not k or css_from <= k < css_to:
            continue  # in an element's CSS: its cleaned text is searched instead
        c = out[k - 1]
        if c == " ":
            if out.startswith('="', k + 5):
                found.append(k - 1 + before + (delta if k >= css_to else 0))
        elif c == "<" and k > elem_end:
            em = _STYLE_ELEMENT.match(out, k - 1)
            if em:
                elem_end = em.end()
                css_from, css_to = em.span(2)
                # An unescaped CSS escape must not close the element and open markup: no "<" at all inside style.
                css = clean_css(em.group(2)).replace("<", "\\3c ")
                before += delta
                delta = len(css) - (css_to - css_from)
                if css != em.group(2):
                    changed.append((css_from, css_to, css))
                i = css.find(' style="')
                while i >= 0:  # listed before those of the element's opening tag: sorted below
                    found.append(css_from + before + i)
                    unordered = True
                    i = css.find(' style="', i + 1)
    if not changed:
        new = out
    elif len(changed) == 1 and out.find(old := out[changed[0][0] : changed[0][1]], 0, changed[0][1]) == changed[0][0]:
        new = out.replace(old, changed[0][2], 1)  # one copy of the page where slicing and joining made three
    else:
        parts, last = [], 0
        for start, end, css in changed:
            parts += (out[last:start], css)
            last = end
        parts.append(out[last:])
        new = "".join(parts)
    if unordered:
        found.sort()
    j, values = 0, []
    for i in found:
        if i < j:
            continue  # inside the value before it
        j = new.find('"', i + 8)
        if j < 0:
            return new, True
        values.append(new[i + 8 : j])
    # One search over all values: no alternative of _DANGER holds a quote, so none matches across two of them.
    return new, bool(values) and _DANGER.search('"'.join(values)) is not None


def body_style(page):
    """The page's <body bgcolor/text/style> as a safe inline style for the frame's own body."""
    m = _BODY.search(page)
    if not m:
        return ""
    parts = []
    for am in _BODY_ATTR.finditer(m.group(1)):
        name, value = am.group(1).lower(), html.unescape(am.group(2) or am.group(3) or am.group(4) or "").strip()
        if name in ("bgcolor", "text") and _COLOR.match(value):
            parts.append(("background-color: " if name == "bgcolor" else "color: ") + value)
        elif name == "style":
            parts.append(clean_css(value).replace("<", " ").replace('"', "'"))
    return "; ".join(parts)


def sanitize_html(page, allow_images=False, base_url=None):
    """A decoded web page -> safe HTML fragment (the body's content, head styles kept)."""
    if allow_images:
        out = nh3.clean(page, **_cleaner(True, base_url))
    else:
        out = _NO_IMAGES.clean(page)
    out, risky = _styles(out)  # style elements first: no "<" is left inside them
    if risky:
        out = _TAG_RE.sub(_clean_tag_styles, out)
    return out


def _p(text):
    return html.escape(text, quote=False)


def render_newswire(s):
    """AQUAINT-2 structure (corpus.formats.aquaint2.structure) -> headline, dateline, paragraphs."""
    parts = ['<article class="newswire">']
    if s.get("headline"):
        parts.append(f'<h1 class="headline">{_p(s["headline"])}</h1>')
    if s.get("dateline"):
        parts.append(f'<p class="dateline">{_p(s["dateline"])}</p>')
    parts.extend(f"<p>{_p(p)}</p>" for p in s.get("paragraphs", ()))
    parts.append("</article>")
    return "\n".join(parts)


def render_abstract(meta, text):
    title = meta.get("title", "")
    body = text[len(title) :].strip() if title and text.startswith(title) else text
    return (
        f'<article class="abstract"><h1 class="headline">{_p(title)}</h1>'
        + "".join(f"<p>{_p(p)}</p>" for p in body.split("\n\n") if p.strip())
        + "</article>"
    )

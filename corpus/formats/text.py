"""The viewable text of an HTML page: what a browser shows, without head, scripts, styles and comments."""

import re

from lxml import etree

_PARSER = etree.HTMLParser(
    remove_comments=True, remove_pis=True, no_network=True, recover=True, remove_blank_text=False, default_doctype=False
)
_INVISIBLE = ("head", "script", "style", "noscript", "template", "title", "iframe", "object", "select")
# After these elements a browser starts a new line; their tails get one so words do not run together.
_BLOCKS = (
    "p",
    "div",
    "br",
    "li",
    "tr",
    "td",
    "th",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "table",
    "ul",
    "ol",
    "dd",
    "dt",
    "blockquote",
    "pre",
    "hr",
    "section",
    "article",
    "header",
    "footer",
    "form",
)
# Control characters XML cannot hold: lxml keeps them in the HTML tree but refuses them when a tail is set back.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
_BREAK = "\ue000"  # a private-use character: not white space, never in real text we keep


def html_text(page: str, controls: bool = True) -> str:
    """Viewable text of a decoded HTML page, lines kept, runs of blanks collapsed.

    `controls=False`: the caller knows the page holds no C0 control character but tab, LF and CR (as
    charset.control_free tells from the bytes, far quicker than a search of the text), so none is looked for.
    """
    if not page or page.isspace():
        return ""
    if controls and _CONTROL.search(page):  # rare: a search first spares the common page a copy
        page = _CONTROL.sub(" ", page)
    try:
        root = etree.fromstring(page, _PARSER)
    except (etree.ParserError, ValueError):
        return ""
    if root is None:
        return ""
    etree.strip_elements(root, *_INVISIBLE, with_tail=False)
    for el in root.iter(*_BLOCKS):
        el.tail = _BREAK + el.tail if el.tail else _BREAK
    text = etree.tostring(root, method="text", encoding="unicode")
    # Cut at the break markers, collapse every blank inside a piece (no-break space included) as split/join does,
    # drop empty pieces. Most pieces need no collapsing: blanks only single spaces inside, since every other blank
    # (tab, newline, no-break space, U+3000...) fails isprintable(). Those two C-level scans spare them the
    # word-by-word copy of split/join, half the time of this function on text-heavy pages.
    lines = []
    for piece in text.split(_BREAK):
        piece = piece.strip()
        if piece:
            lines.append(piece if "  " not in piece and piece.isprintable() else " ".join(piece.split()))
    return "\n".join(lines)

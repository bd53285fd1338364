"""A BOLT forum thread as clean structured text: headline, then posts with author, date and quotes set apart.

Citation spans (post id, offset, length in raw XML characters of the post, an entity counting as all its raw
characters) are marked while rendering, so the mark covers exactly the cited raw characters.

BOLT threads are English, Egyptian Arabic or Mandarin (seed 004): headlines, post bodies and quotes take their
direction from their own text (dir="auto"), so an Arabic post reads right to left and its punctuation sits where
the writer put it; a quote in another language than the post around it gets its own."""

import html

from corpus.formats.aquaint2 import attributes
from corpus.formats.bolt_forum import _QUOTE_OPEN, TOKEN

SPAN_OPEN = '<mark class="span">'
SPAN_OPEN_START = '<mark class="span start">'


def _esc(s):
    return html.escape(s, quote=False)


class _Emitter:
    def __init__(self, ranges):
        self.ranges = sorted(ranges)
        self.parts = []
        self.open = False
        self.started = set()  # ranges whose first piece has been marked

    def _covering(self, a, b):
        return [r for r in self.ranges if r[0] < b and a < r[1]]

    def close(self):
        if self.open:
            self.parts.append("</mark>")
            self.open = False

    def text(self, raw_start, raw_text, shown=None):
        """Emit raw_text (at raw offset raw_start); shown replaces it whole (an entity) when given."""
        if not self.ranges:
            self.parts.append(_esc(shown if shown is not None else raw_text))
            return
        if shown is not None:  # atomic: marked if any of its raw characters is cited
            self._piece(raw_start, raw_start + len(raw_text), shown)
            return
        cuts = {raw_start, raw_start + len(raw_text)}
        for a, b in self.ranges:
            for c in (a, b):
                if raw_start < c < raw_start + len(raw_text):
                    cuts.add(c)
        cuts = sorted(cuts)
        for a, b in zip(cuts, cuts[1:]):
            self._piece(a, b, raw_text[a - raw_start : b - raw_start])

    def _piece(self, a, b, shown):
        cover = self._covering(a, b)
        if cover and not shown.strip() and not self.open:
            self.parts.append(_esc(shown))  # do not open a mark on white space alone
            return
        if cover:
            new = [r for r in cover if r not in self.started]
            if new or not self.open:
                self.close()
                self.parts.append(SPAN_OPEN_START if new else SPAN_OPEN)
                self.started.update(new)
                self.open = True
        else:
            self.close()
        self.parts.append(_esc(shown))

    def markup(self, s):
        self.close()
        self.parts.append(s)


def render_post_body(raw, ranges=()):
    """A post's raw XML text -> HTML, quotes as blockquotes, other tags dropped, `ranges` (raw offsets) marked."""
    em = _Emitter([(a, b) for a, b in ranges if b > a])
    depth = 0
    pos = 0
    for tok in TOKEN.findall(raw):
        start = pos
        pos += len(tok)
        if tok.startswith("<") and len(tok) > 1:
            if tok.startswith("</quote"):
                if depth:
                    depth -= 1
                    em.markup("</blockquote>")
            elif _QUOTE_OPEN.match(tok):
                depth += 1
                who = attributes(tok[6:-1]).get("orig_author", "")
                # the author line is English words around a name: left to right, and (having a dir of its own)
                # left out of the quote's own direction
                em.markup(
                    '<blockquote class="quote" dir="auto">'
                    + (f'<div class="quote-author" dir="ltr"><bdi>{_esc(who)}</bdi> wrote:</div>' if who else "")
                )
            elif tok.lower().startswith("<img"):
                em.markup('<span class="image">[image]</span>')
            continue  # <a>, </a> and anything else: the text stays, the tag goes
        if tok.startswith("&") and len(tok) > 1:
            em.text(start, tok, html.unescape(tok))
        else:
            em.text(start, tok)
    em.close()
    em.parts.append("</blockquote>" * depth)
    return "".join(em.parts)


def render_forum(text, meta, spans=()):
    """A decoded thread and its meta (corpus.formats.bolt_forum) -> HTML; spans = [(post_id, offset, length)]."""
    parts = ['<article class="forum">']
    if meta.get("headline"):
        parts.append(f'<h1 class="headline" dir="auto">{_esc(meta["headline"])}</h1>')
    for post in meta.get("posts", ()):
        raw = text[post["start"] : post["start"] + post["length"]]
        ranges = [(int(o), int(o) + int(n)) for pid, o, n in spans if pid == post["id"]]
        pid = html.escape(post["id"])
        parts.append(
            f'<section class="post" id="post-{pid}"><header class="post-head">'
            f'<span class="author">{_esc(post["author"])}</span> '
            f'<time>{_esc(post["datetime"])}</time> <span class="post-id">{_esc(post["id"])}</span>'
            f'</header><div class="post-body" dir="auto">{render_post_body(raw, ranges)}</div></section>'
        )
    parts.append("</article>")
    return "\n".join(parts)

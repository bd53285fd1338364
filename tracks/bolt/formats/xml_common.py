"""XML plumbing shared by the BOLT IR formats (topics, citation and grouping submissions). No Django import.

lxml reports every syntax error it meets with its line; the BOLT formats turn them into Problems and stop there,
since a tree built by error recovery would make every later message a guess.
"""

from os import PathLike
from pathlib import Path

from lxml import etree
from lxml.etree import _Element

from pooling.formats.base import Problem

DTD_DIR = Path(__file__).resolve().parent / "dtd"
TOPIC_DTD = DTD_DIR / "bolt-ir-topic-schema.dtd"
CITE_DTD = DTD_DIR / "bolt-ir-cite-schema.dtd"
GROUP_DTD = DTD_DIR / "bolt-ir-schema.dtd"


def parse_xml(data: bytes | str) -> tuple[list[Problem], _Element | None]:
    """(problems, root element or None). No DTD loading, no network, no entity expansion beyond XML's own."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True, remove_comments=True, remove_pis=True
    )
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        # The parser's own log: the exception's may still hold errors of earlier parses in this thread.
        problems = [Problem(e.line or None, f"malformed XML: {e.message}") for e in parser.error_log]
        return problems or [Problem(exc.lineno or None, f"malformed XML: {exc.msg}")], None
    return [], root


# How a passage's characters are read (setting "passage_white_space"). SPEC-NOTES: "the citation's passage text
# as submitted (entities decoded; at most 250)", so every character of the passage counts, inner line breaks and
# indentation included; the white space at both ends is the file's layout, not the passage (seed 004's own example
# writes each passage on a line of its own between <cite> and </cite>), so it is trimmed. "collapsed" is the other
# reading (runs of white space as one space, ends trimmed: a file that wraps passages over indented lines then
# counts what a reader sees).
AS_SUBMITTED = "as submitted"
COLLAPSED = "collapsed"
PASSAGE_READINGS = (AS_SUBMITTED, COLLAPSED)


def passage_text(element: _Element, reading: str = AS_SUBMITTED) -> str:
    """The passage of a <cite>: its text (relspan text included), entities decoded, read as `reading` says."""
    return passage_with_spans(element, reading=reading)[0]


def passage_with_spans(
    element: _Element, marked: tuple[str, ...] = ("relspan",), reading: str = AS_SUBMITTED
) -> tuple[str, list[list[int]]]:
    """(passage, [[start, length], ...] of the text inside `marked` child elements), positions in the passage
    as `reading` gives it (AS_SUBMITTED: every character but the white space at both ends; COLLAPSED: white space
    collapsed)."""
    if not len(element):  # text alone (most passages): nothing to join, no spans
        text = element.text or ""
        return (collapse(text) if reading == COLLAPSED else text.strip()), []
    pieces = [(element.text or "", False)]
    for sub in element:
        if isinstance(sub.tag, str):
            pieces.append(("".join(sub.itertext()), sub.tag in marked))
        pieces.append((sub.tail or "", False))
    text = "".join(t for t, _ in pieces)
    spans, pos = [], 0
    for piece, flag in pieces:
        if flag and piece:
            spans.append([pos, len(piece)])
        pos += len(piece)
    if reading == COLLAPSED:
        return collapse_with_spans(text, spans) if spans else (collapse(text), [])
    return trim_with_spans(text, _joined(spans))


def trim_with_spans(text: str, spans: list[list[int]]) -> tuple[str, list[list[int]]]:
    """`text` without the white space at both ends, and `spans` moved to match (cut to what remains, an empty
    one dropped)."""
    start = len(text) - len(text.lstrip())
    end = len(text.rstrip()) if start < len(text) else start
    out = []
    for s, n in spans:
        s, e = max(s, start), min(s + n, end)
        if e > s:
            out.append([s - start, e - s])
    return text[start:end], out


def collapse_with_spans(text: str, spans: list[list[int]]) -> tuple[str, list[list[int]]]:
    """`text` with white space collapsed (runs as one space, ends trimmed) and `spans` moved to match; a span
    keeps the characters it covered that remain."""
    flags = [False] * len(text)
    for start, length in spans:
        for i in range(start, min(start + length, len(text))):
            flags[i] = True
    chars: list[str]
    kept: list[bool]
    chars, kept = [], []
    for ch, flag in zip(text, flags):
        if ch.isspace():
            if not chars or chars[-1] == " ":
                continue
            ch = " "
        chars.append(ch)
        kept.append(flag)
    if chars and chars[-1] == " ":
        chars.pop()
        kept.pop()
    out: list[list[int]] = []
    begin: int | None = None  # where the current run of kept characters began
    for i, flag in enumerate(kept + [False]):
        if flag and begin is None:
            begin = i
        elif not flag and begin is not None:
            out.append([begin, i - begin])
            begin = None
    return "".join(chars), out


def _joined(spans: list[list[int]]) -> list[list[int]]:
    """Adjacent spans (two marked elements in a row) as one, as the collapsed reading gives them."""
    out: list[list[int]] = []
    for start, length in spans:
        if out and out[-1][0] + out[-1][1] == start:
            out[-1][1] += length
        else:
            out.append([start, length])
    return out


def collapse(text: str | None) -> str:
    return " ".join((text or "").split())


def children(element: _Element, tag: str) -> list[_Element]:
    return [c for c in element if isinstance(c.tag, str) and c.tag == tag]


def child(element: _Element, tag: str) -> _Element | None:
    found = children(element, tag)
    return found[0] if found else None


def validate(xml_bytes: bytes, dtd_path: str | PathLike[str]) -> list[Problem]:
    """Problems (by line) from validating a document against one of the BOLT DTDs."""
    dtd = etree.DTD(str(dtd_path))
    root = etree.fromstring(xml_bytes, etree.XMLParser(resolve_entities=False, no_network=True))
    if dtd.validate(root):
        return []
    return [Problem(e.line or None, e.message) for e in dtd.error_log.filter_from_errors()]

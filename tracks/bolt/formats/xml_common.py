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


def passage_text(element: _Element) -> str:
    """The passage of a <cite>: its text (relspan text included), entities decoded, white space collapsed.

    The files wrap passages over lines with indentation; those line breaks are layout, not passage characters,
    so runs of white space count as one space and the ends are trimmed (Assay's reading of "characters of the
    citation's passage text as submitted")."""
    return passage_with_spans(element)[0]


def passage_with_spans(element: _Element, marked: tuple[str, ...] = ("relspan",)) -> tuple[str, list[list[int]]]:
    """(passage, [[start, length], ...] of the text inside `marked` child elements), positions in the
    white-space-collapsed passage that passage_text returns."""
    if not any(isinstance(sub.tag, str) and sub.tag in marked for sub in element):
        return collapse("".join(element.itertext())), []
    pieces = [(element.text or "", False)]
    for sub in element:
        if isinstance(sub.tag, str):
            pieces.append(("".join(sub.itertext()), sub.tag in marked))
        pieces.append((sub.tail or "", False))
    chars: list[str]
    flags: list[bool]
    chars, flags = [], []
    for text, flag in pieces:
        for ch in text:
            if ch.isspace():
                if not chars or chars[-1] == " ":
                    continue
                ch = " "
            chars.append(ch)
            flags.append(flag)
    if chars and chars[-1] == " ":
        chars.pop()
        flags.pop()
    spans, start = [], None
    for i, flag in enumerate(flags + [False]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            spans.append([start, i - start])
            start = None
    return "".join(chars), spans


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

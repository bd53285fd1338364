"""TREC 2007 ciQA URL files: where a team's interactive system answers each topic. No Django import.

The seed (001, 3.2.2) says a URL file points at the participant's Web-based QA system, one URL per topic, and
includes pointers to screenshots of the interface. Assay's file (the seed gives no syntax; decision in
docs/reference.md):

    # comments and blank lines are ignored
    tag UMDurl1
    screenshot https://qa.example.org/shots/main.png
    oQA2007throwaway https://qa.example.org/ciqa?topic=training
    56 https://qa.example.org/ciqa?topic=56

One `tag` line names the file (unique in the evaluation, like a run tag); `screenshot` lines are kept as the
archive's pointers; every other line is `TOPIC URL`. Every topic, the training topic included, needs exactly one
URL, and every URL is an absolute http(s) address.
"""

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from pooling.formats.base import Problem

MAX_URL = 2000
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")  # not text, whatever the encoding said
MAX_TAG = 100


@dataclass
class ParsedUrlFile:
    tag: str
    urls: dict[str, str]  # topic ident -> URL, in file order
    screenshots: list[str] = field(default_factory=list)


def url_problem(url: str) -> str | None:
    """Why `url` is not an absolute http(s) URL, or None."""
    if len(url) > MAX_URL:
        return f"URL longer than {MAX_URL} characters"
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        return f"malformed URL ({exc})"
    if parts.scheme.lower() not in ("http", "https"):
        return f"URL {url!r} is not http(s)"
    if not parts.hostname:
        return f"URL {url!r} names no host"
    return None


def parse_url_file(data: bytes, filename: str, topics: list[str]) -> tuple[list[Problem], ParsedUrlFile | None]:
    """(problems, ParsedUrlFile or None) of a URL file for the given topic idents (all must get a URL)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [Problem(data[: exc.start].count(b"\n") + 1, "bad encoding: not valid UTF-8")], None
    problems: list[Problem] = []
    tag: tuple[str, int] | None = None
    urls: dict[str, str] = {}
    where: dict[str, int] = {}
    screenshots: list[str] = []
    known = set(topics)
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        bad = _CONTROL.search(line)
        if bad:
            problems.append(Problem(number, f"bad encoding: control character U+{ord(bad.group()):04X}"))
            continue
        cols = line.split()
        if len(cols) != 2:
            problems.append(
                Problem(number, f"expected 'TOPIC URL', 'tag NAME' or 'screenshot URL', found {len(cols)} columns")
            )
            continue
        head, value = cols
        if head.lower() == "tag":
            if tag is not None:
                problems.append(Problem(number, f"a second tag line; the tag is {tag[0]!r} (line {tag[1]})"))
            elif len(value) > MAX_TAG:
                problems.append(Problem(number, f"tag longer than {MAX_TAG} characters"))
            else:
                tag = (value, number)
            continue
        bad = url_problem(value)
        if bad:
            problems.append(Problem(number, bad))
            continue
        if head.lower() == "screenshot":
            screenshots.append(value)
        elif head not in known:
            problems.append(Problem(number, f"unknown topic {head!r}"))
        elif head in urls:
            problems.append(Problem(number, f"a second URL for topic {head}; the first is on line {where[head]}"))
        else:
            urls[head], where[head] = value, number
    if tag is None:
        problems.append(Problem(None, "no 'tag NAME' line naming the URL file"))
    problems += [Problem(None, f"topic {t} has no URL: every topic needs one") for t in topics if t not in urls]
    problems.sort(key=lambda p: (p.line is None, p.line or 0))
    if problems or tag is None:
        return problems, None
    return problems, ParsedUrlFile(tag=tag[0], urls={t: urls[t] for t in topics}, screenshots=screenshots)

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

Assessors open these URLs from inside the organizers' network, so a URL may not point at a loopback, private,
link-local, reserved, multicast or otherwise non-public address unless the evaluation allows it
(`allow_private_urls`; the demo, whose stand-in systems run on the demo's own host, does). The host is read as a
browser reads it (percent-escapes, full-width digits, IPv4 written as one number, in hex or in octal), `localhost`
and `*.localhost` are loopback by name (RFC 6761), and a host name is resolved only by the `resolve` function the
caller passes (tracks.qa.ciqa.submissions resolves at load time; this module does no I/O).
"""

import ipaddress
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from pooling.formats.base import Problem

MAX_URL = 2000
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")  # not text, whatever the encoding said
MAX_TAG = 100


@dataclass
class ParsedUrlFile:
    tag: str
    urls: dict[str, str]  # topic ident -> URL, in file order
    screenshots: list[str] = field(default_factory=list)


Resolver = Callable[[str], Iterable[str]]  # host name -> its addresses (empty: unknown)
_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})  # UTS 46 maps these to "."
ONLY_PUBLIC = "; assessors are only sent to public addresses (the evaluation's setting allow_private_urls is off)"
_PART = {16: re.compile("[0-9a-f]*"), 8: re.compile("[0-7]*"), 10: re.compile("[0-9]+")}


def _ipv4_part(part: str) -> int | None:
    """One dot-separated part as the URL standard reads an IPv4 host (0x.. hex, 0.. octal, decimal)."""
    if part[:2] in ("0x", "0X"):
        digits, base = part[2:].lower(), 16
    elif len(part) > 1 and part[0] == "0":
        digits, base = part[1:], 8
    else:
        digits, base = part, 10
    if not _PART[base].fullmatch(digits):
        return None
    return int(digits, base) if digits else 0


def host_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | str | None:
    """The address a browser would connect to for `host` (urlsplit's hostname), None for a host name, or a
    string saying why the host is no host at all. 'http://2852039166/' and 'http://0xa9.0xfe.0xa9.0xfe/' are
    169.254.169.254 to a browser, so they are to this check."""
    host = unicodedata.normalize("NFKC", unquote(host)).translate(_DOTS).lower()
    try:
        return ipaddress.ip_address(host.split("%", 1)[0])  # IPv6 (brackets already gone), plain IPv4
    except ValueError:
        pass
    parts = host.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()  # a trailing dot names the same host
    last = parts[-1]
    if not (last.isascii() and (last.isdigit() or last[:2] == "0x" and _PART[16].fullmatch(last[2:]))):
        return None  # not an IPv4 host: a name
    parsed = [_ipv4_part(p) for p in parts]
    numbers = [n for n in parsed if n is not None]
    if len(parts) > 4 or len(numbers) < len(parsed):
        return "not a valid IPv4 address (a browser reads a host ending in a number as one)"
    *head, tail = numbers
    if any(n > 255 for n in head) or tail >= 256 ** (5 - len(numbers)):
        return "not a valid IPv4 address (a browser reads a host ending in a number as one)"
    value = tail + sum(n << (8 * (3 - i)) for i, n in enumerate(head))
    return ipaddress.IPv4Address(value)


def address_problem(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why assessors may not be sent to `address` (the kind of address), or None for a public one."""
    mapped = getattr(address, "ipv4_mapped", None)
    if mapped is not None:
        address = mapped
    for kind, test in (
        ("a loopback", "is_loopback"),
        ("a link-local", "is_link_local"),
        ("a multicast", "is_multicast"),
        ("an unspecified", "is_unspecified"),
        ("a reserved", "is_reserved"),
        ("a private", "is_private"),
    ):
        if getattr(address, test):
            return f"{kind} address"
    return None if address.is_global else "a non-public address"


def host_problem(host: str, resolve: Resolver | None = None) -> str | None:
    """Why `host` may not be sent to assessors (a private address, or a name of one), or None."""
    address = host_address(host)
    if isinstance(address, str):
        return f"host {host!r} is {address}"
    if address is not None:
        bad = address_problem(address)
        return f"host {host!r} is {bad}{ONLY_PUBLIC}" if bad else None
    name = host.rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return f"host {host!r} is a loopback address{ONLY_PUBLIC}"
    for found in resolve(host) if resolve else ():
        bad = address_problem(ipaddress.ip_address(found.split("%", 1)[0]))
        if bad:
            return f"host {host!r} resolves to {found}, {bad}{ONLY_PUBLIC}"
    return None


def url_problem(url: str, allow_private: bool = False, resolve: Resolver | None = None) -> str | None:
    """Why `url` is not an absolute http(s) URL on a public host (any host with `allow_private`), or None."""
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
    if not allow_private:
        bad = host_problem(parts.hostname, resolve)
        if bad:
            return f"URL {url!r}: {bad}"
    return None


def parse_url_file(
    data: bytes, filename: str, topics: list[str], allow_private: bool = False, resolve: Resolver | None = None
) -> tuple[list[Problem], ParsedUrlFile | None]:
    """(problems, ParsedUrlFile or None) of a URL file for the given topic idents (all must get a URL); hosts as
    url_problem checks them."""
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
        problem = url_problem(value, allow_private, resolve)
        if problem:
            problems.append(Problem(number, problem))
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

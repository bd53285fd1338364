"""Which charset a web page is in: the HTTP header, else a <meta> tag, else detection. Never fails.

Labels are normalised the way browsers do (WHATWG Encoding Standard): iso-8859-1 and us-ascii mean windows-1252,
gb2312 means GBK (decoded with its superset gb18030), Shift_JIS means Windows-31J, and so on.
"""

import codecs
import re
from typing import Any

# label -> (name we store, Python codec)
_ALIASES: dict[str, tuple[str, str]] = {
    "utf-8": ("utf-8", "utf-8"),
    "utf8": ("utf-8", "utf-8"),
    "unicode-1-1-utf-8": ("utf-8", "utf-8"),
    # a page cannot really be UTF-16 if its meta tag was readable as ASCII; browsers treat that as UTF-8
    "utf-16": ("utf-8", "utf-8"),
    "unicode": ("utf-8", "utf-8"),
    "iso-8859-1": ("windows-1252", "cp1252"),
    "iso8859-1": ("windows-1252", "cp1252"),
    "latin1": ("windows-1252", "cp1252"),
    "latin-1": ("windows-1252", "cp1252"),
    "l1": ("windows-1252", "cp1252"),
    "us-ascii": ("windows-1252", "cp1252"),
    "ascii": ("windows-1252", "cp1252"),
    "windows-1252": ("windows-1252", "cp1252"),
    "cp1252": ("windows-1252", "cp1252"),
    "x-cp1252": ("windows-1252", "cp1252"),
    "cp819": ("windows-1252", "cp1252"),
    "gb2312": ("gbk", "gb18030"),
    "gbk": ("gbk", "gb18030"),
    "x-gbk": ("gbk", "gb18030"),
    "gb_2312-80": ("gbk", "gb18030"),
    "chinese": ("gbk", "gb18030"),
    "cp936": ("gbk", "gb18030"),
    "gb18030": ("gb18030", "gb18030"),
    "euc-cn": ("gbk", "gb18030"),
    "shift_jis": ("shift_jis", "cp932"),
    "shift-jis": ("shift_jis", "cp932"),
    "sjis": ("shift_jis", "cp932"),
    "x-sjis": ("shift_jis", "cp932"),
    "ms_kanji": ("shift_jis", "cp932"),
    "windows-31j": ("shift_jis", "cp932"),
    "cp932": ("shift_jis", "cp932"),
    "euc-jp": ("euc-jp", "euc_jp"),
    "iso-2022-jp": ("iso-2022-jp", "iso2022_jp"),
    "euc-kr": ("euc-kr", "cp949"),
    "ks_c_5601-1987": ("euc-kr", "cp949"),
    "cp949": ("euc-kr", "cp949"),
    "big5": ("big5", "big5hkscs"),
    "big5-hkscs": ("big5", "big5hkscs"),
    "iso-8859-9": ("windows-1254", "cp1254"),
    "latin5": ("windows-1254", "cp1254"),
    "tis-620": ("windows-874", "cp874"),
    "iso-8859-11": ("windows-874", "cp874"),
    "koi8-r": ("koi8-r", "koi8_r"),
    "koi8-u": ("koi8-u", "koi8_u"),
}

_META_RE = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_CT_RE = re.compile(r"""charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
META_WINDOW = 4096  # browsers look for the meta tag in the first 1024 bytes; real pages put it a bit later


def normalise(label: str | None) -> tuple[str, str] | None:
    """(stored name, Python codec) for a charset label, or None when neither we nor Python know it."""
    if not label:
        return None
    label = label.strip().strip("\"'").lower()
    if label in _ALIASES:
        return _ALIASES[label]
    try:
        info = codecs.lookup(label)
    except LookupError:
        return None
    if info.name in ("utf-16", "utf-16-le", "utf-16-be", "utf-32"):  # see the note on "utf-16" above
        return ("utf-8", "utf-8")
    return (label, info.name)


def from_content_type(value: str | None) -> str | None:
    """The charset parameter of a Content-Type header value, or None."""
    m = _CT_RE.search(value or "")
    return m.group(1) if m else None


def from_meta(page: bytes) -> str | None:
    m = _META_RE.search(page, 0, META_WINDOW)
    return m.group(1).decode("ascii", "replace") if m else None


# The charsets detection chooses among: those common on the web of 2005-2012 (Blog06, BOLT). Trying all ~90 that
# charset-normalizer knows costs several times more and mostly adds false candidates.
WEB_CHARSETS = [
    "utf_8",
    "cp1252",
    "cp1250",
    "cp1251",
    "cp1253",
    "cp1254",
    "cp1255",
    "cp1256",
    "cp1257",
    "iso8859_2",
    "iso8859_7",
    "koi8_r",
    "cp932",
    "euc_jp",
    "iso2022_jp",
    "gb18030",
    "big5",
    "cp949",
]


def detect(page: bytes) -> tuple[str, str] | None:
    """Charset detection with charset-normalizer on the first 16 KB (enough to decide, and bounded in time)."""
    from charset_normalizer import from_bytes

    best = from_bytes(page[:16384], cp_isolation=WEB_CHARSETS).best()
    return normalise(best.encoding) if best is not None else None


def choose(page: bytes, header_charset: str | None = None) -> tuple[str, str, str]:
    """Decide the charset of `page` (bytes). Returns (stored name, Python codec, source).

    Valid non-ASCII UTF-8 wins over a single-byte label: real pages often say ISO-8859-1 in the header while
    their bytes are UTF-8, and multi-byte UTF-8 sequences almost never arise by chance in other charsets.
    """
    return _choose(page, header_charset)[:3]


def choose_and_decode(page: bytes, header_charset: str | None = None) -> tuple[str, str, str, str]:
    """choose() and decode() together: (stored name, Python codec, source, text). The choice often decodes the
    page already (to see whether its bytes are valid in a charset); that text is kept rather than made again."""
    name, codec, source, text = _choose(page, header_charset)
    if text is None:
        return name, codec, source, decode(page, codec)
    return name, codec, source, _without_nuls(text, page, codec)


def _choose(page: bytes, header_charset: str | None) -> tuple[str, str, str, str | None]:
    """choose(), plus the page decoded by the codec chosen when the choice did that (without errors), else None."""
    declared: list[tuple[str, Any]] = []  # (source, normalise()d label: a pair, or None until dropped below)
    if header_charset:
        declared.append(("header", normalise(header_charset)))
    meta = from_meta(page)
    if meta:
        declared.append(("meta", normalise(meta)))
    declared = [(src, n) for src, n in declared if n]
    if page.isascii():
        if declared:
            return declared[0][1] + (declared[0][0], None)
        return ("windows-1252", "cp1252", "ascii", None)
    try:
        text = page.decode("utf-8")
        if declared and declared[0][1][0] == "utf-8":
            return ("utf-8", "utf-8", declared[0][0], text)
        said = f" ({declared[0][0]} said {declared[0][1][0]})" if declared else ""
        return ("utf-8", "utf-8", "utf-8 bytes" + said, text)
    except UnicodeDecodeError:
        pass
    for src, (name, codec) in declared:
        try:
            return (name, codec, src, page.decode(codec))
        except UnicodeDecodeError:
            bad = page.decode(codec, "replace").count("\ufffd")
        if bad <= max(3, len(page) // 2000):  # a few broken bytes do not make the label wrong
            return (name, codec, f"{src} ({bad} bad bytes replaced)", None)
    found = detect(page)
    if found:
        return found + ("detected", None)
    if declared:
        return declared[0][1] + (declared[0][0] + " (bad bytes replaced)", None)
    return ("windows-1252", "cp1252", "fallback", None)


def decode(page: bytes, codec: str) -> str:
    """Decode with bad bytes replaced (U+FFFD) and NULs dropped (PostgreSQL text cannot hold them)."""
    return _without_nuls(page.decode(codec, "replace"), page, codec)


def _without_nuls(text: str, page: bytes, codec: str) -> str:
    if b"\x00" not in page and _c0_safe(codec):  # a byte search is several times quicker than the text's
        return text
    return text.replace("\x00", "") if "\x00" in text else text


# Codecs in which a C0 control character only ever decodes from that same byte (ASCII-compatible ones, ISO-2022-JP
# included: its escapes begin with the byte ESC). Not every codec Python knows: UTF-7 spells \x01 as "+AAE-".
_C0_SAFE = {codec for _, codec in _ALIASES.values()}
_C0_SAFE_PREFIXES = ("cp125", "iso8859-")
_C0_BYTES = bytes([*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20)])  # all but tab, LF, CR


def control_free(page: bytes, codec: str) -> bool:
    """True when `page` decoded with `codec` cannot hold a C0 control character but tab, LF and CR: told from the
    bytes with a translate (a C loop, several times quicker than a regex search of the text)."""
    return _c0_safe(codec) and len(page.translate(None, _C0_BYTES)) == len(page)


def _c0_safe(codec: str) -> bool:
    return codec in _C0_SAFE or codec.startswith(_C0_SAFE_PREFIXES)

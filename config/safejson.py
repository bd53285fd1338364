"""The one JSON decoder for untrusted bodies and files (issue 26): a hostile document must come back as an error
naming the problem and its line and column, never as an exception that ends in a 500. Pure Python (no Django),
so every stage and every format may import it.

Python's own decoder fails on such input in ways no caller catches: 100,000 nested brackets raise RecursionError,
a 5,000-digit number ValueError (the interpreter's int limit), and an escaped lone surrogate ("\\ud800") decodes
into a str that no UTF-8 writer (PostgreSQL, a hash, a page) can encode. `loads` first scans the text once for
those (depth, long digit runs, lone surrogate escapes, size) and only then hands it to `json.loads`.

Errors are JSONLimitError, a json.JSONDecodeError (hence a ValueError): `msg`, `lineno`, `colno` as Python's
own syntax errors, so callers handle both the same way.
"""

import json
import math
import re

MAX_DEPTH = 64  # the deepest real document (a BioGen 2025 run, an API body) nests 5 levels
MAX_DIGITS = 100  # digits in a row in one number (integer part, fraction or exponent)
MAX_BYTES = 256 << 20  # the largest run file the pages accept (settings.UPLOAD_MAX_BYTES["runs"])

# A string (whole, escapes included), a bracket, or a run of digits longer than the limit outside strings.
_TOKENS: dict[int, re.Pattern[str]] = {}
_RAW_SURROGATE = re.compile("[\ud800-\udfff]")  # only in a str handed over as such (UTF-8 cannot hold one)
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.S)


JSONDecodeError = json.JSONDecodeError  # what callers catch: Python's syntax errors and JSONLimitError alike


class JSONLimitError(json.JSONDecodeError):
    """A document refused before decoding: too deep, too long a number, too large, or a lone surrogate."""


def _tokens(max_digits):
    if max_digits not in _TOKENS:
        # An unclosed string runs to the end (the decoder then says where it opened): retrying from each quote
        # inside it would make a file of escaped quotes quadratic.
        string = r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)'
        _TOKENS[max_digits] = re.compile(rf"{string}|[\[\]{{}}]|(?<![0-9])[0-9]{{{max_digits + 1},}}", re.S)
    return _TOKENS[max_digits]


def _lone_surrogate(string):
    """Offset (in `string`) of the first \\uXXXX escape that is half a surrogate pair on its own, else None."""
    pending = None  # offset of a high surrogate escape waiting for its low half
    for m in _ESCAPE.finditer(string):
        code = int(m.group(1), 16) if m.group(1) else None
        if pending is not None:
            if code is not None and 0xDC00 <= code <= 0xDFFF and m.start() == pending + 6:
                pending = None
                continue
            return pending
        if code is not None and 0xD800 <= code <= 0xDBFF:
            pending = m.start()
        elif code is not None and 0xDC00 <= code <= 0xDFFF:
            return m.start()
    return pending


def _refuse_constant(name):
    raise ValueError(f"{name} is not JSON")  # Python reads NaN and Infinity; JSON (and jsonb) has neither


def _float(text):
    value = float(text)
    if not math.isfinite(value):  # 1e999: too large for a float, stored as Infinity nowhere
        raise ValueError(f"the number {text[:20]} is too large for a float")
    return value


def check(text, *, max_depth=MAX_DEPTH, max_digits=MAX_DIGITS, max_bytes=MAX_BYTES):
    """Raise JSONLimitError at the first thing `loads` refuses before decoding; `text` is a str."""
    if len(text) > max_bytes:
        raise JSONLimitError(f"the document is larger than {max_bytes} bytes", text, max_bytes)
    raw = _RAW_SURROGATE.search(text)
    if raw:
        raise JSONLimitError("a lone surrogate character", text, raw.start())
    depth = 0
    for m in _tokens(max_digits).finditer(text):
        token = m.group()
        first = token[0]
        if first == '"':
            if "\\u" in token:
                at = _lone_surrogate(token)
                if at is not None:
                    message = "a lone surrogate escape (\\ud800-\\udfff without its pair)"
                    raise JSONLimitError(message, text, m.start() + at)
        elif first in "[{":
            depth += 1
            if depth > max_depth:
                raise JSONLimitError(f"nested deeper than {max_depth} levels", text, m.start())
        elif first in "]}":
            depth -= 1
        else:
            raise JSONLimitError(f"a number with more than {max_digits} digits", text, m.start())


def loads(data, *, max_depth=MAX_DEPTH, max_digits=MAX_DIGITS, max_bytes=MAX_BYTES):
    """Decode one JSON document (str, or bytes in UTF-8) within the limits; JSONLimitError or Python's own
    JSONDecodeError name what is wrong and where. NaN, Infinity and numbers beyond a float are refused too."""
    if isinstance(data, (bytes, bytearray)):
        if len(data) > max_bytes:
            raise JSONLimitError(f"the document is larger than {max_bytes} bytes", "", 0)
        try:
            data = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as e:
            doc = bytes(data[: e.start]).decode("utf-8", "replace")
            raise JSONLimitError(f"not UTF-8 ({e.reason})", doc, len(doc)) from None
    check(data, max_depth=max_depth, max_digits=max_digits, max_bytes=max_bytes)
    try:
        return json.loads(data, parse_constant=_refuse_constant, parse_float=_float)
    except json.JSONDecodeError:
        raise
    except (ValueError, RecursionError) as e:  # a constant or a huge float; where is not known: the start
        raise JSONLimitError(str(e), data, 0) from None


def describe(error):
    """`message (line L, column C)` of a decoding error, to show to whoever sent the document."""
    return f"{error.msg} (line {error.lineno}, column {error.colno})"

"""Plain data shared by the collection formats, and the splitter for <DOC>-style record files."""

import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from io import BufferedReader
from os import PathLike
from typing import Any, BinaryIO, Protocol, Self

CHUNK = 1 << 22  # 4 MiB reads keep memory flat on multi-GB bundle files


class FormatError(ValueError):
    """A record that cannot be loaded; the message says why."""


@dataclass
class ParsedDocument:
    docno: str
    raw: bytes  # exactly as received (for Blog06: the page after DOCHDR)
    charset: str  # the charset used to decode raw (WHATWG-style label)
    meta: dict[str, Any] = field(default_factory=dict)  # JSON-like, its shape is the format's
    text: str = ""  # the viewable text


@dataclass(frozen=True)
class Record:
    number: int  # 1-based record number in its file
    offset: int  # byte offset of the record in the (decompressed) file
    raw: bytes
    problem: str = ""  # set when the splitter itself found the record broken


@dataclass(frozen=True)
class BadRecord:
    file: str
    number: int
    offset: int
    reason: str

    def format(self) -> str:
        return f"{self.file}: record {self.number} (byte {self.offset}): {self.reason}"


class SizeLimitExceeded(Exception):
    """More decompressed bytes than a loader allows: `kind` is "file" (the whole file) or "record" (one record,
    or text outside records, that would have to be held in memory at once). The message says where."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def size_text(n: int) -> str:
    """2147483648 -> "2 GiB"; sizes that are no whole KiB/MiB/GiB as bytes."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n:,} bytes"


class ByteStream(Protocol):
    """What the record splitters read from: a binary file, or a GzipStream / PlainStream over one."""

    def read(self, n: int = ..., /) -> bytes: ...


class _CountedStream:
    """A binary file read through a limit on the bytes it yields (decompressed, for gzip)."""

    def __init__(self, fh: BinaryIO, limit: int | None = None) -> None:
        self.fh = fh
        self.limit = limit
        self.total = 0  # bytes returned so far

    def _counted(self, out: bytes) -> bytes:
        self.total += len(out)
        if self.limit is not None and self.total > self.limit:
            raise SizeLimitExceeded(f"decompresses to more than {size_text(self.limit)}", "file")
        return out

    def close(self) -> None:
        self.fh.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class GzipStream(_CountedStream):
    """Reads a gzip file (several members allowed) as far as it goes: a truncated or damaged file yields every
    byte before the damage, then read() raises OSError, so a loader keeps the records it could read.

    Each read() inflates at most `n` bytes (zlib's max_length), so a highly compressed file never expands in
    memory all at once; past `limit` decompressed bytes read() raises SizeLimitExceeded (a gzip bomb)."""

    def __init__(self, fh: BinaryIO, limit: int | None = None) -> None:
        super().__init__(fh, limit)
        self.z = zlib.decompressobj(wbits=31)
        self.done = False

    def read(self, n: int | None = CHUNK) -> bytes:
        n = n if n and n > 0 else CHUNK
        while True:
            if self.z.eof:  # a member ended: the next one starts in its unused data or further in the file
                data = self.z.unused_data or self.fh.read(1 << 16)
                if not data:
                    return b""
                self.z = zlib.decompressobj(wbits=31)
            elif self.z.unconsumed_tail:  # input left over when the last call stopped at n bytes
                data = self.z.unconsumed_tail
            else:
                if self.done:
                    return b""
                data = self.fh.read(1 << 16)
                if not data:
                    self.done = True
                    tail = self.z.flush()  # all input is consumed here, so this is at most a few bytes
                    if tail:
                        return self._counted(tail)
                    raise OSError("compressed file ended before the end of the gzip stream")
            out = self.z.decompress(data, n)
            if out:
                return self._counted(out)


class PlainStream(_CountedStream):
    """An uncompressed file read through the same limit (it may grow while it is read)."""

    def read(self, n: int | None = CHUNK) -> bytes:
        return self._counted(self.fh.read(n if n and n > 0 else CHUNK))


# Magic bytes of compressed formats the loaders do not read: refused by name rather than parsed as text.
_OTHER_COMPRESSION = re.compile(
    rb"(?P<bzip2>BZh[1-9]1AY&SY)|(?P<xz>\xfd7zXZ\x00)|(?P<zip>PK\x03\x04)"
    rb"|(?P<zstd>\x28\xb5\x2f\xfd)"
)


def compression_of(path: str | PathLike[str]) -> str | None:
    """ "gzip", "plain", or the name of a compression the loaders do not read (bzip2, xz, zip, zstd)."""
    with open(path, "rb") as fh:
        magic = fh.read(10)
    if magic[:2] == b"\x1f\x8b":
        return "gzip"
    m = _OTHER_COMPRESSION.match(magic)
    return m.lastgroup if m else "plain"


def open_maybe_gzip(path: str | PathLike[str], limit: int | None = None) -> GzipStream | PlainStream | BufferedReader:
    """Open a file for binary reading, transparently decompressing gzip (detected by magic bytes, not name).

    `limit`: at most that many (decompressed) bytes are read before SizeLimitExceeded."""
    fh = open(path, "rb")
    magic = fh.read(2)
    fh.seek(0)
    if magic == b"\x1f\x8b":
        return GzipStream(fh, limit)
    return PlainStream(fh, limit) if limit is not None else fh


# Container lines some distributions wrap their records in; they are not stray text.
_WRAPPERS = re.compile(rb"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|</?DOCSTREAM>|</?(?:docs|collection|PubmedArticleSet)>", re.I)


def _stray(segment: bytes) -> bool:
    return bool(segment.strip()) and bool(_WRAPPERS.sub(b"", segment).strip())


def split_records(
    stream: ByteStream,
    start: bytes | tuple[bytes, ...],
    end: bytes | tuple[bytes, ...],
    chunk: int = CHUNK,
    max_record: int | None = None,
) -> Iterator[Record]:
    """Yield a Record for each `start`...`end` record that begins at a line start.

    A record runs to the last `end` before the next `start`, so a page that happens to contain the end tag does not
    cut its record short. Non-blank bytes outside records and records without an end tag come back with a problem.
    `max_record` bounds the bytes held at once: a record (or text outside records) longer than that raises
    SizeLimitExceeded instead of growing the buffer without end. A file of several kinds of record (PubMed's
    articles and book articles) gives `start` and `end` as tuples, the n-th end closing the n-th start.
    """
    starts = start if isinstance(start, tuple) else (start,)
    ends = end if isinstance(end, tuple) else (end,)
    outside_text = "text outside any " + " or ".join(s.decode() for s in starts) + " record"
    buf = b""
    base = 0  # file offset of buf[0]
    number = 0
    eof = False
    pos = 0

    def find_start(data: bytes, frm: int) -> tuple[int, int]:
        """(offset, kind) of the first record start at a line start from `frm`, (-1, -1) when none."""
        best = (-1, -1)
        for kind, tag in enumerate(starts):
            at = frm
            while True:
                i = data.find(tag, at)
                if i <= 0 or data[i - 1 : i] == b"\n":
                    break
                at = i + 1
            if i >= 0 and (best[0] < 0 or i < best[0]):
                best = (i, kind)
        return best

    def check(at: int, length: int, outside: bool = False) -> None:
        if max_record is not None and length > max_record:
            what = outside_text if outside else "a record"
            raise SizeLimitExceeded(
                f"record {number + 1} (byte {base + at}): {what} longer than {size_text(max_record)}", "record"
            )

    while True:
        if not eof:
            more = stream.read(chunk)
            if more:
                buf = buf[pos:] + more
                base += pos
                pos = 0
            else:
                eof = True
        while True:
            s, kind = find_start(buf, pos)
            if s < 0:
                if eof and _stray(buf[pos:]):
                    check(pos, len(buf) - pos, outside=True)
                    number += 1
                    yield Record(number, base + pos, buf[pos:], outside_text)
                    pos = len(buf)
                elif not eof:  # no record start so far: that text may not grow past the limit either
                    check(pos, len(buf) - pos, outside=True)
                break
            if _stray(buf[pos:s]):
                check(pos, s - pos, outside=True)
                number += 1
                yield Record(number, base + pos, buf[pos:s], outside_text)
            nxt, _ = find_start(buf, s + len(starts[kind]))
            if nxt < 0 and not eof:
                check(s, len(buf) - s)  # the record so far, before reading more of it
                pos = s
                break  # need more data
            stop = nxt if nxt >= 0 else len(buf)
            check(s, stop - s)
            close = ends[kind]
            e = buf.rfind(close, s, stop)
            number += 1
            if e < 0:
                yield Record(number, base + s, buf[s:stop], f"no {close.decode()} before the next record")
            else:
                yield Record(number, base + s, buf[s : e + len(close)])
                if _stray(buf[e + len(close) : stop]):
                    number += 1
                    yield Record(number, base + e + len(close), buf[e + len(close) : stop], outside_text)
            pos = stop
        if eof:
            return

"""Plain data shared by the collection formats, and the splitter for <DOC>-style record files."""
import re
import zlib
from dataclasses import dataclass, field

CHUNK = 1 << 22  # 4 MiB reads keep memory flat on multi-GB bundle files


class FormatError(ValueError):
    """A record that cannot be loaded; the message says why."""


@dataclass
class ParsedDocument:
    docno: str
    raw: bytes  # exactly as received (for Blog06: the page after DOCHDR)
    charset: str  # the charset used to decode raw (WHATWG-style label)
    meta: dict = field(default_factory=dict)
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

    def format(self):
        return f"{self.file}: record {self.number} (byte {self.offset}): {self.reason}"


class GzipStream:
    """Reads a gzip file (several members allowed) as far as it goes: a truncated or damaged file yields every
    byte before the damage, then read() raises OSError, so a loader keeps the records it could read."""

    def __init__(self, fh):
        self.fh = fh
        self.z = zlib.decompressobj(wbits=31)
        self.done = False

    def read(self, n=CHUNK):
        while not self.done:
            data = self.fh.read(1 << 16)
            if not data:
                if not self.z.eof:
                    self.done = True
                    tail = self.z.flush()
                    if tail:
                        return tail
                    raise OSError("compressed file ended before the end of the gzip stream")
                self.done = True
                break
            out = self.z.decompress(data)
            while self.z.eof and self.z.unused_data:  # the next gzip member
                rest = self.z.unused_data
                self.z = zlib.decompressobj(wbits=31)
                out += self.z.decompress(rest)
            if out:
                return out
        return b""

    def close(self):
        self.fh.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def open_maybe_gzip(path):
    """Open a file for binary reading, transparently decompressing gzip (detected by magic bytes, not name)."""
    fh = open(path, "rb")
    magic = fh.read(2)
    fh.seek(0)
    if magic == b"\x1f\x8b":
        return GzipStream(fh)
    return fh


# Container lines some distributions wrap their records in; they are not stray text.
_WRAPPERS = re.compile(rb"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|</?DOCSTREAM>|</?(?:docs|collection)>", re.I)


def _stray(segment):
    return bool(segment.strip()) and bool(_WRAPPERS.sub(b"", segment).strip())


def split_records(stream, start, end, chunk=CHUNK):
    """Yield a Record for each `start`...`end` record that begins at a line start.

    A record runs to the last `end` before the next `start`, so a page that happens to contain the end tag does not
    cut its record short. Non-blank bytes outside records and records without an end tag come back with a problem.
    """
    buf = b""
    base = 0  # file offset of buf[0]
    number = 0
    eof = False
    pos = 0

    def find_start(data, frm):
        while True:
            i = data.find(start, frm)
            if i <= 0 or data[i - 1:i] == b"\n":
                return i
            frm = i + 1

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
            s = find_start(buf, pos)
            if s < 0:
                if eof and _stray(buf[pos:]):
                    number += 1
                    yield Record(number, base + pos, buf[pos:], f"text outside any {start.decode()} record")
                    pos = len(buf)
                break
            if _stray(buf[pos:s]):
                number += 1
                yield Record(number, base + pos, buf[pos:s], f"text outside any {start.decode()} record")
            nxt = find_start(buf, s + len(start))
            if nxt < 0 and not eof:
                pos = s
                break  # need more data
            stop = nxt if nxt >= 0 else len(buf)
            e = buf.rfind(end, s, stop)
            number += 1
            if e < 0:
                yield Record(number, base + s, buf[s:stop], f"no {end.decode()} before the next record")
            else:
                yield Record(number, base + s, buf[s:e + len(end)])
                if _stray(buf[e + len(end):stop]):
                    number += 1
                    yield Record(number, base + e + len(end), buf[e + len(end):stop],
                                 f"text outside any {start.decode()} record")
            pos = stop
        if eof:
            return

"""The faults benchmark's raw client: one asyncio keep-alive connection per simulated assessor, its session forged
server-side (benchmarks.production.session_for). Fault injection needs a client that never stalls on a login while
the database is down; `benchmarks.judging` measures like a browser instead (real logins, fresh items)."""

import asyncio
import re
import secrets
import time

VERSION = re.compile(rb'name="version" value="(\d+)"')
LABELS = ("incorrect", "unsupported", "non-exact", "locally-correct", "globally-correct")


class KeepAlive:
    """One keep-alive HTTP/1.1 connection to 127.0.0.1:`self.port`, opened on first use (`self.streams`), shared by
    both benchmarks' clients."""

    port: int
    streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def _exchange(self, payload):
        """Send one request and read its whole response: (status, body, connection kept)."""
        if self.streams is None:
            self.streams = await asyncio.open_connection("127.0.0.1", self.port)
        reader, writer = self.streams
        writer.write(payload)
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
        if "content-length" in headers:
            content = await reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            content = b""
            while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
                content += (await reader.readexactly(size + 2))[:-2]
            await reader.readuntil(b"\r\n")
        else:  # no length: the body runs to the end of the connection
            content = await reader.read()
            headers["connection"] = "close"
        return status, content, headers.get("connection", "").lower() != "close"

    def _drop(self):
        if self.streams is not None:
            self.streams[1].close()
        self.streams = None


class Client(KeepAlive):
    """One simulated assessor: its own session, its own keep-alive connection, its items, and what the server told
    it about each. All clients run as asyncio tasks in one thread: the load generator shares the machine with the
    server, and 50 threads fighting over one GIL cost it more CPU per request than the server spends on a save."""

    def __init__(self, port, session_key, items, kinds=None, told=None):
        self.port, self.items = port, items
        self.kinds = kinds or {}
        self.csrf = secrets.token_hex(16)  # 32 characters: a valid CSRF secret for cookie and header alike
        self.cookie = f"sessionid={session_key}; csrftoken={self.csrf}"
        # item id -> (label, version) of the last save answered 200: the assessor's own dict, shared by its clients
        self.told = told if told is not None else {}
        self.saves = 0  # saves answered 200 (each one a change)
        self.errors = []
        self.latencies = []
        self.by_kind = {}  # question kind -> latencies
        self.answered = []  # wall-clock time of each 200, for score freshness
        self.turn = 0
        self.streams = None

    def _request(self, item, body):
        return (
            f"POST /assess/item/{item}/judge HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\n"
            f"Cookie: {self.cookie}\r\nX-CSRFToken: {self.csrf}\r\nHX-Request: true\r\n"
            f"Referer: http://127.0.0.1:{self.port}/\r\n\r\n{body}"
        ).encode()

    async def save(self, started=None):
        """POST one judgment; `started` (perf_counter) is when it was due, for fixed-rate latency."""
        item = self.items[self.turn % len(self.items)]
        self.turn += 1
        label, version = self.told.get(item, (None, 0))
        new = LABELS[(LABELS.index(label) + 1) % len(LABELS)] if label else LABELS[0]
        payload = self._request(item, f"label={new}&version={version}")
        t0 = time.perf_counter() if started is None else started
        try:
            status, content, keep = await asyncio.wait_for(self._exchange(payload), timeout=30)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError) as exc:
            self.errors.append(repr(exc))
            self._drop()
            return
        if not keep:
            self._drop()
        latency = time.perf_counter() - t0
        self.latencies.append(latency)
        self.by_kind.setdefault(self.kinds.get(item, "?"), []).append(latency)
        m = VERSION.search(content)
        if status != 200 or not m:
            self.errors.append(f"HTTP {status}: {content[:200]!r}")
            return
        self.answered.append(time.time())
        self.told[item] = (new, int(m.group(1)))
        self.saves += 1

    def close(self):
        self._drop()

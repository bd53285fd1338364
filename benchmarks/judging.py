"""Judgment saves over HTTP: gunicorn + PostgreSQL, the same POST the judging page's htmx sends.

Three runs: one client alone (latency p50/p99); 50 simulated assessors each saving as soon as the last save
answered (saves/s at saturation); saves arriving at a fixed 200/s from 50 assessors (p50/p99, measured from the
scheduled send time so a slow server cannot hide its queue). Each assessor judges the items of its own series,
cycling through the labels so every save is a change. Errors are non-200 answers and failed connections; lost
saves are found afterwards by comparing the database with what each client was told (the label and version of
the last save answered 200 for each item, and one history row per such save).

Goals (issue 5): one client p99 <= 10 ms; saturation >= 400 saves/s; at 200/s p99 <= 50 ms; 0 errors, 0 lost.
Baseline: GET of the login page on the same server (a template render without the database), so `ratio` shows
what a save costs beyond Django's request handling. Rescoring is enqueued on Redis (a queue of this run's own,
deleted at the end) but no worker consumes it: the benchmark measures the save, not the scoring.
"""

import asyncio
import http.client
import os
import re
import secrets
import time
import uuid
from pathlib import Path

from benchmarks import production
from benchmarks.harness import Result, percentile, setup_django
from benchmarks.production import free_port, session_for

ROOT = Path(__file__).resolve().parent.parent
VERSION = re.compile(rb'name="version" value="(\d+)"')
LABELS = ("incorrect", "unsupported", "non-exact", "locally-correct", "globally-correct")


def add_arguments(parser):
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--items", type=int, default=40, help="pool items per assessor")
    parser.add_argument("--single", type=int, default=500, help="saves in the one-client run")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each multi-client run")
    parser.add_argument("--rate", type=float, default=200.0, help="saves per second in the fixed-rate run")
    parser.add_argument("--workers", type=int, help="gunicorn workers (default: config/gunicorn.conf.py)")
    parser.add_argument("--threads", type=int, help="threads per gunicorn worker (default: the same file)")


def build_data(n_clients, n_items):
    """One TREC 2007 evaluation; each assessor has a series with one factoid question of n_items pool items.
    Returns [(session key, [item ids])] per client."""

    from django.contrib.auth.models import Group, User

    from assess.models import Assignment
    from pooling.models import Evaluation, PoolItem, Topic

    evaluation = Evaluation.objects.create(slug="bench-judging", title="Judging benchmark", track="trec2007-qa")
    group, _ = Group.objects.get_or_create(name="assessor")
    clients = []
    for c in range(n_clients):
        user = User.objects.create(username=f"bench{c:03d}")
        user.set_unusable_password()
        user.save()
        user.groups.add(group)
        series = Topic.objects.create(evaluation=evaluation, ident=str(c + 1), kind="series", position=2 * c)
        question = Topic.objects.create(
            evaluation=evaluation, parent=series, ident=f"{c + 1}.1", kind="FACTOID", text="Who?", position=2 * c + 1
        )
        Assignment.objects.create(evaluation=evaluation, topic=series, assessor=user)
        items = PoolItem.objects.bulk_create(
            PoolItem(
                evaluation=evaluation,
                topic=question,
                key=f"D{c}-{i}\tanswer {i}",
                docid=f"D{c}-{i}",
                text=f"answer {i}",
                position=i,
            )
            for i in range(n_items)
        )
        clients.append((session_for(user), [it.pk for it in items]))
    return evaluation, clients


class Client:
    """One simulated assessor: its own session, its own keep-alive connection, its items, and what the server told
    it about each. All clients run as asyncio tasks in one thread: the load generator shares the machine with the
    server, and 50 threads fighting over one GIL cost it more CPU per request than the server spends on a save."""

    def __init__(self, port, session_key, items):
        self.port, self.items = port, items
        self.csrf = secrets.token_hex(16)  # 32 characters: a valid CSRF secret for cookie and header alike
        self.cookie = f"sessionid={session_key}; csrftoken={self.csrf}"
        self.told = {}  # item id -> (label, version) of the last save answered 200
        self.saves = 0  # saves answered 200 (each one a change)
        self.errors = []
        self.latencies = []
        self.turn = 0
        self.streams = None

    def _request(self, item, body):
        return (
            f"POST /assess/item/{item}/judge HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\n"
            f"Cookie: {self.cookie}\r\nX-CSRFToken: {self.csrf}\r\nHX-Request: true\r\n"
            f"Referer: http://127.0.0.1:{self.port}/\r\n\r\n{body}"
        ).encode()

    async def _exchange(self, payload):
        """Send one request and read its response: (status, body, connection kept)."""
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
        else:  # no length: the body runs to the end of the connection
            content = await reader.read()
            headers["connection"] = "close"
        return status, content, headers.get("connection", "").lower() != "close"

    def _drop(self):
        if self.streams is not None:
            self.streams[1].close()
        self.streams = None

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
        self.latencies.append(time.perf_counter() - t0)
        m = VERSION.search(content)
        if status != 200 or not m:
            self.errors.append(f"HTTP {status}: {content[:200]!r}")
            return
        self.told[item] = (new, int(m.group(1)))
        self.saves += 1

    def close(self):
        self._drop()


def get_baseline(port, n):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        conn.request("GET", "/login/")
        response = conn.getresponse()
        response.read()
        times.append(time.perf_counter() - t0)
        if response.getheader("Connection", "").lower() == "close":
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.close()
    return times


def closed_loop(clients, seconds):
    async def main():
        stop = time.perf_counter() + seconds

        async def work(client):
            while time.perf_counter() < stop:
                await client.save()

        t0 = time.perf_counter()
        await asyncio.gather(*(work(c) for c in clients))
        elapsed = time.perf_counter() - t0
        for c in clients:
            c.close()
        return elapsed

    return asyncio.run(main())


def fixed_rate(clients, seconds, rate):
    """Each client sends every len(clients)/rate seconds, clients staggered evenly: `rate` saves/s in all."""
    period = len(clients) / rate
    n_each = int(seconds / period)

    async def main():
        start = time.perf_counter() + 0.2

        async def work(index, client):
            for k in range(n_each):
                due = start + k * period + index * period / len(clients)
                delay = due - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                await client.save(started=due)

        await asyncio.gather(*(work(i, c) for i, c in enumerate(clients)))
        elapsed = time.perf_counter() - start
        for c in clients:
            c.close()
        return elapsed

    return asyncio.run(main())


def one_by_one(clients, n=1):
    """Each client saves n times, the clients one after another (warming up; the one-client run)."""

    async def main():
        for client in clients:
            for _ in range(n):
                await client.save()
            client.close()  # its connection belonged to this event loop

    asyncio.run(main())


def lost_saves(clients):
    """Saves a client was told succeeded but the database does not hold (label, version, history rows)."""
    from assess.models import Judgment, JudgmentChange

    lost = 0
    for client in clients:
        stored = {
            j.item_id: (j.value.get("label"), j.version) for j in Judgment.objects.filter(item_id__in=client.items)
        }
        lost += sum(1 for item, told in client.told.items() if stored.get(item) != told)
    history = JudgmentChange.objects.filter(judgment__evaluation__slug="bench-judging").count()
    told_total = sum(c.saves for c in clients)
    return lost + max(0, told_total - history), history, told_total


def run(args):
    load_before = os.getloadavg()[0]  # the machine is shared: say how busy it was
    cpu_before = _cpu_times()
    setup_django("assay_bench_assess")
    from django.db import connection

    evaluation, sessions = build_data(args.clients, args.items)
    connection.close()
    port = free_port()
    queue = f"assay-bench-assess-{uuid.uuid4().hex[:8]}"
    broker = os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/0")
    env = production.environment(broker, queue)
    # the production settings (config/gunicorn.conf.py), unless the run asks for other worker counts
    options = []
    if args.workers:
        options += ["-w", str(args.workers)]
    if args.threads:
        options += ["--threads", str(args.threads)]
    server = production.start_gunicorn(env, port, options)
    try:
        get_baseline(port, 50)  # warm every worker
        warm = [Client(port, key, items) for key, items in sessions]
        one_by_one(warm)  # first save of every client: code paths warm
        baseline = get_baseline(port, args.single)
        single = Client(port, sessions[0][0], sessions[0][1])
        single.told = dict(warm[0].told)
        one_by_one([single], args.single)
        clients = [Client(port, key, items) for key, items in sessions]
        for c, w in zip(clients, warm):
            c.told = dict(w.told) if c.items != single.items else dict(single.told)
        elapsed = closed_loop(clients, args.seconds)
        saturation = sum(len(c.latencies) for c in clients) / elapsed
        sat_latencies = [x for c in clients for x in c.latencies]
        rated = [Client(port, key, items) for key, items in sessions]
        for r, c in zip(rated, clients):
            r.told = dict(c.told)
        rate_elapsed = fixed_rate(rated, args.seconds, args.rate)
        rate_latencies = [x for c in rated for x in c.latencies]
    finally:
        production.stop(server)
        production.drop_queue(broker, queue)

    # every client object for an item: the latest word on it is the fixed-rate run's, then closed loop, then single
    final = []
    for w, c, r in zip(warm, clients, rated):
        merged = Client(port, "", w.items)
        merged.told = dict(r.told)
        merged.saves = w.saves + c.saves + r.saves + (single.saves if w.items == single.items else 0)
        final.append(merged)
    lost, history, told_total = lost_saves(final)
    errors = sum(len(c.errors) for c in warm + [single] + clients + rated)
    first_errors = [e for c in warm + [single] + clients + rated for e in c.errors][:3]
    ms = 1000
    base_p50 = percentile(baseline, 50) * ms
    one_p50, one_p99 = percentile(single.latencies, 50) * ms, percentile(single.latencies, 99) * ms
    setup = (
        f"gunicorn {args.workers or 'config'} worker(s) x {args.threads or 'config'} thread(s), "
        f"{args.clients} assessors"
    )
    return [
        Result(
            "baseline GET /login/ p50",
            base_p50,
            "ms",
            notes="same server, one client",
            extra={
                "load_average_before": load_before,
                "load_average_after": os.getloadavg()[0],
                "cpus": os.cpu_count(),
                "cpu_share_during_run": _cpu_share(cpu_before, _cpu_times()),
            },
        ),
        Result("one client save p50", one_p50, "ms", extra={"ratio_to_baseline": one_p50 / base_p50}),
        Result("one client save p99", one_p99, "ms", goal="<= 10", notes=setup),
        Result(
            "closed loop saves/s",
            saturation,
            "saves/s",
            goal=">= 400",
            extra={
                "p50_ms": percentile(sat_latencies, 50) * ms,
                "p99_ms": percentile(sat_latencies, 99) * ms,
                "saves": len(sat_latencies),
                "seconds": elapsed,
            },
        ),
        Result("closed loop p99", percentile(sat_latencies, 99) * ms, "ms"),
        Result(
            f"fixed {args.rate:g}/s p50",
            percentile(rate_latencies, 50) * ms,
            "ms",
            extra={"achieved_per_s": len(rate_latencies) / rate_elapsed},
        ),
        Result(f"fixed {args.rate:g}/s p99", percentile(rate_latencies, 99) * ms, "ms", goal="<= 50"),
        Result("errors", errors, "count", goal="<= 0", extra={"first": first_errors}),
        Result(
            "lost saves", lost, "count", goal="<= 0", extra={"saves_answered_200": told_total, "history_rows": history}
        ),
    ]


def _cpu_times():
    """The machine's CPU counters (Linux /proc/stat), or None elsewhere."""
    try:
        with open("/proc/stat") as f:
            return [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return None


def _cpu_share(before, after):
    """Where the machine's CPU time went during the run: commit waits show as iowait, a busy host as steal."""
    if not before or not after:
        return {}
    delta = [b - a for a, b in zip(before, after)]
    total = sum(delta) or 1
    names = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
    return {name: round(100 * d / total, 1) for name, d in zip(names, delta)}

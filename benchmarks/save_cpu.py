"""CPU of one judgment save on each side, measured in process: the web side (the thread running Django's WSGI
handler, as the web server calls it: every middleware, the session and user, CSRF, the view, the partial) and the
PostgreSQL backend serving it (/proc), per save, over `--saves` sequential saves of fresh items after a real login
through /login/, with the request headers a browser's htmx POST carries. No concurrency and no HTTP server: this
isolates the save path itself, so a change to it shows where `benchmarks judging` (the whole stack under load) is
too noisy on a shared machine. `--against DIR` measures another checkout's code the same way, the two alternating
`--rounds` times in one run (the before/after of a change: medians and their ratio). Each measurement is a child
process started in the checkout it measures; a CPU-speed probe and the load average are recorded beside.
`--statements` lists each statement a save sends, how often and the backend's CPU in it; `--profile` the Python.
`--publish`: every save publishes its rescoring task, as for one assessor whose worker starts each task before the
next save (the child waits for its publisher thread and gives the claim back, as the task's start does, after each
save; both in the process CPU, the give-back ~0.04 ms on either side). Without it the queue is never consumed, so
after the first save only the Redis claim is paid. "web process" is the figure that includes the publisher thread.

History (issue 32, on a 2-core machine shared with other work, load 4-14: thread CPU drifted +-35 % between
rounds, so the deterministic counts are given beside the paired medians). Before (dde263f): 3 statements per save
plus an answer-class read on 0.3 of them (list questions); backend CPU about 0.50 ms in the write (a third of it
the commit's WAL flush: 0.59 -> 0.40 ms with synchronous_commit off, which durability rules out), 0.14 in the
session read, 0.14 in the item read; 3,328 Python calls per save. After 0df5cbc: the item is read in the
session's statement (2 statements per save: 0.48 ms write, 0.23 ms session+item) and the statements' client
side is leaner (one psycopg cursor per connection, converters found once): 2,957 calls per save (-11 %), profiled
CPU 3.07 vs 3.43 s for 300 saves back to back (probe 0.21/0.23 s). Paired medians, 12 rounds of 150 saves
(load 11.5 -> 4.5, probe 0.37/0.20 s): web thread 0.964, PostgreSQL 0.955; 7 rounds of 300 (load 7 -> 11, probe
0.30/0.40 s): web thread 0.707, PostgreSQL 0.783. What is left, per save (thread CPU, in-process timers): the
two statements' client side ~0.35 ms, the session and user checks ~0.1, the bar ~0.11 (alone, with its context),
URL resolution ~0.04, all middleware together ~0.06 (each measured alone); dropping the FK checks of
the judgment's evaluation and topic (-12 % of the write) or the redundant topic_id index (-5 %) was measured and
not done.

History of the publish (issue 32, `--publish`, paired rounds of 150 saves alternated with the commit before, CPU
per save of the web process's threads other than the request's, i.e. the publisher): the rescoring task sent
without a result (ignore_result: no SUBSCRIBE/UNSUBSCRIBE of its result channel per publish, no result stored by
the worker) against a81a7fb, 6 rounds (load 9.8 -> 11.7, CPU probe 0.56 / 0.45 s: about 2.5x a quiet machine's):
1.745 against 2.033 ms, pairs 0.77 0.69 0.88 0.95 0.87 0.89 (median 0.87); whole process 0.92, web thread 0.95,
PostgreSQL 1.00. Then the claim and the message pushed in one Redis command (core.rescoring_claims.claim_and_queue:
a Lua SET NX + LPUSH; the message built once per process and evaluation by Celery's own builder, fresh ids per
publish; no kombu client made per message) against 1951d36, 6 rounds (load 9.6 -> 9.8, CPU probe 1.33 / 0.31 s):
0.664 against 1.697 ms, pairs 0.34 0.40 0.37 0.38 0.39 0.44 (median 0.39); whole process 0.78, web thread 0.96,
PostgreSQL 0.97 (neither changed: the publish is the publisher thread's).
"""

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def add_arguments(parser):
    parser.add_argument("--saves", type=int, default=300, help="measured saves per round and checkout")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", metavar="DIR", help="another checkout, measured alternately")
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="afterwards, one more round of this checkout under cProfile (not counted): stats written to FILE",
    )
    parser.add_argument(
        "--publish",
        action="store_true",
        help="every save publishes its rescoring task (the claim given back after each, as a started task does)",
    )
    parser.add_argument(
        "--statements",
        action="store_true",
        help="afterwards, one more round of this checkout (not counted) listing each statement a save sends: how "
        "often per save and the backend's CPU in it (/proc/PID/schedstat, nanoseconds)",
    )


def run(args):
    from benchmarks.harness import Result, setup_django
    from benchmarks.judging import PASSWORD, build_data, cpu_probe

    load_before, probe_before = os.getloadavg()[0], cpu_probe()
    setup_django("assay_bench_save_cpu")
    from django.conf import settings
    from django.db import connection

    trees = {"this": ROOT} | ({"against": Path(args.against).resolve()} if args.against else {})
    accounts_needed = len(trees) * args.rounds + (1 if args.profile else 0) + (1 if args.statements else 0)
    data = type("Args", (), {"clients": accounts_needed, "questions": 48, "runs": 30, "candidates": 60})
    evaluation, accounts, _ = build_data(data)
    connection.close()
    env = dict(
        os.environ,
        DEBUG="0",
        SECRET_KEY=settings.SECRET_KEY,
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="0",
        SESSION_COOKIE_SECURE="0",
        CSRF_COOKIE_SECURE="0",
        LOG_LEVEL="WARNING",
        CELERY_BROKER_URL=os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/0"),
        CELERY_QUEUE=f"assay-bench-save-cpu-{os.getpid()}",  # nobody consumes it: a waiting task's claim stays
        CELERY_TASK_ALWAYS_EAGER="0",
        BENCH_PASSWORD=PASSWORD,
        BENCH_PUBLISH="1" if args.publish else "",
        # the pages render {% static %}: hashed names from a manifest, as in production
        STATIC_ROOT=os.environ.get("BENCH_STATIC_ROOT", str(ROOT / ".bench-staticfiles")),
    )
    for root in trees.values():
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=root, env=env, check=True
        )
    got = {name: [] for name in trees}
    accounts = iter(accounts)
    for _ in range(args.rounds):
        for name, root in trees.items():
            account = next(accounts)
            child = subprocess.run(
                [sys.executable, __file__, account.username, ",".join(map(str, account.items)), str(args.saves)],
                cwd=root,
                env=env,
                capture_output=True,
                text=True,
            )
            if child.returncode:
                raise RuntimeError(f"the measurement in {root} failed:\n{child.stderr[-3000:]}")
            got[name].append(json.loads(child.stdout.strip().splitlines()[-1]))

    if args.profile:
        account = next(accounts)
        items = ",".join(map(str, account.items))
        profile = str(Path(args.profile).resolve())
        command = [sys.executable, __file__, account.username, items, str(args.saves), profile]
        child = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        if child.returncode:
            raise RuntimeError(f"the profiled round failed:\n{child.stderr[-3000:]}")
        import pstats

        pstats.Stats(profile).sort_stats("tottime").print_stats(40)

    statements = None
    if args.statements:
        account = next(accounts)
        items = ",".join(map(str, account.items))
        command = [sys.executable, __file__, account.username, items, str(args.saves), "", "statements"]
        child = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        if child.returncode:
            raise RuntimeError(f"the statements round failed:\n{child.stderr[-3000:]}")
        statements = json.loads(child.stdout.strip().splitlines()[-1])
        for row in statements["statements"]:
            print(f"{row['per_save']:6.2f}/save {row['backend_ms']:7.3f} ms backend  {row['sql']}")
        print(f"backend CPU per save outside any statement: {statements['backend_outside_ms']:.3f} ms")

    def median(name, key):
        return statistics.median(r[key] for r in got[name])

    results = []
    for key, label in (
        ("web", "web thread"),
        ("process", "web process (with its publisher thread)"),
        ("pg", "PostgreSQL backend"),
        ("others", "the web process's other threads (the publisher)"),
    ):
        extra = {"each": [round(r[key], 4) for r in got["this"]]}
        if "against" in got:
            theirs = median("against", key)
            extra |= {"against": theirs, "ratio_to_against": median("this", key) / theirs if theirs else None}
            # each round's pair was measured back to back: their ratios drift less than the medians do
            pairs = [r[key] / o[key] for r, o in zip(got["this"], got["against"]) if o[key]]
            extra["ratio_of_pairs_median"] = statistics.median(pairs) if pairs else None
            extra["ratio_of_pairs"] = [round(p, 3) for p in pairs]
            extra["each_against"] = [round(r[key], 4) for r in got["against"]]
        results.append(Result(f"CPU per save, {label}", median("this", key), "ms", extra=extra))
        if "against" in got:
            results.append(Result("  the other checkout (--against)", extra["against"], "ms", extra={"of": label}))
    total = median("this", "web") + median("this", "pg")
    results.append(Result("CPU per save, web thread + PostgreSQL", total, "ms"))
    if "against" in got:
        theirs = median("against", "web") + median("against", "pg")
        results.append(Result("  the other checkout (--against)", theirs, "ms", extra={"ratio": total / theirs}))
    results.append(
        Result(
            "CPU probe before (best of 3 loops)",
            probe_before,
            "s",
            extra={
                "probe_after": cpu_probe(),
                "load_average_before": load_before,
                "load_average_after": os.getloadavg()[0],
            },
        )
    )
    return results


def _measure(username, items, saves, profile=None, statements=False):
    """In the child, in the checkout to measure: log in, warm up, then `saves` saves; prints JSON. With
    `profile`, the saves run under cProfile and its stats are written there; with `statements`, each statement's
    count and backend CPU per save are printed instead."""
    import io
    import re

    sys.path[0] = os.getcwd()  # the checkout to measure, not this file's
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.handlers.wsgi import WSGIHandler
    from django.db import connection
    from django.test import Client

    browser = Client(enforce_csrf_checks=True, HTTP_HOST="127.0.0.1")
    page = browser.get("/login/").content
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1).decode()
    form = {"csrfmiddlewaretoken": token, "username": username, "password": os.environ["BENCH_PASSWORD"], "next": ""}
    answer = browser.post("/login/", form, HTTP_REFERER="http://127.0.0.1/login/", HTTP_ORIGIN="http://127.0.0.1")
    assert answer.status_code == 302, answer.status_code
    page = browser.get("/assess/").content
    csrf = re.search(rb"hx-headers='\{\"X-CSRFToken\": \"([^\"]+)\"\}'", page).group(1).decode()
    cookie = "; ".join(f"{k}={v.value}" for k, v in browser.cookies.items())
    connection.close()
    handler = WSGIHandler()
    origin = "http://127.0.0.1"

    def save(item):
        body = b"version=0&label=incorrect"
        environ = {
            "REQUEST_METHOD": "POST",
            "PATH_INFO": f"/assess/item/{item}/judge",
            "SCRIPT_NAME": "",
            "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "80",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1",
            "HTTP_HOST": "127.0.0.1",
            "CONTENT_TYPE": "application/x-www-form-urlencoded",
            "CONTENT_LENGTH": str(len(body)),
            "HTTP_COOKIE": cookie,
            "HTTP_X_CSRFTOKEN": csrf,
            "HTTP_HX_REQUEST": "true",
            "HTTP_HX_TARGET": "judge-bar",
            "HTTP_HX_TRIGGER": "judge-bar",
            "HTTP_HX_CURRENT_URL": f"{origin}/assess/",
            "HTTP_ORIGIN": origin,
            "HTTP_REFERER": f"{origin}/assess/",
            "HTTP_ACCEPT": "*/*",
            "HTTP_USER_AGENT": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0.0.0 Safari/537.36",
            "HTTP_ACCEPT_ENCODING": "gzip, deflate, br, zstd",
            "HTTP_ACCEPT_LANGUAGE": "en-US,en;q=0.9",
            "wsgi.input": io.BytesIO(body),
            "wsgi.url_scheme": "http",
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": True,
            "wsgi.run_once": False,
            "wsgi.version": (1, 0),
        }
        status = []
        content = b"".join(handler(environ, lambda s, h, e=None: status.append(s)))
        if not status[0].startswith("200") or b'name="version" value="1"' not in content:
            raise RuntimeError(f"save of item {item}: {status[0]} {content[:300]!r}")

    def backend_cpu():
        pid = connection.connection.info.backend_pid
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    todo = iter(items)
    for _ in range(30):  # warm: templates compiled, statements prepared, caches filled
        save(next(todo))
    backend = connection.connection.info.backend_pid
    if profile:
        import cProfile

        profiler = cProfile.Profile(time.process_time)  # CPU, not the wait for PostgreSQL
        profiler.enable()
    pg0, web0, process0 = backend_cpu(), time.thread_time(), time.process_time()
    if statements:
        print(json.dumps(_statements(connection, backend, lambda: save(next(todo)), saves)))
        return
    if os.environ.get("BENCH_PUBLISH"):
        from core import rescoring_claims
        from pooling import staleness
        from pooling.models import PoolItem

        evaluation = PoolItem.objects.get(pk=items[0]).evaluation_id
        for _ in range(10):  # warm the publishing path too (the warm-up saves' claim was never given back)
            rescoring_claims.release(evaluation)
            staleness._enqueue(evaluation)
        rescoring_claims.release(evaluation)
        pg0, web0, process0 = backend_cpu(), time.thread_time(), time.process_time()  # without the above

        def save_and_publish(item):
            save(item)
            staleness.wait_for_publisher()
            rescoring_claims.release(evaluation)  # as the task's start does: the next save publishes again

        for _ in range(saves):
            save_and_publish(next(todo))
        rescoring_claims._client().delete(os.environ["CELERY_QUEUE"])  # nobody consumes the tasks
    else:
        for _ in range(saves):
            save(next(todo))
    if profile:
        profiler.disable()
        profiler.dump_stats(profile)
    pg1, web1, process1 = backend_cpu(), time.thread_time(), time.process_time()
    if connection.connection.info.backend_pid != backend:
        raise RuntimeError("the connection was replaced during the measurement: its backend's CPU is not all here")
    ms = 1000 / saves
    web, process = (web1 - web0) * ms, (process1 - process0) * ms
    print(json.dumps({"web": web, "process": process, "others": process - web, "pg": (pg1 - pg0) * ms}))


def _statements(connection, backend, save, saves):
    """Each distinct statement (its first 110 characters) the saves send: count per save and the backend's CPU in
    it, from the scheduler's nanosecond clock of the backend process read around each statement."""
    import collections

    path = f"/proc/{backend}/schedstat"

    def backend_ns():
        with open(path) as f:
            return int(f.read().split()[0])

    seen = collections.defaultdict(lambda: [0, 0])

    def watch(execute, sql, params, many, context):
        before = backend_ns()
        try:
            return execute(sql, params, many, context)
        finally:
            entry = seen[" ".join(str(sql).split())[:110]]
            entry[0] += 1
            entry[1] += backend_ns() - before

    total0 = backend_ns()
    with connection.execute_wrapper(watch):
        for _ in range(saves):
            save()
    total = backend_ns() - total0
    rows = [
        {"sql": sql, "per_save": n / saves, "backend_ms": ns / saves / 1e6}
        for sql, (n, ns) in sorted(seen.items(), key=lambda kv: -kv[1][1])
    ]
    inside = sum(ns for _, ns in seen.values())
    return {"statements": rows, "backend_outside_ms": (total - inside) / saves / 1e6}


if __name__ == "__main__":
    _measure(
        sys.argv[1],
        [int(x) for x in sys.argv[2].split(",")],
        int(sys.argv[3]),
        sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None,
        len(sys.argv) > 5 and sys.argv[5] == "statements",
    )

"""The judgment save's write statement alone in PostgreSQL, under the judgment table's schema of before issue 32's
cut and of now, alternated on one scratch database: the schema cannot be paired with `--against` (both checkouts
share one database there). `--threads` connections in autocommit each run assess.fastsave's INSERT statement (the
judgment, its history row, the stale mark; its own transaction and commit) on fresh (item, assessor) pairs for
`--seconds`; reported: the backends' CPU per statement (/proc/PID/schedstat of each connection's backend), inserts
per second and WAL bytes per insert (WAL includes checkpoints' full pages: noisy), per schema, medians of
`--rounds` alternated rounds and the median of each round's after/before ratio, with the load average and a CPU
probe. "before": the single-column indexes on the item, nugget and topic, the unique indexes leading with the kind,
the evaluation's and topic's foreign keys (migrations 0007, 0008 undo them); "after": the schema as migrated.

History (issue 32, 2 cores shared with other engineers' benchmarks). A scratch script of the same measurement with
the two cuts apart ("indexes" = 0007 only), 12 connections, 4 rounds of 5 s, load average 0.2 -> 7.4, probe
0.14 s: backend CPU per statement before 755 / 509 / 525 / 484 us, indexes 639 / 494 / 472 / 440, after 507 / 467
/ 431 / 419; pair ratios indexes 0.85 / 0.97 / 0.90 / 0.91 (median 0.905), after 0.67 / 0.92 / 0.82 / 0.87
(median 0.845). A stale mark refreshed by a plain UPDATE before the upsert (saving the upsert's row lock) cost
more, 544 against 480 us: not kept. This benchmark, `--rounds 4 --seconds 4`, load 4.4 -> 4.8, probe 0.155 /
0.143 s: after 334 / 305 / 217 / 248 us, before 362 / 362 / 301 / 308 us, pairs 0.92 / 0.84 / 0.72 / 0.81
(median 0.82); ~3,000 writes/s either way.
"""

import os
import statistics
import threading
import time

from benchmarks.harness import Result, setup_django

_BARE = """
DROP INDEX IF EXISTS bench_judgment_topic, bench_judgment_item, bench_judgment_nugget,
  one_item_judgment_per_assessor, one_nugget_judgment_per_assessor;
ALTER TABLE assess_judgment DROP CONSTRAINT IF EXISTS bench_fk_evaluation, DROP CONSTRAINT IF EXISTS bench_fk_topic;
"""
BEFORE = (
    _BARE
    + """
CREATE INDEX bench_judgment_topic ON assess_judgment (topic_id);
CREATE INDEX bench_judgment_item ON assess_judgment (item_id);
CREATE INDEX bench_judgment_nugget ON assess_judgment (nugget_id);
CREATE UNIQUE INDEX one_item_judgment_per_assessor ON assess_judgment (kind, item_id, assessor_id)
  WHERE item_id IS NOT NULL;
CREATE UNIQUE INDEX one_nugget_judgment_per_assessor ON assess_judgment (kind, nugget_id, assessor_id)
  WHERE nugget_id IS NOT NULL;
ALTER TABLE assess_judgment
  ADD CONSTRAINT bench_fk_evaluation FOREIGN KEY (evaluation_id) REFERENCES pooling_evaluation (id)
    DEFERRABLE INITIALLY DEFERRED,
  ADD CONSTRAINT bench_fk_topic FOREIGN KEY (topic_id) REFERENCES pooling_topic (id)
    DEFERRABLE INITIALLY DEFERRED;
"""
)
AFTER = (
    _BARE
    + """
CREATE UNIQUE INDEX one_item_judgment_per_assessor ON assess_judgment (item_id, kind, assessor_id)
  WHERE item_id IS NOT NULL;
CREATE UNIQUE INDEX one_nugget_judgment_per_assessor ON assess_judgment (nugget_id, kind, assessor_id)
  WHERE nugget_id IS NOT NULL;
"""
)


def add_arguments(parser):
    parser.add_argument("--threads", type=int, default=12, help="connections writing at once")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each measurement")
    parser.add_argument("--rounds", type=int, default=4, help="alternated rounds of both schemas")


def run(args):
    import psycopg

    from benchmarks.judging import build_data, cpu_probe

    load_before, probe_before = os.getloadavg()[0], cpu_probe()
    setup_django("assay_bench_save_write")
    from django.db import connection

    from assess import fastsave

    build_data(type("Args", (), {"clients": 3, "questions": 48, "runs": 30, "candidates": 60}))
    url = os.environ["DATABASE_URL"]
    connection.close()
    with psycopg.connect(url, autocommit=True) as admin:
        items = admin.execute(
            "SELECT i.id, i.topic_id, t.parent_id, i.evaluation_id FROM pooling_poolitem i "
            "JOIN pooling_topic t ON t.id = i.topic_id ORDER BY i.id"
        ).fetchall()
        users = [row[0] for row in admin.execute("SELECT id FROM auth_user ORDER BY id")]

    def backend_ns(pid):
        with open(f"/proc/{pid}/schedstat") as f:
            return int(f.read().split()[0])

    def measure(schema, kind):
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute("DELETE FROM assess_judgmentchange c USING assess_judgment j WHERE c.judgment_id = j.id")
            admin.execute("DELETE FROM assess_judgment")
            admin.execute("VACUUM ANALYZE assess_judgment, assess_judgmentchange, scoring_staletopic")
            admin.execute(schema)
        work = iter([(user, item) for user in users for item in items])
        lock, stop = threading.Lock(), threading.Event()
        conns = [psycopg.connect(url, autocommit=True) for _ in range(args.threads)]
        counts = [0] * len(conns)

        def write(i):
            cursor = conns[i].cursor()
            while not stop.is_set():
                with lock:
                    pair = next(work, None)
                if pair is None:
                    return
                user, (item, topic, series, evaluation) = pair
                params = {
                    **{"evaluation": evaluation, "topic": topic, "series": series or topic, "kind": kind},
                    **{"user": user, "role": "primary", "value": '{"label": "incorrect"}', "item": item},
                    "nugget": None,
                }
                cursor.execute(fastsave._INSERT, params, prepare=True)
                cursor.fetchone()
                counts[i] += 1

        pids = [c.info.backend_pid for c in conns]
        threads = [threading.Thread(target=write, args=(i,)) for i in range(len(conns))]
        with psycopg.connect(url, autocommit=True) as admin:
            lsn = admin.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
            cpu, started = sum(backend_ns(p) for p in pids), time.monotonic()
            for t in threads:
                t.start()
            time.sleep(args.seconds)
            stop.set()
            for t in threads:
                t.join()
            cpu, took = sum(backend_ns(p) for p in pids) - cpu, time.monotonic() - started
            wal = float(admin.execute("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), %s)", [lsn]).fetchone()[0])
        for c in conns:
            c.close()
        n = sum(counts)
        return {"us": cpu / n / 1000, "per_s": n / took, "wal": wal / n}

    got = {"before": [], "after": []}
    for r in range(args.rounds):
        order = ("before", "after") if r % 2 == 0 else ("after", "before")
        for name in order:
            got[name].append(measure(BEFORE if name == "before" else AFTER, f"bench{r}{name}"))
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(AFTER)  # the database as migrated again
    ratios = [a["us"] / b["us"] for a, b in zip(got["after"], got["before"])]
    results = []
    for name in ("after", "before"):
        each = got[name]
        results += [
            Result(
                f"{name}: backend CPU per save's write",
                statistics.median(x["us"] for x in each),
                "us",
                extra={"each": [round(x["us"], 1) for x in each]},
            ),
            Result(f"{name}: writes per second", statistics.median(x["per_s"] for x in each), "1/s"),
            Result(f"{name}: WAL per write", statistics.median(x["wal"] for x in each), "bytes"),
        ]
    results.append(
        Result("after / before, median of the rounds' pairs", statistics.median(ratios), "", extra={"each": ratios})
    )
    results.append(
        Result(
            "CPU probe before (best of 3 loops)",
            probe_before,
            "s",
            extra={"probe_after": cpu_probe(), "load_before": load_before, "load_after": os.getloadavg()[0]},
        )
    )
    return results

"""Shared benchmark plumbing: time things, measure peak memory, print a table and write JSON.

Each benchmark module defines `run(args) -> list[Result]`; `python -m benchmarks NAME` runs it.
Numbers that depend on the machine are reported beside a baseline measured in the same run (a ratio).
"""

import json
import resource
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

RESULTS_DIR = Path(__file__).resolve().parent / "results"


@dataclass
class Result:
    name: str
    value: float
    unit: str
    goal: str = ""  # e.g. ">= 1500" or "<= 20"
    notes: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def met(self):
        if not self.goal:
            return None
        op, target = self.goal.split()
        target = float(target)
        return self.value >= target if op == ">=" else self.value <= target


class Timer:
    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start


def median_seconds(fn, repeat, warm=False):
    """The median wall time of `repeat` calls of fn(), after one untimed call if `warm`."""
    if warm:
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peak_rss_mb():
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def closing_rows(load_before):
    """The rows a benchmark ends with: the load average before and after it (1, 5 and 15 minutes; the CPUs) and its
    peak memory, so that every figure is read beside the machine's load."""
    import os

    load_after = os.getloadavg()
    return [
        Result("load average before (1 min)", load_before[0], "", extra={"loadavg": load_before}),
        Result("load average after (1 min)", load_after[0], "", extra={"loadavg": load_after, "cpus": os.cpu_count()}),
        Result("peak memory", peak_rss_mb(), "MB"),
    ]


def percentile(values, p):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def report(benchmark, results, out=sys.stdout):
    width = max([len(r.name) for r in results] + [10])
    out.write(f"\n{benchmark}\n")
    out.write(f"{'measure':<{width}}  {'value':>12}  {'unit':<10} {'goal':<10} met\n")
    for r in results:
        met = {None: "", True: "yes", False: "NO"}[r.met]
        out.write(f"{r.name:<{width}}  {r.value:>12.3f}  {r.unit:<10} {r.goal:<10} {met}\n")
    import os

    folder = Path(os.environ.get("BENCH_RESULTS_DIR", RESULTS_DIR))  # (tests write theirs elsewhere)
    folder.mkdir(exist_ok=True)
    path = folder / f"{benchmark}.json"
    path.write_text(
        json.dumps(
            {
                "benchmark": benchmark,
                "at": time.strftime("%Y-%m-%dT%H:%M:%S"),
                "results": [asdict(r) | {"met": r.met} for r in results],
            },
            indent=2,
        )
    )
    out.write(f"(written to {path})\n")
    return path


def setup_django(database_name="assay_bench", fresh=True):
    """Point Django at a scratch PostgreSQL database (BENCH_PG_URL, default the local server), migrate it.

    Benchmarks never touch the demo or test databases. `fresh` drops and recreates the scratch database.
    BENCH_DB_SUFFIX is appended to its name, so two people running the same benchmark on one server do not drop
    each other's database.
    """
    import os

    import psycopg

    database_name += os.environ.get("BENCH_DB_SUFFIX", "")

    server = os.environ.get("BENCH_PG_URL", "postgresql://postgres@127.0.0.1:5432")
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (database_name,)).fetchone()
        if exists and fresh:
            conn.execute(f'DROP DATABASE "{database_name}" WITH (FORCE)')
        if not exists or fresh:
            conn.execute(f'CREATE DATABASE "{database_name}"')
    os.environ["DATABASE_URL"] = f"{server}/{database_name}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)

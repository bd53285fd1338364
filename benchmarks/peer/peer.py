"""The Label Studio pairing's Python side (run by pair.sh with the load generator's virtualenv).

peer.py load --peer DIR --round R --rev REV --side ls|assay [loadgen.py's options]
    peer-bench's loadgen.py, unchanged, with its CPU accounting replaced by meter.Meter (schedstat and taskstats,
    the target database's backends only), a CPU probe, clients that ran out of items counted; adds CPU per save
    by process group to its JSON and prints one summary line.
peer.py summarize RUNS_DIR
    one line per pair (the same round, N and revision): saves/s, latency and CPU per save of each side, ratios.
"""

import argparse
import importlib.util
import json
import os
import resource
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

sys.path.insert(0, str(Path(__file__).resolve().parent))
import meter  # type: ignore[import-not-found]  # noqa: E402  (run as a script, beside it)


def probe():
    """Seconds for 5,000,000 additions, best of 3 (peer-bench's probe: absolute speeds drift with the machine)."""

    def once():
        t, s = time.perf_counter(), 0
        for i in range(5_000_000):
            s += i
        return time.perf_counter() - t

    return round(min(once() for _ in range(3)), 3)


def load_loadgen(peer):
    spec = importlib.util.spec_from_file_location("loadgen", Path(peer) / "loadgen.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def per_save(res, cpu):
    ok = res["ok_2xx"] or 1
    ms = {k: round(v * 1000 / ok, 3) for k, v in cpu.items()}
    ms["server"] = round(sum(ms.get(k, 0) for k in ("web", "postgres", "postgres?", "worker")), 3)
    return ms


def summary_line(r):
    lat, ms, p = r["lat_ok_ms"], r["cpu_ms_per_save"], r["pair"]
    unattributed = f" (+{ms['postgres?']} unattributed)" if ms.get("postgres?") else ""
    worker = f" worker {ms['worker']}" if "worker" in ms else ""
    out = f" OUT OF ITEMS {r['clients_out_of_items']} clients" if r.get("clients_out_of_items") else ""
    return (
        f"{r['label']}: {r['rps_ok']} saves/s p50/p95/p99 {lat['p50']}/{lat['p95']}/{lat['p99']} ms | CPU ms/save "
        f"web {ms['web']} postgres {ms['postgres']}{unattributed}{worker} = {ms['server']}, client {ms['client']} | "
        f"ok {r['ok_2xx']} err {r['errors']} lost {r.get('lost_acknowledged')}{out} | probe {p['probe_s']} s "
        f"load {r['loadavg_before']} | counted {r['cpu_meter']['share_of_machine_busy_pct']} % of the machine's busy "
        f"time, exits by {r['cpu_meter']['exits']}"
    )


def load(argv):
    ap = argparse.ArgumentParser(allow_abbrev=False)  # (the rest are loadgen's options)
    ap.add_argument("--peer", required=True)
    ap.add_argument("--round", required=True)
    ap.add_argument("--rev", required=True)
    ap.add_argument("--side", required=True, choices=["ls", "assay"])
    ours, rest = ap.parse_known_args(argv)
    loadgen = load_loadgen(ours.peer)  # (reads the load average before the probe adds to it)
    probe_s = probe()
    original_run = loadgen.run
    out_of_items = set()
    if hasattr(loadgen, "AssayTarget"):
        submit = loadgen.AssayTarget.submit_client

        async def counted_submit(self, wid, rng):
            result = await submit(self, wid, rng)
            if result[0] == -3:
                out_of_items.add(wid)
            return result

        loadgen.AssayTarget.submit_client = counted_submit

    async def run(args):
        db = urlparse(args.db_url or "")
        groups = {"web": meter.Tree(args.server_pid)}
        if args.db_pid:
            groups["postgres"] = meter.Backends(args.db_pid, db.username, db.path.lstrip("/"))
        if args.worker_pid:
            groups["worker"] = meter.Tree(args.worker_pid)
        names = {args.server_pid: "web", args.db_pid: "postgres", args.worker_pid: "worker"}
        snaps = []
        with meter.Meter(groups) as m:

            def tree_cpu_seconds(pid):
                # loadgen reads server, database, worker in that order at each end of its window: one snapshot
                if not pid:
                    return None
                if pid == args.server_pid:
                    ru = resource.getrusage(resource.RUSAGE_SELF)
                    snaps.append((m.snapshot(), m.own_seconds(), ru.ru_utime + ru.ru_stime))
                return snaps[-1][0][names[pid]]

            loadgen.tree_cpu_seconds = tree_cpu_seconds
            res = await original_run(args)
            overruns = m.overruns
        (c0, own0, ru0), (c1, own1, ru1) = snaps[0], snaps[-1]
        cpu = {k: c1[k] - c0[k] for k in c1 if c1[k] - c0[k] or not k.endswith("?")}
        cpu["client"] = (ru1 - ru0) - (own1 - own0)  # the generator, without the meter's threads
        res["cpu_s"] = {k: round(v, 3) for k, v in cpu.items()} | {"meter": round(own1 - own0, 3)}
        res["cpu_ms_per_save"] = per_save(res, cpu)
        # what the groups add up to against the whole machine's busy time (on a quiet machine: close to 100 %)
        busy = res["cpu_cores_used"]["machine_busy"] * res["elapsed_s"]
        share = round(100 * (sum(cpu.values()) + own1 - own0) / busy, 1) if busy else None
        res["cpu_meter"] = {"exits": m.exits, "taskstats_overruns": overruns, "share_of_machine_busy_pct": share}
        res["clients_out_of_items"] = len(out_of_items)
        res["pair"] = {"round": ours.round, "rev": ours.rev, "side": ours.side, "probe_s": probe_s}
        if args.out:
            Path(args.out).write_text(json.dumps(res, indent=1))
        print(summary_line(res), file=sys.stderr)
        return res

    loadgen.run = run
    sys.argv = ["loadgen.py", *rest]
    with open(os.devnull, "w") as quiet, _stdout(quiet):  # (loadgen prints the whole JSON: it is in --out)
        loadgen.main()


class _stdout:
    def __init__(self, to):
        self.to = to

    def __enter__(self):
        self.saved, sys.stdout = sys.stdout, self.to

    def __exit__(self, *exc):
        sys.stdout = self.saved


def summarize(runs_dir):
    pairs: dict[tuple, dict] = {}
    for path in sorted(Path(runs_dir).glob("*.json")):
        r = json.loads(path.read_text())
        if "pair" in r:
            p = r["pair"]
            pairs.setdefault((p["round"], r["concurrency"], p["rev"]), {})[p["side"]] = r
    print(
        "round N  s   rev        | LS saves/s  ms/save | Assay saves/s p50/p99 ms  ms/save (web+pg+worker) | "
        "ratio saves/s  CPU | load LS/A  probe LS/A | err/lost/out"
    )
    for (rnd, n, rev), sides in sorted(pairs.items(), key=lambda kv: (kv[0][1], kv[0][0], kv[0][2])):
        a, b = sides.get("ls"), sides.get("assay")
        if not (a and b):
            continue
        ma, mb = a["cpu_ms_per_save"], b["cpu_ms_per_save"]
        split = f"{mb['web']}+{mb['postgres'] + mb.get('postgres?', 0):.2f}+{mb.get('worker', 0)}"
        print(
            f"{rnd:>5} {n:<2} {b['duration_s']:<3.0f} {rev:<10} | {a['rps_ok']:>10} {ma['server']:>8} | "
            f"{b['rps_ok']:>13} "
            f"{b['lat_ok_ms']['p50']}/{b['lat_ok_ms']['p99']:<9} {mb['server']:>6} ({split}) | "
            f"{b['rps_ok'] / max(a['rps_ok'], 1e-9):>12.1f}x {ma['server'] / max(mb['server'], 1e-9):>4.1f}x | "
            f"{a['loadavg_before'].split()[0]}/{b['loadavg_before'].split()[0]}  "
            f"{a['pair']['probe_s']}/{b['pair']['probe_s']} | "
            f"{a['errors'] + b['errors']}/{(a.get('lost_acknowledged') or 0) + (b.get('lost_acknowledged') or 0)}/"
            f"{b.get('clients_out_of_items', 0)}"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["load"]:
        load(sys.argv[2:])
    elif sys.argv[1:2] == ["summarize"]:
        summarize(sys.argv[2])
    else:
        sys.exit(__doc__)

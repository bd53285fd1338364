"""MS MARCO V2.1 segmented at scale, loaded by need: how fast `load_collection --only-cited` scans gzipped shards.

Generates --segments segments (default 100,000) in --shards gzipped JSON Lines shards (not timed), shaped as the
real ones (docid, url, title, headings, segment of ~250 words, start_char, end_char; 10 segments a document), and
an answer run citing about 0.1 % of them. Then, in alternated rounds (best of --rounds, so both see the same load):
- the baseline: plain `gzip` + `json` decoding of the same shards (gzip.open, json.loads of every line);
- the loader's scan: `corpus.loading.load_collection(..., docnos=wanted)` in one process into PostgreSQL,
  `wanted` being what `--only-cited` builds (the cited segments and their neighbours, k = 1): every line is read,
  only the wanted ones are decoded and stored;
- the same scan without the database (records, docno_of, `in wanted`): the format's own cost.
Goal (issue 31): segments scanned per second by the loader's scan >= 0.7 x the baseline's. Also printed: what
the whole collection (113.5 million segments) would take at that rate in one process.

Last measured (issue 31, 100,000 segments, 2 cores shared with six other sessions, load average 13-16): baseline
27,700-36,600 segments/s (9.1-10.3 us CPU a segment), the loader's scan 30,500-53,600 segments/s (6.6-7.1 us),
ratio 1.10-1.46 (1.38-1.45 by CPU); the whole collection in 0.6-1.0 hours in one process.
"""

import gzip
import json
import os
import random
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Result, Timer, peak_rss_mb, setup_django

COLLECTION_SEGMENTS = 113_520_750  # MS MARCO V2.1 segmented (TREC RAG 2024)
WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at which but have an they "
    "you were her all she there would their we him been has when who will more no if out so said what up its about "
    "into than them can only other new some could time these two may then do first any my now such like our over "
    "man me even most made after also did many before must through back years where much your way well down"
).split()


def add_arguments(parser):
    parser.add_argument("--segments", type=int, default=100_000)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3, help="alternated rounds; the best of each is kept")
    parser.add_argument("--seed", type=int, default=2024)


def write_shards(folder, segments, shards, rng):
    texts = [" ".join(rng.choices(WORDS, k=250)) for _ in range(1000)]  # ~1.3 MB: gzip's 32 kB window sees no repeat
    paths, per_doc = [], 10
    per_shard = -(-segments // shards)
    n = 0
    for s in range(shards):
        path = folder / f"msmarco_v2.1_doc_segmented_{s:02d}.json.gz"
        with gzip.open(path, "wt", encoding="utf-8") as out:
            for _ in range(min(per_shard, segments - n)):
                doc, seg = divmod(n, per_doc)
                text = rng.choice(texts)
                start = seg * 1200
                line = {
                    "docid": f"msmarco_v2.1_doc_{s:02d}_{doc * 7919}#{seg}_{n * 1301}",
                    "url": f"https://www.example.org/article/{doc}",
                    "title": f"Article {doc}: {' '.join(rng.choices(WORDS, k=6))}",
                    "headings": f"Article {doc}\nSection {seg}",
                    "segment": text,
                    "start_char": start,
                    "end_char": start + len(text),
                }
                out.write(json.dumps(line) + "\n")
                n += 1
        paths.append(path)
    return paths


def cited_ids(paths, rng, share=0.001):
    ids = []
    for path in paths:
        with gzip.open(path, "rb") as fh:
            for raw in fh:
                if rng.random() < share:
                    ids.append(json.loads(raw)["docid"])
    return ids


def baseline(paths):
    count = 0
    for path in paths:
        with gzip.open(path, "rb") as fh:
            for raw in fh:
                json.loads(raw)
                count += 1
    return count


def scan_only(paths, wanted):
    from corpus.formats.base import open_maybe_gzip
    from tracks.rag.formats import segments

    count = kept = 0
    for path in paths:
        with open_maybe_gzip(path) as stream:
            for rec in segments.records(stream, str(path)):
                count += 1
                if segments.docno_of(rec.raw) in wanted:
                    segments.parse_record(rec.raw)
                    kept += 1
    return count, kept


def run(args):
    load_before = os.getloadavg()[0]  # the machine is shared: say how busy it was
    setup_django("assay_bench_rag_collection")
    from corpus.loading import load_collection
    from tracks.rag.formats import segments

    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with Timer() as generate:
            paths = write_shards(folder, args.segments, args.shards, rng)
        megabytes = sum(p.stat().st_size for p in paths) / 1e6
        cited = cited_ids(paths, rng)
        run_file = folder / "run.jsonl"
        run_file.write_text(
            "".join(
                json.dumps(
                    {
                        "run_id": "bench",
                        "topic_id": str(i),
                        "references": cited[i : i + 10],
                        "answer": [{"text": "A claim.", "citations": list(range(len(cited[i : i + 10])))}],
                    }
                )
                + "\n"
                for i in range(0, len(cited), 10)
            )
        )
        problems, wanted = segments.wanted_from_runs([(str(run_file), run_file.read_bytes())], neighbours=1)
        assert not problems, problems[:3]
        best = {"baseline": float("inf"), "loader": float("inf"), "scan": float("inf")}
        cpu = {}
        stored = 0
        for r in range(args.rounds):
            start_cpu = time.process_time()
            with Timer() as t:
                count = baseline(paths)
            if t.seconds < best["baseline"]:
                best["baseline"], cpu["baseline"] = t.seconds, time.process_time() - start_cpu
            start_cpu = time.process_time()
            with Timer() as t:
                report = load_collection(
                    f"bench-marco-{r}", segments.NAME, [str(p) for p in paths], docnos=wanted, search_index=False
                )
            if t.seconds < best["loader"]:
                best["loader"], cpu["loader"] = t.seconds, time.process_time() - start_cpu
            scanned, stored = report.seen + report.not_wanted, report.inserted
            assert scanned == count == args.segments, (scanned, count)
            start_cpu = time.process_time()
            with Timer() as t:
                scan_count, kept = scan_only(paths, wanted)
            if t.seconds < best["scan"]:
                best["scan"], cpu["scan"] = t.seconds, time.process_time() - start_cpu
    rate = {name: args.segments / seconds for name, seconds in best.items()}
    hours = COLLECTION_SEGMENTS / rate["loader"] / 3600
    return [
        Result(
            f"generate {args.segments:,} segments in {args.shards} gzipped shards (not timed)", generate.seconds, "s"
        ),
        Result("shards on disk", megabytes, "MB"),
        Result(f"cited segments ({len(wanted.expected)}) + neighbours stored", stored, "segments"),
        Result("baseline: gzip + json.loads of every line", rate["baseline"], "segments/s"),
        Result("  its CPU per segment", cpu["baseline"] / args.segments * 1e6, "us"),
        Result("loader's scan: load_collection --only-cited (1 process)", rate["loader"], "segments/s"),
        Result("  its CPU per segment in this process", cpu["loader"] / args.segments * 1e6, "us"),
        Result("the format's scan alone (records, docno_of, in wanted)", rate["scan"], "segments/s"),
        Result("  its CPU per segment", cpu["scan"] / args.segments * 1e6, "us"),
        Result("loader's scan / baseline", rate["loader"] / rate["baseline"], "x", goal=">= 0.7"),
        Result("  the same by CPU per segment (baseline / loader's)", cpu["baseline"] / cpu["loader"], "x"),
        Result("the whole collection at the loader's rate, one process", hours, "hours"),
        Result("load average before (1 min)", load_before, ""),
        Result("load average after (1 min)", os.getloadavg()[0], ""),
        Result("peak RSS", peak_rss_mb(), "MB"),
    ]

"""Full-text search (issue 18): index build time and size, and query latency over a Blog06-like collection.

--docs documents (default 200,000) are generated straight into the scratch database (not timed): Blog06-like
permalink text of 150-900 words drawn from a Zipf-distributed vocabulary of 40,000 words (plus English function
words), with dates over 11 weeks as Blog06's (2005-12-06 to 2006-02-21). Then:

- the index build (`corpus.search.build_index`: one tsvector per document, then the collection's RUM index, or
  GIN where PostgreSQL has no RUM), its time and its size (table + index);
- --queries searches (default 600) through `corpus.search.search`, as the search page runs them (ranked, top 20,
  snippets): single words of rare, middling and common frequency, two-word queries, phrases, `or`, `-word`, and
  some with a date range. p50/p99 overall and per kind (goal p99 <= 50 ms);
- the baseline in the same run: the docno substring search the collection page had until now (`icontains`,
  one query), over the same documents;
- ingest documents/s through `load_collection` with and without building the index (--ingest-docs generated
  Blog06 permalink pages, as `python -m benchmarks corpus` makes them).
"""

import os
import random
import tempfile
import time
from datetime import date, timedelta

from benchmarks.harness import Result, Timer, percentile, setup_django

FUNCTION_WORDS = "the of and to a in is it that was for on are with as be this have but not".split()
START = date(2005, 12, 6)


def add_arguments(parser):
    parser.add_argument("--docs", type=int, default=200_000)
    parser.add_argument("--queries", type=int, default=600)
    parser.add_argument("--ingest-docs", type=int, default=4000, help="documents for the ingest comparison")
    parser.add_argument("--seed", type=int, default=2006)
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the scratch database of the last run (documents and index) and time only the searches",
    )
    parser.add_argument(
        "--rank-candidates",
        default="300,1000",
        help="ranking caps to time the searches with (setting SEARCH_RANK_CANDIDATES), comma-separated",
    )


def vocabulary(rng, n=40_000):
    letters = "etaoinshrdlucmfwypvbgkjqxz"
    weights = [12, 9, 8, 8, 7, 7, 6, 6, 6, 4, 4, 3, 3, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1]
    words = set()
    while len(words) < n:
        words.add("".join(rng.choices(letters, weights, k=rng.randint(4, 10))))
    return sorted(words)


def zipf_sampler(rng, n):
    """Rank r (0-based) with probability ~ 1/(r+1): cumulative weights for rng.choices."""
    cum, total = [], 0.0
    for r in range(n):
        total += 1 / (r + 1)
        cum.append(total)
    return cum


def generate_rows(rng, vocab, cum, n_docs, collection_id):
    for i in range(n_docs):
        n = rng.randint(150, 900)
        words = rng.choices(vocab, cum_weights=cum, k=n)
        for k in range(0, n, 7):
            words[k] = rng.choice(FUNCTION_WORDS)
        text = " ".join(words)
        day = START + timedelta(days=rng.randrange(77))
        docno = f"BLOG06-{day:%Y%m%d}-{i // 1000:03d}-{i:010d}"
        meta = f'{{"DATE_XML": "{day.isoformat()}T12:00:00+0000"}}'
        yield (collection_id, docno, b"<html><body><p>" + text.encode() + b"</p></body></html>", "utf-8", meta, text)


def fill(collection, vocab, cum, n_docs, seed):
    from django.db import connection

    rng = random.Random(seed)
    with connection.cursor() as wrapper:
        cur = wrapper.cursor
        with cur.copy("COPY corpus_document (collection_id, docno, raw, charset, meta, text) FROM STDIN") as copy:
            for row in generate_rows(rng, vocab, cum, n_docs, collection.pk):
                copy.write_row(row)
        cur.execute("ANALYZE corpus_document")


def queries(rng, vocab, n):
    """(kind, query, since, until): single words at three frequencies, pairs, phrases, or, exclusion, dates."""
    rare = vocab[5000:40000]
    middling = vocab[300:3000]
    common = vocab[20:300]
    out = []
    kinds = ["rare word", "middling word", "common word", "two words", "phrase", "or", "exclusion", "dated"]
    for i in range(n):
        kind = kinds[i % len(kinds)]
        since = until = None
        if kind == "rare word":
            q = rng.choice(rare)
        elif kind == "middling word":
            q = rng.choice(middling)
        elif kind == "common word":
            q = rng.choice(common)
        elif kind == "two words":
            q = f"{rng.choice(middling)} {rng.choice(common)}"
        elif kind == "phrase":
            q = f'"{rng.choice(common)} {rng.choice(common)}"'
        elif kind == "or":
            q = f"{rng.choice(middling)} or {rng.choice(rare)}"
        elif kind == "exclusion":
            q = f"{rng.choice(middling)} -{rng.choice(common)}"
        else:
            q = rng.choice(middling)
            since = START + timedelta(days=rng.randrange(60))
            until = since + timedelta(days=14)
        out.append((kind, q, since, until))
    return out


def index_size_mb(collection):
    """(entries with the index, the collection's full-text index alone, documents) in MB, and the index's kind."""
    from django.db import connection

    from corpus import search_rum
    from corpus.search import index_kind

    names = search_rum.names(collection.pk) if index_kind() == "rum" else ["corpus_search_vector"]  # (its pieces)
    with connection.cursor() as cur:
        cur.execute(
            "SELECT pg_total_relation_size('corpus_searchentry'), "
            "(SELECT sum(pg_relation_size(i::regclass)) FROM unnest(%s::text[]) AS i), "
            "pg_total_relation_size('corpus_document')",
            [names],
        )
        total, index, docs = cur.fetchone()
    return total / 1e6, index / 1e6, docs / 1e6, index_kind().upper()


def ingest_rates(n_docs, seed):
    """docs/s of load_collection with and without the index build, on the same generated Blog06 files."""
    from benchmarks.corpus import generate
    from corpus.loading import load_collection

    with tempfile.TemporaryDirectory(prefix="assay-bench-search-") as folder:
        paths, total = generate(folder, n_docs, seed, per_file=500)
        rates = {}
        for label, index in (("without index", False), ("with index", True)):
            start = time.perf_counter()
            report = load_collection(
                f"ingest-{'on' if index else 'off'}", "blog06", paths, workers=2, search_index=index
            )
            rates[label] = report.seen / (time.perf_counter() - start)
            assert report.inserted == n_docs
    return rates, total / n_docs / 1000


def time_searches(collection, plan, cap):
    from django.conf import settings

    from corpus.search import search

    settings.SEARCH_RANK_CANDIDATES = cap
    for _kind, q, since, until in plan[:20]:  # warm the caches a little, as a running server has them
        search(q, [collection], since, until)
    times, by_kind, hits, capped = [], {}, {}, 0
    for kind, q, since, until in plan:
        t = time.perf_counter()
        results = search(q, [collection], since, until)
        ms = (time.perf_counter() - t) * 1000
        times.append(ms)
        by_kind.setdefault(kind, []).append(ms)
        hits.setdefault(kind, []).append(results.matched)
        capped += results.capped
    out = [
        Result(f"search p50, cap {cap}", percentile(times, 50), "ms", "", f"{len(times)} queries, top 20 + snippets"),
        Result(f"search p99, cap {cap}", percentile(times, 99), "ms", "<= 50", f"{capped} queries over the cap"),
    ]
    for kind, ms in by_kind.items():
        mean = sum(hits[kind]) / len(hits[kind])
        out.append(
            Result(
                f"  p99 {kind}", percentile(ms, 99), "ms", "", f"p50 {percentile(ms, 50):.1f} ms; {mean:.0f} matched"
            )
        )
    return out


def run(args):
    import json

    from benchmarks.harness import RESULTS_DIR

    setup_django("assay_bench_search", fresh=not args.reuse)
    from django.db import connection

    from corpus.models import Collection, Document
    from corpus.search import build_index

    rng = random.Random(args.seed)
    vocab = vocabulary(rng)
    cum = zipf_sampler(rng, len(vocab))
    previous = RESULTS_DIR / "search.json"
    collection = Collection.objects.filter(name="bench-blog06", search_status="ready").first()
    results = []
    if args.reuse and collection is not None and previous.exists():
        kept = json.loads(previous.read_text())
        results += [
            Result(**{k: r[k] for k in ("name", "value", "unit", "goal", "notes", "extra")})
            for r in kept["results"]
            if r["name"].startswith("index ")
        ]
        for r in results:
            r.notes += f" (built by the run of {kept['at']})"
        args.docs = Document.objects.filter(collection=collection).count()
    else:
        Collection.objects.filter(name="bench-blog06").delete()
        collection = Collection.objects.create(name="bench-blog06", format="blog06")
        with Timer() as gen:
            fill(collection, vocab, cum, args.docs, args.seed)
        print(f"generated {args.docs} documents in {gen.seconds:.0f} s")
        with Timer() as build:
            indexed = build_index(collection)
        assert indexed == args.docs
        with connection.cursor() as cur:
            cur.execute("ANALYZE corpus_searchentry")
        total_mb, index_mb, docs_mb, kind = index_size_mb(collection)
        print(f"index built in {build.seconds:.0f} s: {total_mb:.0f} MB ({kind} {index_mb:.0f} MB)")
        results += [
            Result("index build", build.seconds, "s", "", f"{args.docs} docs, {args.docs / build.seconds:.0f} docs/s"),
            Result(
                f"index size (entries + {kind})",
                total_mb,
                "MB",
                "",
                f"{kind} {index_mb:.0f} MB; documents {docs_mb:.0f} MB",
            ),
        ]

    plan = queries(rng, vocab, args.queries)
    for cap in [int(c) for c in args.rank_candidates.split(",") if c.strip()]:
        results += time_searches(collection, plan, cap)
    baseline = []
    for _ in range(max(20, args.queries // 10)):
        needle = f"{rng.randrange(10**6):06d}"
        t = time.perf_counter()
        list(Document.objects.filter(docno__icontains=needle).values_list("docno", flat=True)[:50])
        baseline.append((time.perf_counter() - t) * 1000)
    results.append(
        Result("baseline: docno substring search p99", percentile(baseline, 99), "ms", "", "icontains, first 50")
    )
    if args.ingest_docs:
        rates, mean_kb = ingest_rates(args.ingest_docs, args.seed)
        results += [
            Result(
                "ingest without index",
                rates["without index"],
                "docs/s",
                "",
                f"{args.ingest_docs} docs, {mean_kb:.0f} KB",
            ),
            Result("ingest with index", rates["with index"], "docs/s", "", "load_collection then build_index"),
        ]
    load = os.getloadavg()
    results.append(
        Result(
            "load average (1 min)",
            load[0],
            "",
            "",
            f"5 min {load[1]:.2f}; {os.cpu_count()} cores shared",
            {"loadavg": load, "cpus": os.cpu_count(), "docs": args.docs},
        )
    )
    return results

"""A collection at the size organizers load (issue 32, item 4): `load_collection` as run by default, then search
and the viewer over what it stored.

--docs Blog06-like permalink pages (default 20,000) are generated into gzip bundles of 1,000 first (not timed; two
processes): the sizes (log-normal around 17 KB, 5-500 KB) and charset mix of `benchmarks corpus`, but the visible
text is what `benchmarks search` takes Blog06 text to be, a post of 150-900 words from its Zipf vocabulary of
40,000 words (slices of one long drawn stream), plus 0-4 comments; the rest of the page is markup with little text
(scripts, style sheets, blogroll and archive links, comment forms, ad tables). About 5.6 KB of text a 26.7 KB page:
`benchmarks corpus`'s pages are 84 % text of 60 words, and the text is what indexing and snippets cost. Then, on
the same files:

- `load_collection` as `manage.py load_collection` runs it by default (2 parsing processes, the search index
  built): documents/s, CPU per document over all processes (CpuMeter), and where the time went (parsing, COPY,
  search entries: seconds summed over the processes; the index build at the end);
- disk per document: corpus_document and corpus_searchentry (table + TOAST + indexes, pg_total_relation_size);
- searches through `corpus.search.search` as the search page runs them (top 20 with snippets, the query kinds of
  `benchmarks search`): p50/p99 (goal p99 <= 50 ms), CPU per search;
- the viewer: the frame an assessor's browser asks for (test client, logged in as an assessor of an evaluation
  over the collection), documents picked at random: p50/p99 (goal p99 <= 10 ms), CPU per frame;
- in the same run, the baselines (--baseline-docs of the same files, default all of them, into a collection of
  their own): `load_collection` without the index (goal >= 1,500 docs/s), and the path the default took before
  issue 32 (load without the index, then `build_index` over the collection), as ratios.

The load average and a CPU-speed probe are recorded: absolute figures follow the neighbours on a shared machine,
ratios in one run do not. `--keep-files DIR` generates the bundles there once and reuses them.
"""

import math
import os
import random
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from benchmarks.harness import Result, percentile, setup_django

PER_FILE = 1000


def add_arguments(parser):
    parser.add_argument("--docs", type=int, default=20_000, help="documents to generate and load (default 20,000)")
    parser.add_argument(
        "--baseline-docs",
        type=int,
        default=None,
        help="documents of the same files for the baselines (default: all); 0 skips them",
    )
    parser.add_argument("--workers", type=int, default=2, help="parsing processes (load_collection's default: 2)")
    parser.add_argument("--queries", type=int, default=600)
    parser.add_argument("--requests", type=int, default=400, help="viewer requests to time")
    parser.add_argument("--seed", type=int, default=2006)
    parser.add_argument("--keep-files", metavar="DIR", help="generate the bundles into DIR once and reuse them")


MONTHS = "January February March April May June July August September October November December".split()


def _filler(rng, n=400):
    """Pieces of a blog page's markup with little text: script and style blocks, blogroll and archive link lists,
    comment forms, ad tables (real permalinks are mostly this: the post itself is a few hundred words)."""
    out = []
    for i in range(n):
        kind = i % 5
        if kind == 0:
            out.append(
                '<script type="text/javascript">\n'
                + "".join(
                    f"var s{i}_{k} = document.getElementById('w{k}'); if (s{i}_{k}) {{ s{i}_{k}.style.display = "
                    f"'none'; track('{rng.randrange(10**6)}'); }}\n"
                    for k in range(rng.randint(3, 12))
                )
                + "</script>\n"
            )
        elif kind == 1:
            links = "".join(
                f'<li><a href="http://blog{rng.randrange(100_000)}.example.com/" rel="nofollow">'
                f"{rng.choice(MONTHS)} blog {rng.randrange(1000)}</a></li>"
                for _ in range(rng.randint(5, 25))
            )
            out.append(f'<div class="sidebar-block"><h2>Blogroll</h2><ul class="links">{links}</ul></div>\n')
        elif kind == 2:
            out.append(
                '<style type="text/css">'
                + "".join(
                    f"#w{k} .c{rng.randrange(100)} {{ margin: {k}px {rng.randrange(20)}px; "
                    f"color: #{rng.randrange(16**6):06x};"
                    f" background: url(/img/b{k}.png) no-repeat; }}\n"
                    for k in range(rng.randint(4, 15))
                )
                + "</style>\n"
            )
        elif kind == 3:
            months = "".join(
                f'<li><a href="/archives/200{rng.randrange(4, 7)}_{m:02d}.html">{MONTHS[m - 1]}</a></li>'
                for m in range(1, rng.randint(3, 13))
            )
            out.append(
                f'<div class="archives"><ul>{months}</ul></div><form method="post" action="/cgi-bin/comments.cgi">'
                '<input type="hidden" name="entry_id" value="' + str(rng.randrange(10**6)) + '">'
                '<textarea name="text" rows="10" cols="50"></textarea><input type="submit" value="Post"></form>\n'
            )
        else:
            out.append(
                f'<table border="0" cellpadding="0" cellspacing="0" width="160"><tr><td align="center">'
                f'<a href="http://ads.example.net/click?id={rng.randrange(10**8)}"><img src="http://ads.example.net/'
                f'b/{rng.randrange(10**6)}.gif" width="160" height="600" border="0" alt=""></a></td></tr></table>\n'
            )
    return out


_WORDS = {}  # seed -> a long stream of Zipf-drawn words (each process draws its own once)


def _word_stream(seed, vocab, cum, n=3_000_000):
    """Words drawn from the Zipf vocabulary with a function word every 7th, as benchmarks search writes its
    documents; a page's text is a slice of it at a random place (drawing each page's words anew costs more than
    the rest of the generation)."""
    from benchmarks.search import FUNCTION_WORDS

    if seed not in _WORDS:
        rng = random.Random(seed + 7)
        words = rng.choices(vocab, cum_weights=cum, k=n)
        words[::7] = rng.choices(FUNCTION_WORDS, k=len(words[::7]))
        _WORDS[seed] = words
    return _WORDS[seed]


def _post(rng, stream, lang, cjk):
    """The post (150-900 words, as benchmarks search models Blog06 text) and 0-4 comments, in paragraphs."""
    if lang != "en":
        return "".join(f"<p>{rng.choice(cjk)}</p>\n" for _ in range(rng.randint(3, 20)))

    def words(n):
        at = rng.randrange(len(stream) - n)
        return stream[at : at + n]

    drawn = words(rng.randint(150, 900))
    post = "".join(f"<p>{' '.join(drawn[k : k + 60]).capitalize()}.</p>\n" for k in range(0, len(drawn), 60))
    comments = "".join(
        f'<div class="comment"><p>{" ".join(words(rng.randint(10, 60)))}</p>'
        f'<span class="by">Posted by reader {rng.randrange(10_000)} at {rng.randrange(24)}:00</span></div>\n'
        for _ in range(rng.randint(0, 4))
    )
    return f'<div class="post">\n{post}</div>\n<div class="comments">\n{comments}</div>\n'


def _write_bundle(args):
    """One gzip bundle of Blog06 records (documents first..last-1); run in a worker process."""
    import gzip

    from benchmarks import corpus as corpus_bench
    from benchmarks.search import START, vocabulary, zipf_sampler

    folder, f, first, last, seed = args
    if seed not in _WORDS:
        rng = random.Random(seed)  # the same vocabulary in every process, that of the searches
        vocab = vocabulary(rng)
        _word_stream(seed, vocab, zipf_sampler(rng, len(vocab)))
    stream = _WORDS[seed]
    rng = random.Random(seed * 100_003 + f)
    filler = _filler(rng)
    cjk = {lang: [p for p in corpus_bench._paragraphs(rng, lang, 60)] for lang in ("ja", "zh")}
    shares = [m[0] for m in corpus_bench.MIX]
    chunks, total = [], 0
    for k in range(first, last):
        _, header_cs, meta_cs, codec, lang = rng.choices(corpus_bench.MIX, shares)[0]
        size = int(min(500_000, max(5_000, rng.lognormvariate(math.log(17_000), 0.9))))
        post = _post(rng, stream, lang, cjk.get(lang))
        page = corpus_bench._page(rng, filler, size - len(post), meta_cs, f"post {k}", 1)
        page = page.replace('<div id="main">\n', f'<div id="main">\n{post}', 1)
        body = page.encode(codec, "replace")
        day = START + timedelta(days=rng.randrange(77))  # Blog06's 11 weeks
        when, iso = f"{day:%Y%m%d}", day.isoformat()
        url = f"http://blog{k % 5000}.example.com/{when}/post-{k}.html"
        ctype = "text/html" + (f"; charset={header_cs}" if header_cs else "")
        rec = (
            (
                f"<DOC>\n<DOCNO>BLOG06-{when}-{f:03d}-{k:010d}</DOCNO>\n<DATE_XML>{iso}T12:00:00+0000</DATE_XML>\n"
                f"<FEEDNO>BLOG06-feed-{k % 5000:06d}</FEEDNO>\n<FEEDURL>http://blog{k % 5000}.example.com/rss"
                f"</FEEDURL>\n<BLOGHPNO></BLOGHPNO>\n<BLOGHPURL>http://blog{k % 5000}.example.com/</BLOGHPURL>\n"
                f"<PERMALINK>{url}</PERMALINK>\n<DOCHDR>\n{url} 0.0.0.0 {when}0000 {len(body)}\nHTTP/1.1 200 OK\n"
                f"Server: Apache\nContent-Type: {ctype}\nContent-Length: {len(body)}\n</DOCHDR>\n"
            ).encode("ascii")
            + body
            + b"\n</DOC>\n"
        )
        chunks.append(rec)
        total += len(rec)
    path = Path(folder) / f"permalinks-{f:04d}.gz"
    with gzip.open(path, "wb", compresslevel=1) as fh:
        fh.write(b"".join(chunks))
    return str(path), total


def generate(folder, n_docs, seed, processes=2):
    """Bundles of PER_FILE records in `folder` (reused when a previous run left the same ones); (paths, bytes)."""
    import multiprocessing

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = folder / f"generated-{n_docs}-{seed}.txt"
    jobs = [
        (str(folder), f, f * PER_FILE, min(n_docs, (f + 1) * PER_FILE), seed) for f in range(-(-n_docs // PER_FILE))
    ]
    if stamp.exists():
        paths = [Path(folder) / f"permalinks-{f:04d}.gz" for f in range(len(jobs))]
        return paths, int(stamp.read_text())
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        made = pool.map(_write_bundle, jobs, chunksize=1)
    total = sum(n for _, n in made)
    stamp.write_text(str(total))
    return [Path(p) for p, _ in made], total


def cpu_probe():
    """Seconds of a fixed pure-Python loop: how fast this core runs now (it varies with the neighbours)."""
    start = time.perf_counter()
    x = 0
    for i in range(3_000_000):
        x += i * i % 7
    return time.perf_counter() - start


def disk(collection_ids):
    """Bytes on disk of corpus_document and corpus_searchentry (each with TOAST and indexes), and their rows."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE corpus_document")  # visibility map and statistics, as autovacuum leaves them
        cur.execute("VACUUM ANALYZE corpus_searchentry")
        cur.execute(
            "SELECT pg_total_relation_size('corpus_document'), pg_total_relation_size('corpus_searchentry'), "
            "pg_relation_size('corpus_document'), "
            "coalesce(pg_total_relation_size((SELECT reltoastrelid FROM pg_class WHERE relname = 'corpus_document')),"
            " 0)"
        )
        docs, entries, heap, toast = cur.fetchone()
        cur.execute("SELECT count(*) FROM corpus_document WHERE collection_id = ANY(%s)", [list(collection_ids)])
        rows = cur.fetchone()[0]
    return docs, entries, heap, toast, rows


def viewer_times(collection, n_requests, seed):
    """Milliseconds per frame response, as an assessor's browser asks for it (logged in, its own evaluation)."""
    from django.test import Client

    from accounts.people import ensure_user
    from benchmarks.corpus import _assign_to_collection
    from corpus import viewer
    from corpus.models import Document

    user = ensure_user("bench-assessor", "assessor", "bench-pw-123")
    _assign_to_collection(user, collection.name)
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    rng = random.Random(seed)
    ids = Document.objects.filter(collection=collection).values_list("id", flat=True)
    low, high = ids.order_by("id").first(), ids.order_by("-id").first()
    picks = []
    while len(picks) < n_requests + 20:  # random documents without reading a million docnos
        docno = (
            Document.objects.filter(collection=collection, id__gte=rng.randint(low, high))
            .order_by("id")
            .values_list("docno", flat=True)
            .first()
        )
        if docno:
            picks.append(docno)
    for d in picks[:20]:  # warm-up: connections, templates, caches
        client.get(viewer.frame_url(collection.name, d))
    times = []
    with CpuMeter() as cpu:
        for d in picks[20:]:
            url = viewer.frame_url(collection.name, d)
            t = time.perf_counter()
            r = client.get(url)
            times.append((time.perf_counter() - t) * 1000)
            assert r.status_code == 200, (url, r.status_code)
    return times, cpu.total / len(times) * 1000


def search_times(collection, n_queries, seed):
    from benchmarks.search import queries, vocabulary, zipf_sampler
    from corpus.search import search

    rng = random.Random(seed)
    vocab = vocabulary(rng)
    zipf_sampler(rng, len(vocab))  # (the generator's draws, so the vocabulary is the pages')
    plan = queries(random.Random(seed + 1), vocab, n_queries)
    for _kind, q, since, until in plan[:20]:  # warm the caches a little, as a running server has them
        search(q, [collection], since, until)
    times, by_kind, matched = [], {}, {}
    with CpuMeter() as cpu:
        for kind, q, since, until in plan:
            t = time.perf_counter()
            results = search(q, [collection], since, until)
            ms = (time.perf_counter() - t) * 1000
            times.append(ms)
            by_kind.setdefault(kind, []).append(ms)
            matched.setdefault(kind, []).append(results.matched)
    return times, by_kind, matched, cpu.total / len(times) * 1000


def _proc_cpu(pid):
    """CPU seconds (user + system) of a process on this machine, or None once it has gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class CpuMeter:
    """CPU seconds spent by everything a step runs: this process, its child processes (the parsing workers) and
    the PostgreSQL backends serving this database (the server must be on this machine: /proc). Backends are
    sampled every 0.1 s while the step runs (a worker's connection ends with each file), so the last tenth of a
    second of each is missed: the figure is a slight underestimate, the same for every step. What neighbours on
    the machine do not change, unlike seconds."""

    def __enter__(self):
        import resource
        import threading

        from django.db import connection

        self.seen, self.stop = {}, threading.Event()
        with connection.cursor() as cur:
            cur.execute("SELECT current_database(), pg_backend_pid()")
            self.database, own = cur.fetchone()
        self.own_backend = (own, _proc_cpu(own) or 0.0)
        self.own_last = self.own_backend[1]  # its latest reading: a load closes the connection before it forks
        self.start = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()
        return self

    def _sample(self):
        import psycopg
        from django.conf import settings

        db = settings.DATABASES["default"]
        with psycopg.connect(
            host=db["HOST"], port=db["PORT"] or 5432, user=db["USER"], password=db["PASSWORD"], dbname=self.database
        ) as conn:
            conn.autocommit = True
            me = conn.info.backend_pid
            while not self.stop.wait(0.1):
                pids = conn.execute(
                    "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> %s AND pid <> %s",
                    [self.database, me, self.own_backend[0]],
                ).fetchall()
                for (pid,) in pids:
                    cpu = _proc_cpu(pid)
                    if cpu is not None:
                        self.seen[pid] = cpu
                own = _proc_cpu(self.own_backend[0])
                if own is not None:
                    self.own_last = own

    def __exit__(self, *exc):
        import resource

        self.stop.set()
        self.thread.join()
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        self.python = own.ru_utime + own.ru_stime - self.start[0].ru_utime - self.start[0].ru_stime
        self.workers = children.ru_utime + children.ru_stime - self.start[1].ru_utime - self.start[1].ru_stime
        # every other backend of the scratch database is a connection the step opened: counted from 0
        self.backends = sum(self.seen.values())
        own = _proc_cpu(self.own_backend[0])
        self.backends += (self.own_last if own is None else own) - self.own_backend[1]
        self.total = self.python + self.workers + self.backends


def _load(name, paths, workers, search_index):
    from corpus.loading import load_collection

    start = time.perf_counter()
    with CpuMeter() as cpu:
        report = load_collection(name, "blog06", paths, workers=workers, search_index=search_index)
    wall = time.perf_counter() - start
    assert not report.bad, report.bad[:3]
    report.cpu = cpu
    return report, wall


def run(args):
    setup_django("assay_bench_collection")
    from django.db import connection

    from corpus.models import Collection
    from corpus.search import build_index, index_kind

    results = []
    probe_before = cpu_probe()
    with tempfile.TemporaryDirectory(prefix="assay-bench-collection-") as scratch:
        folder = args.keep_files or scratch
        t = time.perf_counter()
        paths, total = generate(folder, args.docs, args.seed)
        mean_kb = total / args.docs / 1000
        print(
            f"{args.docs} documents ({total / 1e9:.1f} GB, mean {mean_kb:.1f} KB) "
            f"ready in {time.perf_counter() - t:.0f} s"
        )

        # 1. load_collection as run by default
        report, wall = _load("bench-collection", paths, args.workers, True)
        assert report.inserted == args.docs, report.inserted
        rate = args.docs / wall
        s = getattr(report, "stages", None) or dict.fromkeys(("parse", "copy", "entries"), 0.0)  # (before issue 32)
        results += [
            Result(
                "ingest, load_collection default (with index)",
                rate,
                "docs/s",
                ">= 1000",
                f"{args.docs} docs, mean {mean_kb:.1f} KB, {args.workers} processes, {wall:.0f} s in all",
                {"docs": args.docs, "seconds": wall, "workers": args.workers, "index": index_kind()},
            ),
            Result(
                "  CPU per document, all processes",
                report.cpu.total / args.docs * 1e6,
                "us/doc",
                "",
                f"parsing workers {report.cpu.workers / args.docs * 1e6:.0f}, PostgreSQL backends "
                f"{report.cpu.backends / args.docs * 1e6:.0f}, this process {report.cpu.python / args.docs * 1e6:.0f}",
            ),
            Result("  stage: parse (summed over processes)", s["parse"] / args.docs * 1e6, "us/doc"),
            Result("  stage: COPY (and the docno check)", s["copy"] / args.docs * 1e6, "us/doc"),
            Result("  stage: search entries (tsvector, index)", s["entries"] / args.docs * 1e6, "us/doc"),
            Result("  stage: index build at the end", report.index_seconds, "s", "", "build_index: catch-up, RUM"),
        ]
        print(f"loaded with the index: {rate:.0f} docs/s")
        collection = Collection.objects.get(name="bench-collection")
        docs_b, entries_b, heap_b, toast_b, rows = disk([collection.pk])
        results += [
            Result(
                "disk per document, all",
                (docs_b + entries_b) / rows / 1000,
                "KB",
                "",
                f"{(docs_b + entries_b) / 1e9:.2f} GB for {rows} docs; raw pages {mean_kb:.1f} KB",
            ),
            Result(
                "  corpus_document (heap + TOAST + indexes)",
                docs_b / rows / 1000,
                "KB",
                "",
                f"TOAST {toast_b / rows / 1000:.1f} KB, heap {heap_b / rows / 1000:.1f} KB",
            ),
            Result(
                "  corpus_searchentry (+ TOAST + indexes)",
                entries_b / rows / 1000,
                "KB",
                "",
                f"{index_kind()} index included",
            ),
        ]

        # 2. search and the viewer over it
        times, by_kind, matched, search_cpu = search_times(collection, args.queries, args.seed)
        results += [
            Result("search p50", percentile(times, 50), "ms", "", f"{len(times)} queries, top 20 + snippets"),
            Result("search CPU, mean", search_cpu, "ms", "", "per search: this process and its PostgreSQL backend"),
            Result("search p99", percentile(times, 99), "ms", "<= 50", f"{args.docs} docs"),
        ]
        for kind, ms in by_kind.items():
            mean = sum(matched[kind]) / len(matched[kind])
            results.append(
                Result(
                    f"  p99 {kind}",
                    percentile(ms, 99),
                    "ms",
                    "",
                    f"p50 {percentile(ms, 50):.1f} ms; {mean:.0f} matched",
                )
            )
        viewer, viewer_cpu = viewer_times(collection, args.requests, args.seed)
        results += [
            Result("viewer p50", percentile(viewer, 50), "ms", "", f"{len(viewer)} frame requests, test client"),
            Result("viewer CPU, mean", viewer_cpu, "ms", "", "per frame: the view and its PostgreSQL backend"),
            Result("viewer p99", percentile(viewer, 99), "ms", "<= 10"),
        ]

        # 3. baselines on the same files
        n_base = args.docs if args.baseline_docs is None else min(args.baseline_docs, args.docs)
        if n_base:
            base_paths = paths[: -(-n_base // PER_FILE)]
            n_base = min(n_base, len(base_paths) * PER_FILE, args.docs)
            report, plain_wall = _load("bench-collection-plain", base_paths, args.workers, False)
            plain = report.inserted / plain_wall
            t = time.perf_counter()
            with CpuMeter() as build_cpu:
                assert build_index(Collection.objects.get(name="bench-collection-plain")) == report.inserted
            build = time.perf_counter() - t
            before = report.inserted / (plain_wall + build)
            plain_us = report.cpu.total / report.inserted * 1e6
            before_us = (report.cpu.total + build_cpu.total) / report.inserted * 1e6
            results += [
                Result(
                    "ingest without index (baseline)",
                    plain,
                    "docs/s",
                    ">= 1500",
                    f"{report.inserted} docs: load_collection --search none",
                ),
                Result(
                    "ingest before issue 32 (baseline)",
                    before,
                    "docs/s",
                    "",
                    f"load without index then build_index ({build:.0f} s of {plain_wall + build:.0f} s)",
                ),
                Result(
                    "  CPU per document without index",
                    plain_us,
                    "us/doc",
                    "",
                    f"parsing workers {report.cpu.workers / report.inserted * 1e6:.0f}, PostgreSQL backends "
                    f"{report.cpu.backends / report.inserted * 1e6:.0f}, this process "
                    f"{report.cpu.python / report.inserted * 1e6:.0f}",
                ),
                Result(
                    "  CPU per document before issue 32",
                    before_us,
                    "us/doc",
                    "",
                    f"the load without index, then build_index: {build_cpu.total / report.inserted * 1e6:.0f}",
                ),
                Result("with index / without index", rate / plain, "ratio", "", "the index's cost in the load"),
                Result("with index / before issue 32", rate / before, "ratio", "", "same files, same run"),
            ]
        with connection.cursor() as cur:
            cur.execute("SELECT count(*) FROM corpus_searchentry")
            print(f"{cur.fetchone()[0]} search entries in all")
    load = os.getloadavg()
    probe_after = cpu_probe()
    results.append(
        Result(
            "load average (1 min)",
            load[0],
            "",
            "",
            f"5 min {load[1]:.2f}, 15 min {load[2]:.2f}; {os.cpu_count()} cores shared; CPU probe "
            f"{probe_before:.2f} s before, {probe_after:.2f} s after",
            {"loadavg": load, "cpus": os.cpu_count(), "docs": args.docs, "probe": [probe_before, probe_after]},
        )
    )
    return results

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
  search entries: seconds summed over the processes; the index build at the end, and in it the full-text
  index, the pairs index and the rest, each with its wall time and CPU per document);
- disk per document: corpus_document and corpus_searchentry (table + TOAST + indexes, pg_total_relation_size);
- searches through `corpus.search.search` as the search page runs them (top 20 with snippets, the query kinds of
  `benchmarks search`): p50/p99 (goal p99 <= 50 ms) overall and per kind, CPU per search (this thread and its
  PostgreSQL backend, schedstat before and after each call);
- the viewer: the frame an assessor's browser asks for (logged in as an assessor of an evaluation over the
  collection), documents picked at random, through the test client (the view and the test client's own request
  handling, this thread and its backend) and through the web server (config/serve.py, DEBUG off, one keep-alive
  connection with the session cookie; CPU = the server's threads and the database's client backends): p50/p99 (goal
  p99 <= 10 ms), CPU per frame;
- in the same run, the baselines (--baseline-docs of the same files, default all of them, into a collection of
  their own): `load_collection` without the index (goal >= 1,500 docs/s), and the path the default took before
  issue 32 (load without the index, then `build_index` over the collection), as ratios. That collection is then
  a second size: search and the viewer take turns between the two, query by query and request by request, so
  how p99 and CPU grow with the collection is a ratio within one run.

The load average and a CPU-speed probe are recorded: absolute figures follow the neighbours on a shared machine,
ratios in one run do not. `--keep-files DIR` generates the bundles there once and reuses them (any bundle a larger
or smaller run made); `--reuse` keeps the last run's database and times search and the viewer only.

Figures (issue 32, item 4, with RUM; 2 cores shared with five other engineers' suites and benchmarks):

- 200,000 documents, --baseline-docs 50,000 (one run, niced, 09:34-09:55 UTC, load average 8.3 at the start, 9-14
  during, CPU probe 0.32 / 0.58 s): ingest with the index 250 docs/s (799 s: the load 527 s, the RUM build at the
  end 272 s, one backend); without the index 394 docs/s; the path before issue 32 183 docs/s; disk 24.5 KB per
  document (documents 13.5, entries with RUM 11.0). CpuMeter read 1.82 ms CPU per document with the index
  against 4.66 ms in the earlier runs at 50,000 without RUM: mostly the machine, see below.
  Search before the snippet window: CPU 20.7 ms per search at 200,000 and 17.1 at 50,000 (1.21x), p50 58 / 48 ms,
  p99 195 / 138 ms (the niced process waiting for a core: wall time is 3x CPU at this load).
- Search, the snippet window against the previous code, alternated query by query in one process (400 queries
  each, load 8.9 -> 8.2, probe 0.54 / 0.40 s): CPU per search 13.1 vs 19.4 ms at 200,000 (0.68), 10.0 vs 16.0 ms
  at 50,000 (0.62); p50 30 vs 48 ms, p99 109 vs 137 ms at 200,000. At 200,000 a search's PostgreSQL CPU is now
  ~3.7 ms finding the first 300 matches in RUM (a bitmap scan reads all of a common word's 31,000 postings; a
  plain index scan measured 3.5 against 3.8 ms, same matches: not taken), ~5.4 ms ranking them and counting (300
  tsvectors read, ts_rank_cd), ~4 ms snippets (~10 before); Python 0.9 ms.
- The same run with --reuse after the change (load 15 -> 21): CPU per search 14.6 ms at 200,000, 10.9 at 50,000
  (1.34x); p99 151 / 97 ms.
- Viewer: the test client's CPU per frame 4.0 ms (python 3.3, PostgreSQL 0.6-0.9), of which frame_html 0.65-0.75
  ms and Django's query building for the document and its access check 0.6 ms (nested QuerySets of the grant),
  now one SQL expression. Through gunicorn, two servers (the commit before and this one) on one database,
  alternated request by request (300 each per collection, schedstat, load 14.8 -> 12.3, probe 1.58 / 0.43 s):
  server CPU per frame 4.97 vs 5.80 ms at 200,000 (0.86), 5.01 vs 5.97 at 50,000 (0.84); p50 9.9 vs 10.6 ms,
  p99 32 vs 33 ms. Then the frame's read as one statement written by hand against that (the same way, load 6.1
  -> 8.9, probe 1.60 / 0.22 s): 3.96 vs 4.91 ms at 200,000 (0.81), 3.99 vs 4.83 ms at 50,000 (0.83). Documents
  per collection do not change a frame's cost (an index lookup): CPU 200,000 / 50,000 0.87-1.04, p99 0.79-1.49
  between runs; p99 follows the machine (27-67 ms at load 9-21) and the largest pages.
- CPU p99 beside p99 (`--reuse`, 400 queries and 300 frames per collection, load 12.3 -> 14.3, probe 0.65 / 0.36
  s): search CPU mean / p99 14.4 / 41.2 ms at 200,000 and 10.7 / 21.9 ms at 50,000 (p99 1.88x for 4x the
  documents): the tail is phrases of two common words, 9.7 -> 22.6 ms mean (11 -> 45 matched), RUM checking
  positions in every document holding both words, linear in the collection. Viewer through
  gunicorn: server CPU mean / p99 3.9 / 7.3 ms at 200,000, 3.8 / 7.2 ms at 50,000 (1.01x); wall p99 25 / 28 ms.
- The machine quieter, all changes in (`--reuse`, load 3.5-5.4, probe 0.14-0.23 s): search p50 / p99 13.1 / 41.4
  ms at 200,000 (CPU mean / p99 12.9 / 36.7 ms; phrases p99 52.7 ms) and 8.9 / 21.6 ms at 50,000 (p99 1.92x for
  4x). The viewer through gunicorn, 400 frames per collection, once the workers have booted (gunicorn listens
  before they have; one run counted a worker's boot in its first frames: CPU p99 28 ms, so the benchmark now
  waits for the server to idle): p50 / p99 2.8 / 9.0 ms at 200,000 and 2.7 / 7.5 ms at 50,000, CPU mean / p99
  2.7 / 6.0 ms; through the test client 2.0-2.3 ms CPU.
- Before/after pairs on the quieter machine: search, alternated query by query (400 each, load 3.6 -> 3.3, probe
  0.15 / 0.13 s): CPU 12.3 vs 18.4 ms at 200,000 (0.67), 9.6 vs 15.7 ms at 50,000 (0.61); p50 11.6 vs 18.4 ms,
  p99 33.4 vs 37.2 ms at 200,000, 23.3 vs 28.6 ms at 50,000. The viewer, both changes against 832fde8, two
  gunicorns alternated (400 each per collection, after their boot, load 5.5 -> 4.8, probe 0.24 / 0.14 s): server
  CPU 3.35 vs 4.87 ms at 200,000 (0.69), 3.26 vs 4.71 ms at 50,000 (0.69); p50 3.5 vs 5.1 ms, p99 14.2 vs 17.9 ms.
- The meter (a later session). 1.82 against 4.66 ms was mostly the host: the machine restarted at 09:27 UTC on a
  faster one (this probe 0.56 s at load 0.55 before, 0.15-0.17 s after). What the meter itself got wrong, fixed:
  it read backends every 0.1 s (the last work of each file's connection lost: a third of the backends' CPU without
  the index), one figure per pid (pids wrap every ~8 minutes here), a backend open before the step from 0, its own
  thread in this process. Against a private cluster's whole CPU (postmaster, reaped and live children; 20,000
  documents, load 0.6-3.7, probe 0.13-0.17 s): the new meter's backends + server processes 99.4-99.8 % with the
  index, 96 % without; the old meter's 94 % and 62 %.
- CPU per document now (50,000, load 2.7 -> 2.3, probe 0.15 / 0.15 s, judging's 0.141 / 0.122 s): with the index
  980 docs/s, 1.42 ms (workers 0.46, backends 0.96 of which the RUM build 0.26); without 1,904 docs/s, 0.59 ms;
  the path before issue 32 719 docs/s, 1.43 ms. 20,000 on the private cluster: 1,000 and 1,748 docs/s. 200,000
  with the index (load 3.5 at the start, 4-8 during, probe 0.24 / 0.14 s, judging's 0.140 / 0.131 s): 570 docs/s,
  1.53 ms (workers 0.50, backends 1.03), 24.5 KB per document.
- The RUM build: 230-270 us CPU per document, one backend, CPU-bound, linear (12.9 s of the 51 s load at 50,000;
  46.6 s, 46.2 s CPU, of the 351 s load at 200,000: the 272 s before was load 9-14 starving its backend). Tried,
  alternated two rounds on the same entries (load 2.4-2.8): maintenance_work_mem 64 MB / 256 MB (kept) / 1 GB:
  11.5-12.2 / 10.6-11.8 / 12.5-13.4 s CPU, index 222 / 199 / 196 MB, same hits; the index made before the load
  (entries inserted batch by batch): 5.42 vs 1.42 ms CPU per document, 260 vs 689 docs/s (20,000). PostgreSQL 15
  builds only B-trees in parallel. Kept as it is.
"""

import copy
import math
import os
import random
import statistics
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
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the scratch database of the last run (its collections and indexes): time only search and viewer",
    )
    parser.add_argument("--port", type=int, default=0, help="the viewer's web server port (default: a free one)")
    parser.add_argument(
        "--against-index",
        action="store_true",
        help="also make each search with SEARCH_SCAN_IN_ORDER off and no pairs index, in turns: the baseline, and a "
        "check of same hits",
    )


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
    """Bundles of PER_FILE records in `folder`; (paths, bytes). A bundle's records depend only on the seed and its
    number, so bundles a previous run left (any size: `bundles.json` records each one's range and bytes) are reused
    and only the missing ones are written."""
    import json
    import multiprocessing

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    manifest = folder / "bundles.json"
    known = json.loads(manifest.read_text()) if manifest.exists() else {}
    jobs = [
        (str(folder), f, f * PER_FILE, min(n_docs, (f + 1) * PER_FILE), seed) for f in range(-(-n_docs // PER_FILE))
    ]
    key = lambda job: f"{job[1]}:{job[2]}:{job[3]}:{job[4]}"  # noqa: E731
    path = lambda job: folder / f"permalinks-{job[1]:04d}.gz"  # noqa: E731
    missing = [job for job in jobs if key(job) not in known or not path(job).exists()]
    if missing:
        with multiprocessing.get_context("fork").Pool(processes) as pool:
            for job, (_, n) in zip(missing, pool.imap(_write_bundle, missing, chunksize=1)):
                known[key(job)] = n
                manifest.write_text(json.dumps(known))  # after each bundle: an interrupted run keeps what it made
    return [path(job) for job in jobs], sum(known[key(job)] for job in jobs)


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


def _schedstat(pid, tid=None):
    """Nanoseconds a PostgreSQL backend (or this thread) has run on a CPU (/proc schedstat, not tick-sampled)."""
    path = f"/proc/{pid}/task/{tid}/schedstat" if tid else f"/proc/{pid}/schedstat"
    try:
        return int(Path(path).read_text().split()[0])
    except OSError:
        return 0


class CallCpu:
    """CPU of one call made from this thread: the thread's own and its PostgreSQL backend's, in ms (both read
    from schedstat, so single calls are measured, and calls alternating between collections are told apart)."""

    def __init__(self):
        import threading

        from django.db import connection

        connection.ensure_connection()
        with connection.cursor() as cur:
            cur.execute("SELECT pg_backend_pid()")
            self.backend = cur.fetchone()[0]
        self.tid = threading.get_native_id()
        self.pid = os.getpid()

    def now(self):
        return _schedstat(self.pid, self.tid) + _schedstat(self.backend)


def _random_docnos(collection, n, rng):
    """n random docnos of the collection (with repeats), without reading a million of them."""
    from corpus.models import Document

    ids = Document.objects.filter(collection=collection).values_list("id", flat=True)
    low, high = ids.order_by("id").first(), ids.order_by("-id").first()
    picks = []
    while len(picks) < n:
        docno = (
            Document.objects.filter(collection=collection, id__gte=rng.randint(low, high))
            .order_by("id")
            .values_list("docno", flat=True)
            .first()
        )
        if docno:
            picks.append(docno)
    return picks


def _viewer_user(collections):
    """An assessor assigned in an evaluation over `collections` (the viewer serves assessors only those)."""
    from accounts.people import ensure_user
    from benchmarks.corpus import _assign_to_collection
    from pooling.models import Evaluation

    user = ensure_user("bench-assessor", "assessor", "bench-pw-123")
    _assign_to_collection(user, collections[0].name)
    Evaluation.objects.get(slug="bench-viewer").collections.add(*collections)
    return user


def viewer_times(collections, n_requests, seed):
    """Per collection, milliseconds per frame response and CPU per response (the view with the test client's
    request handling, and its PostgreSQL backend), as an assessor's browser asks for it (logged in, its own
    evaluation); the collections take turns request by request, on random documents."""
    from django.test import Client

    from corpus import viewer

    client = Client(HTTP_HOST="localhost")
    client.force_login(_viewer_user(collections))
    rng = random.Random(seed)
    picks = {c.name: _random_docnos(c, n_requests + 20, rng) for c in collections}
    for c in collections:  # warm-up: connections, templates, caches
        for d in picks[c.name][:20]:
            client.get(viewer.frame_url(c.name, d))
    meter = CallCpu()
    times = {c.name: [] for c in collections}
    cpu = {name: [] for name in times}
    for k in range(20, n_requests + 20):
        for c in collections:
            url = viewer.frame_url(c.name, picks[c.name][k])
            t, c0 = time.perf_counter(), meter.now()
            r = client.get(url)
            cpu[c.name].append((meter.now() - c0) / 1e6)
            times[c.name].append((time.perf_counter() - t) * 1000)
            assert r.status_code == 200, (url, r.status_code)
    return {name: (ms, cpu[name]) for name, ms in times.items()}


def _tree_cpu(pids):
    """CPU seconds of these processes, every thread (the web server's workers serve from threads) from schedstat."""
    total = 0
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        total += sum(_schedstat(pid, tid) for tid in tasks)
    return total / 1e9


def server_viewer_times(collections, n_requests, seed, port):
    """The same frames fetched from the web server as production runs it (config/serve.py, DEBUG off) over one
    keep-alive connection with an assessor's session cookie, as the browser asks for them: per collection, ms per
    response and the server's CPU per response (the web server's processes and the PostgreSQL backends of this
    database, schedstat read before and after each request). The collections take turns."""
    import http.client

    from django.db import connection

    from benchmarks import production
    from benchmarks.judging import _tree
    from config.patience import Deadline
    from corpus import viewer

    user = _viewer_user(collections)
    cookie = f"sessionid={production.session_for(user)}"
    rng = random.Random(seed + 1)
    picks = {c.name: _random_docnos(c, n_requests + 20, rng) for c in collections}
    with connection.cursor() as cur:
        cur.execute("SELECT current_database(), pg_backend_pid()")
        database, own = cur.fetchone()
    broker = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")  # (a frame sends no task)
    env = production.environment(broker, "bench-collection", DATABASE_URL=os.environ["DATABASE_URL"])
    server = production.start_server(env, port)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

        def get(url):
            conn.request("GET", url, headers={"Host": "127.0.0.1", "Cookie": cookie, "Accept": "text/html"})
            response = conn.getresponse()
            body = response.read()
            assert response.status == 200, (url, response.status, body[:200])
            return body

        for c in collections:  # warm-up: every worker's connection, templates, caches
            for d in picks[c.name][:20]:
                get(viewer.frame_url(c.name, d))

        def pids():
            with connection.cursor() as cur:
                cur.execute(
                    "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> %s "
                    "AND backend_type = 'client backend'",  # (not autovacuum's workers)
                    [database, own],
                )
                return _tree(server.pid) + [pid for (pid,) in cur.fetchall()]

        # the server may answer before every worker has booted: wait until its processes idle, or a worker's boot
        # (~0.3 s of CPU) would be counted in the first frames measured
        quiet, last = Deadline(60), _tree_cpu(_tree(server.pid))
        while not quiet.passed():
            time.sleep(0.5)
            now = _tree_cpu(_tree(server.pid))
            if now - last < 0.005:
                break
            last = now
        watched = pids()
        times = {c.name: [] for c in collections}
        cpu = {name: [] for name in times}
        for k in range(20, n_requests + 20):
            for c in collections:
                url = viewer.frame_url(c.name, picks[c.name][k])
                c0, t = _tree_cpu(watched), time.perf_counter()
                get(url)
                ms = (time.perf_counter() - t) * 1000
                cpu[c.name].append((_tree_cpu(watched) - c0) * 1000)
                times[c.name].append(ms)
            if k % 50 == 0:
                watched = pids()  # (a worker's new connection)
        conn.close()
    finally:
        production.stop(server)
    return {name: (ms, cpu[name]) for name, ms in times.items()}


def search_times(collections, n_queries, seed, against_index=False):
    """Per collection: ms per search, by query kind, documents matched by kind, and CPU per search (this thread
    and its backend). The collections take turns query by query, each query asked of each. `against_index`: each
    search also made with SEARCH_SCAN_IN_ORDER off (always the full-text index), in turns, as a baseline in the
    same run, and without the collection's pairs index; returns (measured, baseline, the searches whose hits differ
    between the two)."""
    from django.test import override_settings

    from benchmarks.search import queries, vocabulary, zipf_sampler
    from corpus.search import search

    rng = random.Random(seed)
    vocab = vocabulary(rng)
    zipf_sampler(rng, len(vocab))  # (the generator's draws, so the vocabulary is the pages')
    plan = queries(random.Random(seed + 1), vocab, n_queries)
    for c in collections:
        for _kind, q, since, until in plan[:20]:  # warm the caches a little, as a running server has them
            search(q, [c], since, until)
    meter = CallCpu()
    out = {c.name: ([], {}, {}, {}) for c in collections}
    base = {c.name: ([], {}, {}, {}) for c in collections}
    differ = []

    def timed(record, kind, q, since, until, c, scan):
        if not scan:  # the full-text index alone: no scan in heap order, no pairs index (corpus.search_pairs)
            c = copy.copy(c)
            c.search_pairs = []
        with override_settings(SEARCH_SCAN_IN_ORDER=scan):
            times, by_kind, matched, cpu = record[c.name]
            t, c0 = time.perf_counter(), meter.now()
            results = search(q, [c], since, until)
            cpu_ms = (meter.now() - c0) / 1e6
            ms = (time.perf_counter() - t) * 1000
        times.append(ms)
        by_kind.setdefault(kind, []).append(ms)
        matched.setdefault(kind, []).append(results.matched)
        cpu.setdefault(kind, []).append(cpu_ms)
        return [(h.document_id, h.rank, h.snippet) for h in results.hits], results.matched, results.more

    for i, (kind, q, since, until) in enumerate(plan):
        for c in collections:
            if not against_index:
                timed(out, kind, q, since, until, c, True)
                continue
            # the same query both ways, in turns which goes first
            if i % 2:
                index_only = timed(base, kind, q, since, until, c, False)
                found = timed(out, kind, q, since, until, c, True)
            else:
                found = timed(out, kind, q, since, until, c, True)
                index_only = timed(base, kind, q, since, until, c, False)
            if found != index_only:
                differ.append((c.name, q))
    return out, base, differ


def _proc_start(pid):
    """When a process started (clock ticks since boot, /proc stat field 22): tells a reused pid apart."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


class CpuMeter:
    """CPU seconds spent by everything a step runs: this process, its child processes (the parsing workers, from
    getrusage once reaped) and the PostgreSQL backends of this database (the server must be on this machine:
    /proc), each backend's schedstat read through a file kept open on it.

    What it counts and why: a load's workers open a connection per file and close it, so backends come and go. A
    backend is found by listing pg_stat_activity every LIST_EVERY s and is counted from 0 if it started during the
    step (from its first reading if it was there before: the step's own connection); the backends found are read
    every READ_EVERY s, so at most that much of each one's last work is missed (the meter before read every
    0.1 s and missed up to 0.1 s of CPU per file's connection). Processes are keyed by pid and start time, and read
    through the open file, which fails once its process has gone: this machine runs through its 32,768 pids in
    minutes, so a pid is reused during a long load (the meter before kept one figure per pid, and a reused pid
    replaced an earlier backend's CPU). The meter's own thread is not counted in this process's figure, nor its
    connection's backend. Autovacuum and parallel workers of the database are counted (`by_type` says how much);
    the server's own processes (walwriter, checkpointer, background writer: `server`) are not, since every
    database on the server shares them, but are reported beside."""

    LIST_EVERY = 0.1
    READ_EVERY = 0.02

    def __enter__(self):
        import resource
        import threading

        from django.db import connection

        self.tick = os.sysconf("SC_CLK_TCK")
        self.since = int(time.clock_gettime(time.CLOCK_BOOTTIME) * self.tick)  # the step's start, in /proc's ticks
        self.first, self.last, self.kind, self.files = {}, {}, {}, {}
        self.stop, self.sampler_cpu, self.lock = threading.Event(), 0.0, threading.Lock()
        with connection.cursor() as cur:
            cur.execute("SELECT current_database()")
            self.database = cur.fetchone()[0]
        self.conn = self._connect()
        self._list(initial=True)
        self.start = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()
        return self

    def _connect(self):
        import psycopg
        from django.conf import settings

        db = settings.DATABASES["default"]
        conn = psycopg.connect(
            host=db["HOST"], port=db["PORT"] or 5432, user=db["USER"], password=db["PASSWORD"], dbname=self.database
        )
        conn.autocommit = True
        self.me = conn.info.backend_pid
        return conn

    def _list(self, initial=False):
        """Open the schedstat of every backend of the database, and of the server's own processes, not yet open."""
        rows = self.conn.execute(
            "SELECT pid, backend_type, datname IS NULL FROM pg_stat_activity "
            "WHERE (datname = %s OR (datname IS NULL AND backend_type <> 'client backend')) AND pid <> %s",
            [self.database, self.me],
        ).fetchall()
        for pid, backend_type, server in rows:
            start = _proc_start(pid)
            key = (pid, start)
            if start is None or key in self.kind:
                continue
            try:
                fd = os.open(f"/proc/{pid}/schedstat", os.O_RDONLY)
            except OSError:
                continue
            if _proc_start(pid) != start:  # (the pid was reused between the two reads)
                os.close(fd)
                continue
            self.kind[key] = "server" if server else backend_type
            self.files[key] = fd
            now = self._read(key)
            # a process that started during the step counts from 0; one that was there, from now
            self.first[key] = 0 if (start >= self.since and not initial) else (now or 0)
            self.last[key] = now or self.first[key]

    def _read(self, key):
        """Nanoseconds the process has run, or None (and its file closed) once it has gone."""
        try:
            ns = int(os.pread(self.files[key], 64, 0).split()[0])
        except (OSError, ValueError, IndexError):
            os.close(self.files.pop(key))
            return None
        self.last[key] = ns
        return ns

    def _sample(self):
        next_list = time.monotonic() + self.LIST_EVERY
        try:
            while not self.stop.wait(self.READ_EVERY):
                with self.lock:
                    for key in list(self.files):
                        self._read(key)
                    if time.monotonic() >= next_list:
                        self._list()
                        next_list = time.monotonic() + self.LIST_EVERY
        finally:
            self.sampler_cpu = time.thread_time()

    def snapshot(self):
        """CPU seconds so far of this process (the meter's thread included) and the database's backends: the
        difference of two is the CPU of what this process did in between with its backends (the build at the end
        of a load)."""
        import resource

        with self.lock:
            self._list()
            for key in list(self.files):
                self._read(key)
            own = resource.getrusage(resource.RUSAGE_SELF)
            backends = sum(self.last[k] - self.first[k] for k, kind in self.kind.items() if kind != "server") / 1e9
        return own.ru_utime + own.ru_stime + backends

    def __exit__(self, *exc):
        import resource

        self.stop.set()
        self.thread.join()
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        self._list()
        for key in list(self.files):
            if self._read(key) is not None:
                os.close(self.files.pop(key))
        self.conn.close()
        self.python = own.ru_utime + own.ru_stime - self.start[0].ru_utime - self.start[0].ru_stime
        self.python -= self.sampler_cpu
        self.workers = children.ru_utime + children.ru_stime - self.start[1].ru_utime - self.start[1].ru_stime
        self.by_type = {}
        for key, kind in self.kind.items():
            self.by_type[kind] = self.by_type.get(kind, 0.0) + (self.last[key] - self.first[key]) / 1e9
        self.server = self.by_type.pop("server", 0.0)
        self.backends = sum(self.by_type.values())
        self.total = self.python + self.workers + self.backends

    def notes(self, n):
        """Where the CPU went, in microseconds per document (n of them)."""
        others = ", ".join(
            f"{kind} {sec / n * 1e6:.0f}" for kind, sec in sorted(self.by_type.items()) if kind != "client backend"
        )
        return (
            f"parsing workers {self.workers / n * 1e6:.0f}, PostgreSQL backends {self.backends / n * 1e6:.0f}"
            + (f" ({others})" if others else "")
            + f", this process {self.python / n * 1e6:.0f}; not counted: the server's own processes "
            f"{self.server / n * 1e6:.0f} (shared by every database), the meter {self.sampler_cpu / n * 1e6:.0f}"
        )


# The parts of the build at the end of a load that are timed apart: (module, function, label). What is left of the
# build is the catch-up over documents a load left unindexed, the counts, and the statistics (ANALYZE).
BUILD_PARTS = (
    ("corpus.search_rum", "create", "the full-text index"),
    ("corpus.search_pairs", "create", "the pairs index"),
)


def _load(name, paths, workers, search_index):
    """load_collection timed with its CPU (report.cpu), the build at the end and its parts (BUILD_PARTS) each in
    report.cpu.parts as (wall seconds, CPU seconds) under its label ("build" for the whole); (report, wall)."""
    import importlib

    from corpus import loading

    def metered(original, key):
        """`original` adding its wall and CPU seconds (this process and the backends) to cpu.parts[key]."""

        def wrapper(*args, **kwargs):
            before, started = cpu.snapshot(), time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                wall, used = cpu.parts.get(key, (0.0, 0.0))
                cpu.parts[key] = (wall + time.perf_counter() - started, used + cpu.snapshot() - before)

        return wrapper

    wrapped = [(loading, "build_index", "build")] + [
        (importlib.import_module(module), attribute, label) for module, attribute, label in BUILD_PARTS
    ]
    originals = [(module, attribute, getattr(module, attribute), key) for module, attribute, key in wrapped]
    start = time.perf_counter()
    try:
        with CpuMeter() as cpu:
            cpu.parts = {}
            for module, attribute, original, key in originals:
                setattr(module, attribute, metered(original, key))
            report = loading.load_collection(name, "blog06", paths, workers=workers, search_index=search_index)
    finally:
        for module, attribute, original, _key in originals:
            setattr(module, attribute, original)
    wall = time.perf_counter() - start
    assert not report.bad, report.bad[:3]
    report.cpu = cpu
    return report, wall


def _build_part_rows(report, docs):
    """The build at the end of a load, part by part (BUILD_PARTS, then the rest): wall seconds, CPU per document."""
    parts = report.cpu.parts
    build_wall, build_cpu = parts.get("build", (0.0, 0.0))
    rows, rest_wall, rest_cpu = [], build_wall, build_cpu
    for _module, _attribute, label in BUILD_PARTS:
        wall, used = parts.get(label, (0.0, 0.0))
        rest_wall, rest_cpu = rest_wall - wall, rest_cpu - used
        rows.append(Result(f"    {label}", wall, "s", "", f"CPU {used / docs * 1e6:.0f} us/doc"))
    rest = "    the rest (catch-up, counts, statistics)"
    rows.append(Result(rest, rest_wall, "s", "", f"CPU {rest_cpu / docs * 1e6:.0f} us/doc"))
    return rows


def _search_rows(collections, sizes, args):
    measured, baseline, differ = search_times(collections, args.queries, args.seed, args.against_index)
    results = []
    if args.against_index:
        results.append(
            Result(
                "searches whose hits differ from the index's",
                len(differ),
                "",
                "<= 0",
                "documents, ranks, snippets, count: " + ("; ".join(f"{c}: {q}" for c, q in differ[:5]) or "none"),
            )
        )
    for c in collections:
        results += _search_rows_of(c, measured[c.name], sizes, collections, "")
        if args.against_index:
            rows = _search_rows_of(c, baseline[c.name], sizes, collections, " (index only, same run)")
            results += rows
            mine = statistics.fmean(x for ms in measured[c.name][3].values() for x in ms)
            theirs = statistics.fmean(x for ms in baseline[c.name][3].values() for x in ms)
            at = f" at {sizes[c.name]:,} docs" if c is not collections[0] else ""
            results.append(Result(f"search CPU ÷ index only{at}", mine / theirs, "ratio", "", "same queries, in turns"))
    return results


def _search_rows_of(c, out, sizes, collections, label):
    results = []
    times, by_kind, matched, cpu = out
    n = sizes[c.name]
    at = (f" at {n:,} docs" if c is not collections[0] else "") + label
    every = [x for ms in cpu.values() for x in ms]
    results += [
        Result(f"search p50{at}", percentile(times, 50), "ms", "", f"{len(times)} queries, top 20 + snippets"),
        Result(
            f"search CPU, mean{at}",
            sum(every) / len(every),
            "ms",
            "",
            "per search: this thread and its PostgreSQL backend (schedstat)",
        ),
        Result(
            f"search CPU p99{at}",
            percentile(every, 99),
            "ms",
            "",
            "the p99 a machine with an idle core would approach",
        ),
        Result(f"search p99{at}", percentile(times, 99), "ms", "<= 50", f"{n} docs, {index_kind_name()}"),
    ]
    for kind, ms in by_kind.items():
        mean = sum(matched[kind]) / len(matched[kind])
        results.append(
            Result(
                f"  p99 {kind}{at}",
                percentile(ms, 99),
                "ms",
                "",
                f"p50 {percentile(ms, 50):.1f} ms; CPU {statistics.fmean(cpu[kind]):.1f} ms; {mean:.0f} matched",
            )
        )
    return results


def index_kind_name():
    from corpus.search import index_kind

    return f"{index_kind().upper()} index"


def _viewer_rows(label, measured, collections, sizes, goal=True):
    results = []
    for c in collections:
        ms, cpu = measured[c.name]
        at = f" at {sizes[c.name]:,} docs" if c is not collections[0] else ""
        results += [
            Result(f"viewer p50, {label}{at}", percentile(ms, 50), "ms", "", f"{len(ms)} frame requests"),
            Result(f"viewer CPU, mean, {label}{at}", statistics.fmean(cpu), "ms", "", "per frame"),
            Result(
                f"viewer CPU p99, {label}{at}",
                percentile(cpu, 99),
                "ms",
                "",
                "the p99 a machine with an idle core would approach",
            ),
            Result(f"viewer p99, {label}{at}", percentile(ms, 99), "ms", "<= 10" if goal else ""),
        ]
    return results


def run(args):
    setup_django("assay_bench_collection", fresh=not args.reuse)
    from django.db import connection

    from benchmarks.judging import cpu_probe as shared_probe  # (the probe every benchmark of issue 32 records)
    from corpus.models import Collection
    from corpus.search import index_kind

    results = []
    load_before = os.getloadavg()[0]
    probe_before, shared_before = cpu_probe(), shared_probe()
    if args.reuse:
        collections = list(Collection.objects.filter(name__startswith="bench-collection").order_by("name"))
        if not collections:
            raise SystemExit("--reuse: no collection of a previous run in the scratch database")
    else:
        results += _load_and_baselines(args)
        collections = list(Collection.objects.filter(name__startswith="bench-collection").order_by("name"))
    sizes = {c.name: c.documents.count() for c in collections}
    print(f"searching {', '.join(f'{n} ({sizes[n]} docs)' for n in sizes)} with the {index_kind()} index")

    # 2. search and the viewer over what was loaded: every collection in turns, the same queries and requests
    if args.queries:
        results += _search_rows(collections, sizes, args)
    if args.requests:
        measured = viewer_times(collections, args.requests, args.seed)
        results += _viewer_rows("test client", measured, collections, sizes, goal=False)
        connection.close()  # (the server's workers need no share of this one)
        from benchmarks.production import free_port

        measured = server_viewer_times(collections, args.requests, args.seed, args.port or free_port())
        results += _viewer_rows("web server", measured, collections, sizes)
    if len(collections) > 1:
        big, small = collections
        by = {r.name: r.value for r in results}
        at = f" at {sizes[small.name]:,} docs"
        for what in (
            "search p99",
            "search CPU, mean",
            "search CPU p99",
            "viewer p99, web server",
            "viewer CPU, mean, web server",
            "viewer CPU p99, web server",
        ):
            if what in by and what + at in by:
                results.append(
                    Result(
                        f"{what}: {sizes[big.name]:,} ÷ {sizes[small.name]:,} docs",
                        by[what] / by[what + at],
                        "ratio",
                        "",
                        "the same queries or documents' turns, same run",
                    )
                )
    load = os.getloadavg()
    probe_after, shared_after = cpu_probe(), shared_probe()
    results.append(
        Result(
            "load average (1 min)",
            load[0],
            "",
            "",
            f"{load_before:.2f} at the start; 5 min {load[1]:.2f}, 15 min {load[2]:.2f}; {os.cpu_count()} cores "
            f"shared; CPU probe {probe_before:.2f} s before, {probe_after:.2f} s after (benchmarks.judging's: "
            f"{shared_before:.3f} / {shared_after:.3f} s)",
            {
                "loadavg": load,
                "cpus": os.cpu_count(),
                "sizes": sizes,
                "probe": [probe_before, probe_after],
                "judging_probe": [shared_before, shared_after],
            },
        )
    )
    return results


def _load_and_baselines(args):
    """1. `load_collection` as run by default, disk per document; 3. the baselines on the same files."""
    from django.db import connection

    from corpus.models import Collection
    from corpus.search import build_index, index_kind

    results = []
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
        build_cpu = report.cpu.parts.get("build", (0.0, 0.0))[1]
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
                report.cpu.notes(args.docs),
            ),
            Result("  stage: parse (summed over processes)", s["parse"] / args.docs * 1e6, "us/doc"),
            Result("  stage: COPY (and the docno check)", s["copy"] / args.docs * 1e6, "us/doc"),
            Result("  stage: search entries (tsvector, index)", s["entries"] / args.docs * 1e6, "us/doc"),
            Result(
                "  stage: index build at the end",
                report.index_seconds,
                "s",
                "",
                f"build_index: catch-up, {index_kind().upper()}, pairs, statistics; CPU {build_cpu:.1f} s "
                f"({build_cpu / args.docs * 1e6:.0f} us/doc, this process and the backends)",
            ),
            *_build_part_rows(report, args.docs),
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
                    report.cpu.notes(report.inserted),
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
    return results

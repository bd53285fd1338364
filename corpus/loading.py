"""Loading a collection's files into the database: parse (optionally in worker processes), insert in batches.

Loading is idempotent: a document already stored under the same (collection, docno) is left as it is. Each batch
is its own transaction, so an interrupted load keeps what it stored and a second run completes it. Bad records are
skipped and reported (file, record number, byte offset, reason); they never stop a load.

Size limits: a file that decompresses to more than MAX_FILE_BYTES, or holds a record (or text outside records)
longer than MAX_RECORD_BYTES, refuses the whole load: the documents it had stored are deleted again and
LoadRefused names the file. Files are read a chunk at a time, so memory stays near the record limit whatever the
compression ratio (a gzip bomb is refused, never inflated).
"""

import multiprocessing
import re
import time
import zlib
from array import array
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import connection, connections, transaction

from corpus import search_query
from corpus.formats import format_module
from corpus.formats.base import (
    BadRecord,
    FormatError,
    ParsedDocument,
    SizeLimitExceeded,
    compression_of,
    open_maybe_gzip,
    size_text,
)
from corpus.models import Collection, Document
from corpus.search import build_index, check_language, index_loaded

_SLUG = re.compile(r"^[-a-zA-Z0-9_]{1,100}$")
BATCH = 500  # documents per insert (and per job handed to a worker process)
# Defaults of the settings CORPUS_MAX_FILE_BYTES and CORPUS_MAX_RECORD_BYTES. Blog06 bundles and AQUAINT-2 month
# files are tens to hundreds of MB and the largest pages a few MB, so these refuse only what is not a collection
# file; a worker holds about twice the record limit at most.
MAX_FILE_BYTES = 2 << 30
MAX_RECORD_BYTES = 64 << 20
_SETTING = {"file": "CORPUS_MAX_FILE_BYTES", "record": "CORPUS_MAX_RECORD_BYTES"}


def size_limits():
    """(bytes per file after decompression, bytes per record) from the settings, or the defaults."""
    return (
        int(getattr(settings, "CORPUS_MAX_FILE_BYTES", MAX_FILE_BYTES)),
        int(getattr(settings, "CORPUS_MAX_RECORD_BYTES", MAX_RECORD_BYTES)),
    )


class LoadRefused(ValueError):
    """A file over a size limit (or in a compression the loaders do not read): nothing of the load was kept.
    `problems` holds one `FILE: message` per refused file."""

    def __init__(self, problems, removed=0):
        self.problems = list(problems)
        self.removed = removed
        tail = (
            f"load refused: the {removed} document(s) it had stored were removed again"
            if removed
            else "load refused: nothing was stored"
        )
        super().__init__("\n".join(self.problems + [tail]))


@dataclass
class LoadReport:
    collection: str
    files: int = 0
    seen: int = 0  # records read (after the --docnos limit)
    inserted: int = 0
    not_wanted: int = 0  # records skipped by the --docnos limit
    bad: list = field(default_factory=list)  # BadRecord
    missing: list = field(default_factory=list)  # requested docnos that no file held
    seconds: float = 0.0
    found: set = field(default_factory=set, repr=False)
    ids: array = field(default_factory=lambda: array("q"), repr=False)  # documents this load inserted
    index_seconds: float = 0.0  # the full-text index build after the load
    # Where the load's time went, summed over its processes (CPU of the parsers, waits on the database server):
    # reading and parsing records, the COPY of the documents (with the docno check before it), their
    # search entries written with each batch (PostgreSQL, when the index is built with the load).
    stages: dict = field(default_factory=lambda: dict.fromkeys(("parse", "copy", "entries"), 0.0))
    refused: list = field(default_factory=list)  # `FILE: message` for each file over a size limit

    @property
    def already_present(self):
        return self.seen - self.inserted - len(self.bad)

    @property
    def rate(self):
        return self.seen / self.seconds if self.seconds else 0.0


def read_docnos(path):
    """A docno list: one per line (the first word of each line), blank lines and #-comments ignored."""
    wanted = set()
    for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            wanted.add(line.split()[0])
    return wanted


def wanted_from_runs(fmt, paths, **options):
    """What `load_collection --only-cited` keeps: the format's wanted_from_runs over run files read from disk
    (each bounded by the setting UPLOAD_MAX_BYTES["runs"], as an uploaded run is). `options` (neighbours,
    pool_depth) go to the format as given. Raises ValueError naming every problem (a run file that cannot be
    read as the format's runs would be refused anyway, and loading by it would miss what it cites)."""
    module = format_module(fmt)
    if not hasattr(module, "wanted_from_runs"):
        raise ValueError(f"the {fmt} format reads no run files: --only-cited is for formats that do")
    most = int(settings.UPLOAD_MAX_BYTES.get("runs", 256 << 20))
    for path in paths:
        if not Path(path).is_file():
            raise FileNotFoundError(f"{path}: no such file")

    def files():  # one file in memory at a time
        for path in paths:
            with open(path, "rb") as fh:
                data = fh.read(most + 1)
            if len(data) > most:
                raise ValueError(f"{path}: a run file larger than {size_text(most)} (setting UPLOAD_MAX_BYTES_RUNS)")
            yield str(path), data

    problems, wanted = module.wanted_from_runs(files(), **{k: v for k, v in options.items() if v is not None})
    if problems:
        raise ValueError(
            "\n".join(problems[:50] + ([f"… and {len(problems) - 50} more"] if len(problems) > 50 else []))
        )
    return wanted


def _parse(module, name, rec):
    """A ParsedDocument, or a BadRecord saying why not."""
    if rec.problem:
        return BadRecord(name, rec.number, rec.offset, rec.problem)
    try:
        return module.parse_record(rec.raw)
    except FormatError as e:
        return BadRecord(name, rec.number, rec.offset, str(e))
    except Exception as e:  # a parser bug on one odd record must not stop a 3-million-document load
        return BadRecord(name, rec.number, rec.offset, f"unexpected {type(e).__name__}: {e}")


_COUNTERS = None  # shared (seen, inserted, bad, stop) counters of a parallel load, set in each worker process


def _init_worker(counters):
    global _COUNTERS
    _COUNTERS = counters
    # A forked worker must never talk over a socket it inherited: if any connection object came across the fork
    # still open (the parent closes its own, but not those of other threads or contexts), forget it without
    # closing it, so this process opens its own and the parent's session is left alone.
    from django.db import connections

    for conn in connections.all(initialized_only=True):
        conn.connection = None


def _refusal(name, exc):
    return f"{name}: {exc}, over the limit per {exc.kind} (setting {_SETTING[exc.kind]})"


def _stopped():
    """True in a worker process once another file of the same load was refused: storing more would be undone."""
    return _COUNTERS is not None and _COUNTERS[3] != 0


def _load_file(collection_id, fmt, path, wanted, batch, on_batch=None, limits=(None, None), language=None):
    """Read, parse and insert one file, batch by batch. Returns a LoadReport for this file alone (with the ids
    it inserted, and `refused` set when the file went over a size limit). `language`: index each batch for
    search as it is stored, with that text search configuration (PostgreSQL)."""
    try:
        return _read_file(collection_id, fmt, path, wanted, batch, on_batch, limits, language)
    finally:
        if _COUNTERS is not None:
            connections.close_all()  # a worker process: hang up cleanly before the pool ends it


def _read_file(collection_id, fmt, path, wanted, batch, on_batch, limits, language):
    module = format_module(fmt)
    index = (fmt, language) if language else None
    part = LoadReport(collection="", files=1)
    name = str(path)
    docs, number, offset = [], 0, 0
    max_file, max_record = limits
    if _stopped():
        return part

    def flush():
        good = [d for d in docs if isinstance(d, ParsedDocument)]
        bad = [d for d in docs if isinstance(d, BadRecord)]
        inserted = _insert(collection_id, good, part.ids, index, part.stages)
        part.seen += len(docs)
        part.inserted += inserted
        part.bad.extend(bad)
        if _COUNTERS is not None:
            with _COUNTERS.get_lock():
                _COUNTERS[0] += len(docs)
                _COUNTERS[1] += inserted
                _COUNTERS[2] += len(bad)
        if on_batch:
            on_batch(part)
        docs.clear()

    try:
        with open_maybe_gzip(path, max_file) as stream:
            for rec in module.records(stream, name, max_record=max_record):
                number, offset = rec.number, rec.offset + len(rec.raw)
                if wanted is not None and not rec.problem:
                    docno = module.docno_of(rec.raw)
                    if docno not in wanted:
                        part.not_wanted += 1
                        continue
                    part.found.add(docno)
                started = time.perf_counter()
                docs.append(_parse(module, name, rec))
                part.stages["parse"] += time.perf_counter() - started
                if len(docs) >= batch:
                    flush()
                    if _stopped():
                        return part
    except SizeLimitExceeded as e:  # refused: the caller removes what this load stored
        part.refused.append(_refusal(name, e))
        if _COUNTERS is not None:
            with _COUNTERS.get_lock():
                _COUNTERS[3] = 1
        return part
    except (OSError, EOFError, zlib.error) as e:  # a truncated or corrupt file: keep what it held, go on
        docs.append(BadRecord(name, number + 1, offset, f"file unreadable from here on: {e}"))
    flush()
    return part


def _clean_meta(meta):
    """PostgreSQL jsonb cannot hold NUL characters; drop them from string values."""

    def fix(v):
        if isinstance(v, str):
            return v.replace("\x00", "")
        if isinstance(v, dict):
            return {fix(k): fix(x) for k, x in v.items()}
        if isinstance(v, list):
            return [fix(x) for x in v]
        return v

    return fix(meta)


_COLUMNS = "(docno, raw, charset, meta, text)"
_TYPES = ["text", "bytea", "text", "jsonb", "text"]


def _copy_rows(cur, table, docs, collection_id=None):
    from psycopg.types.json import Jsonb

    cols = "(collection_id, docno, raw, charset, meta, text)" if collection_id else _COLUMNS
    with cur.copy(f"COPY {table} {cols} FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types((["bigint"] if collection_id else []) + _TYPES)
        for d in docs:
            row = (d.docno, d.raw, d.charset, Jsonb(d.meta), d.text)
            copy.write_row((collection_id,) + row if collection_id else row)


# The stored documents among `docnos`: one probe of the unique (collection, docno) index per docno, whatever the
# statistics say. Written as `collection_id = %s AND docno = ANY(%s)`, a load's statistics (behind the collection
# it is growing: autovacuum may be off or not yet by) made the planner read every document of the collection for
# each batch. The subquery fenced by OFFSET 0 leaves it no plan but the probe (search.index_loaded, the same).
_STORED = (
    "SELECT d.docno, d.id FROM unnest(%s::text[]) AS u(docno) CROSS JOIN LATERAL (SELECT d.docno, d.id "
    "FROM corpus_document d WHERE d.collection_id = %s AND d.docno = u.docno OFFSET 0) d"
)


def _present(cur, collection_id, docnos):
    cur.execute(_STORED, [docnos, collection_id])
    return {row[0] for row in cur.fetchall()}


def _insert_postgresql(collection_id, docs, ids=None, index=None, stages=None):
    """Skip docnos already stored, COPY the rest straight into the table (one pass over the bytes). If a
    concurrent load inserted one of them meanwhile, redo the batch through a temporary table with ON CONFLICT.
    `ids` (an array) receives the ids of the rows inserted. `index` (format, text search configuration): write
    the new documents' search entries in the same transaction, one statement (the rare ON CONFLICT path leaves
    them to the build at the end of the load). `stages` adds up the seconds of the COPY and of the entries."""
    import psycopg

    started = time.perf_counter()
    with transaction.atomic(), connection.cursor() as wrapper:
        cur = wrapper.cursor  # the psycopg cursor, for COPY
        # An interrupted load is redone by loading again (idempotent), so a commit need not wait for the disk.
        cur.execute("SET LOCAL synchronous_commit = off")
        present = _present(cur, collection_id, [d.docno for d in docs])
        fresh, seen = [], set()
        for d in docs:
            if d.docno not in present and d.docno not in seen:
                seen.add(d.docno)
                fresh.append(d)
        if not fresh:
            return 0
        try:
            with transaction.atomic():
                _copy_rows(cur, "corpus_document", fresh, collection_id)
            if index is not None:  # the entries of exactly these docnos, every one a row the COPY just wrote
                copied = time.perf_counter()
                docnos = [d.docno for d in fresh]
                days = [search_query.document_date(index[0], d.docno, d.meta) for d in fresh]
                new_ids = index_loaded(cur, collection_id, index[1], docnos, days)
                if ids is not None:
                    ids.extend(new_ids)
                if stages is not None:
                    stages["copy"] += copied - started
                    stages["entries"] += time.perf_counter() - copied
                return len(fresh)
            if ids is not None:  # COPY returns no ids; every one of these docnos is a row it just wrote
                cur.execute(_STORED, [[d.docno for d in fresh], collection_id])
                ids.extend(row[1] for row in cur.fetchall())
            if stages is not None:
                stages["copy"] += time.perf_counter() - started
            return len(fresh)
        except psycopg.errors.UniqueViolation:
            pass
        cur.execute(
            "CREATE TEMP TABLE IF NOT EXISTS corpus_load "
            "(docno text, raw bytea, charset text, meta jsonb, text text) ON COMMIT DELETE ROWS"
        )
        _copy_rows(cur, "corpus_load", fresh)
        cur.execute(
            "INSERT INTO corpus_document (collection_id, docno, raw, charset, meta, text) "
            "SELECT %s, docno, raw, charset, meta, text FROM corpus_load "
            "ON CONFLICT (collection_id, docno) DO NOTHING RETURNING id",
            [collection_id],
        )
        inserted_ids = [row[0] for row in cur.fetchall()]
        if ids is not None:
            ids.extend(inserted_ids)
        inserted = len(inserted_ids)
        cur.execute("TRUNCATE corpus_load")  # ON COMMIT does not fire when an outer transaction is still open
        return inserted


def _insert_generic(collection_id, docs, ids=None):
    with transaction.atomic():
        stored = Document.objects.filter(collection_id=collection_id)
        before = stored.count()
        present = set(stored.filter(docno__in={d.docno for d in docs}).values_list("docno", flat=True))
        Document.objects.bulk_create(
            [
                Document(
                    collection_id=collection_id, docno=d.docno, raw=d.raw, charset=d.charset, meta=d.meta, text=d.text
                )
                for d in docs
            ],
            ignore_conflicts=True,
        )
        if ids is not None:
            fresh = {d.docno for d in docs} - present
            ids.extend(stored.filter(docno__in=fresh).values_list("id", flat=True))
        return stored.count() - before


def insert_documents(collection, docs):
    """Insert ParsedDocuments, skipping docnos already stored; returns how many were new."""
    return _insert(collection.id, docs)


def _insert(collection_id, docs, ids=None, index=None, stages=None):
    if not docs:
        return 0
    for d in docs:
        if "\x00" in d.docno or any("\x00" in str(v) for v in d.meta.values()):
            d.docno = d.docno.replace("\x00", "")
            d.meta = _clean_meta(d.meta)
    if connection.vendor == "postgresql":
        return _insert_postgresql(collection_id, docs, ids, index, stages)
    return _insert_generic(collection_id, docs, ids)


RESERVED_NAMES = {"search"}  # /corpus/search/ is the search page


def get_collection(name, fmt, description=""):
    if name in RESERVED_NAMES:
        raise ValueError(f"collection name {name!r} is reserved; choose another")
    if not _SLUG.match(name or ""):
        raise ValueError(f"collection name {name!r} must be a slug: letters, digits, - and _ only")
    collection, _ = Collection.objects.get_or_create(name=name, defaults={"format": fmt, "description": description})
    if collection.format != fmt:
        raise ValueError(f"collection {name!r} holds {collection.format} documents, not {fmt}")
    return collection


def _precheck(paths, max_file):
    """Refusals that need no reading: compressions the loaders cannot read, plain files already over the limit."""
    problems = []
    for p in paths:
        kind = compression_of(p)
        if kind not in ("gzip", "plain"):
            problems.append(f"{p}: {kind}-compressed; only gzip and uncompressed files are read")
        elif kind == "plain" and Path(p).stat().st_size > max_file:
            problems.append(
                f"{p}: {Path(p).stat().st_size:,} bytes, more than {size_text(max_file)}, over the "
                f"limit per file (setting {_SETTING['file']})"
            )
    return problems


def _undo(collection, ids, created):
    """Delete the documents a refused load inserted (and the collection, when this load created it empty)."""
    with transaction.atomic():
        for i in range(0, len(ids), 10_000):
            Document.objects.filter(collection=collection, pk__in=ids[i : i + 10_000].tolist()).delete()
        if created and not collection.documents.exists() and not collection.evaluations.exists():
            collection.delete()


def _merge(report, part):
    report.files += part.files
    report.seen += part.seen
    report.inserted += part.inserted
    report.not_wanted += part.not_wanted
    report.bad.extend(part.bad)
    report.found |= part.found
    report.ids.extend(part.ids)
    report.refused.extend(part.refused)
    for stage, seconds in part.stages.items():
        report.stages[stage] += seconds


def load_collection(
    name, fmt, paths, docnos=None, workers=1, batch=BATCH, progress=None, description="", search_index=True
):
    """Load `paths` (files of format `fmt`, gzip or plain) into collection `name`. Returns a LoadReport.

    `docnos`: a set limiting which documents are loaded, or any object answering `docno in docnos` with the
    docnos it must find in `docnos.expected` (the format's wanted_from_runs: cited segments and their
    neighbours). `workers` > 1 loads that many files at once, each in its own process with its own database
    connection (reading, parsing and COPY all run in parallel); inside an open transaction the load stays in this
    process. `progress(report)` is called as batches are stored.
    A file over a size limit (size_limits()) raises LoadRefused after removing what the load had stored.
    `search_index`: index the new documents for full-text search. On PostgreSQL each batch's search entries are
    written with its documents, in the same transaction (corpus.search.index_loaded; their time is in
    `report.seconds` and `report.stages["entries"]`); then corpus.search.build_index catches up on documents a
    previous load left unindexed and builds the collection's RUM index (its time in `report.index_seconds`).
    False leaves that to a later build (the Celery task corpus.build_search_index, or `load_collection --search
    later|none`).
    """
    format_module(fmt)  # fail early on an unknown format
    for p in paths:
        if not Path(p).is_file():
            raise FileNotFoundError(f"{p}: no such file")
    limits = size_limits()
    problems = _precheck(paths, limits[0])
    if problems:
        raise LoadRefused(problems)
    created = not Collection.objects.filter(name=name).exists()
    collection = get_collection(name, fmt, description)
    report = LoadReport(collection=name)
    # PostgreSQL: each batch's search entries go in with its documents, computed by the server while the parser
    # reads on (the workers' connections in parallel); the build at the end then only catches up on what a
    # previous load left unindexed and creates the collection's RUM index.
    language = None
    if search_index and connection.vendor == "postgresql":
        language = check_language(collection.search_language)
    start = time.perf_counter()
    parallel = workers > 1 and len(paths) > 1 and not connection.in_atomic_block
    if not parallel:
        done = LoadReport(collection=name)

        def on_batch(part):
            report.seen, report.inserted = done.seen + part.seen, done.inserted + part.inserted
            report.bad = done.bad + part.bad
            report.seconds = time.perf_counter() - start
            if progress:
                progress(report)

        for path in paths:
            _merge(done, _load_file(collection.id, fmt, path, docnos, batch, on_batch, limits, language))
            if done.refused:
                break
        done.seconds = report.seconds
        report = done
    else:
        connections.close_all()  # each forked worker opens its own connection
        context = multiprocessing.get_context("fork")
        counters = context.Array("q", 4)
        with context.Pool(min(workers, len(paths)), initializer=_init_worker, initargs=(counters,)) as pool:
            pending = [
                pool.apply_async(_load_file, (collection.id, fmt, path, docnos, batch, None, limits, language))
                for path in paths
            ]
            while not all(r.ready() for r in pending):
                time.sleep(0.2)
                with counters.get_lock():
                    report.seen, report.inserted = counters[0], counters[1]
                    report.bad = [None] * counters[2]  # only counted until the files are done
                report.seconds = time.perf_counter() - start
                if progress:
                    progress(report)
            report.seen, report.inserted, report.bad = 0, 0, []
            for r in pending:  # file order, so bad records are listed as they come in the files
                _merge(report, r.get())
    if report.refused:
        _undo(collection, report.ids, created)
        raise LoadRefused(report.refused, removed=len(report.ids))
    report.files = len(paths)
    report.seconds = time.perf_counter() - start
    if docnos is not None:
        report.missing = sorted(set(getattr(docnos, "expected", docnos)) - report.found)
    if search_index:
        start = time.perf_counter()
        build_index(collection)
        report.index_seconds = time.perf_counter() - start
    return report

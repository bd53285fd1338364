"""Loading a collection's files into the database: parse (optionally in worker processes), insert in batches.

Loading is idempotent: a document already stored under the same (collection, docno) is left as it is. Each batch
is its own transaction, so an interrupted load keeps what it stored and a second run completes it. Bad records are
skipped and reported (file, record number, byte offset, reason); they never stop a load.
"""
import multiprocessing
import re
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from django.db import connection, connections, transaction

from corpus.formats import format_module
from corpus.formats.base import BadRecord, FormatError, ParsedDocument, open_maybe_gzip
from corpus.models import Collection, Document

_SLUG = re.compile(r"^[-a-zA-Z0-9_]{1,100}$")
BATCH = 500  # documents per insert (and per job handed to a worker process)


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


_COUNTERS = None  # shared (seen, inserted, bad) counters of a parallel load, set in each worker process


def _init_worker(counters):
    global _COUNTERS
    _COUNTERS = counters
    # A forked worker must never talk over a socket it inherited: if any connection object came across the fork
    # still open (the parent closes its own, but not those of other threads or contexts), forget it without
    # closing it, so this process opens its own and the parent's session is left alone.
    from django.db import connections

    for conn in connections.all(initialized_only=True):
        conn.connection = None


def _load_file(collection_id, fmt, path, wanted, batch, on_batch=None):
    """Read, parse and insert one file, batch by batch. Returns a LoadReport for this file alone."""
    module = format_module(fmt)
    part = LoadReport(collection="", files=1)
    name = str(path)
    docs, number, offset = [], 0, 0

    def flush():
        good = [d for d in docs if isinstance(d, ParsedDocument)]
        bad = [d for d in docs if isinstance(d, BadRecord)]
        inserted = _insert(collection_id, good)
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
        with open_maybe_gzip(path) as stream:
            for rec in module.records(stream, name):
                number, offset = rec.number, rec.offset + len(rec.raw)
                if wanted is not None and not rec.problem:
                    docno = module.docno_of(rec.raw)
                    if docno not in wanted:
                        part.not_wanted += 1
                        continue
                    part.found.add(docno)
                docs.append(_parse(module, name, rec))
                if len(docs) >= batch:
                    flush()
    except (OSError, EOFError, zlib.error) as e:  # a truncated or corrupt file: keep what it held, go on
        docs.append(BadRecord(name, number + 1, offset, f"file unreadable from here on: {e}"))
    flush()
    if _COUNTERS is not None:
        connections.close_all()  # a worker process: hang up cleanly before the pool ends it
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


def _present(cur, collection_id, docnos):
    cur.execute("SELECT docno FROM corpus_document WHERE collection_id = %s AND docno = ANY(%s)",
                [collection_id, docnos])
    return {row[0] for row in cur.fetchall()}


def _insert_postgresql(collection_id, docs):
    """Skip docnos already stored, COPY the rest straight into the table (one pass over the bytes). If a
    concurrent load inserted one of them meanwhile, redo the batch through a temporary table with ON CONFLICT."""
    import psycopg

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
            return len(fresh)
        except psycopg.errors.UniqueViolation:
            pass
        cur.execute("CREATE TEMP TABLE IF NOT EXISTS corpus_load "
                    "(docno text, raw bytea, charset text, meta jsonb, text text) ON COMMIT DELETE ROWS")
        _copy_rows(cur, "corpus_load", fresh)
        cur.execute("INSERT INTO corpus_document (collection_id, docno, raw, charset, meta, text) "
                    "SELECT %s, docno, raw, charset, meta, text FROM corpus_load "
                    "ON CONFLICT (collection_id, docno) DO NOTHING", [collection_id])
        inserted = cur.rowcount
        cur.execute("TRUNCATE corpus_load")  # ON COMMIT does not fire when an outer transaction is still open
        return inserted


def _insert_generic(collection_id, docs):
    with transaction.atomic():
        before = Document.objects.filter(collection_id=collection_id).count()
        Document.objects.bulk_create(
            [Document(collection_id=collection_id, docno=d.docno, raw=d.raw, charset=d.charset, meta=d.meta,
                      text=d.text) for d in docs], ignore_conflicts=True)
        return Document.objects.filter(collection_id=collection_id).count() - before


def insert_documents(collection, docs):
    """Insert ParsedDocuments, skipping docnos already stored; returns how many were new."""
    return _insert(collection.id, docs)


def _insert(collection_id, docs):
    if not docs:
        return 0
    for d in docs:
        if "\x00" in d.docno or any("\x00" in str(v) for v in d.meta.values()):
            d.docno = d.docno.replace("\x00", "")
            d.meta = _clean_meta(d.meta)
    if connection.vendor == "postgresql":
        return _insert_postgresql(collection_id, docs)
    return _insert_generic(collection_id, docs)


def get_collection(name, fmt, description=""):
    if not _SLUG.match(name or ""):
        raise ValueError(f"collection name {name!r} must be a slug: letters, digits, - and _ only")
    collection, _ = Collection.objects.get_or_create(name=name, defaults={"format": fmt, "description": description})
    if collection.format != fmt:
        raise ValueError(f"collection {name!r} holds {collection.format} documents, not {fmt}")
    return collection


def _merge(report, part):
    report.files += part.files
    report.seen += part.seen
    report.inserted += part.inserted
    report.not_wanted += part.not_wanted
    report.bad.extend(part.bad)
    report.found |= part.found


def load_collection(name, fmt, paths, docnos=None, workers=1, batch=BATCH, progress=None, description=""):
    """Load `paths` (files of format `fmt`, gzip or plain) into collection `name`. Returns a LoadReport.

    `docnos`: a set limiting which documents are loaded. `workers` > 1 loads that many files at once, each in its
    own process with its own database connection (reading, parsing and COPY all run in parallel); inside an open
    transaction the load stays in this process. `progress(report)` is called as batches are stored.
    """
    format_module(fmt)  # fail early on an unknown format
    for p in paths:
        if not Path(p).is_file():
            raise FileNotFoundError(f"{p}: no such file")
    collection = get_collection(name, fmt, description)
    report = LoadReport(collection=name)
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
            _merge(done, _load_file(collection.id, fmt, path, docnos, batch, on_batch))
        done.seconds = report.seconds
        report = done
    else:
        connections.close_all()  # each forked worker opens its own connection
        context = multiprocessing.get_context("fork")
        counters = context.Array("q", 3)
        with context.Pool(min(workers, len(paths)), initializer=_init_worker, initargs=(counters,)) as pool:
            pending = [pool.apply_async(_load_file, (collection.id, fmt, path, docnos, batch)) for path in paths]
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
    report.files = len(paths)
    report.seconds = time.perf_counter() - start
    if docnos is not None:
        report.missing = sorted(docnos - report.found)
    return report

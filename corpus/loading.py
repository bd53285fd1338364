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

from django.db import connection, transaction

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


def _parse_batch(job):
    """Worker-side: parse a batch of (filename, Record) for one format; bad records come back as BadRecord."""
    fmt, items = job
    module = format_module(fmt)
    out = []
    for filename, rec in items:
        if rec.problem:
            out.append(BadRecord(filename, rec.number, rec.offset, rec.problem))
            continue
        try:
            out.append(module.parse_record(rec.raw))
        except FormatError as e:
            out.append(BadRecord(filename, rec.number, rec.offset, str(e)))
        except Exception as e:  # a parser bug on one odd record must not stop a 3-million-document load
            out.append(BadRecord(filename, rec.number, rec.offset, f"unexpected {type(e).__name__}: {e}"))
    return out


def _jobs(fmt, paths, wanted, report, batch):
    module = format_module(fmt)
    items = []
    for path in paths:
        report.files += 1
        name = str(path)
        number, offset = 0, 0
        try:
            with open_maybe_gzip(path) as stream:
                for rec in module.records(stream, name):
                    number, offset = rec.number, rec.offset + len(rec.raw)
                    if wanted is not None and not rec.problem:
                        docno = module.docno_of(rec.raw)
                        if docno not in wanted:
                            report.not_wanted += 1
                            continue
                        report.found.add(docno)
                    items.append((name, rec))
                    if len(items) >= batch:
                        yield (fmt, items)
                        items = []
        except (OSError, EOFError, zlib.error) as e:  # a truncated or corrupt file: keep what it held, go on
            report.bad.append(BadRecord(name, number + 1, offset, f"file unreadable from here on: {e}"))
            report.seen += 1
    if items:
        yield (fmt, items)


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


def _insert_postgresql(collection_id, docs):
    from psycopg.types.json import Jsonb

    with transaction.atomic(), connection.cursor() as wrapper:
        cur = wrapper.cursor  # the psycopg cursor, for COPY
        cur.execute("CREATE TEMP TABLE IF NOT EXISTS corpus_load "
                    "(docno text, raw bytea, charset text, meta jsonb, text text) ON COMMIT DELETE ROWS")
        with cur.copy("COPY corpus_load (docno, raw, charset, meta, text) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["text", "bytea", "text", "jsonb", "text"])
            for d in docs:
                copy.write_row((d.docno, d.raw, d.charset, Jsonb(d.meta), d.text))
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
    if not docs:
        return 0
    for d in docs:
        if "\x00" in d.docno or any("\x00" in str(v) for v in d.meta.values()):
            d.docno = d.docno.replace("\x00", "")
            d.meta = _clean_meta(d.meta)
    if connection.vendor == "postgresql":
        return _insert_postgresql(collection.id, docs)
    return _insert_generic(collection.id, docs)


def get_collection(name, fmt, description=""):
    if not _SLUG.match(name or ""):
        raise ValueError(f"collection name {name!r} must be a slug: letters, digits, - and _ only")
    collection, _ = Collection.objects.get_or_create(name=name, defaults={"format": fmt, "description": description})
    if collection.format != fmt:
        raise ValueError(f"collection {name!r} holds {collection.format} documents, not {fmt}")
    return collection


def load_collection(name, fmt, paths, docnos=None, workers=1, batch=BATCH, progress=None, description=""):
    """Load `paths` (files of format `fmt`, gzip or plain) into collection `name`. Returns a LoadReport.

    `docnos`: a set limiting which documents are loaded. `workers` > 1 parses in that many processes while this
    one inserts. `progress(report)` is called after each batch.
    """
    format_module(fmt)  # fail early on an unknown format
    for p in paths:
        if not Path(p).is_file():
            raise FileNotFoundError(f"{p}: no such file")
    collection = get_collection(name, fmt, description)
    report = LoadReport(collection=name)
    start = time.perf_counter()
    jobs = _jobs(fmt, paths, docnos, report, batch)
    pool = multiprocessing.get_context("fork").Pool(workers) if workers > 1 else None
    try:
        results = pool.imap(_parse_batch, jobs) if pool else map(_parse_batch, jobs)
        for parsed in results:
            docs = [p for p in parsed if isinstance(p, ParsedDocument)]
            report.bad.extend(p for p in parsed if isinstance(p, BadRecord))
            report.seen += len(parsed)
            report.inserted += insert_documents(collection, docs)
            report.seconds = time.perf_counter() - start
            if progress:
                progress(report)
    finally:
        if pool:
            pool.close()
            pool.join()
    report.seconds = time.perf_counter() - start
    if docnos is not None:
        report.missing = sorted(docnos - report.found)
    return report

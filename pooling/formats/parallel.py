"""Checking a batch of run files in worker processes, one file per task. Pure: the workers import the format
modules only, never Django, and hold no database connection.

A worker gets a file with a CheckContext of plain data (`plain_context`): a run format that allows it names, in
`process_extra(context, data)`, what the file's check will look up, looked up beforehand by the caller (BOLT: the
lengths of the posts the file cites); every other lookup of the context becomes `unavailable`, which raises
NeedsParent. A file whose check needs more than was looked up, on which the worker failed, or that the format
keeps at home (process_extra gives None: a BOLT grouping file reads the runs stored before its turn) comes back
as None and is checked by the caller, in its turn, as it would be without workers. So the answers (problems,
parsed runs) are those of checking in process, only sooner.

Workers start with "spawn" (a fresh interpreter: nothing of a web or Celery process, its database connections or
threads, is inherited), each enters the track's batch context (core.extension_points.batch_context, a pure
module's function, pickled by name) for its whole life, as the caller does around the batch (BOLT: shared
near-duplicate features), and ends when its parent does, even one killed outright. A
process that may not start any (a daemonic one) checks every file itself.
"""

import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import AbstractContextManager
from importlib import import_module
from types import ModuleType
from typing import Any

from core.copy_text import escaped, json_fields, strings, text_block
from pooling.formats.base import CheckContext, ParsedEntry, ParsedRun, PreparedRows, Problem

log = logging.getLogger(__name__)

# Below this much data in the files a worker could take, starting the workers (a fresh interpreter each, about a
# tenth of a second) costs more than it saves: the batch is checked in process.
MIN_BYTES = 1_000_000

Checked = tuple[list[Problem], ParsedRun | None]


class NeedsParent(Exception):
    """A check in a worker asked for something only the parent process can look up."""


def unavailable(*args: Any, **kwargs: Any) -> Any:
    """A context lookup a worker cannot make (module-level, so that a context holding it can be pickled)."""
    raise NeedsParent


def plain_context(module: Any, context: CheckContext, data: bytes) -> CheckContext | None:
    """The context to check `data` with in a worker, or None when the format checks its files only here (no
    `process_extra`) or keeps this one (process_extra gives None)."""
    prepare = getattr(module, "process_extra", None)
    extra = prepare(context, data) if prepare else None
    if extra is None:
        return None
    plain = {name: unavailable if callable(value) else value for name, value in (context.extra or {}).items()}
    return CheckContext(
        topics=dict(context.topics), settings=dict(context.settings), known_docids=unavailable, extra=plain | extra
    )


_batch: AbstractContextManager[Any] | None = None  # a worker's batch context, entered for the worker's life

BatchContext = Callable[[], AbstractContextManager[Any]]


def _start_worker(batch_context: BatchContext | None, parent: int) -> None:
    global _batch
    threading.Thread(target=_exit_after, args=(parent,), daemon=True).start()
    if batch_context is not None:
        _batch = batch_context()
        _batch.__enter__()


# A parsed run crosses between processes as plain tuples: unpickled and rebuilt in the parent, its 10,000 entries
# take half the time of unpickling as many dataclass instances (the parent's time: it stores runs meanwhile).
# With rows (PreparedRows) the entries stay behind: the parent gets one string to COPY.
Compact = tuple[str, dict[str, Any], list[tuple[str, int, str, str, dict[str, Any]]], PreparedRows | None]


def compact(run: ParsedRun) -> Compact:
    return run.tag, run.data, [(e.topic, e.line, e.docid, e.text, e.data) for e in run.entries], run.rows


def expand(packed: Compact) -> ParsedRun:
    tag, data, entries, rows = packed
    return ParsedRun(tag=tag, entries=[ParsedEntry(*entry) for entry in entries], data=data, rows=rows)


ROWS_BATCH = 1000  # entries per json_fields call (as core.bulk.insert_rows batches them)
# RunEntry's columns as the rows are written (run_id, known only once the run is stored, is added by the parent);
# each column's writer is core.bulk.insert_rows's for the column's type, so the stored rows are the same.
ROW_COLUMNS = ("topic_id", "line_no", "docid", "text", "data")
ROW_WRITERS = (strings, strings, escaped, escaped, json_fields)


def entry_rows(parsed: ParsedRun, topic_ids: dict[str, int]) -> ParsedRun:
    """`parsed` with its entries as PreparedRows (ROW_COLUMNS), for a worker to send instead of the entries;
    unchanged when an entry names a topic `topic_ids` does not know."""
    entries = parsed.entries
    used = {e.topic for e in entries}
    if not used <= topic_ids.keys():
        return parsed
    rows = [(topic_ids[e.topic], e.line, e.docid, e.text, e.data) for e in entries]
    text = "".join(text_block(rows[i : i + ROWS_BATCH], ROW_WRITERS) for i in range(0, len(rows), ROWS_BATCH))
    prepared = PreparedRows(text=text, topic_ids={t: topic_ids[t] for t in used}, count=len(entries))
    return ParsedRun(tag=parsed.tag, entries=[], data=parsed.data, rows=prepared)


def _exit_after(parent: int) -> None:
    """End this worker once its parent is gone: one killed outright (a web worker past its timeout) leaves its
    workers waiting for tasks forever otherwise. `parent` comes from the parent itself: one killed while this
    worker was starting is gone already."""
    while os.getppid() == parent:
        time.sleep(1)
    os._exit(1)


def _check(
    format_name: str,
    data: bytes,
    filename: str,
    context: CheckContext,
    after: Callable[[ParsedRun], list[Problem]],
    topic_ids: dict[str, int] | None = None,
) -> tuple[list[Problem], Compact | None] | None:
    try:  # a module does not pickle: the worker imports the format by the name the parent took from it
        found, parsed = import_module(format_name).check_run(data, filename, context)
    except NeedsParent:
        return None
    if parsed is None:
        return list(found), None
    problems = list(found) + after(parsed)
    if topic_ids is not None and all(p.warning for p in problems):  # a run to store: sent as its rows
        parsed = entry_rows(parsed, topic_ids)
    return problems, compact(parsed)


def checked(
    module: ModuleType,
    files: Sequence[tuple[bytes, str]],
    context_for: Callable[[bytes], CheckContext | None],
    processes: int,
    after: Callable[[ParsedRun], list[Problem]],
    batch_context: BatchContext | None = None,
    topic_ids: dict[str, int] | None = None,
) -> Iterator[Checked | None]:
    """For each (data, filename) of `files`, in order: the run format `module`'s check_run answer from a worker
    (which enters `batch_context()` for its life), with the problems `after(parsed)` (a picklable function: the
    column checks) adds to a parsed run, or None for a file the caller checks itself. With `topic_ids` ({ident:
    Topic id}), a run without problems comes with its entries as PreparedRows (`entry_rows`), for the caller to
    store. `context_for(data)` gives a file's plain context (None: keep it here); each file is sent as soon as it
    has one, all at the first step. No workers (every answer None) with `processes` under 2, fewer than two files
    or less than MIN_BYTES in them, or a format without `process_extra`. Answers come as they are ready, in
    order; close the iterator (or read it to the end) to stop the workers."""
    small = len(files) < 2 or sum(len(data) for data, _ in files) < MIN_BYTES
    if processes < 2 or small or not hasattr(module, "process_extra"):
        yield from (None for _ in files)
        return
    futures: dict[int, Future[tuple[list[Problem], Compact | None] | None]] = {}
    pool = None
    try:
        try:
            pool = ProcessPoolExecutor(
                max_workers=min(processes, len(files)),
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(batch_context, os.getpid()),
            )
            for n, (data, filename) in enumerate(files):
                context = context_for(data)
                if context is not None:
                    futures[n] = pool.submit(_check, module.__name__, data, filename, context, after, topic_ids)
        except (OSError, RuntimeError, AssertionError):  # no processes here (a daemonic parent, a limit reached)
            log.warning("run files are checked in process: worker processes could not start", exc_info=True)
        for n, (_, filename) in enumerate(files):
            future = futures.get(n)
            answer: Checked | None = None
            try:
                compact = future.result() if future is not None else None
                if compact is not None:
                    answer = compact[0], None if compact[1] is None else expand(compact[1])
            except Exception:  # the worker failed (or died): the caller's own check gives the answer, or the error
                log.warning("a worker failed to check %s; checked in process", filename, exc_info=True)
                answer = None
            yield answer
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

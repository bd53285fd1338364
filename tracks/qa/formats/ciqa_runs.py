"""TREC 2007 ciQA runs: the QA run format (tracks/qa/formats/runs.py), one line per answer string, answering every
test topic but not the training topic. No Django import.

Whether a run is initial or final, and which initial run a final run follows, is said at upload (the seed's run
submission interface, 001 3.2.2), not in the file: tracks.qa.ciqa.submissions checks the pairing and the per-team
limits after storing, inside the run's transaction, and for a run only checked (both registered in
tracks/qa/plugin.py). ciQA runs have
no priorities: every run is priority 1 (judged) unless the upload says otherwise ("Assessors evaluated both initial
and final runs").
"""

from dataclasses import replace

from pooling.formats.base import CheckContext, ParsedRun, Problem
from tracks.qa.formats import runs as qa_runs
from tracks.qa.formats.ciqa_topics import TRAINING_KIND

FILE_SHAPE = qa_runs.FILE_SHAPE
POOL_USES_DATA = qa_runs.POOL_USES_DATA
pool_key = qa_runs.pool_key
pool_item = qa_runs.pool_item


def check_run(data: bytes, filename: str, context: CheckContext) -> tuple[list[Problem], ParsedRun | None]:
    training = {ident for ident, kind in context.topics.items() if kind == TRAINING_KIND}
    test_topics = {ident: kind for ident, kind in context.topics.items() if kind != TRAINING_KIND}
    problems, parsed = qa_runs.check_run(data, filename, replace(context, topics=test_topics))
    said = []
    for p in problems:  # a line for the training topic: say why it is refused
        ident = next((t for t in training if p.message == f"unknown question id {t!r}"), None)
        said.append(Problem(p.line, f"topic {ident} is the training topic: runs do not answer it") if ident else p)
    if parsed is not None:
        parsed = replace(parsed, data=parsed.data | {"priority": 1})
    return said, parsed

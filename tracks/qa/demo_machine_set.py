"""Demo step: a machine judgment set beside the TAC 2008 demo's assessors (issue 29), so the organizer's agreement
and rankings pages show a comparison on a QA evaluation too (idempotent).

The set is the demo's official instance judgments as Assay JSON Lines (scoring.judgments_jsonl, the file an
organizer exports), every fourth answer judged correct read as incorrect instead, loaded with provenance "demo
machine judge" as an organizer loads any set; then the agreement and the rankings under it are computed, as a
set's load asks of the worker. Nugget questions stay out: the set speaks for answer instances only.
"""

import json

from django.contrib.auth import get_user_model

from pooling.models import Evaluation
from scoring import agreement_store, judgment_sets, rankings
from scoring.judgments_jsonl import export_jsonl
from scoring.models import JudgmentSet
from tracks.qa import questions

SLUG = "demo-tac2008"
NAME = "Instance labels (demo machine judge)"
MACHINE = {"producer": "demo machine judge", "model": "demo-judge-1", "prompt": "TAC 2008 answer instance labels",
           "note": "the demo's official labels, every fourth correct answer judged incorrect"}  # fmt: skip


def machine_instances(evaluation):
    """The official instance judgments (primary and adjudicated records of the export), every fourth answer judged
    correct turned incorrect (its class dropped); b"" when nothing is judged."""
    labels = questions.instance_labels(evaluation)
    wrong, top = labels[0], labels[-1]
    lines, correct = [], 0
    for line in export_jsonl(evaluation):
        record = json.loads(line)
        if record.get("type") != "judgment" or record["kind"] != "instance" or record["role"] == "secondary":
            continue
        if record["value"].get("label") == top:
            if correct % 4 == 3:
                record["value"] = {"label": wrong, "answer_class": None}
            correct += 1
        lines.append(json.dumps({k: record[k] for k in ("type", "topic", "kind", "item", "role", "value")}) + "\n")
    return "".join(lines).encode()


def machine_set_demo(out):
    evaluation = Evaluation.objects.filter(slug=SLUG).first()
    organizer = get_user_model().objects.filter(username="organizer").first()
    if evaluation is None or organizer is None:
        out(f"scoring: no {SLUG} evaluation or no organizer, no demo judgment set")
        return
    if JudgmentSet.objects.filter(evaluation=evaluation, name=NAME).exists():
        out(f"scoring: {SLUG} already holds the demo judgment set")
        return
    data = machine_instances(evaluation)
    if not data:
        out(f"scoring: {SLUG} has no instance judgments yet, no demo judgment set")
        return
    made = judgment_sets.load_set(
        evaluation, data, "machine-instances.jsonl", "jsonl", NAME, by=organizer, provenance=MACHINE
    )
    agreement_store.refresh(evaluation.id)
    rankings.refresh(evaluation.id)
    out(f"scoring: {SLUG}: judgment set {NAME!r} ({made.loaded_count} judgments); agreement and rankings computed")

"""Nuggets in from a nuggetizer nuggets file (scoring/formats/nuggetizer.py; issue 28): the Nugget rows of the
questions that have none yet, in the file's order, each with its importance as the importer's primary vote
(assess.official: the official vote until the primary assessor votes again, the later primary vote winning, or an
adjudication). All or nothing, in one transaction, logged in the audit log (`manage.py import_nuggets`)."""

from django.db import transaction

from assess.models import Judgment, Nugget
from core import audit
from pooling.models import Topic
from pooling.staleness import mark_stale_many
from scoring.formats.nuggetizer import read_nuggets
from tracks.qa import questions


class NuggetImportError(ValueError):
    """Every problem of the file, one `FILE:LINE: message` a line; nothing was stored."""


def import_nuggets(evaluation, data, filename, by):
    """Create the nuggets of `data` (bytes of a nuggets file) for `evaluation`, voted by user `by`; returns
    (questions, nuggets) created. Refuses the whole file, naming each line, for a qid that is not one of the
    evaluation's nugget questions, a question that already has nuggets, or one nugget twice in a question."""
    if "nugget_vote" not in evaluation.track_spec.judgment_kinds:
        raise NuggetImportError(f"{evaluation.slug} is a {evaluation.track} evaluation: its questions have no nuggets")
    problems, records = read_nuggets(data, filename)
    if problems:
        raise NuggetImportError("\n".join(p.format(filename) for p in problems))
    with transaction.atomic():
        # The questions' rows serialise nugget writes (tracks.qa.nugget_judging.create_nugget locks them so):
        # a nugget typed on the page meanwhile cannot slip in between the check and the import.
        wanted = [r.qid for r in records]
        found = {
            t.ident: t
            for t in Topic.objects.select_for_update(no_key=True, of=("self",)).filter(
                evaluation=evaluation, ident__in=wanted
            )
        }
        held = set(Nugget.objects.filter(topic__in=found.values()).values_list("topic_id", flat=True))
        errors = []
        for r in records:
            question = found.get(r.qid)
            texts = [Nugget.comparable(n.text) for n in r.nuggets]
            if question is None:
                errors.append(f"{filename}:{r.line}: {evaluation.slug} has no question {r.qid!r}")
            elif not questions.is_nugget_question(question):
                errors.append(f"{filename}:{r.line}: question {r.qid} is a {question.kind} question; it has no nuggets")
            elif question.pk in held:
                errors.append(f"{filename}:{r.line}: question {r.qid} already has nuggets; nothing is replaced")
            elif len(set(texts)) < len(texts):
                twice = next(n.text for n, t in zip(r.nuggets, texts, strict=True) if texts.count(t) > 1)
                errors.append(f"{filename}:{r.line}: nugget {twice!r} twice in question {r.qid}")
        if errors:
            raise NuggetImportError("\n".join(errors))
        made = []
        for r in records:
            for position, n in enumerate(r.nuggets, start=1):
                made.append(
                    (Nugget(topic=found[r.qid], text=n.text.strip(), position=position, created_by=by), n.importance)
                )
        Nugget.objects.bulk_create([nugget for nugget, _ in made])
        Judgment.objects.bulk_create(
            Judgment(
                evaluation=evaluation,
                topic=nugget.topic,
                kind="nugget_vote",
                nugget=nugget,
                assessor=by,
                role=Judgment.PRIMARY,
                value={"vote": importance},
            )
            for nugget, importance in made
        )
        filled = [found[r.qid] for r in records if r.nuggets]
        mark_stale_many(filled)
        audit.record(
            by,
            "qa.import_nuggets",
            evaluation.slug,
            after={"file": filename, "questions": [t.ident for t in filled], "nuggets": len(made)},
        )
    return len(filled), len(made)

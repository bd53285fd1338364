"""The exit questionnaire (seed 001 3.2.3): the organizer's definition (evaluation setting
`ciqa_questionnaire`, default the seed's Figure 2 and four open questions), the assessor's answers per interaction
(a URL file) and overall, the CSV export and the mean ratings per interaction (seed 001 Figure 4).

Shown once an assessor has no session left to do, with the screenshots of the systems met, in an order random per
assessor (seed: 'The order of these screenshots (and the order in which assessors evaluated each interaction) was
random')."""

import csv
import io

from django.db import transaction
from django.db.models import Prefetch

from pooling.evaluations import LoadError, update_settings
from pooling.formats.base import Problem
from tracks.qa.ciqa.models import InteractionSession, QuestionnaireAnswer, Screenshot, UrlFile
from tracks.qa.ciqa.sessions import system_order
from tracks.qa.ciqa.stats import mean_ratings
from tracks.qa.formats.ciqa_questionnaire import check_answer, default_questionnaire, parse_questionnaire

SETTING = "ciqa_questionnaire"

# Screenshots as listed on pages: their names, not their bytes (an image may be megabytes).
SCREENSHOTS = Prefetch("screenshots", queryset=Screenshot.objects.defer("image"))


def definition(evaluation):
    return evaluation.setting(SETTING) or default_questionnaire()


def set_definition(evaluation, text, filename="questionnaire", by=None):
    """Replace the questionnaire; logged (who, before, after) as every settings change."""
    problems, parsed = parse_questionnaire(text, filename)
    if problems:
        raise LoadError([p.format(filename) for p in problems])
    update_settings(evaluation, {SETTING: parsed}, by=by)
    return parsed


def interactions_for(evaluation, assessor):
    """The URL files (systems) the assessor met in sessions, in the assessor's random order."""
    ids = set(
        InteractionSession.objects.filter(evaluation=evaluation, assessor=assessor).values_list("url_file", flat=True)
    )
    files = UrlFile.objects.filter(pk__in=ids).select_related("team").prefetch_related(SCREENSHOTS)
    return system_order(evaluation, assessor, list(files))


def is_open_to(evaluation, assessor):
    """The questionnaire follows the assessor's sessions: open once they have sessions and none left to do."""
    sessions = list(InteractionSession.objects.filter(evaluation=evaluation, assessor=assessor))
    return bool(sessions) and all(s.done for s in sessions)


def current_answers(evaluation, assessor=None):
    """{(assessor id, url file id or None, question id): latest QuestionnaireAnswer}."""
    rows = QuestionnaireAnswer.objects.filter(evaluation=evaluation).order_by("id")
    if assessor is not None:
        rows = rows.filter(assessor=assessor)
    return {
        (a.assessor_id, a.url_file_id, a.question): a for a in rows.select_related("assessor", "url_file__team")
    }  # (the CSV names the team)


def save_answers(evaluation, assessor, values):
    """`values` is {(url file id or None, question id): text}; every answer is checked first, then each one that
    changed is added as a new row (the earlier rows stay: the history). Returns the number saved."""
    questions = definition(evaluation)
    by_id = {q["id"]: q for section in questions.values() for q in section}
    allowed_files = {u.pk for u in interactions_for(evaluation, assessor)}
    problems = []
    for (file_id, qid), value in values.items():
        question = by_id.get(qid)
        if question is None:
            problems.append(Problem(None, f"no question {qid!r}").format("questionnaire"))
        elif file_id is not None and file_id not in allowed_files:
            problems.append(Problem(None, f"no interaction {file_id} of yours").format("questionnaire"))
        else:
            why = check_answer(question, value)
            if why:
                problems.append(Problem(None, why).format("questionnaire"))
    if problems:
        raise LoadError(problems)
    with transaction.atomic():
        before = current_answers(evaluation, assessor)
        new = [
            QuestionnaireAnswer(evaluation=evaluation, assessor=assessor, url_file_id=f, question=q, value=v)
            for (f, q), v in values.items()
            if (before.get((assessor.pk, f, q)).value if (assessor.pk, f, q) in before else "") != v
        ]
        QuestionnaireAnswer.objects.bulk_create(new)
    return len(new)


def csv_text(evaluation):
    """One row per current answer: assessor, team, interaction (URL file tag, empty for the overall questions),
    question id, question, answer, when saved."""
    questions = definition(evaluation)
    text_of = {q["id"]: q["text"] for section in questions.values() for q in section}
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["assessor", "team", "interaction", "question_id", "question", "answer", "saved_at"])
    rows = sorted(
        current_answers(evaluation).values(),
        key=lambda a: (a.assessor.username, a.url_file.tag if a.url_file else "~", a.question),
    )
    for a in rows:
        if a.value == "":
            continue
        writer.writerow(
            [
                a.assessor.username,
                a.url_file.team.name if a.url_file else "",
                a.url_file.tag if a.url_file else "",
                a.question,
                text_of.get(a.question, ""),
                a.value,
                a.saved_at.isoformat(),
            ]
        )
    return out.getvalue()


def summary(evaluation):
    """(scale questions, [(url file, {question id: (mean, n)})]): mean ratings per interaction, as Figure 4."""
    scales = [q for q in definition(evaluation).get("interaction", []) if q["kind"] == "scale"]
    answers = [(a.url_file_id, a.question, a.value) for a in current_answers(evaluation).values() if a.url_file_id]
    means = mean_ratings(answers, {q["id"] for q in scales})
    files = UrlFile.objects.filter(evaluation=evaluation).select_related("team").order_by("team__name", "tag")
    return scales, [(u, means.get(u.pk, {})) for u in files]

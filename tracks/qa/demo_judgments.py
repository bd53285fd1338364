"""Demo step: a few judgments on the TAC 2008 demo evaluation so the scores have something to show (idempotent).

The primary assessor ("assessor") judges the rigid list questions of series 1001 and 1002 and builds, votes and
matches nuggets for their squishy list questions; "assessor3" is invited to vote; the second assessor of series
1001 ("assessor2") judges its rigid list items too and disagrees once, which leaves an item in the organizer's
adjudication queue. Series 1003 is left for the demo's visitors to judge. Everything goes through the QA saves
(tracks.qa.instance_judging, nugget_judging) on assess.judging, so the history and stale marks are the real thing.
"""

from django.contrib.auth import get_user_model
from django.db import transaction

from assess import judging
from assess.models import Assignment, Invitation, Judgment
from pooling.models import Evaluation, PoolItem
from tracks.qa import instance_judging, nugget_judging, questions

SLUG = "demo-tac2008"
DEMO_SERIES = ("1001", "1002")


def _label(item, labels, index):
    """A deterministic, plausible label: most answers correct, every fourth one off in a different way."""
    return labels[-1] if index % 4 != 3 else labels[index // 4 % (len(labels) - 1)]


def judge_demo(out, series=DEMO_SERIES):
    evaluation = Evaluation.objects.filter(slug=SLUG).first()
    if evaluation is None:
        out(f"assess: no {SLUG} evaluation, no demo judgments")
        return
    if Judgment.objects.filter(evaluation=evaluation).exists():
        out(f"assess: {SLUG} already has judgments, left as they are")
        return
    User = get_user_model()
    organizer = User.objects.filter(username="organizer").first()
    counts = {"instances": 0, "nuggets": 0, "matches": 0, "votes": 0}
    with transaction.atomic():  # one commit: the rescoring it triggers runs once
        for assignment in (
            Assignment.objects.filter(evaluation=evaluation, topic__ident__in=series)
            .select_related("assessor", "topic")
            .order_by("role", "topic__position")
        ):
            for question in assignment.topic.children.order_by("position"):
                question.evaluation = evaluation
                if questions.is_instance_question(question):
                    _judge_instances(assignment, question, counts)
                elif assignment.role == Assignment.PRIMARY and questions.is_nugget_question(question):
                    _build_nuggets(assignment, question, counts, organizer)
    out(
        f"assess: {SLUG}: {counts['instances']} instance judgments, {counts['nuggets']} nuggets, "
        f"{counts['matches']} matches, {counts['votes']} votes on series {', '.join(series)}; "
        f"judging at /assess/ (organizer: /assess/organize/{SLUG}/)"
    )


def _judge_instances(assignment, question, counts):
    user, evaluation = assignment.assessor, question.evaluation
    classes = {}
    for index, item in enumerate(PoolItem.objects.filter(topic=question).order_by("position", "id")):
        item = judging.load_item(user, item.pk)
        labels = questions.labels_for(item, evaluation)
        label = _label(item, labels, index)
        if assignment.role == Assignment.SECONDARY and index == 0:
            label = labels[0] if label != labels[0] else labels[-1]  # one disagreement to adjudicate
        if label == labels[-1] and assignment.role == Assignment.PRIMARY and questions.is_list_question(question):
            key = " ".join(item.text.lower().split())
            if key in classes:
                instance_judging.judge_instance(user, item, label, 0, answer_class=classes[key])
            else:
                classes[key] = instance_judging.create_class(
                    user, question, item.text, item=item, expected_version=0
                ).pk
        else:
            instance_judging.judge_instance(user, item, label, 0)
        counts["instances"] += 1


def _build_nuggets(assignment, question, counts, organizer):
    user = assignment.assessor
    items = list(PoolItem.objects.filter(topic=question).order_by("position", "id"))
    nuggets = []
    for item in items[:3]:
        nuggets.append(nugget_judging.create_nugget(user, question, " ".join(item.text.split()[:8])))
        counts["nuggets"] += 1
    for i, nugget in enumerate(nuggets):
        nugget_judging.vote(user, nugget, "vital" if i == 0 else "okay", 0)
        counts["votes"] += 1
    voter = get_user_model().objects.filter(username="assessor3").first()
    if voter is not None and organizer is not None:
        judging.invite(organizer, question.evaluation, voter, Invitation.VOTER, assignment.topic)
        for i, nugget in enumerate(nuggets):
            nugget_judging.vote(voter, nugget, "vital" if i < 2 else "okay", 0)
            counts["votes"] += 1
    for index, item in enumerate(items):
        held = [n.pk for n in nuggets if n.text.lower() in " ".join(item.text.lower().split())]
        if index % 3 == 2 and not held:
            continue  # a few strings left unmatched for the visitor
        nugget_judging.match(user, judging.load_item(user, item.pk), held, 0)
        counts["matches"] += 1

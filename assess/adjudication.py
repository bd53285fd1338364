"""The shared part of the adjudication of tracks whose items are judged by a primary and a secondary assessor
(BOLT citations, BioGen answer items): the pairs that disagree, by the track's own test; the third person's
decision; the queue page; and the `<track>_adjudicate` commands (AdjudicateCommand). A track passes what
differs (its judgment kind, its test of a disagreement, its value check, its template) as parameters."""

from collections import defaultdict

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from assess import judging
from assess.models import Assignment, Judgment
from config import params
from config.roles import ORGANIZER, has_role
from pooling.management.commands._common import get_evaluation
from pooling.models import Evaluation


def judged_topics(user, evaluation):
    """The topics `user` is assigned in `evaluation` (a third person adjudicates them)."""
    return set(Assignment.objects.filter(evaluation=evaluation, assessor=user).values_list("topic_id", flat=True))


def disagreements(evaluation, kind, differ, user=None):
    """[(item, primary, secondary, adjudicated or None)] of the items of judgment `kind` whose primary and
    secondary judgments `differ(primary, secondary)` says disagree; its answer is kept as `item.reason`, and
    `item.topic` is set. With `user`, the topics the user judged are left out. Unsorted."""
    mine = judged_topics(user, evaluation) if user is not None else set()
    judged = Judgment.objects.filter(evaluation=evaluation, kind=kind, item__isnull=False)
    # Only items a second assessor judged can disagree (half the topics at most): the rest is never read.
    seconded = judged.filter(role=Judgment.SECONDARY).values("item_id")
    by_item = defaultdict(dict)
    for j in judged.filter(item_id__in=seconded).exclude(topic_id__in=mine).select_related("assessor", "item", "topic"):
        by_item[j.item_id][j.role] = j
    out = []
    for roles in by_item.values():
        first, second = roles.get(Judgment.PRIMARY), roles.get(Judgment.SECONDARY)
        if first is None or second is None:
            continue
        reason = differ(first, second)
        if not reason:
            continue
        item = first.item
        item.topic, item.reason = first.topic, reason
        out.append((item, first, second, roles.get(Judgment.ADJUDICATED)))
    return out


def decide(user, item, kind, value, expected_version, *, clean, differ, what="item"):
    """Save `user`'s decision on a disputed `item`: the judgment of `kind` and role "adjudicated", which then
    counts (assess.official). Only an organizer or an invited adjudicator decides, never one of the topic's
    assessors (Forbidden); `clean(value)` is the track's value check (it raises a JudgingError). One decision per
    item (judging.claim_decision: another adjudicator's save is refused with AlreadyDecided), and only for an
    item of the queue: under the item's lock both sides must be there and `differ(primary value, secondary
    value)` must say they disagree (NotInQueue otherwise; `what` names the item in the message)."""
    if not judging.may_adjudicate(user, item.evaluation):
        raise judging.Forbidden("only the organizer or an invited adjudicator decides disagreements")
    if Assignment.objects.filter(assessor=user, topic_id=item.topic_id).exists():
        raise judging.Forbidden(f"you judged topic {item.topic.ident} yourself; a third person must adjudicate it")
    value = clean(value)
    with transaction.atomic():
        judging.claim_decision(user, item, kind)  # one decider at a time, one decision per item
        sides = dict(
            Judgment.objects.filter(kind=kind, item=item, role__in=[Judgment.PRIMARY, Judgment.SECONDARY]).values_list(
                "role", "value"
            )
        )
        if len(sides) < 2:
            raise judging.NotInQueue(
                f"{what} {item.pool_id} is not in the adjudication queue: it has not been judged by both assessors"
            )
        if not differ(sides[Judgment.PRIMARY], sides[Judgment.SECONDARY]):
            raise judging.NotInQueue(
                f"{what} {item.pool_id} is not in the adjudication queue: both assessors judged it alike"
            )
        return judging.save_judgment(
            user,
            topic=item.topic,
            kind=kind,
            role=Judgment.ADJUDICATED,
            item=item,
            value=value,
            expected_version=expected_version,
        )


# --- the pages ---------------------------------------------------------------------------------------------------


def adjudicator_evaluation(user, slug, track):
    """The evaluation `slug` of `track` if `user` may adjudicate it, else 404."""
    evaluation = get_object_or_404(Evaluation, slug=slug, track=track)
    if not judging.may_adjudicate(user, evaluation):
        raise Http404("you are not an adjudicator of this evaluation")
    return evaluation


def queue_row(queue, evaluation, user, item_id):
    """(the user's adjudication queue rows, the position of `item_id` in them), or 404 when it is not there;
    `queue` is the track's ep.adjudication_queue callable."""
    rows = queue(evaluation, user=user)
    at = next((n for n, r in enumerate(rows) if r[0].pk == item_id), None)
    if at is None:
        raise Http404("this item is not in your adjudication queue")
    return rows, at


def queue_page_context(evaluation, rows, user, decide=None):
    """What a track's adjudication queue page shows above and in its table: the rows, how many are open, the
    first open item (where "decide the next" leads), whether the viewer organizes, and `decide`, the URL name of
    the track's decision page (templates/assess/adjudication_queue.html)."""
    return {
        "evaluation": evaluation,
        "rows": rows,
        "open": sum(1 for r in rows if r[3] is None),
        "first_open": next((item for item, *_, decided in rows if decided is None), None),
        "organizer": has_role(user, ORGANIZER),
        "decide": decide,
    }


def queue_page(request, slug, *, track, queue, template, decide):
    """The adjudication queue page of a track: `queue(evaluation, user=...)` its rows (the topics the viewer
    judged left out), `template` extending assess/adjudication_queue.html, `decide` the decision page's URL
    name. The track's view keeps its decorators (who may see it)."""
    evaluation = adjudicator_evaluation(request.user, slug, track)
    rows = queue(evaluation, user=request.user)
    return render(request, template, queue_page_context(evaluation, rows, request.user, decide))


def decide_form(request, slug, item_id, *, track, queue, adjudicate, typed_value, namespace):
    """Save a decision posted from a track's decision page (a plain form: `label`, or `adopt` = primary|secondary,
    and the `version` seen) with `adjudicate(user, item, value, version)`, then go to the next open disagreement,
    else to the queue. `typed_value(label, item, primary)` is the value a typed label stands for; `namespace` is the
    track's URL namespace, whose `adjudicate` and `adjudication` pages these are. A refused decision is shown with
    its reason (assess/decide_refused.html). The track's view keeps its decorators (who may decide)."""
    evaluation = adjudicator_evaluation(request.user, slug, track)
    rows, at = queue_row(queue, evaluation, request.user, item_id)
    item, primary, secondary, decided = rows[at]
    adopt = params.text(request.POST.get("adopt"), "adopt")
    if adopt:
        sides = {"primary": primary, "secondary": secondary}
        if adopt not in sides:
            raise params.BadParameter("adopt must be primary or secondary")
        value = dict(sides[adopt].value)
    else:
        value = typed_value(params.text(request.POST.get("label"), "label"), item, primary)
    version = params.integer(request.POST.get("version"), "version", maximum=params.INT_MAX)
    try:
        adjudicate(request.user, item, value, version)
    except judging.JudgingError as exc:
        back = {
            "back": reverse(f"{namespace}:adjudicate", args=[slug, item.pk]),
            "queue": reverse(f"{namespace}:adjudication", args=[slug]),
        }
        return render(
            request, "assess/decide_refused.html", {"item": item, "error": str(exc), **back}, status=exc.status
        )
    later = [r for r in rows[at + 1 :] + rows[:at] if r[3] is None]
    if later:
        return redirect(f"{namespace}:adjudicate", slug, later[0][0].pk)
    return redirect(f"{namespace}:adjudication", slug)


# --- the command -------------------------------------------------------------------------------------------------


class AdjudicateCommand(BaseCommand):
    """A track's adjudication from the command line, as on its queue page: without a pool id the queue, one
    disagreement a line; with one, the decision of `--by` (an organizer or invited adjudicator), `--adopt`
    primary|secondary or the track's own options, saved against the version the queue shows. A track's command
    subclasses it, sets `example` (a pool id for the help) and defines the methods below that raise
    NotImplementedError."""

    example = ""

    def queue(self, evaluation):
        """The track's adjudication queue: [(item, primary, secondary, decided or None)]."""
        raise NotImplementedError

    def describe(self, row):
        """One line of the listing for a queue row."""
        raise NotImplementedError

    def add_decision_arguments(self, parser):
        """The options of a decision besides --adopt."""

    def decision(self, options, primary, secondary):
        """The decided value from the options when --adopt is not given; CommandError if they say none."""
        raise NotImplementedError

    def decide(self, user, item, value, expected_version):
        """Save the decision (the track's adjudicate function); returns judging.Saved."""
        raise NotImplementedError

    def decided(self, item, saved, user):
        """The line reporting a saved decision."""
        raise NotImplementedError

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("pool_id", nargs="?", help=f"the item to decide (its pool id, e.g. {self.example})")
        parser.add_argument("--by", help="the organizer or invited adjudicator deciding (recorded in the history)")
        parser.add_argument("--adopt", choices=["primary", "secondary"], help="take that judgment as it is")
        self.add_decision_arguments(parser)

    def handle(self, slug, pool_id=None, by=None, **options):
        evaluation = get_evaluation(slug)
        rows = self.queue(evaluation)
        if pool_id is None:
            for row in rows:
                self.stdout.write(self.describe(row))
            return
        row = next((r for r in rows if r[0].pool_id == pool_id), None)
        if row is None:
            raise CommandError(f"{pool_id} is not among the disagreements of {slug}")
        if not by:
            raise CommandError("--by: who decides is needed")
        user = get_user_model().objects.filter(username=by).first()
        if user is None:
            raise CommandError(f"--by: no user {by!r}")
        item, primary, secondary, decided = row
        item.evaluation = evaluation
        try:
            if options["adopt"]:
                value = dict((primary if options["adopt"] == "primary" else secondary).value)
            else:
                value = self.decision(options, primary, secondary)
            saved = self.decide(user, item, value, decided.version if decided else 0)
        except judging.JudgingError as refused:
            raise CommandError(str(refused)) from None
        self.stdout.write(self.decided(item, saved, user))

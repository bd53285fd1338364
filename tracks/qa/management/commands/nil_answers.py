"""Whether a factoid question's answer is NIL, from the command line, as on the page /assess/organize/SLUG/nil/.

  manage.py nil_answers SLUG                                       every factoid question and how its NIL stands
  manage.py nil_answers SLUG QID nil|answer|auto --by USER [--reason TEXT]

"nil": no known answer in the collection (NIL responses are right); "answer": the collection holds one (NIL is
wrong); "auto": the judgments decide (NIL is right once every pooled answer is judged and none shows an answer).
The decision is kept in the question's history with who and when, and the question is rescored.
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from assess.judging import Forbidden
from pooling.management.commands._common import get_evaluation
from tracks.qa import nil_answers


def describe(row):
    explicit = {True: "marked NIL", False: "marked as having an answer", None: "decided by the judgments"}
    basis = (
        "a judged answer shows one"
        if row["known_answer"]
        else ("every pooled answer judged, none shows one" if row["fully_judged"] else "judging not complete")
    )
    outcome = "NIL" if row["answer_is_nil"] else "not NIL"
    return f"{outcome} ({explicit[row['explicit']]}; {basis})"


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("qid", nargs="?", help="the factoid question, e.g. 216.1")
        parser.add_argument("decision", nargs="?", choices=sorted(nil_answers.CHOICES))
        parser.add_argument("--by", help="the organizer deciding (recorded in the question's history)")
        parser.add_argument("--reason", default="", help="why (kept with the decision)")

    def handle(self, slug, qid=None, decision=None, by=None, reason="", **options):
        evaluation = get_evaluation(slug)
        if qid is None:
            for row in nil_answers.nil_rows(evaluation):
                self.stdout.write(f"{row['question'].ident}\t{describe(row)}")
            return
        if decision is None:
            raise CommandError("give the decision: nil, answer or auto")
        if not by:
            raise CommandError("--by USER is required: every decision is recorded with who took it")
        user = get_user_model().objects.filter(username=by).first()
        if user is None:
            raise CommandError(f"no user {by!r}")
        question = evaluation.topics.filter(ident=qid).first()
        if question is None:
            raise CommandError(f"{slug} has no question {qid!r}")
        try:
            changed = nil_answers.set_answer_is_nil(user, question, decision, reason)
        except (Forbidden, nil_answers.NilError) as exc:
            raise CommandError(str(exc)) from exc
        row = next(r for r in nil_answers.nil_rows(evaluation) if r["question"].pk == question.pk)
        self.stdout.write(f"{qid}: {describe(row)}" + ("" if changed else " (unchanged)"))

"""Everything the organizer does on the judging pages, from the command line (assess.judging underneath).

manage.py judging progress EVAL            judged/total per assessor and series, seconds per item
manage.py judging agreement EVAL           percent agreement and Cohen's kappa per pair and question
manage.py judging queue EVAL               disagreements of double judging (the track's adjudication queue)
manage.py judging close EVAL TOPIC --by ORGANIZER / reopen EVAL TOPIC --by ORGANIZER
manage.py judging second EVAL SERIES USER --by ORGANIZER
manage.py judging invite-voter EVAL SERIES USER --by ORGANIZER / invite-adjudicator EVAL USER --by ORGANIZER
manage.py judging revote EVAL SERIES --by ORGANIZER   ask the series' primary for a later vital/okay vote set
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from assess import judging, progress
from assess.models import Assignment, Invitation
from core import extension_points as ep
from pooling.models import Evaluation, Topic


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument(
            "action",
            choices=[
                "progress",
                "agreement",
                "queue",
                "close",
                "reopen",
                "second",
                "invite-voter",
                "invite-adjudicator",
                "revote",
            ],
        )
        parser.add_argument("evaluation")
        parser.add_argument("rest", nargs="*", help="topic ident and/or username, as the action needs")
        parser.add_argument("--by", help="the organizer doing it (recorded in the history)")

    def handle(self, *_, action, evaluation, rest, by=None, **options):
        args = rest
        try:
            evaluation = Evaluation.objects.get(slug=evaluation)
        except Evaluation.DoesNotExist:
            raise CommandError(f"no evaluation {evaluation!r}") from None
        if action == "progress":
            return self._progress(evaluation)
        if action == "agreement":
            return self._agreement(evaluation)
        if action == "queue":
            queue = ep.adjudication_queue.get(evaluation.track)
            for item, first, second, decided in queue(evaluation) if queue else []:
                state = f"decided {_shown(decided)} by {decided.assessor.username}" if decided else "open"
                self.stdout.write(
                    f"{item.topic.ident}\titem {item.pk}\t{item.docid}\t{item.text[:50]!r}\t"
                    f"{first.assessor.username}: {_shown(first)}\t"
                    f"{second.assessor.username}: {_shown(second)}\t{state}"
                )
            return
        organizer = self._user(by, "--by")
        needed = {"close": 1, "reopen": 1, "second": 2, "invite-voter": 2, "invite-adjudicator": 1, "revote": 1}[action]
        if len(args) != needed:
            raise CommandError(f"{action} needs {needed} argument(s) after the evaluation, got {len(args)}")
        try:
            if action in ("close", "reopen"):
                topic = self._topic(evaluation, args[0])
                (judging.close_question if action == "close" else judging.reopen_question)(organizer, topic)
                self.stdout.write(f"{'closed' if action == 'close' else 'reopened'} {topic.ident}")
            elif action == "second":
                a = judging.assign_secondary(organizer, self._topic(evaluation, args[0]), self._user(args[1]))
                self.stdout.write(f"second assessor {a.assessor.username} on series {a.topic.ident}")
            elif action == "revote":
                invitation = judging.ask_revote(organizer, self._topic(evaluation, args[0]))
                self.stdout.write(
                    f"asked {invitation.user.username}, primary of series {args[0]}, for a later vote set"
                )
            elif action == "invite-voter":
                judging.invite(
                    organizer, evaluation, self._user(args[1]), Invitation.VOTER, self._topic(evaluation, args[0])
                )
                self.stdout.write(f"invited {args[1]} to vote on series {args[0]}")
            else:
                judging.invite(organizer, evaluation, self._user(args[0]), Invitation.ADJUDICATOR)
                self.stdout.write(f"invited {args[0]} to adjudicate {evaluation.slug}")
        except judging.JudgingError as refused:
            raise CommandError(str(refused)) from None

    def _user(self, username, what="user"):
        if not username:
            raise CommandError(f"{what}: a username is needed")
        try:
            return get_user_model().objects.get(username=username)
        except get_user_model().DoesNotExist:
            raise CommandError(f"{what}: no user {username!r}") from None

    def _topic(self, evaluation, ident):
        try:
            return Topic.objects.select_related("evaluation").get(evaluation=evaluation, ident=ident)
        except Topic.DoesNotExist:
            raise CommandError(f"no topic {ident!r} in {evaluation.slug}") from None

    def _progress(self, evaluation):
        assignments = list(Assignment.objects.filter(evaluation=evaluation).select_related("assessor", "topic"))
        done = progress.assignment_progress(assignments)
        times = progress.time_per_assessor(evaluation)
        self.stdout.write("assessor\tseries\trole\tjudged\ttotal\tseconds/item")
        for a in assignments:
            per_item = (times.get(a.assessor_id) or {}).get("per_item")
            self.stdout.write(
                f"{a.assessor.username}\t{a.topic.ident}\t{a.role}\t{done[a.pk][0]}\t{done[a.pk][1]}\t"
                + (f"{per_item:.1f}" if per_item is not None else "-")
            )

    def _agreement(self, evaluation):
        tables = progress.agreement_tables(evaluation)

        def fmt(x):
            return "-" if x is None else f"{x:.3f}"

        for row in tables["pairs"]:
            self.stdout.write(
                f"pair {row['key'][0]}/{row['key'][1]}\tn={row['n']}\tagreement={fmt(row['percent'])}"
                f"\tkappa={fmt(row['kappa'])}"
            )
        for row in tables["questions"]:
            self.stdout.write(
                f"question {row['key'].ident}\tn={row['n']}\tagreement={fmt(row['percent'])}\tkappa={fmt(row['kappa'])}"
            )


def _shown(judgment):
    """A judgment's value: its label where it has one (QA instance labels), else the whole value."""
    return judgment.value.get("label", judgment.value)

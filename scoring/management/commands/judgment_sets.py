"""Judgment sets beside the official judgments (issue 29; scoring.judgment_sets):

manage.py judgment_sets SLUG list
manage.py judgment_sets SLUG load NAME FILE --format qrels|nuggetizer|jsonl --by ORGANIZER [--model M --prompt P
    --producer X --model-version V --date D --note N] [--team TEAM: a team's judge run]
manage.py judgment_sets SLUG release NAME --by ORGANIZER [--withdraw]
manage.py judgment_sets SLUG delete NAME --by ORGANIZER
manage.py judgment_sets SLUG promote NAME --by ORGANIZER --reason TEXT [--only-unjudged]
manage.py judgment_sets SLUG agreement [--per-topic]       (as stored by the rescoring worker; --refresh first)
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from accounts.models import Team
from config.celery import run_here_or_send
from pooling.evaluations import LoadError
from pooling.models import Evaluation
from scoring import agreement_store, judgment_sets
from scoring.models import JudgmentSet
from scoring.tasks import refresh_agreement

ACTIONS = ("list", "load", "release", "delete", "promote", "agreement")


def _number(value):
    return "–" if value is None else (str(value) if isinstance(value, int) else f"{value:.3f}")


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("action", choices=ACTIONS)
        parser.add_argument("rest", nargs="*")
        parser.add_argument("--format", choices=judgment_sets.FORMATS, default="qrels")
        parser.add_argument("--by", help="the organizer doing it (recorded in the audit log)")
        parser.add_argument("--team", help="load as this team's judge run")
        parser.add_argument("--withdraw", action="store_true")
        parser.add_argument("--reason", default="")
        parser.add_argument("--only-unjudged", action="store_true")
        parser.add_argument("--per-topic", action="store_true")
        parser.add_argument("--refresh", action="store_true", help="recompute the agreement here first")
        for key in judgment_sets.PROVENANCE_KEYS:  # --version is Django's own: the model's is --model-version
            option = "--model-version" if key == "version" else f"--{key}"
            parser.add_argument(option, dest=f"prov_{key}", default="")

    def handle(self, slug, action, rest, **o):
        evaluation = Evaluation.objects.filter(slug=slug).first()
        if evaluation is None:
            raise CommandError(f"no evaluation with slug {slug!r}")
        try:
            getattr(self, f"_{action}")(evaluation, rest, o)
        except LoadError as error:
            raise CommandError("\n".join(error.problems)) from None

    def _user(self, username):
        if not username:
            raise CommandError("--by: a username is needed")
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"--by: no user {username!r}")
        return user

    def _set(self, evaluation, rest, needed=1):
        if len(rest) != needed:
            raise CommandError(f"give the set's name{' and the file' if needed == 2 else ''}")
        found = JudgmentSet.objects.filter(evaluation=evaluation, name=rest[0]).first()
        if found is None and needed == 1:
            names = ", ".join(JudgmentSet.objects.filter(evaluation=evaluation).values_list("name", flat=True))
            raise CommandError(f"no judgment set {rest[0]!r} in {evaluation.slug} (sets: {names or 'none'})")
        return found

    def _list(self, evaluation, rest, o):
        for s in JudgmentSet.objects.filter(evaluation=evaluation).select_related("team"):
            made = ", ".join(f"{k}: {v}" for k, v in s.provenance.items()) or "no provenance"
            who = f" team {s.team.name}" if s.team_id else ""
            shown = "released" if s.released else "not released"
            self.stdout.write(f"{s.name}\t{s.origin}{who}\t{s.judgments.count()} judgments\t{shown}\t{made}")

    def _load(self, evaluation, rest, o):
        if len(rest) != 2:
            raise CommandError("load needs the set's name and the file")
        name, path = rest
        team = None
        if o["team"]:
            team = Team.objects.filter(name=o["team"]).first()
            if team is None:
                raise CommandError(f"--team: no team {o['team']!r}")
        try:
            with open(path, "rb") as fh:
                data = fh.read(judgment_sets.MAX_FILE_BYTES + 1)
        except OSError as error:
            raise CommandError(f"{path}: {error.strerror}") from None
        if len(data) > judgment_sets.MAX_FILE_BYTES:
            raise CommandError(f"{path}: over the limit of {judgment_sets.MAX_FILE_BYTES:,} bytes")
        provenance = {k: o[f"prov_{k}"] for k in judgment_sets.PROVENANCE_KEYS if o[f"prov_{k}"]}
        made = judgment_sets.load_set(
            evaluation,
            data,
            path,
            o["format"],
            name,
            by=self._user(o["by"]),
            provenance=provenance,
            team=team,
            origin=JudgmentSet.TEAM if team else JudgmentSet.FILE,
        )
        run_here_or_send(refresh_agreement, evaluation.id)
        self.stdout.write(
            f"{evaluation.slug}: set {made.name}: {made.loaded_count} judgments ({made.skipped} lines skipped)"
        )

    def _release(self, evaluation, rest, o):
        found = self._set(evaluation, rest)
        judgment_sets.set_release(found, not o["withdraw"], by=self._user(o["by"]))
        self.stdout.write(f"{found.name}: {'released to the teams' if found.released else 'not released'}")

    def _delete(self, evaluation, rest, o):
        found = self._set(evaluation, rest)
        judgment_sets.delete_set(found, by=self._user(o["by"]))
        run_here_or_send(refresh_agreement, evaluation.id)
        self.stdout.write(f"deleted set {rest[0]}")

    def _promote(self, evaluation, rest, o):
        found = self._set(evaluation, rest)
        counts = judgment_sets.promote(
            found, by=self._user(o["by"]), reason=o["reason"], only_unjudged=o["only_unjudged"]
        )
        self.stdout.write(f"{found.name}: " + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items()))

    def _agreement(self, evaluation, rest, o):
        if o["refresh"]:
            agreement_store.refresh(evaluation.id)
        rows = agreement_store.table(evaluation, per_topic=o["per_topic"])
        self.stdout.write("set\tkind\ttopic\titems\tpercent\tkappa\tweighted kappa\talpha\talpha (all judges)")
        for r in rows:
            numbers = "\t".join(_number(r[k]) for k in agreement_store.NUMBERS)
            self.stdout.write(f"{r['set']}\t{r['kind']}\t{r['topic']}\t{numbers}")
        if not rows:
            self.stdout.write("(nothing compared yet: no judgment set or second assessor, or not refreshed)")

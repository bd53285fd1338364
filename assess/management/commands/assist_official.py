from django.core.management.base import BaseCommand

from assess.management.commands._assist_common import user_named
from assess.official import ASSIST_OFFICIAL, PRE_REVEAL, REVISED
from pooling.evaluations import LoadError, update_settings
from pooling.management.commands._common import fail_with, get_evaluation


class Command(BaseCommand):
    help = (
        "Which value of a *reveal after* judgment is official (docs/assist.md): 'revised' (the default: the judgment "
        "as it stands) or 'pre_reveal' (the assessor's own, from before the suggestion was shown). Every score of "
        "the evaluation is marked for rescoring when it changes."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("which", choices=[REVISED, PRE_REVEAL])
        parser.add_argument("--by", help="the organizer (for the audit log)")

    def handle(self, slug, which, by, **options):
        evaluation = get_evaluation(slug)
        try:
            update_settings(evaluation, {ASSIST_OFFICIAL: which}, by=user_named(by))
        except LoadError as e:
            raise fail_with(e.problems) from None
        self.stdout.write(f"{slug}: the official value of a reveal-after judgment is the {which.replace('_', '-')} one")

from django.core.management.base import BaseCommand, CommandError

from pooling.models import Evaluation, StaleTopic
from scoring.rescore import rescore_evaluation, rescore_stale_topics


class Command(BaseCommand):
    help = (
        "Recompute scores in this process: the whole evaluation, or (--stale) only what is marked stale; "
        "without SLUG, --stale catches up every evaluation (use when Redis or the workers were down)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", nargs="?")
        parser.add_argument("--stale", action="store_true", help="only the questions marked stale")

    def handle(self, slug=None, stale=False, **options):
        if slug is None:
            if not stale:
                raise CommandError("give an evaluation SLUG, or --stale to catch up every evaluation")
            ids = sorted(set(StaleTopic.objects.values_list("evaluation_id", flat=True)))
        else:
            evaluation = Evaluation.objects.filter(slug=slug).first()
            if evaluation is None:
                raise CommandError(f"no evaluation with slug {slug!r}")
            ids = [evaluation.id]
        for evaluation_id in ids:
            n = rescore_stale_topics(evaluation_id) if stale else rescore_evaluation(evaluation_id)
            slug_ = Evaluation.objects.get(pk=evaluation_id).slug
            self.stdout.write(f"{slug_}: {n} questions recomputed")

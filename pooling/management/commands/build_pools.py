from django.core.management.base import BaseCommand

from pooling.management.commands._common import get_evaluation
from pooling.models import PoolBuild
from pooling.pools import build_pools, start_pool_build


class Command(BaseCommand):
    help = (
        "Build (or rebuild) the pools of an evaluation from its runs of judged priority. Existing items and "
        "their judgments are kept. Runs here unless --queue, which hands it to a Celery worker."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--queue", action="store_true", help="queue the Celery task instead of running here")

    def handle(self, slug, queue, **options):
        evaluation = get_evaluation(slug)
        if queue:
            build = start_pool_build(evaluation)
            self.stdout.write(f"pool build {build.pk} {build.status}")
            return
        build = PoolBuild.objects.create(evaluation=evaluation)
        build_pools(evaluation, build)
        build.refresh_from_db()
        self.stdout.write(f"{slug}: {build.message}")

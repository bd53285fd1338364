"""Celery tasks of the pooling app: building pools in a worker, progress kept in PoolBuild rows."""

from celery import shared_task
from django.utils import timezone

from pooling.models import PoolBuild


@shared_task(name="pooling.build_pools", acks_late=True)
def build_pools_task(build_id):
    from pooling.pools import build_pools

    build = PoolBuild.objects.select_related("evaluation").filter(pk=build_id).first()
    if build is None or build.status == PoolBuild.DONE:
        return None
    try:
        return build_pools(build.evaluation, build)
    except Exception as exc:
        PoolBuild.objects.filter(pk=build_id).update(
            status=PoolBuild.FAILED, finished_at=timezone.now(), message=f"{type(exc).__name__}: {exc}"
        )
        raise

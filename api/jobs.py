"""Long work started by an API call, answered with 202 and a status URL: a judgment import and a full
rescoring run as the Celery task api.run_job (in-process without a broker), their outcome kept on the ApiJob row.
(Pool builds have their own row and task: pooling.PoolBuild, pooling.pools.start_pool_build.)"""

from celery import shared_task
from django.db import transaction
from django.utils import timezone

from api.models import ApiJob
from config.celery import run_here_or_send
from scoring.judgments_jsonl import ImportFailed, import_jsonl
from scoring.rescore import rescore_evaluation


def start_job(kind, evaluation, user, payload="", filename=""):
    job = ApiJob.objects.create(kind=kind, evaluation=evaluation, requested_by=user, payload=payload, filename=filename)
    transaction.on_commit(lambda: run_here_or_send(run_job, job.pk))
    return job


def _finish(job, status, result=None, message=""):
    ApiJob.objects.filter(pk=job.pk).update(
        status=status, result=result or {}, message=message, finished_at=timezone.now(), payload=""
    )


@shared_task(name="api.run_job", acks_late=True)
def run_job(job_id):
    """Do a queued job once (a redelivered task finds it done and returns)."""
    job = ApiJob.objects.select_related("evaluation").filter(pk=job_id).first()
    if job is None or job.status in (ApiJob.DONE, ApiJob.FAILED):
        return None
    ApiJob.objects.filter(pk=job.pk).update(status=ApiJob.RUNNING)
    try:
        if job.kind == ApiJob.IMPORT:
            counts = import_jsonl(job.evaluation, job.payload.splitlines(keepends=True), job.filename or "<upload>")
            _finish(job, ApiJob.DONE, {"counts": counts})
        elif job.kind == ApiJob.RESCORE:
            rescore_evaluation(job.evaluation_id)
            _finish(job, ApiJob.DONE, {"rescored": job.evaluation.slug})
        else:
            _finish(job, ApiJob.FAILED, message=f"unknown job kind {job.kind!r}")
    except ImportFailed as exc:
        _finish(job, ApiJob.FAILED, message=str(exc))
    except Exception as exc:
        _finish(job, ApiJob.FAILED, message=f"{type(exc).__name__}: {exc}")
        raise
    return job.pk

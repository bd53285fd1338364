from celery import shared_task


@shared_task(name="scoring.rescore_stale", acks_late=True)
def rescore_stale(evaluation_id):
    """Recompute the scores of the evaluation's stale questions (implemented by the scoring issue)."""
    from scoring.rescore import rescore_stale_topics

    return rescore_stale_topics(evaluation_id)

"""assess's Celery tasks: a suggestion pass over one topic (assess.assist_client), run by a worker so no judging
request ever waits on a model server. Rate-limited per worker; each item's failure is an error row, never a
failed task (the pass goes on)."""

from celery import shared_task


# Not acknowledged late (unlike the settings' default): a pass can outlast the broker's visibility timeout, and a
# redelivered copy running beside it would pay for the same calls twice. A pass lost with its worker is run again
# by hand; it skips items already suggested.
@shared_task(name="assess.suggest_topic", rate_limit="30/m", acks_late=False)
def suggest_topic(evaluation_id, topic_id, kind, user_id=None):
    """Run one suggestion pass; returns {"stored": n, "errors": n}."""
    from django.contrib.auth import get_user_model

    from assess import assist_client
    from pooling.models import Evaluation, Topic

    evaluation = Evaluation.objects.get(pk=evaluation_id)
    topic = Topic.objects.get(pk=topic_id, evaluation=evaluation)
    by = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    try:
        rows = assist_client.suggest_topic(evaluation, topic, kind, by=by)
    except assist_client.Off as e:
        return {"stored": 0, "errors": 0, "off": str(e)}
    return {"stored": sum(not r.error for r in rows), "errors": sum(bool(r.error) for r in rows)}

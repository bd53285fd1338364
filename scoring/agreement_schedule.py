"""When the stored agreement follows the judgments (issue 29, deliverable 7): a refresh task of its own, spaced as
the rankings' (scoring.rankings), so that it costs about 1/AGREEMENT_SPACING of the worker's time however fast
judgments arrive, and a judgment reaches the agreement page within a bounded delay.

The rescoring worker calls request_refresh after its passes (scoring.tasks.rescore_stale). While a refresh task
waits, that costs one Redis command (a claim, as core.rescoring_claims). Otherwise it queues
`scoring.refresh_agreement_due` AGREEMENT_SPACING (30) × the last refresh's duration after the last refresh began,
never more than AGREEMENT_MAX_DELAY seconds (60) from now. The task recomputes every topic whose judgments changed
since its stored row (agreement_store.refresh_changed: the fingerprints), so the questions of all the passes between
two refreshes are done in one, and nothing needs remembering between them: a lost task or claim only delays the
refresh to the next pass's request (the claim expires) or a full rescoring.

Delay: a judgment is in the agreement at most its rescoring pass + min(AGREEMENT_SPACING × the last refresh's
duration, AGREEMENT_MAX_DELAY) + one refresh later; "as of" (agreement_store.as_of) says which instant it saw.
Without a broker (demo, tests) the changed questions are refreshed at once.
"""

import logging
import time
from functools import lru_cache

from django.conf import settings

log = logging.getLogger(__name__)

CLAIM_SPARE_SECONDS = 300  # a claim outlives its task's due time by this much: a lost task is replaced after it


def spacing():
    """A refresh is due AGREEMENT_SPACING × its last duration after it began: while judgments keep the worker busy,
    the passes between two refreshes take about (spacing - 1) times a refresh, so refreshes add about
    1/(spacing - 1) (3.4 % at 30) to rescoring (benchmarks/agreement.py measures it, benchmarks/budget.py beside
    the rankings': together they stay within issue 29's 10 %)."""
    return float(getattr(settings, "AGREEMENT_SPACING", 30))


def max_delay():
    """The longest a refresh waits after it is requested (a slow refresh does not push the next one out further)."""
    return float(getattr(settings, "AGREEMENT_MAX_DELAY", 60))


def delay(last, now):
    """Seconds from `now` until a refresh is due, given the last one's (began, seconds) (None: none known)."""
    if last is None:
        return 0.0
    began, seconds = last
    return min(max_delay(), max(0.0, began + spacing() * seconds - now))


def request_refresh(evaluation_id):
    """After the rescoring worker's passes (never on the save path): the agreement of every
    question whose judgments changed follows, at once without a broker, else in a refresh task queued for when it
    is due unless one already waits. Never raises into the caller (the scores are committed); a broker that
    refuses the task leaves the refresh to be done here, now."""
    from config.celery import app
    from scoring import agreement_store
    from scoring.tasks import refresh_agreement_due

    if app.conf.task_always_eager:
        agreement_store.refresh_changed(evaluation_id)
        return
    try:
        if not _claim(evaluation_id):
            return  # a refresh task waits: it will find these questions' fingerprints changed
        wait = delay(_last(evaluation_id), time.time())
        _claim(evaluation_id, seconds=wait + CLAIM_SPARE_SECONDS)
        try:
            refresh_agreement_due.apply_async((evaluation_id,), countdown=wait)
        except Exception:
            _unclaim(evaluation_id)
            raise
    except Exception:
        log.warning("agreement refresh of evaluation %s not queued: refreshed here", evaluation_id, exc_info=True)
        agreement_store.refresh_changed(evaluation_id)


def run_due(evaluation_id):
    """The refresh task's body: every topic changed since its row was computed, and the totals. Returns the topic
    rows written."""
    from scoring import agreement_store

    _unclaim(evaluation_id)  # from here on a pass queues the next refresh
    began, started = time.time(), time.perf_counter()
    written = agreement_store.refresh_changed(evaluation_id)
    _remember(evaluation_id, began, time.perf_counter() - started)
    return written


@lru_cache(maxsize=1)
def _redis():
    import redis

    return redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_connect_timeout=1, socket_timeout=1)


def _key(evaluation_id, what):
    from config.celery import app

    return f"assay:agreement:{what}:{app.conf.task_default_queue}:{evaluation_id}"


def _claim(evaluation_id, seconds=None):
    """True if no refresh task is known to wait (the caller may queue one); `seconds` given, (re)set the claim for
    that long. Redis away: True (the broker is Redis too: queueing then fails, and the caller refreshes in place)."""
    try:
        if seconds is not None:
            _redis().set(_key(evaluation_id, "scheduled"), "1", ex=max(1, int(seconds) + 1))
            return True
        return bool(_redis().set(_key(evaluation_id, "scheduled"), "1", nx=True, ex=60))
    except Exception:
        return True


def _unclaim(evaluation_id):
    try:
        _redis().delete(_key(evaluation_id, "scheduled"))
    except Exception:  # Redis gone: the key expires by itself
        pass


def _last(evaluation_id):
    """(began, seconds) of the evaluation's last refresh task, or None (never, or Redis lost it: due at once)."""
    try:
        raw = _redis().get(_key(evaluation_id, "last"))
        if raw:
            began, seconds = raw.decode().split()
            return float(began), float(seconds)
    except Exception:
        pass
    return None


def _remember(evaluation_id, began, seconds):
    try:
        _redis().set(_key(evaluation_id, "last"), f"{began} {seconds}", ex=86400)
    except Exception:
        pass

"""The workers' consumer: Celery's own, except that it survives the broker still being away while it closes the
connection it lost.

Celery 5.7 handles a lost connection by collecting it (kombu drops its transport: the transport's client becomes
None) and then closing it (5.6 only collected it). The close closes the default channel a second time, since the
first close raised (its poll could not be read back from the dead socket), and this time the channel restores its
unacknowledged messages through a Redis client it can no longer build: AttributeError ('NoneType' object has no
attribute 'hostname'), which Celery reports as an unrecoverable error, and the worker exits. Any message held
unacknowledged while Redis goes away does it, and a worker nearly always holds one: the agreement and rankings
refreshes wait for their due time as countdown tasks (scoring.agreement_schedule, scoring.rankings).

The messages it could not restore stay in Redis's unacknowledged set, which the next consumer restores after the
visibility timeout; a rescoring task lost that way is only late, since the stale marks are the truth and every
worker sweeps them (scoring.tasks.sweep)."""

import logging

from celery.worker.consumer import Consumer as CeleryConsumer

log = logging.getLogger(__name__)


class Consumer(CeleryConsumer):
    def on_connection_error_after_connected(self, exc):
        lost = self.connection
        if lost is not None:
            # (Celery calls connection.close through the instance: the rest of its handling then runs as written)
            lost.close = _closing_even_collected(lost)
        super().on_connection_error_after_connected(exc)


def _closing_even_collected(connection):
    def close():
        try:
            type(connection).close(connection)
        except AttributeError as error:
            if not collected(connection):
                raise
            log.warning("the lost broker connection could not be closed (%r); reconnecting", error)
            log.debug("closing the lost broker connection", exc_info=True)
        finally:
            del connection.close  # (this function and the connection would otherwise hold each other)

    return close


def collected(connection):
    """Whether kombu collected `connection` (dropped its transport). Read from its attribute: the public
    `transport` property would build a new transport."""
    return connection._transport is None

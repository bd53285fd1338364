"""Tasks run in-process (no broker) from request threads leave Celery's process-wide state alone.

Celery's eager Task.apply() sets a process-wide "join will block" flag for as long as the task runs; run from a
request thread, it made result.get() in any other thread fail ("Never call result.get() within a task!"), which
is how three worker tests failed depending on the order the suite ran in. config.celery.run_here_or_send runs the
task's body instead."""

import threading

from celery import shared_task
from celery._state import task_join_will_block

from config.celery import app, ping, run_here_or_send

started, finish = threading.Event(), threading.Event()


@shared_task(name="tests.wait_for_the_test")
def wait_for_the_test():
    started.set()
    assert finish.wait(10)
    return "done"


def _flag_while_a_thread_runs(start):
    started.clear(), finish.clear()
    results = []
    thread = threading.Thread(target=lambda: results.append(start()))
    thread.start()
    try:
        assert started.wait(10)
        return task_join_will_block()
    finally:
        finish.set()
        thread.join()


def test_a_task_run_here_from_another_thread_does_not_block_joins():
    assert app.conf.task_always_eager
    assert _flag_while_a_thread_runs(lambda: run_here_or_send(wait_for_the_test)) is False
    assert ping.delay("x").get()["value"] == "x"  # joins in this thread still work


def test_celerys_own_eager_apply_is_what_leaked():
    """The check above can fail: Celery's eager apply() from a thread sets the flag for the whole process."""
    assert _flag_while_a_thread_runs(lambda: wait_for_the_test.delay()) is True

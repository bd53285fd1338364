"""gunicorn settings for the web processes (Dockerfile, docker-compose.yml, `python -m benchmarks judging`).

Threaded workers keep connections alive between an assessor's saves, which sync workers cannot; a few processes
with several threads each measured best on a 2-core machine (benchmarks/judging.py, issue 5 note). Scale
WEB_WORKERS with the cores.
"""

import gc
import os

bind = os.environ.get("WEB_BIND", "0.0.0.0:8000")
worker_class = "gthread"
workers = int(os.environ.get("WEB_WORKERS", "4"))
threads = int(os.environ.get("WEB_THREADS", "3"))
keepalive = 30  # seconds an idle assessor's connection stays open between saves
accesslog = os.environ.get("WEB_ACCESS_LOG") or None


def post_worker_init(worker):
    """Load every view and template tag now, then take all of it out of the garbage collector's sight: a full
    collection walking Django's 100,000 long-lived objects paused a request for 80 ms; frozen, it never does."""
    from django.urls import get_resolver

    _ = get_resolver().url_patterns  # imports every view module
    gc.freeze()

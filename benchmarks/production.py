"""The production stack the HTTP and browser benchmarks run against: the web server as shipped (config/serve.py),
DEBUG off, collected static files, and sessions made as a login through the form makes them."""

import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from config.patience import Deadline

ROOT = Path(__file__).resolve().parent.parent


def free_port(outside_ephemeral=False):
    """A port nothing is bound to. `outside_ephemeral`: one below the kernel's range for the local ends of outgoing
    connections, for a server stopped and started again on it (benchmarks faults): while it is down, a client
    retrying its connection can be given that very port as its own end, even connect to itself (TCP's simultaneous
    open), and the server could then not bind it again."""
    if outside_ephemeral:
        try:
            with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
                first = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            first = 32768  # (Linux's default)
        rng = random.Random()
        for port in rng.sample(range(max(1024, first - 12000), first), 200):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    continue
                return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def environment(broker, queue, **extra):
    """The server's environment: this process's SECRET_KEY (so it reads the sessions made here), production
    security except TLS (plain HTTP on localhost), rescoring requests on `queue` of `broker`, and `extra`."""
    from django.conf import settings

    return dict(
        os.environ,
        DEBUG="0",
        SECRET_KEY=settings.SECRET_KEY,
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="0",
        SESSION_COOKIE_SECURE="0",
        CSRF_COOKIE_SECURE="0",
        LOG_LEVEL="WARNING",
        CELERY_BROKER_URL=broker,
        CELERY_QUEUE=queue,
        CELERY_TASK_ALWAYS_EAGER="0",
        # hashed names and a manifest, as the Dockerfile makes them: pages render {% static %}
        STATIC_ROOT=os.environ.get("BENCH_STATIC_ROOT", str(ROOT / ".bench-staticfiles")),
        **extra,
    )


def start_server(env, port, options=(), log=None, root=ROOT):
    """collectstatic, then the web server as production runs it (`python -m config.serve`) on 127.0.0.1:`port`
    once it answers; `options` go after the bind address. `root`: the checkout to serve (another one for an A/B
    pair)."""
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=root, env=env, check=True)
    command = [sys.executable, "-m", "config.serve", "--bind", f"127.0.0.1:{port}", *options]
    # A checkout from before issue 32's switch (A/B pairs) is served as it was; gunicorn is then needed in the
    # environment (`pip install gunicorn`: no longer a dependency).
    if not (Path(root) / "config" / "serve.py").exists():
        command = [sys.executable, "-m", "gunicorn", "config.wsgi", "-c", "config/gunicorn.conf.py"]
        command += ["-b", f"127.0.0.1:{port}", "--log-level", "warning", *options]
    server = subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT if log else None)
    deadline = Deadline(60)  # (a quiet machine's seconds, stretched by the load)
    while not deadline.passed():
        if server.poll() is not None:
            raise RuntimeError(f"the web server exited with status {server.returncode}")
        if _answers(port):
            return server
        time.sleep(0.2)
    stop(server)
    raise RuntimeError("the web server did not start answering")


def _answers(port):
    """Whether a worker answers HTTP on the port (the server listens before its workers have loaded Django)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"HEAD /login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return s.recv(16).startswith(b"HTTP/1.1 ")
    except OSError:
        return False


def stop(server):
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()


def drop_queue(broker, queue):
    try:
        import redis

        redis.Redis.from_url(broker).delete(queue)
    except Exception as exc:  # a leftover queue of unconsumed rescoring messages is harmless
        print(f"could not delete the benchmark's Redis queue {queue}: {exc}", file=sys.stderr)


def session_for(user):
    """A session key for `user` as the login view would leave it, without paying for password hashing (the
    server is started with this process's SECRET_KEY so it can read it)."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "config.auth.Backend"  # what a login through the form records
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key


# The worker's command line in docker-compose.yml (its `worker` service), plus this run's queue and node name.
WORKER_COMMAND = ["-m", "celery", "-A", "config", "worker", "--loglevel=WARNING"]


def start_worker(env, queue, control, log=None, timeout=60.0, root=ROOT):
    """A Celery worker started as production starts it, consuming only `queue`, once it answers a ping sent
    through `control` (a Celery app on the same broker)."""
    node = f"{queue}@localhost"
    command = [sys.executable, *WORKER_COMMAND, "-Q", queue, "-n", node, "--without-gossip", "--without-mingle"]
    worker = subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT if log else None)
    from config.worker import await_ping

    return await_ping(worker, node, control, timeout, stop)

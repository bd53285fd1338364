"""benchmarks/faults.py's private servers: a port that survives their restart, and a start that knows it is theirs."""

import shutil
import socket
import threading

import pytest

from benchmarks import faults
from benchmarks.production import free_port


def _ephemeral_start():
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        return int(f.read().split()[0])


def test_a_server_restarted_on_its_port_gets_one_no_outgoing_connection_is_given():
    first = _ephemeral_start()
    ports = {free_port(outside_ephemeral=True) for _ in range(20)}
    assert all(1024 <= port < first for port in ports) and len(ports) > 1
    assert free_port() >= first  # (the plain one is the kernel's choice, from that range)


@pytest.mark.skipif(not shutil.which("redis-server"), reason="needs redis-server")
def test_a_redis_start_on_a_port_another_process_holds_fails_by_name():
    holder = socket.socket()
    holder.bind(("127.0.0.1", free_port(outside_ephemeral=True)))
    holder.listen()

    def answer_nothing():
        while True:
            try:
                conn, _ = holder.accept()
            except OSError:
                return
            conn.close()

    threading.Thread(target=answer_nothing, daemon=True).start()
    redis = faults.Redis()
    redis.port = holder.getsockname()[1]
    try:
        with pytest.raises(RuntimeError, match=f"redis-server did not start on port {redis.port}"):
            redis.start()
    finally:
        redis.stop()
        holder.close()

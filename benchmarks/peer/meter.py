"""CPU seconds of process groups over a benchmark's window (Linux, standard library only: it runs in the load
generator's own virtualenv).

A group is a process tree (a server's master, its workers, every thread: `Tree`) or the PostgreSQL backends of one
database (`Backends`: the postmaster's children titled "postgres: [CLUSTER: ]USER DB ..." or "... autovacuum
worker DB"; other databases' backends on the same server are not counted). A live task is read from
/proc/PID/task/TID/schedstat: nanoseconds run on a CPU, where /proc/PID/stat's utime/stime are 10 ms tick samples.
A task that exits in the window (a Label Studio request's backend, a connection Assay renews after CONN_MAX_AGE, a
thread) is counted from the kernel's taskstats exit report (netlink; the same nanoseconds), attributed to the
group of its own pid, of its process or of its parent the meter has seen; a backend that exits before a scan
saw its title is reported apart (`<group>?`). Where taskstats cannot be had (it needs CAP_NET_ADMIN), exited
children are read from their parents' reaped-children times instead (/proc/PID/stat cutime + cstime: ticks, and
for the postmaster every database's backends), and `exits` says which.
"""

import os
import socket
import struct
import threading
import time

TASKSTATS_FAMILY = b"TASKSTATS\0"
_NLMSG = struct.Struct("IHHII")  # netlink header: length, type, flags, sequence, port
_NLA = struct.Struct("HH")  # attribute header: length, type
# struct taskstats (linux/taskstats.h): cpu_run_virtual_total (= schedstat's first field), ac_pid, ac_ppid, ac_tgid
_RUN_NS, _PID, _PPID, _TGID = 72, 128, 132, 368


def schedstat_ns(tid):
    """Nanoseconds a task (a process's thread, the main one's id being the process's) has run, or None once it
    has gone."""
    try:
        with open(f"/proc/{tid}/task/{tid}/schedstat", "rb") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def reaped_ticks(pid):
    """cutime + cstime of a process (its reaped children's CPU), in clock ticks, or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return int(fields[13]) + int(fields[14])
    except (OSError, ValueError, IndexError):
        return None


def title_of(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return None


def backend_database(title):
    """(user, database) of a PostgreSQL backend's process title, ('', database) for an autovacuum worker, None
    for the postmaster's other processes, and "" while the title is still the postmaster's (just forked)."""
    if not title.startswith("postgres: "):
        return ""
    words = title[len("postgres: ") :].split()
    if words and words[0].endswith(":"):  # cluster_name ("15/main:")
        words = words[1:]
    if words[:2] == ["autovacuum", "worker"] and len(words) > 2:
        return "", words[2]
    if len(words) >= 3 and (words[2].endswith(")") or words[2] == "[local]"):  # USER DB HOST(PORT)|[local] ...
        return words[0], words[1]
    return None


def _children(pid):
    kids = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                kids += [int(k) for k in f.read().split()]
    except (OSError, ValueError):
        pass
    return kids


def _tids(pid):
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except (OSError, ValueError):
        return []


class Tree:
    def __init__(self, root):
        self.root = root


class Backends:
    def __init__(self, postmaster, user, database):
        self.postmaster, self.user, self.database = postmaster, user, database

    def owns(self, title):
        found = backend_database(title)
        return found and found[1] == self.database and found[0] in ("", self.user)


def _nla(kind, payload):
    size = _NLA.size + len(payload)
    return _NLA.pack(size, kind) + payload + b"\0" * (-size % 4)


def _attrs(buf):
    out: dict[int, list[bytes]] = {}
    i = 0
    while i + _NLA.size <= len(buf):
        size, kind = _NLA.unpack_from(buf, i)
        if size < _NLA.size:
            break
        out.setdefault(kind & 0x3FFF, []).append(buf[i + _NLA.size : i + size])
        i += (size + 3) & ~3
    return out


def _genl(family, cmd, attrs, seq):
    body = struct.pack("BBH", cmd, 1, 0) + attrs
    return _NLMSG.pack(_NLMSG.size + len(body), family, 0x1 | 0x4, seq, 0) + body  # NLM_F_REQUEST | NLM_F_ACK


def taskstats_socket():
    """A netlink socket registered for every CPU's task exit reports, or None where the kernel refuses."""
    try:
        ctl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)  # NETLINK_GENERIC
        with ctl:
            ctl.bind((0, 0))
            ctl.send(_genl(0x10, 3, _nla(2, TASKSTATS_FAMILY), 1))  # GENL_ID_CTRL, CTRL_CMD_GETFAMILY, name
            reply = ctl.recv(65536)
            family = struct.unpack("H", _attrs(reply[_NLMSG.size + 4 :])[1][0][:2])[0]
        sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        sock.settimeout(0.2)  # (so the listener sees the meter stop)
        sock.bind((0, 0))
        cpus = f"0-{(os.cpu_count() or 1) - 1}\0".encode()
        sock.send(_genl(family, 1, _nla(3, cpus), 2))  # TASKSTATS_CMD_GET, ATTR_REGISTER_CPUMASK
        ack = sock.recv(65536)
        if _NLMSG.unpack_from(ack)[1] == 2 and struct.unpack_from("i", ack, _NLMSG.size)[0] != 0:  # NLMSG_ERROR
            sock.close()
            return None
        return sock
    except (OSError, KeyError, IndexError, struct.error):
        return None


def exit_reports(data):
    """(tid, tgid, ppid, ns run) of each task exit in a netlink read."""
    i = 0
    while i + _NLMSG.size <= len(data):
        size, kind = _NLMSG.unpack_from(data, i)[:2]
        if size < _NLMSG.size:
            return
        if kind > 0x10:  # the taskstats family (not NLMSG_ERROR/DONE/control)
            for nest in _attrs(data[i + _NLMSG.size + 4 : i + size]).get(4, []):  # TASKSTATS_TYPE_AGGR_PID
                stats = _attrs(nest).get(3)  # TASKSTATS_TYPE_STATS
                if stats and len(stats[0]) >= _RUN_NS + 8:
                    s, tid = stats[0], struct.unpack_from("I", stats[0], _PID)[0]
                    yield (
                        tid,
                        struct.unpack_from("I", s, _TGID)[0] if len(s) >= _TGID + 4 else tid,  # (kernels before 5.x)
                        struct.unpack_from("I", s, _PPID)[0],
                        struct.unpack_from("Q", s, _RUN_NS)[0],
                    )
        i += (size + 3) & ~3


class Meter:
    """`with Meter({"web": Tree(pid), "postgres": Backends(pm, user, db)}) as m:` then `m.snapshot()` at the
    window's two ends: the differences are each group's CPU seconds in the window. `own_seconds()` is the meter's
    own threads (to take out of the process that runs it)."""

    SCAN_EVERY = 0.02  # a backend must live this long to be seen and attributed by its title
    TREE_EVERY = 0.5  # trees change rarely, and an unseen child's exit is attributed by its parent

    def __init__(self, groups, exits="taskstats"):
        self.groups = groups
        self.lock = threading.Lock()
        self.tasks = {}  # tid -> [group, ns last read]
        self.procs = {}  # pid -> group (tree processes and attributed backends)
        self.dead = dict.fromkeys(list(groups) + [f"{g}?" for g in groups], 0)  # ns of exited tasks
        self.seen_backend = {}  # postmaster child pid -> group, None (not ours) or "" (title not set yet)
        self.reaped0 = {}
        self.orphans = {}  # pid of a process not seen -> ns of its threads that exited before it
        self.overruns = 0
        self.sock = taskstats_socket() if exits == "taskstats" else None
        self.exits = "taskstats" if self.sock else "reaped"
        self.stop = threading.Event()
        self.threads = []

    def __enter__(self):
        self._scan(trees=True)
        if self.exits == "reaped":
            self.reaped0 = {pid: reaped_ticks(pid) or 0 for pid in self._reaping_parents()}
        self.threads = [threading.Thread(target=self._scanner, daemon=True)]
        if self.sock:
            self.threads.append(threading.Thread(target=self._listener, daemon=True))
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        if self.sock:
            self.sock.close()
        for t in self.threads:
            t.join(5)

    # --- discovery
    def _track(self, pid, group):
        self.procs[pid] = group
        for tid in _tids(pid):
            if tid not in self.tasks:
                ns = schedstat_ns(tid)
                if ns is not None:
                    self.tasks[tid] = [group, ns]

    def _scan(self, trees):
        with self.lock:
            for name, g in self.groups.items():
                if isinstance(g, Tree) and trees:
                    stack = [g.root]
                    while stack:
                        pid = stack.pop()
                        self._track(pid, name)
                        stack += _children(pid)
                elif isinstance(g, Backends):
                    children = _children(g.postmaster)
                    if self.exits == "reaped":  # (no exit reports to forget a pid by: forget it once it has gone)
                        self.seen_backend = {p: v for p, v in self.seen_backend.items() if p in children}
                    for pid in children:
                        if self.seen_backend.get(pid, "") != "":
                            continue
                        title = title_of(pid)
                        if title is None:
                            continue
                        words = title.split()
                        if "parallel worker for PID" in title and words[-1].isdigit():  # its leader's database
                            owned = self.procs.get(int(words[-1])) == name
                        else:
                            owned = g.owns(title)
                        self.seen_backend[pid] = name if owned else ("" if backend_database(title) == "" else None)
                        if owned:
                            self._track(pid, name)

    def _scanner(self):
        next_tree = time.monotonic() + self.TREE_EVERY
        while not self.stop.wait(self.SCAN_EVERY):
            trees = time.monotonic() >= next_tree
            self._scan(trees)
            if trees:
                next_tree = time.monotonic() + self.TREE_EVERY

    # --- exits
    def _listener(self):
        assert self.sock is not None
        while not self.stop.is_set():
            try:
                data = self.sock.recv(1 << 20)
            except TimeoutError:
                continue
            except OSError as e:
                if self.stop.is_set():
                    return
                if e.errno == 105:  # ENOBUFS: the kernel dropped reports (a burst of exits machine-wide)
                    self.overruns += 1
                    continue
                return
            with self.lock:
                for report in exit_reports(data):
                    self._exited(*report)

    def _exited(self, tid, tgid, ppid, ns):
        task = self.tasks.pop(tid, None)
        if task:
            self.dead[task[0]] += ns
            if tid == tgid:
                self.procs.pop(tid, None)
        elif tgid in self.procs:  # a thread that came and went between scans
            self.dead[self.procs[tgid]] += ns
        elif tid != tgid:  # a thread of a process not seen yet: its process's own report says whose it is
            self.orphans[tgid] = self.orphans.get(tgid, 0) + ns
        elif ppid in self.procs and isinstance(self.groups[self.procs[ppid]], Tree):
            self.dead[self.procs[ppid]] += ns + self.orphans.pop(tgid, 0)  # a short-lived child of a server process
        else:
            for name, g in self.groups.items():
                if isinstance(g, Backends) and ppid == g.postmaster and self.seen_backend.get(tid, "") == "":
                    self.dead[f"{name}?"] += ns  # a backend that ended before its title was seen
        self.seen_backend.pop(tid, None)
        if tid == tgid:
            self.orphans.pop(tgid, None)

    def _reaping_parents(self):
        return [g.postmaster if isinstance(g, Backends) else g.root for g in self.groups.values()] + [
            pid for pid, group in self.procs.items() if isinstance(self.groups[group], Tree)
        ]

    # --- readings
    def snapshot(self):
        """Seconds of CPU per group so far (and `<group>?` for unattributed backends)."""
        self._scan(trees=True)
        with self.lock:
            total = dict(self.dead)
            for tid, task in list(self.tasks.items()):
                ns = schedstat_ns(tid)
                if ns is not None:
                    task[1] = ns
                elif self.exits == "reaped":  # gone: its whole CPU is in its parent's reaped times now
                    del self.tasks[tid]
                    continue
                total[task[0]] += task[1]
            if self.exits == "reaped":
                tick = os.sysconf("SC_CLK_TCK")
                for name, g in self.groups.items():
                    parents = (
                        [g.postmaster] if isinstance(g, Backends) else [p for p, n in self.procs.items() if n == name]
                    )
                    for pid in parents:
                        now = reaped_ticks(pid)
                        if now is not None:
                            base = self.reaped0.setdefault(pid, now)
                            total[name] += (now - base) * 1e9 / tick
        return {k: v / 1e9 for k, v in total.items()}

    def own_seconds(self):
        return sum((schedstat_ns(t.native_id) or 0) for t in self.threads) / 1e9

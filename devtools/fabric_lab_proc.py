# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Processes and leftovers of a fabric lab (devtools/fabric_lab.py): which processes are
the lab's (a railsw by its EAL prefix, an FRR daemon or lldpd by its executable and
namespace), stopping them by PID (SIGTERM, a bounded wait, SIGKILL), and removing
everything `up` made: namespaces, EAL runtime directories no process uses, the state
directory's own files. Never anything else: a PID that was reused, a packaged daemon, a
file the lab did not make."""

import glob
import os
import shutil
import signal
import subprocess
import sys
import time

RUN_DPDK = "/var/run/dpdk"
DAEMONS = ("zebra", "bgpd", "bfdd", "staticd", "lldpd")


def log(msg):
    print(f"fabric-lab: {msg}", file=sys.stderr, flush=True)


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0")]
    except (OSError, ValueError):
        return []


def is_ours(pid, prefix):
    """Is pid a railsw of this lab with EAL prefix prefix?"""
    return bool(pid) and prefix in cmdline(pid)


def prefix_in_use(prefix):
    """Any process at all using EAL prefix prefix?"""
    for d in os.listdir("/proc"):
        if d.isdigit():
            args = cmdline(d)
            if prefix in args and "--file-prefix" in args:
                return True
    return False


def read_pid(path):
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def stop_pids(entries, check, tenths):
    """SIGTERM every (pid, key, name) of entries, wait up to tenths/10 s in all until
    check(pid, key) fails for each, then SIGKILL what is left. check tells this lab's
    process from anything that reused the PID: only those are signalled."""
    for pid, _, _ in entries:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
    for _ in range(tenths):
        if not any(check(pid, key) for pid, key, _ in entries):
            break
        time.sleep(0.1)
    for pid, key, name in entries:
        if check(pid, key):
            log(f"{name} (pid {pid}) ignored SIGTERM for {tenths // 10} s; killing it")
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def stop_switches(state, tag):
    """Stop every railsw named in the pid files of the state directory (15 s in all, then
    SIGKILL); only PIDs whose command line carries this lab's prefix."""
    entries = []
    for f in sorted(glob.glob(os.path.join(state, "*.pid"))):
        name = os.path.basename(f)[:-len(".pid")]
        pid = read_pid(f)
        if is_ours(pid, f"{tag}-{name}"):
            entries.append((pid, f"{tag}-{name}", name))
    stop_pids(entries, is_ours, 150)
    for pid, key, name in entries:
        for _ in range(50):
            if not is_ours(pid, key):
                break
            time.sleep(0.1)
        print(f"stopped {name} (pid {pid})", flush=True)
    for f in glob.glob(os.path.join(state, "*.pid")):
        os.unlink(f)


def sw_ns(tag, name):
    """A switch's kernel_interfaces namespace."""
    return f"{tag}-sw-{name}"


def is_our_daemon(tag):
    """check(pid, pidfile) for daemons started from STATE/{frr,lldp}/SWITCH/D.pid: an FRR
    daemon or lldpd (by its executable) in that switch's namespace (lldpd rewrites its
    command line, so the namespace is what tells it from the packaged service)."""
    def check(pid, pidfile):
        if not pid:
            return False
        try:
            exe = os.path.basename(os.readlink(f"/proc/{pid}/exe"))
            want = os.stat(f"/run/netns/{sw_ns(tag, os.path.basename(os.path.dirname(pidfile)))}")
            have = os.readlink(f"/proc/{pid}/ns/net")
        except OSError:
            return False
        return exe in DAEMONS and have == f"net:[{want.st_ino}]"
    return check


def stop_daemons(state, tag):
    """Stop the FRR daemons and lldpd instances of the state directory by their pid files
    (SIGTERM, up to 5 s, then SIGKILL); never anything else."""
    check = is_our_daemon(tag)
    entries = []
    for f in sorted(glob.glob(os.path.join(state, "frr", "*", "*.pid")) +
                    glob.glob(os.path.join(state, "lldp", "*", "lldpd.pid"))):
        pid = read_pid(f)
        if check(pid, f):
            entries.append((pid, f, f))
    stop_pids(entries, check, 50)


def lab_namespaces(tag):
    r = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False)
    names = [ln.split()[0] for ln in r.stdout.splitlines() if ln.strip()]
    return [n for n in names if n.startswith((f"{tag}-server", f"{tag}-sw-"))]


# Only the files `up` makes, so a mistyped RAILSW_LAB_STATE loses nothing else.
STATE_FILES = ("memif/*.sock", "memif/*.sock.admin-down", "*.sock", "*.yaml", "*.log", "*.tsv",
               "plan.json", "plan.txt", "tag", "topology", "design", "mode", "failover-*.json")


def remove_eal_dirs(pattern):
    """The EAL runtime directories /var/run/dpdk/PATTERN that no process uses (a killed
    railsw leaves its directory behind)."""
    for d in sorted(glob.glob(os.path.join(RUN_DPDK, pattern))):
        if not os.path.isdir(d):
            continue
        if prefix_in_use(os.path.basename(d)):
            log(f"{d} is still in use by a process; left alone")
        else:
            shutil.rmtree(d, ignore_errors=True)


def teardown(state, tag):
    os.makedirs(RUN_DPDK, exist_ok=True)
    if os.path.isdir(state):
        stop_daemons(state, tag)
        stop_switches(state, tag)
    for ns in lab_namespaces(tag):
        if subprocess.run(["ip", "netns", "del", ns], capture_output=True,
                          check=False).returncode != 0:
            log(f"could not delete namespace {ns}")
    remove_eal_dirs(f"{tag}-*")
    if not os.path.isdir(state):
        return
    for pat in STATE_FILES:
        for f in glob.glob(os.path.join(state, pat)):
            os.unlink(f)
    # The FRR and lldpd directories are the lab's (configs, pid files, sockets, logs).
    shutil.rmtree(os.path.join(state, "frr"), ignore_errors=True)
    shutil.rmtree(os.path.join(state, "lldp"), ignore_errors=True)
    for d in (os.path.join(state, "memif"), state):
        try:
            os.rmdir(d)
        except OSError:
            pass
    if os.path.isdir(state):
        left = " ".join(sorted(os.listdir(state))[:5])
        log(f"{state} holds files this script did not make ({left} ); left in place")


def spawn(args, out, new_session=True):
    """Start args in the background with its output appended to file out, no descriptor
    of ours but 0-2 open (the lab's processes outlive this one: they must not keep a lock
    such as `flock FILE fabric-lab.sh up`'s), in a session of its own (a Ctrl-C in the
    terminal does not reach it). Returns the Popen."""
    with open(out, "ab") as f:
        return subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                                close_fds=True, start_new_session=new_session)


def run_daemon(args, out):
    """Run a command that daemonises (zebra -d, lldpd): its output appended to out.
    Returns whether it exited 0."""
    with open(out, "ab") as f:
        return subprocess.run(args, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                              close_fds=True, check=False).returncode == 0


def wait_pidfile(path, what, seconds=10):
    """Wait until path names a live process; raise RuntimeError otherwise."""
    for _ in range(seconds * 10):
        pid = read_pid(path)
        if pid:
            try:
                os.kill(pid, 0)
                return pid
            except OSError:
                pass
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not start (no live pid in {path})")


def tail(path, n):
    """The last n lines of a log file ("" if there is none)."""
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


def cpu_ticks(pid):
    """utime + stime of pid, in clock ticks (None if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None


def zombie_or_gone(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def wait_answer(p, answers, seconds, step=0.1):
    """start: wait until answers() (a switch answering on its control socket) while the
    process p runs. Returns "up", "exited" or "timeout"."""
    deadline = time.monotonic() + seconds
    while True:
        if p.poll() is not None:
            return "exited"
        if answers():
            return "up"
        if time.monotonic() > deadline:
            return "timeout"
        time.sleep(step)


def ports_down(names, show_ports, want):
    """links: [(switch, port)] of the ports of the switches names that want(switch, port
    JSON) and whose link is down; show_ports(name) is its `show ports` JSON, or None when
    it did not answer: (name, "?")."""
    down = []
    for n in names:
        j = show_ports(n)
        if j is None:
            down.append((n, "?"))
            continue
        down += [(n, p["name"]) for p in j["ports"] if want(n, p) and not p["link_up"]]
    return down


def wait_links(names, show_ports, want, seconds):
    """links: ports_down(...) every 0.2 s until it is empty; returns what is still down
    after seconds (empty: all up)."""
    deadline = time.monotonic() + seconds
    while True:
        down = ports_down(names, show_ports, want)
        if not down or time.monotonic() > deadline:
            return down
        time.sleep(0.2)


def host_netns(ns, dev, mac, addr, gw, routes=(), sysctls=(), gw_mac=None):
    """hosts: one server NIC, the TAP dev, moved into namespace ns (made if it is not
    there yet: a server with several rails has one NIC per rail in it), with its own MAC
    (the TAP PMD gives the kernel side the switch port's), address addr (with its prefix),
    no IPv6 (the fabric is IPv4 and the counters stay quiet), up; a default route via gw
    unless ns has one (the first NIC's leaf), routes (subnets) via gw on dev, sysctls
    (NAME=VALUE) in ns, and with gw_mac a permanent neighbour entry for gw."""
    def ip(*a):
        subprocess.run(["ip"] + list(a), check=True)

    def sysctl(kv):
        subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", kv], check=True)
    if subprocess.run(["ip", "netns", "pids", ns], capture_output=True,
                      check=False).returncode != 0:
        ip("netns", "add", ns)
    ip("link", "set", dev, "netns", ns)
    ip("-n", ns, "link", "set", "lo", "up")
    ip("-n", ns, "link", "set", dev, "address", mac)
    sysctl(f"net.ipv6.conf.{dev}.disable_ipv6=1")
    for kv in sysctls:
        sysctl(kv)
    ip("-n", ns, "addr", "add", addr, "dev", dev)
    # A TAP reports link down to DPDK once moved, but still carries traffic.
    ip("-n", ns, "link", "set", dev, "up")
    if not subprocess.run(["ip", "-n", ns, "route", "show", "default"], capture_output=True,
                          text=True, check=True).stdout.strip():
        ip("-n", ns, "route", "add", "default", "via", gw)
    for net in routes:
        ip("-n", ns, "route", "add", net, "via", gw, "dev", dev)
    if gw_mac:
        ip("-n", ns, "neigh", "replace", gw, "lladdr", gw_mac, "dev", dev, "nud", "permanent")

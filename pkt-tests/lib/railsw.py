# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Helpers for the railsw packet tests.

Switch     starts railsw on TAP ports from a config (dict or YAML text), waits
           (bounded) until its control socket answers and its TAP interfaces
           exist, quiets the kernel side of each TAP (no IPv6, no addresses),
           talks to it through railctl, and stops it by PID.
Capture    AF_PACKET sockets opened on a set of interfaces *before* a test
           sends: every frame the switch transmits on those ports is kept and
           returned; nothing is filtered except the copies of frames the test
           itself sent (PACKET_OUTGOING on the sending interface).
Injector   sends raw frames on a TAP (the kernel side transmits them into the
           switch), as scapy's sendp does, one socket kept per interface.
no_mbuf_leak   a context manager: mbufs_in_use (show buffer) at rest after a block
           equals its value before (docs/reliability.md, "Mbuf accounting").
cleanup_stale  removes TAP interfaces, namespaces, DPDK runtime directories and
           railsw processes a killed earlier run of these tests left behind.

Names: every object a run creates carries the PID of the pytest process that
created it (TAPs rt<pid><switch letters><port index>, e.g. rt4242b0, at most
15 characters; EAL prefixes rswt-<pid>-<n>; namespaces rswt-<pid>-<name>), so
concurrent runs never touch each other's state, and a stale object is one
whose creator is gone.
"""

import contextlib
import errno
import json
import os
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 0x10
TP_STATUS_VLAN_TPID_VALID = 0x40
RUN_DPDK = "/var/run/dpdk"
STATE_DIR = "/tmp/railsw-pkt-tests"  # pidfiles of the railsw processes we start

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

class SwitchError(Exception):
    """railsw did not start, answer or stop as it should."""


def run(cmd, timeout=20, check=True, **kw):
    """Run a command with a timeout; return the CompletedProcess."""
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=check, **kw)


def sh(cmd, timeout=20, check=True):
    """Run a shell command line with a timeout."""
    return run(["bash", "-c", cmd], timeout=timeout, check=check)


def free_tcp_port():
    """A TCP port on 127.0.0.1 that nothing listens on now (for metrics_listen)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def telemetry(sw, cmd, timeout=5):
    """One command over sw's DPDK telemetry socket (SOCK_SEQPACKET); the parsed reply's
    value."""
    path = os.path.join(RUN_DPDK, sw.prefix, "dpdk_telemetry.v2")
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
        s.settimeout(timeout)
        s.connect(path)
        info = json.loads(s.recv(1024))
        s.send(cmd.encode())
        reply = json.loads(s.recv(info["max_output_len"]))
    return reply[cmd.split(",")[0]]


def wait_until(cond, timeout, interval=0.05, what="condition"):
    """Poll cond() until it returns a true value or timeout seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise TimeoutError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def link_exists(name, netns=None):
    if netns is None:
        return os.path.exists(f"/sys/class/net/{name}")
    return run(["ip", "-n", netns, "link", "show", name], check=False).returncode == 0


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def quiet_link(name, netns=None):
    """Make the kernel side of a TAP silent and up: no IPv6 (no ND, MLD, RS),
    no IPv4 address (no ARP), so only what a test sends reaches the switch."""
    prefix = ["ip", "netns", "exec", netns] if netns else []
    run(prefix + ["sysctl", "-q", "-w", f"net.ipv6.conf.{name}.disable_ipv6=1"])
    run(prefix + ["ip", "link", "set", name, "up"])


def iface_mac(name):
    with open(f"/sys/class/net/{name}/address") as f:
        return f.read().strip()


TAP_RE = r"rt(\d+)[a-zA-Z]+\d+$"


def test_workers():
    """Workers the switches of this run get by default (RAILSW_TEST_WORKERS, else 1)."""
    return max(1, int(os.environ.get("RAILSW_TEST_WORKERS", "0") or 0))


def tap_name(seq, index):
    """The TAP of port `index` of this run's switch number `seq` (>= 1):
    rt<pid><seq as letters a, b, .., z, aa, ..><index>."""
    letters = ""
    while seq > 0:
        seq, r = divmod(seq - 1, 26)
        letters = chr(ord("a") + r) + letters
    name = f"rt{os.getpid()}{letters}{index}"
    assert len(name) <= 15, name
    return name


def port_name_of(devargs):
    m = re.search(r"iface=([^,]+)", devargs)
    return m.group(1) if m else None


# --------------------------------------------------------------------------
# Stale state


def _stale_owner(name, regex):
    m = re.match(regex, name)
    if not m:
        return None
    pid = int(m.group(1))
    return None if pid_alive(pid) else pid


def cleanup_stale():
    """Remove what a killed earlier run of these tests (a pytest process that
    no longer exists) left: railsw processes it started (by PID, after checking
    their command line carries its EAL prefix), TAP interfaces, namespaces,
    /var/run/dpdk/rswt-* directories and temporary directories."""
    os.makedirs(STATE_DIR, exist_ok=True)
    for entry in os.listdir(STATE_DIR):
        m = re.match(r"(rswt-(\d+)-\d+)\.pid$", entry)
        if not m:
            continue
        prefix, owner = m.group(1), int(m.group(2))
        path = os.path.join(STATE_DIR, entry)
        if pid_alive(owner):
            continue
        try:
            pid = int(open(path).read().strip())
            cmdline = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            if prefix.encode() in cmdline:
                os.kill(pid, signal.SIGKILL)
                wait_until(lambda: not pid_alive(pid), 5, what=f"stale railsw {pid} to exit")
        except (OSError, ValueError, TimeoutError):
            pass
        try:
            os.unlink(path)
        except OSError:
            pass
    for name in os.listdir("/sys/class/net"):
        if _stale_owner(name, TAP_RE):
            run(["ip", "link", "del", name], check=False)
    netns = run(["ip", "netns", "list"], check=False).stdout.split("\n")
    for line in netns:
        name = line.split(" ")[0]
        if _stale_owner(name, r"rswt-(\d+)-"):
            run(["ip", "netns", "del", name], check=False)
    if os.path.isdir(RUN_DPDK):
        for name in os.listdir(RUN_DPDK):
            if _stale_owner(name, r"rswt-(\d+)-\d+$"):
                shutil.rmtree(os.path.join(RUN_DPDK, name), ignore_errors=True)
    tmp = tempfile.gettempdir()
    for name in os.listdir(tmp):
        if _stale_owner(name, r"rswt-(\d+)-\d+"):
            shutil.rmtree(os.path.join(tmp, name), ignore_errors=True)


# --------------------------------------------------------------------------
# Config


def _yaml_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    s = str(v)
    return json.dumps(s)  # a double-quoted YAML scalar


def to_yaml(obj, indent=0):
    """Block-style YAML of dicts, lists and scalars (strings double-quoted),
    with no dependency beyond the standard library."""
    pad = " " * indent
    lines = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(v, (dict, list)) and v:
                lines.append(f"{pad}{k}:")
                lines.append(to_yaml(v, indent + 2))
            elif isinstance(v, dict):
                lines.append(f"{pad}{k}: {{}}")
            elif isinstance(v, list):
                lines.append(f"{pad}{k}: []")
            else:
                lines.append(f"{pad}{k}: {_yaml_scalar(v)}")
    elif isinstance(obj, list):
        for item in obj:
            if isinstance(item, dict) and item:
                sub = to_yaml(item, indent + 2).split("\n")
                lines.append(f"{pad}- " + sub[0].lstrip())
                lines.extend(sub[1:])
            elif isinstance(item, list):
                lines.append(f"{pad}- [" + ", ".join(_yaml_scalar(x) for x in item) + "]")
            else:
                lines.append(f"{pad}- {_yaml_scalar(item)}")
    else:
        lines.append(pad + _yaml_scalar(obj))
    return "\n".join(lines)


# --------------------------------------------------------------------------
# Switch


class Switch:
    """One railsw process on TAP ports (and any other port kind given by devargs).

    config: a dict in docs/config.md's schema, or YAML text. With a dict, the
    switch name and control socket are filled in when absent, and ports may be
    given as {"name": ..., "ipv4": ...} without devargs: a TAP named
    tap_name(switch number, n) is created for the n-th port (Switch.tap[name] gives the
    interface name, Switch.mac[name] the port MAC). A port given with other devargs
    (net_memif, net_vhost, net_af_xdp, ...) is used as is; its Switch.tap entry is None.
    """

    _seq = 0
    live = []  # started switches not yet stopped, in start order (conftest checks them)

    def __init__(self, build, config, lcores="0,1", mem=1024, start=True, extra_eal=(),
                 huge_dir=None):
        Switch._seq += 1
        self.build = build
        self.prefix = f"rswt-{os.getpid()}-{Switch._seq}"
        self.tmp = tempfile.mkdtemp(prefix=self.prefix + ".")
        self.sock = os.path.join(self.tmp, "ctl.sock")
        self.conf = os.path.join(self.tmp, "railsw.yaml")
        self.log = os.path.join(self.tmp, "railsw.log")
        self.lcores = lcores
        self.mem = mem
        self.extra_eal = list(extra_eal)
        self.huge_dir = huge_dir  # a hugetlbfs mount: run on hugepages instead of --no-huge
        self.proc = None
        self.logf = None
        self._tables = None  # `describe` of this switch, asked once
        # Why this switch's frames need not add up (assert_conserved), or None: they must.
        self.unconserved = None
        self.tap = {}
        self.mac = {}
        self.netns = {}  # TAP name -> namespace it was moved into
        if isinstance(config, dict):
            config = self._complete(config)
            text = to_yaml(config) + "\n"
        else:
            text = config
        self.config = config
        with open(self.conf, "w") as f:
            f.write(text)
        if isinstance(config, dict):
            for i, p in enumerate(config.get("ports", [])):
                # Only TAP ports have a kernel interface railsw creates; the iface= of
                # net_af_xdp (an existing interface) or net_vhost (a socket path) is not one.
                is_tap = p["devargs"].startswith("net_tap")
                self.tap[p["name"]] = port_name_of(p["devargs"]) if is_tap else None
                if "mac" in p:
                    self.mac[p["name"]] = p["mac"].lower()
        if start:
            self.start()

    def _complete(self, config):
        config = json.loads(json.dumps(config))  # deep copy
        sw = config.setdefault("switch", {})
        sw.setdefault("name", f"t{os.getpid()}-{Switch._seq}")
        sw.setdefault("idle_sleep_us", 10)
        ctl = config.setdefault("control", {})
        ctl.setdefault("socket", self.sock)
        self.sock = ctl["socket"]
        for i, p in enumerate(config.get("ports", [])):
            if "devargs" not in p:
                p["devargs"] = f"net_tap{i},iface={tap_name(Switch._seq, i)}"
            if "mac" not in p:
                p["mac"] = f"02:00:00:00:{Switch._seq % 256:02x}:{i + 1:02x}"
        return config

    # -- process

    def lcore_args(self):
        """EAL lcore arguments: self.lcores, or with RAILSW_TEST_WORKERS=N (and the default
        "0,1") N workers and the control thread on lcores 0..N, spread over the CPUs this
        process may use (lcore i on the (i mod CPUs)-th): several workers share a CPU, so
        frames cross workers both ways even on a two-CPU machine."""
        n = test_workers()
        if n <= 1 or self.lcores != "0,1":
            # "0,1": a core list; "0@0,1@1,2@0": lcores on CPUs (more lcores than CPUs)
            return ["--lcores" if "@" in self.lcores else "-l", self.lcores]
        cpus = sorted(os.sched_getaffinity(0))
        spec = ",".join(f"{i}@{cpus[i % len(cpus)]}" for i in range(n + 1))
        return ["--lcores", spec, "--main-lcore", str(n)]

    def cmdline(self):
        huge = ["--huge-dir", self.huge_dir] if self.huge_dir else ["--no-huge"]
        eal = self.lcore_args() + huge + ["-m", str(self.mem), "--file-prefix", self.prefix]
        return [os.path.join(self.build, "control", "railsw")] + eal + self.extra_eal + [
            "--", "-c", self.conf]

    def start(self, timeout=30):
        """Start railsw; return when the socket answers `show ports` and every
        TAP exists, is up and has IPv6 disabled. Counters are cleared last."""
        cleanup_stale()
        for name in self.tap.values():
            if name and link_exists(name):
                raise SwitchError(f"interface {name} already exists")
        self.logf = open(self.log, "w")
        self.proc = subprocess.Popen(self.cmdline(), stdout=self.logf, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        with open(os.path.join(STATE_DIR, self.prefix + ".pid"), "w") as f:
            f.write(str(self.proc.pid))

        def ready():
            if self.proc.poll() is not None:
                raise SwitchError(f"railsw exited with {self.proc.returncode} during start-up\n"
                                  + self.log_tail())
            if not os.path.exists(self.sock):
                return False
            if not all(link_exists(n) for n in self.tap.values() if n):
                return False
            return self.ctl_raw("show", "ports").returncode == 0

        try:
            wait_until(ready, timeout, interval=0.1, what="railsw to start")
        except TimeoutError as e:
            self.kill()
            raise SwitchError(f"{e}\n{self.log_tail()}") from None
        for name in self.tap.values():
            if name:
                quiet_link(name)
        self.ctl("clear", "counters")
        Switch.live.append(self)
        return self

    def log_tail(self, n=40):
        try:
            with open(self.log, errors="replace") as f:
                lines = f.readlines()
        except OSError:
            return ""
        return "--- railsw log (last lines) ---\n" + "".join(lines[-n:])

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, sig=signal.SIGTERM, timeout=15):
        """Signal railsw by PID and wait (bounded); SIGKILL if it hangs.
        Returns the exit code. Raises SwitchError if it did not exit 0 or left
        its socket file behind."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                raise SwitchError(f"railsw did not exit within {timeout}s of {sig.name}; killed\n"
                                  + self.log_tail())
        rc = self.proc.returncode
        self._forget()
        if rc != 0:
            raise SwitchError(f"railsw exited with {rc} after {sig.name}\n" + self.log_tail())
        if os.path.exists(self.sock):
            raise SwitchError(f"railsw exited but left its socket {self.sock}")
        return rc

    def kill(self):
        """SIGKILL by PID (no checks): for cleanup after a failure."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        self._forget()

    def _forget(self):
        if self in Switch.live:
            Switch.live.remove(self)
        if self.logf:
            self.logf.close()
            self.logf = None
        try:
            os.unlink(os.path.join(STATE_DIR, self.prefix + ".pid"))
        except OSError:
            pass
        shutil.rmtree(os.path.join(RUN_DPDK, self.prefix), ignore_errors=True)

    def cleanup(self):
        """Kill if still running, remove namespaces we made and the tmp dir."""
        self.kill()
        for ns in set(self.netns.values()):
            run(["ip", "netns", "del", ns], check=False)
        self.netns.clear()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- railctl

    def ctl_raw(self, *words, json_out=True, timeout=10):
        cmd = [os.path.join(self.build, "control", "railctl"), "-s", self.sock]
        if json_out:
            cmd.append("--json")
        return run(cmd + list(words), timeout=timeout, check=False)

    def ctl(self, *words):
        """railctl --json WORDS; the parsed reply. Fails on a non-zero exit."""
        r = self.ctl_raw(*words)
        if r.returncode != 0:
            raise SwitchError(f"railctl {' '.join(words)} exited {r.returncode}: "
                              f"{r.stdout.strip()} {r.stderr.strip()}")
        try:
            return json.loads(r.stdout)
        except ValueError as e:
            raise SwitchError(f"railctl {' '.join(words)}: not JSON ({e}): {r.stdout!r}") from None

    def request(self, line, timeout=5):
        """Send one raw line to the control socket; return the reply line
        (bytes, without the newline)."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(self.sock)
            s.sendall(line if isinstance(line, bytes) else line.encode())
            buf = b""
            while not buf.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
            return buf.rstrip(b"\n")

    # -- table definitions (`describe`): the field lists come from the switch itself

    def describe(self):
        """The tables of `railctl --json describe` ([{"command", "key", "fields"}]), asked
        once per Switch."""
        if self._tables is None:
            self._tables = self.ctl("describe")["tables"]
        return self._tables

    def fields(self, command, key, kind=None):
        """Names of the fields of table (command, key) that `describe` lists, in order;
        only those of kind (counter, gauge, label, state) when given."""
        for t in self.describe():
            if t["command"] == command and t["key"] == key:
                return [f["name"] for f in t["fields"] if kind is None or f["kind"] == kind]
        raise SwitchError(f"describe lists no table {command!r} key {key!r}")

    def port_counter_names(self):
        """The counters of `show ports`: all zeroed by `clear counters`."""
        return self.fields("show ports", "ports", kind="counter")

    def ports(self):
        return {p["name"]: p for p in self.ctl("show", "ports")["ports"]}

    def port_counters(self, name):
        return self.ports()[name]

    def counters(self):
        """{port: {counter: value}} for every port."""
        names = self.port_counter_names()
        return {n: {k: p.get(k, 0) for k in names} for n, p in self.ports().items()}

    def neighbors(self):
        return self.ctl("show", "neighbors")["neighbors"]

    # -- mbuf accounting (`show buffer`: mbufs_in_use, mbufs_total)

    def mbufs(self):
        """(mbufs_in_use, mbufs_total) of the switch's mempool. In use counts
        mbufs out of the pool: posted to rx descriptors, queued, in flight;
        per-lcore caches count as free."""
        b = self.ctl("show", "buffer")["buffer"]
        return b["mbufs_in_use"], b["mbufs_total"]

    def mbufs_in_use(self):
        return self.mbufs()[0]

    def settled_mbufs(self, timeout=10, stable=0.5, interval=0.05):
        """The in-use count once the switch is at rest: the shared buffer is
        empty and the count has not changed for `stable` seconds (bounded by
        `timeout`; raises TimeoutError naming the last values)."""
        state = {"value": None, "since": 0.0, "used": None}

        def settled():
            b = self.ctl("show", "buffer")["buffer"]
            now = time.monotonic()
            state["used"] = b["used"]
            if b["used"] != 0 or b["mbufs_in_use"] != state["value"]:
                state["value"], state["since"] = b["mbufs_in_use"], now
                return False
            return now - state["since"] >= stable

        try:
            wait_until(settled, timeout, interval=interval, what="the mbuf count to settle")
        except TimeoutError:
            raise TimeoutError(f"mbufs_in_use did not settle within {timeout}s (last "
                               f"{state['value']}, buffer used {state['used']})") from None
        return state["value"]


    # -- namespaces

    def move_to_netns(self, port, ns, addr=None, gw=None, gw6=None, addr6=None, mac=None):
        """Move a port's TAP into namespace ns (created if missing), bring lo
        and the TAP up, optionally set its MAC (the TAP PMD gives the kernel
        side the port's own MAC), addresses and default routes. A TAP reports
        link down to DPDK once moved, but still carries traffic."""
        name = self.tap[port]
        if run(["ip", "netns", "pid", ns], check=False).returncode != 0 and \
                ns not in run(["ip", "netns", "list"]).stdout.split():
            run(["ip", "netns", "add", ns])
        self.netns[name] = ns
        run(["ip", "link", "set", name, "netns", ns])
        x = ["ip", "netns", "exec", ns]
        run(x + ["ip", "link", "set", "lo", "up"])
        if mac:
            run(x + ["ip", "link", "set", name, "address", mac])
        if addr6 is None:
            run(x + ["sysctl", "-q", "-w", f"net.ipv6.conf.{name}.disable_ipv6=1"])
        if addr:
            run(x + ["ip", "addr", "add", addr, "dev", name])
        if addr6:
            run(x + ["ip", "-6", "addr", "add", addr6, "dev", name, "nodad"])
        run(x + ["ip", "link", "set", name, "up"])
        if gw:
            run(x + ["ip", "route", "add", "default", "via", gw])
        if gw6:
            run(x + ["ip", "-6", "route", "add", "default", "via", gw6])


@contextlib.contextmanager
def no_mbuf_leak(sw, what="scenario", timeout=10, stable=0.5):
    """Check that the block returns every mbuf it made the switch take.

    Before: wait until the switch is at rest (Switch.settled_mbufs) and note
    mbufs_in_use. After the block (only when it did not raise): poll, bounded
    by `timeout`, until the count is back to that value with the buffer empty,
    and stays there for `stable` seconds. More in use = a leak; fewer = a
    double free (an mbuf returned twice, so the pool hands it out twice).
    Yields the before value."""
    before = sw.settled_mbufs(timeout=timeout, stable=stable)
    yield before
    last = {}

    def back():
        b = sw.ctl("show", "buffer")["buffer"]
        last.update(b)
        return b["used"] == 0 and b["mbufs_in_use"] == before

    try:
        wait_until(back, timeout, interval=0.05, what="mbufs_in_use to return")
        after = sw.settled_mbufs(timeout=timeout, stable=stable)
    except TimeoutError:
        after = last.get("mbufs_in_use")
    if after != before:
        kind = "leaked" if after > before else "double-freed (returned twice)"
        raise AssertionError(
            f"{what}: mbufs_in_use {before} before, {after} after (buffer used "
            f"{last.get('used')}): {abs(after - before)} mbufs {kind}")


def conservation(totals, drops):
    """What is wrong with the `show drops` totals, or "" when they add up:
    received = forwarded + consumed + queued + dropped, dropped = the sum of the reasons."""
    t = totals
    wrong = []
    out = t["forwarded"] + t["consumed"] + t["queued"] + t["dropped"]
    if t["received"] != out:
        wrong.append(f"received {t['received']} != forwarded {t['forwarded']} + consumed "
                     f"{t['consumed']} + queued {t['queued']} + dropped {t['dropped']} "
                     f"(= {out}, off by {t['received'] - out:+d})")
    reasons = sum(d["packets"] for d in drops)
    if t["dropped"] != reasons:
        wrong.append(f"dropped {t['dropped']} != sum of the drop reasons {reasons}")
    return "; ".join(wrong)


def assert_conserved(sw, timeout=5.0, interval=0.02):
    """Every frame sw received is accounted for (docs/cli.md, `show drops`): wait (at most
    timeout seconds) until two reads in a row of `show drops` are the same and its totals add
    up; raise AssertionError naming the counters otherwise."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        reply = json.loads(sw.request("show drops\n"))  # the socket itself: after every test
        t = reply["totals"]
        wrong = conservation(t, reply["drops"])
        # Settled: the rule's terms unchanged (`originated` is not one of them: a switch may
        # keep making frames, LLR's INIT to a silent peer, while nothing arrives).
        now = (dict(t, originated=None), reply["drops"])
        if not wrong and now == last:
            return t
        last = now
        if time.monotonic() > deadline:
            moved = {d["reason"]: d["packets"] for d in reply["drops"] if d["packets"]}
            raise AssertionError(f"{sw.prefix}: frames do not add up after {timeout}s: "
                                 f"{wrong or 'counters still moving'}; totals {t}; "
                                 f"drops {moved}")
        time.sleep(interval)


def lab_netns(name):
    """A namespace name owned by this test run."""
    return f"rswt-{os.getpid()}-{name}"


# --------------------------------------------------------------------------
# Raw frames in and out


class Injector:
    """Send raw frames on interfaces (the kernel transmits them into the
    switch), one AF_PACKET socket per interface, like scapy's sendp."""

    def __init__(self):
        self.socks = {}

    def send(self, iface, frames):
        if not isinstance(frames, (list, tuple)):
            frames = [frames]
        s = self.socks.get(iface)
        if s is None:
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            s.bind((iface, 0))
            self.socks[iface] = s
        for fr in frames:
            data = bytes(fr)
            for attempt in range(100):
                try:
                    s.send(data)
                    break
                except OSError as e:  # the TAP queue is full: let the switch drain it
                    if e.errno not in (errno.ENOBUFS, errno.EAGAIN):
                        raise
                    time.sleep(0.01)
            else:
                raise OSError(errno.ENOBUFS, f"could not send on {iface}")

    def close(self):
        for s in self.socks.values():
            s.close()
        self.socks.clear()


def _restore_vlan(data, ancdata):
    """Put back the 802.1Q tag the kernel stripped into tpacket_auxdata."""
    for level, kind, aux in ancdata:
        if level != SOL_PACKET or kind != PACKET_AUXDATA or len(aux) < 20:
            continue
        status, _, _, _, _, tci, tpid = struct.unpack("=IIIHHHH", aux[:20])
        if status & TP_STATUS_VLAN_VALID:
            if not status & TP_STATUS_VLAN_TPID_VALID:
                tpid = 0x8100
            return data[:12] + struct.pack("!HH", tpid, tci) + data[12:]
    return data


class Capture:
    """Capture what the switch transmits on interfaces.

    Sockets are bound when the Capture is created (use it as a context manager
    before sending), so no frame can be missed. collect() returns a list of
    (iface, bytes) in arrival order. Only frames this host itself sent on the
    interface (PACKET_OUTGOING: the test's own injected frames) are left out;
    everything the switch transmits is returned, whatever it is.
    """

    def __init__(self, ifaces, rcvbuf=16 << 20):
        self.socks = {}
        for iface in ifaces:
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            try:
                s.setsockopt(socket.SOL_SOCKET, 33, rcvbuf)  # SO_RCVBUFFORCE (root)
            except OSError:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            # The kernel moves a received 802.1Q tag out of the frame into
            # metadata; PACKET_AUXDATA hands it back so it can be put back.
            s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
            s.bind((iface, 0))
            s.setblocking(False)
            self.socks[s.fileno()] = (iface, s)
        self.frames = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        for _, s in self.socks.values():
            s.close()
        self.socks = {}

    def _drain(self, wait):
        got = 0
        r, _, _ = select.select(list(self.socks), [], [], wait)
        for fd in r:
            iface, s = self.socks[fd]
            while True:
                try:
                    data, anc, _, addr = s.recvmsg(65535, socket.CMSG_SPACE(20))
                except BlockingIOError:
                    break
                if addr[2] == PACKET_OUTGOING:
                    continue
                data = _restore_vlan(data, anc)
                self.frames.append((iface, data))
                got += 1
        return got

    def collect(self, count=None, timeout=2.0, quiet=0.3, match=None):
        """Gather frames until `count` frames (that satisfy match(iface, data),
        when given) arrived and no more came for `quiet` seconds, or until
        `timeout` seconds passed. With count=None, gather for the whole
        timeout (to prove that nothing comes out). Returns all frames seen."""
        deadline = time.monotonic() + timeout
        last = time.monotonic()
        while True:
            now = time.monotonic()
            if now >= deadline:
                break
            n = len(self.frames if match is None else
                    [f for f in self.frames if match(*f)])
            if count is not None and n >= count and now - last >= quiet:
                break
            if self._drain(min(0.05, deadline - now)):
                last = time.monotonic()
        return list(self.frames)

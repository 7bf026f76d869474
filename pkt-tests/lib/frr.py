# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""FRR daemons of a test's own: zebra (with dplane_fpm_nl towards railsw when asked) and
bgpd in a network namespace, each with its config, pid file, zserv socket and vty sockets in
a directory of its own; stopped by their pids only, never the packaged frr service.

Also the switch those tests put in front of them (kif_switch), the leftovers of their killed
runs (clean_stale_netns), a lab fixture's frame (frr_lab) and a route by source (bgp_route).

Used by pkt-tests/test_bgp.py and test_unnum_frr.py; free_port, start_daemon and daemon_pid
also by test_fpm_frr.py, free_port by perf/fpm_rate.py."""

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import tempfile
import time

import railsw
import topo

ZEBRA = "/usr/lib/frr/zebra"
BGPD = "/usr/lib/frr/bgpd"
STATICD = "/usr/lib/frr/staticd"
VTYSH = "/usr/bin/vtysh"
MODULE = "/usr/lib/x86_64-linux-gnu/frr/modules/dplane_fpm_nl.so"


def have_bgp():
    """Whether zebra, bgpd, vtysh and dplane_fpm_nl are installed."""
    return (all(os.access(x, os.X_OK) for x in (ZEBRA, BGPD, VTYSH)) and
            os.path.exists(MODULE))


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def clean_stale_netns(prefix):
    """Namespaces PREFIX + k|r + a pid, of earlier runs whose process is gone."""
    out = railsw.run(["ip", "netns", "list"], check=False).stdout
    for m in re.finditer(rf"^({re.escape(prefix)}[kr](\d+))", out, re.M):
        if not railsw.pid_alive(int(m.group(2))):
            railsw.run(["ip", "netns", "del", m.group(1)], check=False)


def kif_switch(build, kns):
    """topo.three_ports with kernel interfaces in namespace kns (TC 6) and an FPM listener on
    a free port (stale_s 3), not started: (switch, FPM port). kns is made first, with IPv6
    duplicate address detection off: the kernel side of each DPDK TAP starts with its port's
    MAC, as the kernel interface does, and says so by DAD (the same EUI-64 link-local address)
    until the test gives it its own MAC; a DAD race lost by the kernel interface left a port
    without a link-local address, and an unnumbered session Idle (docs/routing.md)."""
    fpm_port = free_port()
    cfg = topo.three_ports(control={
        "kernel_interfaces": {"netns": kns, "tc": 6},
        "fpm": {"listen": f"127.0.0.1:{fpm_port}", "stale_s": 3}})
    sw = railsw.Switch(build, cfg, start=False)
    railsw.run(["ip", "netns", "add", kns], check=False)
    for k in ("all", "default"):
        railsw.sh(f"ip netns exec {kns} sysctl -q -w net.ipv6.conf.{k}.accept_dad=0")
    return sw, fpm_port


def bgp_route(sw, prefix):
    """The route to prefix that sw has from source bgp, or None."""
    rs = [r for r in sw.ctl("show", "routes")["routes"]
          if r["prefix"] == prefix and r["source"] == "bgp"]
    return rs[0] if rs else None


def start_daemon(ns, d, exe, name, extra=()):
    """FRR daemon exe in namespace ns, daemonized, its config d/NAME.conf, pid file d/NAME.pid
    (a stale one removed first), zserv socket and vty sockets in d; returns once the pid file
    is there."""
    pidf = os.path.join(d, f"{name}.pid")
    if os.path.exists(pidf):
        os.unlink(pidf)
    railsw.run(["ip", "netns", "exec", ns, exe, "-d", *extra,
                "-f", os.path.join(d, f"{name}.conf"), "-i", pidf,
                "-z", os.path.join(d, "zserv.api"), "--vty_socket", d,
                "-P", "0", "-u", "frr", "-g", "frr"])
    railsw.wait_until(lambda: os.path.exists(pidf), 10, what=f"{name} pid file")


def daemon_pid(d, name):
    """The pid in d/NAME.pid, or None."""
    try:
        with open(os.path.join(d, f"{name}.pid")) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


@contextlib.contextmanager
def frr_lab(build, prefix):
    """The frame of a lab fixture: namespaces PREFIX + k|r + a pid that killed runs left
    removed, a kif_switch with its kernel interfaces in PREFIX + k + pid, started; yields (sw,
    FPM port, kernel namespace, router namespace, frrs). The caller makes the router namespace
    and appends each Frr it makes to frrs; on the way out they are stopped (the last made
    first), the switch stopped and cleaned up, and both namespaces deleted."""
    clean_stale_netns(prefix)
    kns, rns = f"{prefix}k{os.getpid()}", f"{prefix}r{os.getpid()}"
    frrs = []
    sw, fpm_port = kif_switch(build, kns)
    try:
        sw.start()
        yield sw, fpm_port, kns, rns, frrs
        sw.stop()
    finally:
        for f in reversed(frrs):
            f.stop()
        sw.cleanup()
        for ns in (rns, kns):
            railsw.run(["ip", "netns", "del", ns], check=False)


class Frr:
    """zebra (+ FPM to 127.0.0.1:fpm_port when given, + zebra_extra lines) and bgpd in
    namespace ns, files in a directory of their own, stopped by their pids only."""

    def __init__(self, ns, bgpd_conf, fpm_port=None, zebra_extra=""):
        self.ns = ns
        self.d = tempfile.mkdtemp(prefix=f"{ns}.")
        shutil.chown(self.d, "frr", "frr")
        zebra = "hostname z\n"
        if fpm_port:
            zebra += f"fpm address 127.0.0.1 port {fpm_port}\nno fpm use-next-hop-groups\n"
        zebra += zebra_extra
        for name, text in (("zebra", zebra), ("bgpd", bgpd_conf)):
            path = os.path.join(self.d, f"{name}.conf")
            with open(path, "w") as f:
                f.write(text)
            shutil.chown(path, "frr", "frr")
        self.fpm = fpm_port is not None

    def start(self):
        start_daemon(self.ns, self.d, ZEBRA, "zebra", ("-M", "dplane_fpm_nl") if self.fpm else ())
        time.sleep(0.3)
        start_daemon(self.ns, self.d, BGPD, "bgpd", ("-p", "179"))

    def vtysh(self, *cmds):
        args = [VTYSH, "--vty_socket", self.d]
        for c in cmds:
            args += ["-c", c]
        return railsw.run(["ip", "netns", "exec", self.ns] + args, check=False).stdout

    def peers(self):
        """{peer: (state, connections established)} of both address families."""
        out = {}
        for af in ("ipv4", "ipv6"):
            try:
                js = json.loads(self.vtysh(f"show bgp {af} unicast summary json") or "{}")
            except ValueError:
                continue
            for peer, st in js.get("peers", {}).items():
                out[f"{af} {peer}"] = (st.get("state"),
                                       (st.get("connectionsEstablished", 0),
                                        st.get("connectionsDropped", 0)))
        return out

    def pid(self, name):
        return daemon_pid(self.d, name)

    def stop(self):
        for name in ("bgpd", "zebra"):
            pid = self.pid(name)
            if pid is not None and railsw.pid_alive(pid):
                os.kill(pid, signal.SIGTERM)
                try:
                    railsw.wait_until(lambda: not railsw.pid_alive(pid), 10, what=name)
                except AssertionError:
                    os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.d, ignore_errors=True)

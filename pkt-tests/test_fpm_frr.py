# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Routes from a real FRR (Debian 12's zebra 8.4 with dplane_fpm_nl, and staticd) over FPM.

zebra and staticd run in a namespace of their own, with their own config, pid and socket
files (never the packaged service), where two veth interfaces hold the subnets of railsw's
p1 and p2 (so zebra sees the next hops h1 and h2 as reachable) and a third veth reaches
railsw's FPM listener in the root namespace. staticd's routes arrive in railsw, traffic
follows them, a zebra restart replays without losing a frame on an unchanged prefix and
the route it no longer has is dropped after stale_s, and stopping staticd withdraws them."""

import os
import shutil
import signal
import tempfile
import time

import pytest
from scapy.all import ICMP, Ether

import railsw
import topo
from frr import MODULE, STATICD, ZEBRA, daemon_pid, free_port, start_daemon
from topo import HOST_IP, HOST_IP6, routed, udp4, udp6

FPM_IP = "169.254.201.1"
STALE_S = 3

pytestmark = pytest.mark.skipif(
    not (os.access(ZEBRA, os.X_OK) and os.access(STATICD, os.X_OK) and os.path.exists(MODULE)),
    reason="FRR (zebra, staticd, dplane_fpm_nl) is not installed")

STATIC_ALL = """ip route 10.99.0.0/24 10.2.0.1
ip route 10.98.0.0/24 10.2.0.1
ip route 10.98.0.0/24 10.3.0.1
ipv6 route fd00:99::/48 fd00:2::1
"""


class Frr:
    """zebra + staticd in namespace ns, files in dir d, stopped by their pids only."""

    def __init__(self, ns, d, port):
        self.ns, self.d, self.port = ns, d, port
        with open(os.path.join(d, "zebra.conf"), "w") as f:
            f.write(f"hostname rswtest\nfpm address {FPM_IP} port {port}\n"
                    "no fpm use-next-hop-groups\n")
        self.set_static(STATIC_ALL)

    def set_static(self, text):
        with open(os.path.join(self.d, "staticd.conf"), "w") as f:
            f.write(text)
        shutil.chown(os.path.join(self.d, "staticd.conf"), "frr", "frr")

    def start(self):
        start_daemon(self.ns, self.d, ZEBRA, "zebra", ("-M", "dplane_fpm_nl"))
        time.sleep(0.5)
        start_daemon(self.ns, self.d, STATICD, "staticd")

    def pid(self, name):
        return daemon_pid(self.d, name)

    def kill(self, name, sig=signal.SIGKILL):
        pid = self.pid(name)
        if pid is not None and railsw.pid_alive(pid):
            os.kill(pid, sig)
            railsw.wait_until(lambda: not railsw.pid_alive(pid), 10, what=f"{name} exit")

    def stop(self):
        self.kill("staticd", signal.SIGTERM)
        self.kill("zebra", signal.SIGTERM)


@pytest.fixture(scope="module")
def lab(build):
    ns = f"rswfrr{os.getpid()}"
    d = tempfile.mkdtemp(prefix="rswfrr.")
    shutil.chown(d, "frr", "frr")
    port = free_port()
    sh = railsw.sh
    frr = None
    try:
        sh(f"ip netns add {ns}")
        sh(f"ip -n {ns} link set lo up")
        sh("ip link add rswfv0 type veth peer name rswfv1")
        sh(f"ip link set rswfv1 netns {ns}")
        sh(f"ip addr add {FPM_IP}/30 dev rswfv0 && ip link set rswfv0 up")
        sh(f"ip -n {ns} addr add 169.254.201.2/30 dev rswfv1 && ip -n {ns} link set rswfv1 up")
        for i, (v4, v6) in enumerate((("10.2.0.2/24", "fd00:2::2/64"),
                                      ("10.3.0.2/24", "fd00:3::2/64"))):
            sh(f"ip -n {ns} link add s{i} type veth peer name t{i}")
            sh(f"ip -n {ns} link set t{i} up")
            sh(f"ip -n {ns} addr add {v4} dev s{i}")
            sh(f"ip -n {ns} addr add {v6} dev s{i} nodad")
            sh(f"ip -n {ns} link set s{i} up")
        cfg = topo.three_ports(control={"fpm": {"listen": f"{FPM_IP}:{port}",
                                                "stale_s": STALE_S}})
        with topo.running(build, cfg) as sw:
            frr = Frr(ns, d, port)
            frr.start()
            yield sw, frr
            frr.stop()
    finally:
        if frr is not None:
            frr.kill("staticd")
            frr.kill("zebra")
        railsw.run(["ip", "netns", "del", ns], check=False)
        railsw.run(["ip", "link", "del", "rswfv0"], check=False)
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def cap(lab):
    sw, _ = lab
    with railsw.Capture([sw.tap[p] for p in ("p0", "p1", "p2")]) as c:
        yield c


def fpm_route(sw, prefix):
    rs = [r for r in sw.ctl("show", "routes")["routes"]
          if r["prefix"] == prefix and r["type"] == "fpm"]
    return rs[0] if rs else None


def tap_of(sw, iface):
    return {v: k for k, v in sw.tap.items()}[iface]


def test_routes_arrive_and_traffic_flows(lab, injector, cap):
    """**Steps**: zebra and staticd start with 10.99.0.0/24 via h1, 10.98.0.0/24 via h1 and
    h2, fd00:99::/48 via h1's IPv6 address.
    **Verify**: the three routes reach `show routes` (source frr-static, distance 1, active,
    the next hops zebra resolved); `show fpm` is connected; a frame to 10.99.0.5 and one to
    fd00:99::5 leave by p1, routed; frames to 10.98.0.0/24 leave by p1 or p2."""
    sw, _ = lab
    railsw.wait_until(lambda: all(fpm_route(sw, p) is not None and fpm_route(sw, p)["active"]
                                  for p in ("10.99.0.0/24", "10.98.0.0/24", "fd00:99::/48")),
                      30, what="staticd's routes in railsw")
    r = fpm_route(sw, "10.99.0.0/24")
    assert (r["source"], r["distance"], r["nexthops"]) == ("frr-static", 1, [HOST_IP["p1"]])
    assert sorted(fpm_route(sw, "10.98.0.0/24")["nexthops"]) == [HOST_IP["p1"], HOST_IP["p2"]]
    assert fpm_route(sw, "fd00:99::/48")["nexthops"] == [HOST_IP6["p1"]]
    assert sw.ctl("show", "fpm")["fpm"]["connected"] is True
    for f in (udp4(sw, "p0", "10.99.0.5"), udp6(sw, "p0", "fd00:99::5")):
        injector.send(sw.tap["p0"], f)
        got = cap.collect(count=1, timeout=3)
        assert [(tap_of(sw, i), d) for i, d in got] == [("p1", routed(f, "p1", sw))], \
            topo.describe(got)
        cap.frames.clear()
    for sport in range(3000, 3016):
        injector.send(sw.tap["p0"], udp4(sw, "p0", "10.98.0.5", sport=sport))
    got = cap.collect(count=16, timeout=3)
    assert len(got) == 16 and {tap_of(sw, i) for i, _ in got} <= {"p1", "p2"}
    cap.frames.clear()


def test_restart_replays_without_loss(lab, injector, cap):
    """**Steps**: traffic to 10.99.0.5 at 50 frames/s; zebra and staticd are killed
    (SIGKILL) and started again with 10.98.0.0/24 gone from staticd's configuration.
    **Verify**: a second session (`sessions` +1); not one frame to 10.99.0.5 lost during the
    restart and replay; 10.98.0.0/24 is dropped once stale_s has passed (`stale_dropped`),
    10.99.0.0/24 and fd00:99::/48 stay."""
    sw, frr = lab
    st0 = sw.ctl("show", "fpm")["fpm"]
    # zebra first: with zebra alive, staticd's end would make it withdraw staticd's routes.
    frr.kill("zebra")
    frr.kill("staticd")
    frr.set_static("ip route 10.99.0.0/24 10.2.0.1\nipv6 route fd00:99::/48 fd00:2::1\n")
    sent = 0
    frr.start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        injector.send(sw.tap["p0"], udp4(sw, "p0", "10.99.0.5", sport=4000 + sent % 1000))
        sent += 1
        time.sleep(0.02)
        st = sw.ctl("show", "fpm")["fpm"]
        if st["sessions"] > st0["sessions"] and fpm_route(sw, "10.98.0.0/24") is None:
            break
    assert fpm_route(sw, "10.98.0.0/24") is None, "the stale route was not dropped"
    st = sw.ctl("show", "fpm")["fpm"]
    assert st["stale_dropped"] >= st0["stale_dropped"] + 1
    assert fpm_route(sw, "10.99.0.0/24")["active"] and fpm_route(sw, "fd00:99::/48")["active"]
    got = cap.collect(count=sent, timeout=3)
    assert len([1 for i, _ in got if tap_of(sw, i) == "p1"]) == sent, \
        f"{sent} frames sent to an unchanged prefix, {len(got)} forwarded"
    cap.frames.clear()


def test_withdrawal_removes_routes(lab, injector, cap):
    """**Steps**: staticd stops (zebra withdraws its routes).
    **Verify**: 10.99.0.0/24 and fd00:99::/48 leave `show routes`; a frame to 10.99.0.5 is
    not forwarded (ICMP network unreachable back on p0)."""
    sw, frr = lab
    frr.kill("staticd", signal.SIGTERM)
    railsw.wait_until(lambda: fpm_route(sw, "10.99.0.0/24") is None and
                      fpm_route(sw, "fd00:99::/48") is None, 15, what="routes withdrawn")
    injector.send(sw.tap["p0"], udp4(sw, "p0", "10.99.0.5"))
    got = cap.collect(timeout=0.7)
    assert [tap_of(sw, i) for i, _ in got] == ["p0"], topo.describe(got)
    assert ICMP in Ether(got[0][1])

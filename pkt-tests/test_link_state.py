# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Link state that tells the truth (docs/cli.md): `link_up` is true, false, or
null where the port kind cannot know its link, `link_state` up, down or unknown;
DPDK telemetry and Prometheus say the same (Prometheus has no railsw_link_up
sample where the link is unknown).

Port kinds: TAP in railsw's namespace (the kernel interface's flags), TAP moved
into another namespace (unknown, while pings flow through it), net_af_xdp on a
veth (the kernel interface's carrier), net_null, net_ring and net_pcap (always
up once started). memif's link (the peer connected or not) is tested in
test_ports.py (test_memif_peer_death_link_down).
"""

import os
import socket
import struct

import pytest

import railsw
from railsw import wait_until
from test_observability import free_tcp_port, scrape, telemetry

PID = os.getpid()
AF_XDP = 44


def af_xdp_supported():
    try:
        s = socket.socket(AF_XDP, socket.SOCK_RAW, 0)
    except OSError:
        return False
    s.close()
    return True


def links(sw):
    return {n: (p["link_up"], p["link_state"]) for n, p in sw.ports().items()}


def wait_link(sw, name, want, timeout=5):
    last = {}

    def ok():
        last["v"] = links(sw)[name]
        return last["v"] == want
    try:
        wait_until(ok, timeout, what=f"{name} link {want}")
    except TimeoutError:
        raise AssertionError(f"{name}: link {last['v']}, expected {want}") from None


@pytest.fixture
def veth(tmp_path):
    """A veth pair: outer end in the root namespace (railsw's net_af_xdp), inner
    end in a namespace; both up. Removed at teardown."""
    outer, inner = f"rt{PID}lx0", f"rt{PID}ly0"
    ns = railsw.lab_netns("link")
    run = railsw.run
    run(["ip", "link", "add", outer, "type", "veth", "peer", "name", inner])
    run(["ip", "netns", "add", ns])
    run(["ip", "link", "set", inner, "netns", ns])
    railsw.quiet_link(outer)
    railsw.quiet_link(inner, ns)
    yield outer, inner, ns
    run(["ip", "link", "del", outer], check=False)
    run(["ip", "netns", "del", ns], check=False)


def test_link_state_per_kind(make_switch, tmp_path, veth):
    """Steps: a switch with TAPs t0 (stays) and t1 (moved into a namespace as a
    host 10.2.0.1), net_null n0, net_ring r0, net_pcap c0 and, where AF_XDP
    works, net_af_xdp x0 on a veth; ping the switch from t1's namespace; set
    t0's kernel side down and up; set the veth's far end down and up.
    Verify: t1 link_up null / unknown while the ping is answered; t0, n0, r0,
    c0, x0 true / up; t0 false / down while its interface is down, x0 false /
    down while its peer is, both back to up; Prometheus has railsw_link_up 1
    for every port but t1, none for t1 (0 for t0 while down); telemetry's
    /railsw/ports,t1 has link_state unknown and no link_up.
    """
    outer, inner, ns = veth
    empty = tmp_path / "in.pcap"
    empty.write_bytes(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    mport = free_tcp_port()
    ports = [
        {"name": "t0", "ipv4": "10.1.0.254/24"},
        {"name": "t1", "ipv4": "10.2.0.254/24"},
        {"name": "n0", "devargs": "net_null0,no-rx=1", "mac": "02:00:00:00:0e:03"},
        {"name": "r0", "devargs": "net_ring0", "mac": "02:00:00:00:0e:04"},
        {"name": "c0", "devargs": f"net_pcap0,rx_pcap={empty},tx_pcap={tmp_path}/out.pcap",
         "mac": "02:00:00:00:0e:05"},
    ]
    xdp = af_xdp_supported()
    if xdp:
        ports.append({"name": "x0", "devargs": f"net_af_xdp0,iface={outer}",
                      "mac": "02:00:00:00:0e:06", "ipv4": "10.5.0.254/24"})
    sw = make_switch({"ports": ports,
                      "control": {"metrics_listen": f"127.0.0.1:{mport}"}})
    sw.move_to_netns("t1", railsw.lab_netns("h1"), addr="10.2.0.1/24", gw="10.2.0.254")
    r = railsw.run(["ip", "netns", "exec", railsw.lab_netns("h1"), "ping", "-c", "3",
                    "-i", "0.2", "-W", "2", "10.2.0.254"], check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    up = (True, "up")
    want = {"t0": up, "t1": (None, "unknown"), "n0": up, "r0": up, "c0": up}
    if xdp:
        want["x0"] = up
    wait_until(lambda: links(sw) == want, 5, what=f"links {want}")

    def prom():
        _, _, samples, types, _ = scrape(mport)
        assert types["railsw_link_up"] == "gauge"
        return {n: samples.get(("railsw_link_up", (("port", n),))) for n in want}
    wait_until(lambda: prom() == {n: (None if v[0] is None else float(v[0]))
                                  for n, v in want.items()}, 3, what="Prometheus link_up")
    wait_until(lambda: telemetry(sw, "/railsw/ports,t1")["t1"].get("link_state") == "unknown",
               3, what="telemetry link_state of t1")
    assert "link_up" not in telemetry(sw, "/railsw/ports,t1")["t1"]
    assert telemetry(sw, "/railsw/ports,t0")["t0"]["link_up"] == 1

    railsw.run(["ip", "link", "set", sw.tap["t0"], "down"])
    wait_link(sw, "t0", (False, "down"))
    assert prom()["t0"] == 0.0
    railsw.run(["ip", "link", "set", sw.tap["t0"], "up"])
    wait_link(sw, "t0", up)
    if xdp:
        railsw.run(["ip", "netns", "exec", ns, "ip", "link", "set", inner, "down"])
        wait_link(sw, "x0", (False, "down"))
        railsw.run(["ip", "netns", "exec", ns, "ip", "link", "set", inner, "up"])
        wait_link(sw, "x0", up)
    # The moved TAP is still unknown, not down, and still carries traffic.
    assert links(sw)["t1"] == (None, "unknown")

# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Routes over FPM, from a client that needs no FRR (lib/fpm.py writes frames as zebra's
dplane_fpm_nl does): add, replace, delete, multipath, IPv6, several messages in one frame,
sent byte by byte; bad input (a header that loses the stream, a netlink length past its
frame, unknown attributes and message types, a client that vanishes mid-frame) is counted
and never harms the switch; a reconnect replays and the stale timer drops what was not sent
again; route precedence against connected and static routes; and the traffic follows."""

import socket
import time

import pytest
from scapy.all import ICMP, Ether

import fpm
import railsw
import topo
from topo import HOST_IP, HOST_IP6, routed, udp4, udp6

PORTS = ("p0", "p1", "p2")
STALE_S = 2


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.fixture(scope="module")
def sw(build):
    port = free_port()
    cfg = topo.three_ports(control={"fpm": {"listen": f"127.0.0.1:{port}",
                                            "stale_s": STALE_S}})
    # A floating static route: FPM's bgp (20) wins over it while it is there.
    cfg["routes"].append({"prefix": "10.60.0.0/16", "nexthops": [HOST_IP["p2"]],
                          "distance": 200})
    with topo.running(build, cfg) as s:
        s.fpm_port = port
        yield s


@pytest.fixture
def cap(sw):
    with railsw.Capture([sw.tap[p] for p in PORTS]) as c:
        yield c


def routes(sw, prefix):
    return [r for r in sw.ctl("show", "routes")["routes"] if r["prefix"] == prefix]


def fpm_route(sw, prefix):
    rs = [r for r in routes(sw, prefix) if r["type"] == "fpm"]
    return rs[0] if rs else None


def wait_route(sw, prefix, active=True, nexthops=None, what=None):
    def ok():
        r = fpm_route(sw, prefix)
        return r is not None and r["active"] == active and (
            nexthops is None or sorted(r["nexthops"]) == sorted(nexthops))
    railsw.wait_until(ok, 5, what=what or f"FPM route {prefix} active={active} {nexthops}")
    return fpm_route(sw, prefix)


def wait_gone(sw, prefix):
    railsw.wait_until(lambda: fpm_route(sw, prefix) is None, 5, what=f"{prefix} deleted")


def stats(sw):
    return sw.ctl("show", "fpm")["fpm"]


def tap_of(sw, iface):
    return {v: k for k, v in sw.tap.items()}[iface]


def expect_out(sw, injector, cap, frame, out):
    """frame sent on p0 comes out of out (routed), and nowhere else."""
    injector.send(sw.tap["p0"], frame)
    got = cap.collect(count=1, timeout=3)
    assert [(tap_of(sw, i), d) for i, d in got] == [(out, routed(frame, out, sw))], \
        topo.describe(got)
    cap.frames.clear()


def expect_unreachable(sw, injector, cap, frame):
    """frame sent on p0 is not forwarded: only an ICMP network unreachable comes back."""
    injector.send(sw.tap["p0"], frame)
    got = cap.collect(timeout=0.7)
    assert [tap_of(sw, i) for i, _ in got] == ["p0"], topo.describe(got)
    icmp = Ether(got[0][1])
    assert ICMP in icmp and (icmp[ICMP].type, icmp[ICMP].code) == (3, 0), icmp.summary()
    cap.frames.clear()


def test_show_fpm_form(sw):
    """**Steps**: `show fpm` before any client.
    **Verify**: the listener's address, not connected, the counters of docs/cli.md."""
    st = stats(sw)
    assert st["listen"] == f"127.0.0.1:{sw.fpm_port}"
    assert st["connected"] is False
    assert {"listen", "connected", "messages", "routes_added", "routes_deleted", "errors",
            "last_error"} <= set(st)


def test_add_replace_delete_bytewise(sw, injector, cap):
    """**Steps**: a client sends, one byte per write, an add of 10.50.0.0/16 via h1, then a
    replace via h2, then multipath via h1 and h2, then a delete.
    **Verify**: each reaches `show routes` (source bgp, distance 20, active) and traffic to
    10.50.1.1 leaves the port of the current next hop; after the delete the route is gone and
    the traffic is not forwarded (ICMP network unreachable); `show fpm` counts the messages, adds and the delete."""
    before = stats(sw)
    with fpm.Client(sw.fpm_port) as c:
        c.send(fpm.frame(fpm.route("10.50.0.0/16", [HOST_IP["p1"]])), bytewise=True)
        r = wait_route(sw, "10.50.0.0/16", nexthops=[HOST_IP["p1"]])
        assert (r["source"], r["distance"], r["active"]) == ("bgp", 20, True)
        expect_out(sw, injector, cap, udp4(sw, "p0", "10.50.1.1"), "p1")

        c.send(fpm.frame(fpm.route("10.50.0.0/16", [HOST_IP["p2"]])), bytewise=True)
        wait_route(sw, "10.50.0.0/16", nexthops=[HOST_IP["p2"]])
        expect_out(sw, injector, cap, udp4(sw, "p0", "10.50.1.1"), "p2")

        c.send(fpm.frame(fpm.route("10.50.0.0/16", [HOST_IP["p1"], HOST_IP["p2"]])),
               bytewise=True)
        wait_route(sw, "10.50.0.0/16", nexthops=[HOST_IP["p1"], HOST_IP["p2"]])
        seen = set()
        for sport in range(1000, 1032):
            injector.send(sw.tap["p0"], udp4(sw, "p0", "10.50.1.1", sport=sport))
        for iface, _ in cap.collect(count=32, timeout=3):
            seen.add(tap_of(sw, iface))
        cap.frames.clear()
        assert seen == {"p1", "p2"}, "32 flows over a 2-way group use both members"

        c.send(fpm.frame(fpm.route("10.50.0.0/16", delete=True)), bytewise=True)
        wait_gone(sw, "10.50.0.0/16")
        expect_unreachable(sw, injector, cap, udp4(sw, "p0", "10.50.1.1"))
    after = stats(sw)
    assert after["messages"] - before["messages"] == 4
    assert after["routes_added"] - before["routes_added"] == 3
    assert after["routes_deleted"] - before["routes_deleted"] == 1
    assert after["errors"] == before["errors"]


def test_ipv6_and_several_messages_in_one_frame(sw, injector, cap):
    """**Steps**: one frame with an IPv6 route fd00:50::/48 via h1, an IPv4 route
    10.51.0.0/16 via h2, and a delete followed by an add of 10.51.0.0/16 via h1 (as zebra
    sends a change of next hops); an RTM_NEWLINK and a route with an unknown attribute in a
    second frame.
    **Verify**: every message is applied in order (10.51/16 ends via h1, IPv6 traffic
    leaves by p1); the unknown message is skipped, the unknown attribute ignored, no error."""
    before = stats(sw)
    with fpm.Client(sw.fpm_port) as c:
        c.send(fpm.frame(fpm.route("fd00:50::/48", [HOST_IP6["p1"]]),
                         fpm.route("10.51.0.0/16", [HOST_IP["p2"]]),
                         fpm.route("10.51.0.0/16", delete=True),
                         fpm.route("10.51.0.0/16", [HOST_IP["p1"]])))
        c.send(fpm.frame(fpm.nlmsg(16, 0, b"\0" * 16),
                         fpm.route("10.52.0.0/16", [HOST_IP["p2"]],
                                   extra=fpm.attr(250, b"unknown!"))))
        wait_route(sw, "10.52.0.0/16", nexthops=[HOST_IP["p2"]])
        wait_route(sw, "10.51.0.0/16", nexthops=[HOST_IP["p1"]])
        wait_route(sw, "fd00:50::/48", nexthops=[HOST_IP6["p1"]])
        expect_out(sw, injector, cap, udp6(sw, "p0", "fd00:50::9"), "p1")
        expect_out(sw, injector, cap, udp4(sw, "p0", "10.51.0.9"), "p1")
        expect_out(sw, injector, cap, udp4(sw, "p0", "10.52.0.9"), "p2")
        c.send(fpm.frame(*[fpm.route(p, delete=True)
                           for p in ("fd00:50::/48", "10.51.0.0/16", "10.52.0.0/16")]))
        for p in ("fd00:50::/48", "10.51.0.0/16", "10.52.0.0/16"):
            wait_gone(sw, p)
    after = stats(sw)
    assert after["messages"] - before["messages"] == 9
    assert after["errors"] == before["errors"]


def test_bad_input_is_counted_and_harmless(sw, injector, cap):
    """**Steps**: (1) a frame whose netlink length runs past it, then a good route on the same
    session; (2) a header with a length shorter than itself; (3) a header of FPM version 2;
    (4) a frame announcing 60000 bytes from a client that vanishes after 100; (5) a blackhole
    route and a route in table 1000.
    **Verify**: (1) one error, the session stays and the good route is taken; (2)-(4) each
    an error and the session closed, the switch forwarding as before (static 10.20/16 to p1);
    (5) errors, nothing installed; `last_error` says why."""
    with fpm.Client(sw.fpm_port) as c:
        good = fpm.route("10.53.0.0/16", [HOST_IP["p1"]])
        bad = bytearray(fpm.route("10.54.0.0/16", [HOST_IP["p1"]]))
        bad[0:4] = (4096).to_bytes(4, "little")
        e0 = stats(sw)["errors"]
        c.send(fpm.frame(bytes(bad)) + fpm.frame(good))
        wait_route(sw, "10.53.0.0/16")
        assert stats(sw)["errors"] == e0 + 1
        assert "netlink length 4096" in stats(sw)["last_error"]
        assert stats(sw)["connected"] is True

    for data, why in ((fpm.frame(good, length=3), "shorter than the header"),
                      (fpm.frame(good, version=2), "unknown version"),
                      (fpm.frame(good, length=60000)[:100], "middle of a frame")):
        e0 = stats(sw)["errors"]
        with fpm.Client(sw.fpm_port) as c:
            c.send(data)
            time.sleep(0.2)
        railsw.wait_until(lambda: stats(sw)["errors"] == e0 + 1, 5, what=why)
        assert why in stats(sw)["last_error"]
        railsw.wait_until(lambda: not stats(sw)["connected"], 5, what="session closed")
        expect_out(sw, injector, cap, udp4(sw, "p0", "10.20.0.9"), "p1")

    with fpm.Client(sw.fpm_port) as c:
        e0 = stats(sw)["errors"]
        c.send(fpm.frame(fpm.route("10.55.0.0/16", [HOST_IP["p1"]], rtype=fpm.RTN_BLACKHOLE),
                         fpm.route("10.56.0.0/16", [HOST_IP["p1"]], table=1000)))
        railsw.wait_until(lambda: stats(sw)["errors"] == e0 + 2, 5, what="two refusals")
        assert "table 1000" in stats(sw)["last_error"]
        assert fpm_route(sw, "10.55.0.0/16") is None and fpm_route(sw, "10.56.0.0/16") is None
        c.send(fpm.frame(fpm.route("10.53.0.0/16", delete=True)))
        wait_gone(sw, "10.53.0.0/16")
    assert sw.running()


def test_precedence(sw, injector, cap):
    """**Steps**: FPM routes for a static prefix (10.20.0.0/16, static distance 1), a
    connected subnet (10.3.0.0/24), the floating static 10.60.0.0/16 (distance 200, via h2),
    and 10.57.0.0/16 via 169.254.0.1 on-link (RFC 8950); then the 10.60/16 one deleted.
    **Verify**: static and connected stay active, the FPM entries are listed inactive; the
    FPM route wins over the floating static (traffic to p1) and, once deleted, the static
    takes over (traffic to p2); the RFC 8950 route is inactive with 0 next hops resolved."""
    with fpm.Client(sw.fpm_port) as c:
        c.send(fpm.frame(fpm.route("10.20.0.0/16", [HOST_IP["p2"]]),
                         fpm.route("10.3.0.0/24", [HOST_IP["p1"]]),
                         fpm.route("10.60.0.0/16", [HOST_IP["p1"]]),
                         fpm.route("10.57.0.0/16", ["169.254.0.1"], oif=7, onlink=True)))
        wait_route(sw, "10.60.0.0/16")
        for p in ("10.20.0.0/16", "10.3.0.0/24", "10.57.0.0/16"):
            wait_route(sw, p, active=False)
        st = [r for r in routes(sw, "10.20.0.0/16") if r["type"] == "static"][0]
        assert (st["source"], st["distance"], st["active"]) == ("static", 1, True)
        conn = [r for r in routes(sw, "10.3.0.0/24") if r["type"] == "connected"][0]
        assert (conn["distance"], conn["active"]) == (0, True)
        fl = [r for r in routes(sw, "10.60.0.0/16") if r["type"] == "static"][0]
        assert (fl["distance"], fl["active"]) == (200, False)
        assert fpm_route(sw, "10.57.0.0/16")["resolved"] == 0
        expect_out(sw, injector, cap, udp4(sw, "p0", "10.20.0.9"), "p1")
        expect_out(sw, injector, cap, udp4(sw, "p0", "10.3.0.1"), "p2")
        expect_out(sw, injector, cap, udp4(sw, "p0", "10.60.0.9"), "p1")
        c.send(fpm.frame(fpm.route("10.60.0.0/16", delete=True)))
        wait_gone(sw, "10.60.0.0/16")
        railsw.wait_until(lambda: [r for r in routes(sw, "10.60.0.0/16")][0]["active"], 5,
                          what="the floating static takes over")
        expect_out(sw, injector, cap, udp4(sw, "p0", "10.60.0.9"), "p2")
        c.send(fpm.frame(*[fpm.route(p, delete=True)
                           for p in ("10.20.0.0/16", "10.3.0.0/24", "10.57.0.0/16")]))
        for p in ("10.20.0.0/16", "10.3.0.0/24", "10.57.0.0/16"):
            wait_gone(sw, p)


def test_reconnect_replays_and_drops_stale(sw, injector, cap):
    """**Steps**: a first FPM connection sends 10.58.0.0/16 and 10.59.0.0/16; it closes; a second
    (a restarted zebra) sends 10.58.0.0/16 again only, while traffic to 10.58.1.1 flows.
    **Verify**: right after the reconnect both routes stay (the replay may not be done);
    stale_s after the second connection's last message 10.59/16 is dropped (`stale_dropped` +1) and
    10.58/16 stays; not one frame to 10.58.1.1 was lost during the replay."""
    with fpm.Client(sw.fpm_port) as c:
        c.send(fpm.frame(fpm.route("10.58.0.0/16", [HOST_IP["p1"]]),
                         fpm.route("10.59.0.0/16", [HOST_IP["p1"]])))
        wait_route(sw, "10.59.0.0/16")
    dropped0 = stats(sw)["stale_dropped"]
    sent = 0
    with fpm.Client(sw.fpm_port) as c:
        for i in range(20):
            injector.send(sw.tap["p0"], udp4(sw, "p0", "10.58.1.1", sport=2000 + i))
            sent += 1
            if i == 5:
                c.send(fpm.frame(fpm.route("10.58.0.0/16", [HOST_IP["p1"]])))
            time.sleep(0.02)
        assert fpm_route(sw, "10.59.0.0/16") is not None, "dropped before stale_s"
        railsw.wait_until(lambda: fpm_route(sw, "10.59.0.0/16") is None, STALE_S + 3,
                          what="stale route dropped")
        assert stats(sw)["stale_dropped"] == dropped0 + 1
        assert fpm_route(sw, "10.58.0.0/16")["active"]
        got = cap.collect(count=sent, timeout=3)
        assert len([1 for i, _ in got if tap_of(sw, i) == "p1"]) == sent
        cap.frames.clear()
        c.send(fpm.frame(fpm.route("10.58.0.0/16", delete=True)))
        wait_gone(sw, "10.58.0.0/16")


def test_new_client_replaces_old(sw):
    """**Steps**: client A connects and sends a route; client B connects while A is open.
    **Verify**: B's session is taken (`sessions` +1, connected), A's socket is closed by
    railsw (A reads end of file)."""
    s0 = stats(sw)["sessions"]
    a = fpm.Client(sw.fpm_port)
    a.send(fpm.frame(fpm.route("10.61.0.0/16", [HOST_IP["p1"]])))
    wait_route(sw, "10.61.0.0/16")
    b = fpm.Client(sw.fpm_port)
    railsw.wait_until(lambda: stats(sw)["sessions"] == s0 + 2, 5, what="second session")
    a.s.settimeout(3)
    assert a.s.recv(1) == b""
    b.send(fpm.frame(fpm.route("10.61.0.0/16", delete=True)))
    wait_gone(sw, "10.61.0.0/16")
    a.close()
    b.close()

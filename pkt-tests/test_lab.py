# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""The lab of README command 1: unmodified Linux hosts in network namespaces,
attached to railsw through TAP ports, ping each other through it (IPv4 and
IPv6, resolving the switch by ARP and ND) and see it in tracepath."""

import os
import re
import shutil
import socket

import pytest

import railsw

LAB = os.path.join(railsw.REPO, "config", "lab.yaml")
DEMO = os.path.join(railsw.REPO, "devtools", "demo.sh")


def lab_text(taps, sock):
    """config/lab.yaml with its TAP names and socket replaced by this run's
    own, so the test never touches a lab someone runs by hand."""
    with open(LAB) as f:
        text = f.read()
    for old, new in taps.items():
        text, n = re.subn(r"iface=" + re.escape(old) + r"\b", "iface=" + new, text)
        assert n == 1, f"{LAB}: expected one devargs with iface={old}"
    text, n = re.subn(r"(\bsocket:\s*)\S+", r"\g<1>" + sock, text)
    assert n == 1, f"{LAB}: expected a control.socket"
    return text


def ping(ns, target, count=3):
    return railsw.run(["ip", "netns", "exec", ns, "ping", "-c", str(count), "-i", "0.2",
                       "-w", "20", target], timeout=30, check=False)


@pytest.fixture
def lab(build):
    if not os.path.exists(LAB):
        pytest.fail(f"{LAB} missing", pytrace=False)
    pid = os.getpid()
    taps = {"rsw-p0": f"rt{pid}L0", "rsw-p1": f"rt{pid}L1"}
    sw = railsw.Switch(build, "", start=False)
    with open(sw.conf, "w") as f:
        f.write(lab_text(taps, sw.sock))
    sw.tap = {"p0": taps["rsw-p0"], "p1": taps["rsw-p1"]}
    try:
        sw.start()
        yield sw
        sw.stop()
    finally:
        sw.cleanup()


def test_lab_hosts_ping(lab):
    """Steps: start railsw on config/lab.yaml (own TAP names and socket);
    move the TAPs into namespaces h1 (10.0.1.1/24, default via 10.0.1.254)
    and h2 (10.0.2.1/24, default via 10.0.2.254), plain Linux hosts with
    their own MACs; ping
    the gateway, then h1 -> h2 and h2 -> h1, 3 echoes each.
    Verify: every ping gets all its replies; `show neighbors` lists both
    hosts as learned (with their MACs) on their ports; `show ports` counts the traffic.
    """
    h1, h2 = railsw.lab_netns("h1"), railsw.lab_netns("h2")
    macs = {"10.0.1.1": "02:00:00:00:01:01", "10.0.2.1": "02:00:00:00:02:01"}
    lab.move_to_netns("p0", h1, addr="10.0.1.1/24", gw="10.0.1.254", mac=macs["10.0.1.1"])
    lab.move_to_netns("p1", h2, addr="10.0.2.1/24", gw="10.0.2.254", mac=macs["10.0.2.1"])
    for ns, target in ((h1, "10.0.1.254"), (h1, "10.0.2.1"), (h2, "10.0.1.1"),
                       (h2, "10.0.2.254")):
        r = ping(ns, target)
        assert r.returncode == 0, f"{ns} ping {target} failed:\n{r.stdout}{r.stderr}\n" + \
            lab.log_tail()
    neigh = {n["ip"]: n for n in lab.neighbors()}
    for ip, port in (("10.0.1.1", "p0"), ("10.0.2.1", "p1")):
        assert ip in neigh and neigh[ip]["state"] in ("reachable", "stale"), neigh
        assert neigh[ip]["mac"].lower() == macs[ip] and neigh[ip]["port"] == port, neigh
    ports = lab.ports()
    assert all(p["rx_packets"] >= 6 and p["tx_packets"] >= 6 for p in ports.values()), ports


def ping6(ns, target, count=3):
    return railsw.run(["ip", "netns", "exec", ns, "ping", "-6", "-c", str(count), "-i", "0.2",
                       "-w", "20", target], timeout=30, check=False)


def lab_hosts6(lab):
    """h1 and h2 with IPv4 and IPv6 addresses and default routes through the switch."""
    h1, h2 = railsw.lab_netns("h1"), railsw.lab_netns("h2")
    lab.move_to_netns("p0", h1, addr="10.0.1.1/24", gw="10.0.1.254", addr6="fd00:0:1::1/64",
                      gw6="fd00:0:1::fe", mac="02:00:00:00:01:01")
    lab.move_to_netns("p1", h2, addr="10.0.2.1/24", gw="10.0.2.254", addr6="fd00:0:2::1/64",
                      gw6="fd00:0:2::fe", mac="02:00:00:00:02:01")
    return h1, h2


def test_lab_hosts_ping6(lab):
    """Unmodified Linux hosts resolve the switch with ND and ping6 through it.

    Steps: start railsw on config/lab.yaml; h1 gets fd00:0:1::1/64 (default
    via fd00:0:1::fe), h2 fd00:0:2::1/64 (default via fd00:0:2::fe), no
    static neighbours anywhere; ping6 the gateway, then h1 -> h2 and
    h2 -> h1, 3 echoes each.
    Verify: every ping gets all its replies (the hosts resolve the switch by
    NS/NA, the switch resolves them by NS); `show neighbors` lists both IPv6
    hosts as learned with their MACs on their ports; `show icmp` counts the
    switch's NS, NA and echo replies.
    """
    h1, h2 = lab_hosts6(lab)
    for ns, target in ((h1, "fd00:0:1::fe"), (h1, "fd00:0:2::1"), (h2, "fd00:0:1::1"),
                       (h2, "fd00:0:2::fe")):
        r = ping6(ns, target)
        assert r.returncode == 0, f"{ns} ping -6 {target} failed:\n{r.stdout}{r.stderr}\n" + \
            lab.log_tail()
    neigh = {n["ip"]: n for n in lab.neighbors()}
    for ip, port, mac in (("fd00:0:1::1", "p0", "02:00:00:00:01:01"),
                          ("fd00:0:2::1", "p1", "02:00:00:00:02:01")):
        assert ip in neigh and neigh[ip]["state"] in ("reachable", "stale"), neigh
        assert neigh[ip]["mac"].lower() == mac and neigh[ip]["port"] == port, neigh
    icmp = lab.ctl("show", "icmp")["icmp"]
    assert icmp["nd_ns_rx"] >= 1 and icmp["nd_na_tx"] >= 1 and icmp["nd_ns_tx"] >= 1, icmp
    assert icmp["echo_replies"] >= 6, icmp


def tracepath(ns, target, v6):
    return railsw.run(["ip", "netns", "exec", ns, "tracepath", "-n", "-m", "5"] +
                      (["-6"] if v6 else ["-4"]) + [target], timeout=60, check=False)


@pytest.mark.skipif(shutil.which("tracepath") is None,
                    reason="tracepath missing (iputils-tracepath, devtools/install-deps.sh)")
@pytest.mark.parametrize("v6", [False, True], ids=["ipv4", "ipv6"])
def test_lab_tracepath_shows_switch(lab, v6):
    """traceroute through railsw shows its hop.

    Steps: the hosts of test_lab_hosts_ping6; from h1 run
    `tracepath -n -m 5` to h2 (10.0.2.1, or fd00:0:2::1 with -6).
    Verify: exit 0; hop 1 is the switch's address on h1's side (10.0.1.254
    / fd00:0:1::fe, the source of its time exceeded) and hop 2 is h2,
    reached; `show icmp` time_exceeded >= 1.
    """
    h1, _ = lab_hosts6(lab)
    target, hop1 = ("fd00:0:2::1", "fd00:0:1::fe") if v6 else ("10.0.2.1", "10.0.1.254")
    r = tracepath(h1, target, v6)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out + lab.log_tail()
    assert re.search(r"^\s*1:\s+" + re.escape(hop1) + r"\s", out, re.M), out
    assert re.search(r"^\s*2:\s+" + re.escape(target) + r"\s.*reached", out, re.M), out
    assert lab.ctl("show", "icmp")["icmp"]["time_exceeded"] >= 1


def lab_in_use():
    """A lab started by hand (devtools/demo.sh --keep) is running here."""
    if any(os.path.exists(f"/sys/class/net/{i}") for i in ("rsw-p0", "rsw-p1")):
        return True
    if "rsw-h1" in railsw.run(["ip", "netns", "list"], check=False).stdout.split():
        return True
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect("/run/railsw/railsw.sock")
        return True
    except OSError:
        return False


def test_demo_script(build):
    """Steps: run README command 1 (devtools/demo.sh, with this build
    directory and without the install step, which test.sh already did),
    bounded at 5 minutes.
    Verify: exit 0; it reports every ping OK and prints `show ports`, `show
    drops` and both hosts' kernel counters of their TAPs (`ip -s link`: where
    frames dropped in a TAP's queue show); after it, no namespace, TAP or socket
    of the lab is left.
    """
    if lab_in_use():
        pytest.skip("a lab runs here already (devtools/demo.sh --keep?): not touching it")
    r = railsw.run([DEMO, "--no-install", "--build-dir", build], timeout=300, check=False)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-4000:]
    assert out.count("PING OK") == 3 and "PING FAILED" not in out, out[-4000:]
    assert "p0" in out and "p1" in out, out[-4000:]
    # Where frames die: railsw's drops, then the hosts' kernel counters of their TAPs.
    assert "railctl show drops" in out and "no_route" in out, out[-4000:]
    assert "the hosts' side of the TAPs" in out and out.count("TX:") == 2, out[-4000:]
    assert not lab_in_use(), "demo.sh left its lab behind"

# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""`port NAME down` / `up` on a memif link, fast and often, under traffic
(docs/ports.md, "Administrative state"): neither switch may crash inside the
memif PMD, and the link carries pings again after the last `up`.

    host hA -- t0 [A] m0 (memif server) ==== m0 (memif client) [B] t0 -- host hB

Both hosts flood-ping each other (ping -f, bounded) while the test toggles
`port m0 down` / `up` on B (the client) and on A (the server), chosen at
random, with random gaps of 0 to 60 ms. Before the fix, a switch crashed
within 2 to 23 toggles (a worker read ethdev's fast-path entry of the port
while rte_eth_dev_stop rewrote it). RAILSW_MEMIF_FLAPS sets the number of
toggles (default 150, about 15 s); RAILSW_MEMIF_FLAP_SEED the random seed. The
long form (devtools/memif-flap.sh) runs hundreds.
"""

import os
import random
import shutil
import subprocess
import tempfile
import time

import pytest

import railsw
from railsw import wait_until

PID = os.getpid()
A_MEMIF_MAC = "02:00:00:00:0a:02"
B_MEMIF_MAC = "02:00:00:00:0b:02"
HA_IP, HB_IP = "10.1.0.1", "10.2.0.1"


@pytest.fixture
def scratch():
    """A scratch directory for the memif socket; named so cleanup_stale() finds it."""
    d = tempfile.mkdtemp(prefix=f"rswt-{PID}-0.flap.")
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def pair(make_switch, scratch):
    """Switch A (memif server m0) and B (memif client m0), each with a TAP t0 moved
    into a host namespace; routes between the hosts' subnets over memif."""
    sock = os.path.join(scratch, "m0.sock")
    a = make_switch({
        "ports": [
            {"name": "t0", "ipv4": "10.1.0.254/24"},
            {"name": "m0", "devargs": f"net_memif0,role=server,socket={sock}",
             "mac": A_MEMIF_MAC, "ipv4": "10.9.0.1/30"},
        ],
        "neighbors": [{"ip": "10.9.0.2", "mac": B_MEMIF_MAC, "port": "m0"}],
        "routes": [{"prefix": "10.2.0.0/24", "nexthops": ["10.9.0.2"]}],
    })
    b = make_switch({
        "ports": [
            {"name": "t0", "ipv4": "10.2.0.254/24"},
            {"name": "m0", "devargs": f"net_memif0,role=client,socket={sock}",
             "mac": B_MEMIF_MAC, "ipv4": "10.9.0.2/30"},
        ],
        "neighbors": [{"ip": "10.9.0.1", "mac": A_MEMIF_MAC, "port": "m0"}],
        "routes": [{"prefix": "10.1.0.0/24", "nexthops": ["10.9.0.1"]}],
    })
    nsa, nsb = railsw.lab_netns("flapa"), railsw.lab_netns("flapb")
    a.move_to_netns("t0", nsa, addr=f"{HA_IP}/24", gw="10.1.0.254")
    b.move_to_netns("t0", nsb, addr=f"{HB_IP}/24", gw="10.2.0.254")
    try:
        for sw in (a, b):
            wait_until(lambda: sw.ports()["m0"]["link_up"], 10, what="memif m0 up")
        yield a, b, nsa, nsb
    finally:
        for ns in (nsa, nsb):
            railsw.run(["ip", "netns", "del", ns], check=False)


def ping(ns, dst, *args, timeout=30):
    return railsw.run(["ip", "netns", "exec", ns, "ping", "-n", "-q", *args, dst],
                      check=False, timeout=timeout)


def flood(ns, dst, seconds):
    """A bounded flood ping (one every 2 ms at most) from namespace ns, in the background."""
    return subprocess.Popen(["ip", "netns", "exec", ns, "ping", "-n", "-q", "-f", "-i", "0.002",
                             "-W", "1", "-w", str(int(seconds)), dst],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def alive(sws, when="at the end"):
    for sw in sws:
        if not sw.running():
            raise AssertionError(f"{sw.prefix} died (exit {sw.proc.returncode}) {when}:\n"
                                 + sw.log_tail(30))


def test_memif_admin_flap(pair):
    """Steps: hA and hB ping each other (checked once), then flood-ping each other
    while `port m0 down` / `up` toggles on B (client) or A (server) at random,
    N times (RAILSW_MEMIF_FLAPS, default 150), random gaps of 0-60 ms between
    down and up and 0-120 ms after up; then every port is up.
    Verify: both switches are alive after every toggle; after the last `up` both
    memif ports report link up within 15 s and 5 pings each way are all answered;
    each switch's frames add up (the conservation check).
    """
    a, b, nsa, nsb = pair
    n = int(os.environ.get("RAILSW_MEMIF_FLAPS", "150"))
    rnd = random.Random(int(os.environ.get("RAILSW_MEMIF_FLAP_SEED", str(PID))))
    r = ping(nsa, HB_IP, "-c", "3", "-i", "0.2", "-W", "2")
    assert r.returncode == 0, "no ping before the flaps:\n" + r.stdout + r.stderr
    seconds = max(10, n * 1.5)
    floods = [flood(nsa, HB_IP, seconds), flood(nsb, HA_IP, seconds)]
    t0 = time.monotonic()
    try:
        for i in range(n):
            sw = rnd.choice((a, b))
            when = f"at toggle {i + 1} of {n}"
            try:
                sw.ctl("port", "m0", "down")
                time.sleep(rnd.uniform(0, 0.06))
                alive((a, b), when)
                sw.ctl("port", "m0", "up")
            except railsw.SwitchError as e:
                time.sleep(1)  # a switch that crashed under railctl: let it be reaped
                alive((a, b), when)
                raise AssertionError(f"{when}: {e}") from None
            time.sleep(rnd.uniform(0, 0.12))
            alive((a, b), when)
            # Keep traffic on: restart a flood that ran out (long runs).
            for k, (ns, dst) in enumerate(((nsa, HB_IP), (nsb, HA_IP))):
                if floods[k].poll() is not None:
                    floods[k] = flood(ns, dst, seconds)
    finally:
        for f in floods:
            if f.poll() is None:
                f.terminate()
            f.wait(timeout=10)
    print(f"{n} toggles in {time.monotonic() - t0:.1f}s")
    for sw in (a, b):
        wait_until(lambda: sw.ports()["m0"]["link_up"], 15, what="memif m0 up after the flaps")
    alive((a, b))
    # The first pings may meet a link that is still settling; then 5 of 5 must pass.
    wait_until(lambda: ping(nsa, HB_IP, "-c", "1", "-W", "1").returncode == 0, 10,
               what="a ping across after the flaps")
    for ns, dst in ((nsa, HB_IP), (nsb, HA_IP)):
        r = ping(ns, dst, "-c", "5", "-i", "0.1", "-W", "2")
        assert r.returncode == 0 and " 0% packet loss" in r.stdout, r.stdout + r.stderr
    alive((a, b))

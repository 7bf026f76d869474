# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""The punt policers' rates as configuration (control.kernel_interfaces.punt,
docs/routing.md "Punt classes and policing") and the kernel interfaces' counters under
`clear counters`.

railsw runs with a kernel interface per port in namespace rswp<pid> and class `other`
policed at 1 frame/s with a burst of 20. h1 (Scapy, on p1's TAP) sends TCP SYNs to
port 22 of the switch's own address: what the policer lets through reaches the kernel
interface p1, whose kernel answers each with a RST (no listener) that leaves by p1.
No FRR is needed.
"""

import copy
import os
import time

import pytest
from scapy.all import ARP, IP, TCP, Ether

import railsw
import topo
from topo import HOST_IP, HOST_MAC, SW_IP

RATE, BURST = 1, 20


@pytest.fixture(scope="module")
def lab(build):
    kns = f"rswp{os.getpid()}"
    cfg = topo.three_ports(control={"kernel_interfaces": {
        "netns": kns, "punt": {"other": {"rate": RATE, "burst": BURST}}}})
    sw = railsw.Switch(build, cfg, start=False)
    try:
        sw.start()
        # The kernel learns h1 from the copy of an ARP request it gets (test_bgp.py checks
        # that): its RSTs can then leave at once.
        inj = railsw.Injector()
        inj.send(sw.tap["p1"], arp_request(sw))
        inj.close()
        railsw.wait_until(lambda: HOST_IP["p1"] in railsw.run(
            ["ip", "-n", kns, "neigh", "show", "dev", "p1"]).stdout, 3, what="kernel neighbour")
        yield sw, kns
        sw.stop()
    finally:
        sw.cleanup()
        railsw.run(["ip", "netns", "del", kns], check=False)


def arp_request(sw):
    return (Ether(dst="ff:ff:ff:ff:ff:ff", src=HOST_MAC["p1"]) /
            ARP(op=1, hwsrc=HOST_MAC["p1"], psrc=HOST_IP["p1"], pdst=SW_IP["p1"]))


def syns(sw, n, base_sport):
    return [Ether(dst=sw.mac["p1"], src=HOST_MAC["p1"]) /
            IP(src=HOST_IP["p1"], dst=SW_IP["p1"]) /
            TCP(sport=base_sport + i, dport=22, flags="S", seq=1000)
            for i in range(n)]


def punt(sw):
    return {r["class"]: r for r in sw.ctl("show", "punt")["punt"]}


def kif(sw, port="p1"):
    return {r["port"]: r for r in sw.ctl("show", "kif")["kernel_interfaces"]}[port]


def rsts(frames, sports):
    """The kernel's RSTs to h1 among frames, one per SYN port answered."""
    got = set()
    for _, data in frames:
        f = Ether(data)
        if TCP in f and f[IP].src == SW_IP["p1"] and f[TCP].flags & 0x04 and \
                f[TCP].sport == 22 and f[TCP].dport in sports:
            got.add(f[TCP].dport)
    return got


def reload_with(sw, punt_map):
    """Reload sw's own configuration with kernel_interfaces.punt = punt_map."""
    cfg = copy.deepcopy(sw.config)
    cfg["control"]["kernel_interfaces"]["punt"] = punt_map
    path = os.path.join(sw.tmp, "punt.yaml")
    with open(path, "w") as f:
        f.write(railsw.to_yaml(cfg) + "\n")
    r = sw.ctl("reload", path)
    assert r.get("ok") is True, r


def flood(sw, injector, n, base_sport):
    """Send n SYNs at once; the class other's counters, the kif counters of p1 and the RSTs
    (ports) captured on p1 that came of them, and the seconds the sending took."""
    p0, k0 = punt(sw)["other"], kif(sw)
    with railsw.Capture([sw.tap["p1"]]) as cap:
        t0 = time.monotonic()
        injector.send(sw.tap["p1"], syns(sw, n, base_sport))
        took = time.monotonic() - t0
        sports = set(range(base_sport, base_sport + n))

        def settled():
            p = punt(sw)["other"]
            return p["packets"] + p["policed"] - p0["packets"] - p0["policed"] >= n
        railsw.wait_until(settled, 5, what="every SYN classified")
        passed = punt(sw)["other"]["packets"] - p0["packets"]
        got = rsts(cap.collect(count=passed, timeout=3, quiet=0.5,
                               match=lambda _, d: bool(rsts([(_, d)], sports))), sports)
    p1, k1 = punt(sw)["other"], kif(sw)
    return {"passed": passed, "policed": p1["policed"] - p0["policed"],
            "to_kernel": k1["to_kernel"] - k0["to_kernel"],
            "from_kernel": k1["from_kernel"] - k0["from_kernel"], "rsts": len(got),
            "took": took}


def test_configured_rate_polices_other(lab, injector):
    """**Steps**: railsw runs with `kernel_interfaces.punt: { other: { rate: 1, burst: 20 } }`;
    h1 sends 100 TCP SYNs to 10.2.0.254 port 22 at once.
    **Verify**: `show punt` reports class other at rate 1, burst 20 and the other classes at
    their defaults (arp 2000/400, bgp 10000/1000); of the 100 SYNs, 20 (plus one a second
    of sending) pass, the rest are `policed`; exactly those reached the kernel interface
    (`show kif` to_kernel) and the kernel answered each with a RST that left by p1."""
    sw, _ = lab
    rows = punt(sw)
    assert (rows["other"]["rate"], rows["other"]["burst"]) == (RATE, BURST)
    assert (rows["arp"]["rate"], rows["arp"]["burst"]) == (2000, 400)
    assert (rows["bgp"]["rate"], rows["bgp"]["burst"]) == (10000, 1000)
    r = flood(sw, injector, 100, 20000)
    assert BURST <= r["passed"] <= BURST + RATE * (int(r["took"]) + 1), r
    assert r["policed"] == 100 - r["passed"], r
    assert r["to_kernel"] == r["passed"], r
    assert r["rsts"] == r["passed"] and r["from_kernel"] >= r["passed"], r


def test_reload_changes_rate(lab, injector):
    """**Steps**: `reload` a file whose punt map gives other a burst of 5; 30 SYNs; then one
    that gives it rate 0; 10 SYNs; then the original file.
    **Verify**: each reload answers ok and `show punt` shows the new rate and burst at once;
    with burst 5, 5 SYNs (plus one a second) pass and reach the kernel; at rate 0 none does,
    all 10 are policed; the original file brings back rate 1, burst 20."""
    sw, _ = lab
    reload_with(sw, {"other": {"rate": RATE, "burst": 5}})
    assert (punt(sw)["other"]["rate"], punt(sw)["other"]["burst"]) == (RATE, 5)
    r = flood(sw, injector, 30, 21000)
    assert 5 <= r["passed"] <= 5 + RATE * (int(r["took"]) + 1), r
    assert r["policed"] == 30 - r["passed"] and r["to_kernel"] == r["passed"], r
    reload_with(sw, {"other": {"rate": 0}})
    assert punt(sw)["other"]["rate"] == 0
    r = flood(sw, injector, 10, 22000)
    assert (r["passed"], r["policed"], r["to_kernel"], r["rsts"]) == (0, 10, 0, 0), r
    assert sw.ctl("reload", sw.conf).get("ok") is True
    assert (punt(sw)["other"]["rate"], punt(sw)["other"]["burst"]) == (RATE, BURST)


def test_kif_counters_clear(lab, injector):
    """**Steps**: after the frames of the tests above, `clear counters`; then h1 asks for
    10.2.0.254 by ARP.
    **Verify**: right after the clear, `show kif` counts 0 for p1 (to_kernel, from_kernel,
    filtered, errors) though its kernel interface got frames before; after the request,
    to_kernel counts exactly that one frame and filtered the kernel's own reply (railsw
    answers ARP itself)."""
    sw, _ = lab
    assert kif(sw)["to_kernel"] > 0
    sw.ctl("clear", "counters")
    k = kif(sw)
    assert (k["to_kernel"], k["from_kernel"], k["filtered"], k["errors"]) == (0, 0, 0, 0), k
    injector.send(sw.tap["p1"], arp_request(sw))
    railsw.wait_until(lambda: kif(sw)["filtered"] >= 1, 3, what="the kernel's reply")
    time.sleep(0.3)
    k = kif(sw)
    assert (k["to_kernel"], k["filtered"]) == (1, 1), k

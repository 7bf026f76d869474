# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Mbuf accounting (docs/reliability.md "Mbuf accounting"): every path that
forwards, drops, trims, punts, holds or transmits a frame returns its mbuf
to the pool exactly once.

One switch (three TAP ports at 10 Mbit/s, lossless TC 3, trimming on TC 1,
ECN on TC 4, CNPs in strict TC 6, PFC watchdog `drop`) runs every scenario.
Around each one, railsw.no_mbuf_leak() reads `show buffer` mbufs_in_use at
rest (buffer empty, count steady for 0.5 s), runs the scenario, and polls
(bounded) until the count is back to exactly the value before: more is a
leak, fewer is a double free (a frame returned twice). The in-use count
includes mbufs posted to rx descriptors, so it is compared before/after, not
against zero. Each scenario also checks its counter moved, so a scenario
that silently stopped exercising its path fails too.
"""

import json
import os
import struct
import time

import pytest
from scapy.all import ARP, ICMP, IP, UDP, Dot1Q, Ether, IPv6, Raw
from scapy.layers.inet6 import ICMPv6EchoRequest, ICMPv6ND_NS, ICMPv6NDOptSrcLLAddr

import railsw
import topo
from railsw import no_mbuf_leak, wait_until
from topo import HOST_IP, HOST_IP6, HOST_MAC, SW_IP, SW_IP6, deltas, udp4, udp6

PFC_DST = "01:80:c2:00:00:01"
DSCP = {0: 0, 1: 8, 2: 16, 3: 26, 4: 32, 6: 48}   # TC -> DSCP (the config maps them back)


def config():
    cfg = topo.three_ports()
    cfg["switch"]["icmp_unreachable"] = {"enable": True, "rate_pps": 1000}
    for p in cfg["ports"]:
        p["speed"] = "10M"
    cfg["ports"][1]["mtu"] = 1280           # p0 -> p1 frames above 1280 exceed the MTU
    cfg["qos"] = {
        "trust": "dscp",
        "dscp_to_tc": {8: 1, 16: 2, 26: 3, 32: 4, 48: 6},
        "default_tc": 0,
        "scheduler": {"strict": [6], "dwrr": {0: 1, 1: 1, 2: 1, 3: 1, 4: 1}},
        "lossless": [3],
        "buffer": {"total": "4MB", "queue_limit": "32KB",
                   "pfc": {"xoff": "16KB", "xon": "8KB", "headroom": "128KB",
                           "quanta": 4000}},
        "ecn": {4: {"kmin": "4KB", "kmax": "16KB", "pmax": 1.0}},
        "trim": {"tcs": [1], "threshold": "16KB", "size": 128, "dscp": 11, "tc": 2},
        "cnp": {"tc": 6},
        "pfc_watchdog": {"detect_ms": 200, "restore_ms": 200, "action": "drop"},
    }
    return cfg


@pytest.fixture(scope="module")
def sw(build):
    with topo.running(build, config()) as s:
        yield s


@pytest.fixture
def inj():
    i = railsw.Injector()
    yield i
    i.close()


# --------------------------------------------------------------------------
# helpers


def send(sw, inj, port, frames, timeout=10):
    """Send frames into `port` and wait (bounded) until the switch received them all."""
    before = sw.port_counters(port)["rx_packets"]
    inj.send(sw.tap[port], frames)
    wait_until(lambda: sw.port_counters(port)["rx_packets"] - before >= len(frames), timeout,
               what=f"{len(frames)} frames received on {port}")


def data(sw, src, dst, tc, size=1000, seq=0, ecn=0, dport=5000):
    """A UDP/IPv4 frame of `size` bytes from the host on `src` to the host on `dst`."""
    f = Ether(dst=sw.mac[src], src=HOST_MAC[src]) / \
        IP(src=HOST_IP[src], dst=HOST_IP[dst], tos=DSCP[tc] << 2 | ecn) / \
        UDP(sport=4000 + seq % 64, dport=dport) / Raw(struct.pack("!I", seq))
    return Ether(bytes(f) + b"\0" * (size - len(f)))


def pfc(src, vector, times, opcode=0x0101, reserved=0):
    t = list(times) + [0] * (8 - len(times))
    return (bytes.fromhex(PFC_DST.replace(":", "")) + bytes.fromhex(src.replace(":", ""))
            + b"\x88\x08" + struct.pack("!HBB8H", opcode, reserved, vector, *t)).ljust(60, b"\0")


def queues(sw, port):
    return {q["tc"]: q for q in sw.ctl("show", "queues", port)["queues"]}


def pfc_rows(sw, port):
    return {r["priority"]: r for r in sw.ctl("show", "pfc", port)["pfc"]}


def delta_of(before, sw, port, field):
    return deltas(before, sw.counters()).get(port, {}).get(field, 0)


# --------------------------------------------------------------------------
# scenarios


def test_mbufs_reported(sw):
    """`show buffer` reports mbufs_in_use and mbufs_total: 0 < in use < total."""
    b = sw.ctl("show", "buffer")["buffer"]
    assert 0 < b["mbufs_in_use"] < b["mbufs_total"], b
    in_use, total = sw.mbufs()
    assert total == b["mbufs_total"] and 0 < in_use < total


def test_forwarding(sw, inj):
    """IPv4, IPv6 and 802.1Q-tagged frames forwarded p0 -> p1 / p2 all return their mbufs."""
    with no_mbuf_leak(sw, "forwarding"):
        before = sw.counters()
        frames = [udp4(sw, "p0", HOST_IP["p1"], sport=1000 + i) for i in range(200)]
        frames += [udp6(sw, "p0", HOST_IP6["p2"], sport=1000 + i) for i in range(100)]
        frames += [Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"]) / Dot1Q(vlan=0, prio=3) /
                   IP(src=HOST_IP["p0"], dst=HOST_IP["p2"]) / UDP() / Raw(b"v" * 32)
                   for _ in range(20)]
        send(sw, inj, "p0", frames)
        wait_until(lambda: delta_of(before, sw, "p1", "tx_packets") >= 200
                   and delta_of(before, sw, "p2", "tx_packets") >= 120, 10,
                   what="forwarded frames out")


def test_drops_of_every_kind(sw, inj):
    """no_route, TTL 1 and 0, malformed, not_for_us, l2_control, unknown EtherType and
    mtu_exceeded drops (with the ICMP errors they trigger) return every mbuf."""
    g4 = bytes(udp4(sw, "p0", HOST_IP["p1"]))
    frames = {
        "no_route": [udp4(sw, "p0", "192.0.2.1", sport=i) for i in range(20)],
        "ttl_expired": [udp4(sw, "p0", HOST_IP["p1"], ttl=t) for t in (0, 1) * 5],
        "parse_errors": [g4[:14 + 12], g4[:14], bytes(g4[:12]) + b"\x81\x00\x00",
                         g4[:14] + b"\x44" + g4[15:], g4[:14] + b"\x65" + g4[15:]] * 4,
        "not_for_us": [Ether(dst="02:99:00:00:00:01", src=HOST_MAC["p0"]) /
                       IP(src=HOST_IP["p0"], dst=HOST_IP["p1"]) / UDP()] * 10,
        "l2_control": [Ether(dst="01:80:c2:00:00:0e", src=HOST_MAC["p0"], type=0x88cc) /
                       Raw(b"\0" * 46)] * 5 +
                      [Ether(dst="ff:ff:ff:ff:ff:ff", src=HOST_MAC["p0"]) /
                       IP(src=HOST_IP["p0"], dst="10.1.0.255") / UDP()] * 5,
        "unknown_ethertype": [Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"], type=0x88b5) /
                              Raw(b"\0" * 46)] * 10,
        "mtu_exceeded": [udp4(sw, "p0", HOST_IP["p1"], payload=b"m" * 1400, flags="DF")] * 5,
    }
    with no_mbuf_leak(sw, "drops"):
        before = sw.counters()
        for name, fr in frames.items():
            send(sw, inj, "p0", fr)
        d = deltas(before, sw.counters())["p0"]
    for name, fr in frames.items():
        assert d.get(name, 0) >= len(fr), (name, d)


def test_punts(sw, inj):
    """ARP requests and replies, ICMP echo, IPv6 ND and ICMPv6 echo for the switch,
    and the replies it sends, return every mbuf."""
    arp = [Ether(dst="ff:ff:ff:ff:ff:ff", src=HOST_MAC["p0"]) /
           ARP(op=1, hwsrc=HOST_MAC["p0"], psrc=HOST_IP["p0"], pdst=SW_IP["p0"])] * 10
    arp_other = [Ether(dst="ff:ff:ff:ff:ff:ff", src=HOST_MAC["p0"]) /
                 ARP(op=1, hwsrc=HOST_MAC["p0"], psrc=HOST_IP["p0"], pdst="10.1.0.77")] * 5
    echo = [Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"]) /
            IP(src=HOST_IP["p0"], dst=SW_IP["p0"]) / ICMP(id=7, seq=i) / Raw(b"e" * 56)
            for i in range(10)]
    echo_far = [Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"]) /
                IP(src=HOST_IP["p0"], dst=SW_IP["p2"]) / ICMP(id=8, seq=i) for i in range(5)]
    ns = [Ether(dst="33:33:ff:00:00:fe", src=HOST_MAC["p0"]) /
          IPv6(src=HOST_IP6["p0"], dst="ff02::1:ff00:fe", hlim=255) /
          ICMPv6ND_NS(tgt=SW_IP6["p0"]) / ICMPv6NDOptSrcLLAddr(lladdr=HOST_MAC["p0"])] * 10
    echo6 = [Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"]) /
             IPv6(src=HOST_IP6["p0"], dst=SW_IP6["p0"]) / ICMPv6EchoRequest(id=9, seq=i)
             for i in range(10)]
    udp_local = [udp4(sw, "p0", SW_IP["p0"], dport=33434 + i) for i in range(5)]
    with no_mbuf_leak(sw, "punts"):
        before = sw.counters()
        with railsw.Capture([sw.tap["p0"]]) as cap:
            send(sw, inj, "p0", arp + arp_other + echo + echo_far + ns + echo6 + udp_local)
            # 10 ARP replies, 15 echo replies, 10 NAs, 10 echo6 replies at least.
            cap.collect(count=45, timeout=5)
        assert len(cap.frames) >= 45, len(cap.frames)
        assert delta_of(before, sw, "p0", "punted") >= 45


def test_unresolved_hold_and_expiry(sw, inj):
    """Frames for a next hop nobody resolves: 3 are held while ARP runs, the rest
    dropped at once, and the held ones dropped when resolution fails."""
    with no_mbuf_leak(sw, "unresolved neighbour", timeout=15):
        before = sw.counters()
        send(sw, inj, "p0", [udp4(sw, "p0", "10.2.0.9", sport=s) for s in range(6)])
        wait_until(lambda: delta_of(before, sw, "p0", "neigh_unresolved") >= 6, 15,
                   interval=0.2, what="neigh_unresolved +6")
    assert delta_of(before, sw, "p0", "neigh_unresolved") == 6


def test_unresolved_hold_then_resolved(sw, inj):
    """Held frames released when the ARP reply arrives return their mbufs too."""
    target, mac = "10.2.0.10", "02:aa:00:00:02:0a"
    with no_mbuf_leak(sw, "held then resolved"):
        with railsw.Capture([sw.tap["p1"]]) as cap:
            send(sw, inj, "p0", [udp4(sw, "p0", target, sport=s,
                                      payload=b"held-%d" % s) for s in range(3)])
            cap.collect(count=1, timeout=3, match=lambda i, d: d[12:14] == b"\x08\x06")
            reply = Ether(dst=sw.mac["p1"], src=mac) / ARP(
                op=2, hwsrc=mac, psrc=target, hwdst=sw.mac["p1"], pdst=SW_IP["p1"])
            inj.send(sw.tap["p1"], reply)
            got = cap.collect(count=3, timeout=5, match=lambda i, d: b"held-" in d)
        assert len([d for _, d in got if b"held-" in d]) == 3


def test_pfc_rx(sw, inj):
    """A received XOFF holds TC 3 frames on p2 until it expires; an XON releases
    the next batch early; PAUSE, a pause for a lossy priority and malformed MAC
    Control frames are consumed. Every mbuf comes back."""
    with no_mbuf_leak(sw, "PFC rx"):
        q0 = queues(sw, "p2")[3]["dequeued_packets"]
        r0 = pfc_rows(sw, "p2")
        # 1953 quanta at 10M = 100 ms; the watchdog (200 ms) stays quiet.
        send(sw, inj, "p2", [pfc(HOST_MAC["p2"], 0x08, [0, 0, 0, 1953])])
        send(sw, inj, "p0", [data(sw, "p0", "p2", 3, 500, i) for i in range(10)])
        wait_until(lambda: queues(sw, "p2")[3]["dequeued_packets"] - q0 >= 10, 5,
                   what="TC 3 released after the pause")
        send(sw, inj, "p2", [pfc(HOST_MAC["p2"], 0x08, [0, 0, 0, 65535])])
        send(sw, inj, "p0", [data(sw, "p0", "p2", 3, 500, i) for i in range(10)])
        time.sleep(0.05)
        send(sw, inj, "p2", [pfc(HOST_MAC["p2"], 0x08, [0, 0, 0, 0])])
        wait_until(lambda: queues(sw, "p2")[3]["dequeued_packets"] - q0 >= 20, 5,
                   what="TC 3 released by XON")
        send(sw, inj, "p2", [
            pfc(HOST_MAC["p2"], 0x01, [100]),                       # lossy priority
            pfc(HOST_MAC["p2"], 0x08, [0, 0, 0, 10], reserved=1),   # malformed
            pfc(HOST_MAC["p2"], 0x08, [0, 0, 0, 10], opcode=0x0102),  # unknown opcode
            (bytes.fromhex("0180c2000001") + bytes.fromhex(HOST_MAC["p2"].replace(":", ""))
             + b"\x88\x08\x00\x01\x00\x0a").ljust(60, b"\0"),          # 802.3x PAUSE, 10 q
        ])
    r1 = pfc_rows(sw, "p2")
    assert r1[3]["rx_xoff"] - r0[3]["rx_xoff"] >= 2
    assert r1[3]["rx_xon"] - r0[3]["rx_xon"] >= 1
    assert r1[0]["rx_ignored"] - r0[0]["rx_ignored"] >= 1


def test_pfc_watchdog_flush(sw, inj):
    """A pause storm on p2 TC 3 with frames queued: the watchdog (drop) flushes the
    queue and drops new frames at admission; restore after the storm."""
    with no_mbuf_leak(sw, "PFC watchdog flush", timeout=15):
        r0 = pfc_rows(sw, "p2")[3]
        q0 = queues(sw, "p2")[3]["dropped_packets"]
        send(sw, inj, "p2", [pfc(HOST_MAC["p2"], 0x08, [0, 0, 0, 65535])])
        send(sw, inj, "p0", [data(sw, "p0", "p2", 3, 500, i) for i in range(10)])
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:       # the storm: XOFF every 50 ms
            inj.send(sw.tap["p2"], pfc(HOST_MAC["p2"], 0x08, [0, 0, 0, 65535]))
            if pfc_rows(sw, "p2")[3]["pfcwd_storms"] > r0["pfcwd_storms"]:
                inj.send(sw.tap["p0"], [data(sw, "p0", "p2", 3, 500, 100 + i)
                                        for i in range(5)])
                break
            time.sleep(0.05)
        for _ in range(4):
            inj.send(sw.tap["p2"], pfc(HOST_MAC["p2"], 0x08, [0, 0, 0, 65535]))
            time.sleep(0.05)
        wait_until(lambda: pfc_rows(sw, "p2")[3]["pfcwd_restores"] > r0["pfcwd_restores"], 5,
                   what="watchdog restore")
        # What the last XOFF honoured before the storm still holds: release it.
        send(sw, inj, "p2", [pfc(HOST_MAC["p2"], 0x08, [0, 0, 0, 0])])
    r1 = pfc_rows(sw, "p2")[3]
    assert r1["pfcwd_storms"] == r0["pfcwd_storms"] + 1
    assert queues(sw, "p2")[3]["dropped_packets"] - q0 >= 10


def test_lossless_incast_pfc_tx(sw, inj):
    """A 2->1 incast on lossless TC 3: the switch sends XOFF/XON (frames it allocates)
    and delivers everything."""
    with no_mbuf_leak(sw, "lossless incast"):
        r0 = {p: pfc_rows(sw, p)[3] for p in ("p0", "p1")}
        q0 = queues(sw, "p2")[3]
        frames = {p: [bytes(data(sw, p, "p2", 3, 1000, i)) for i in range(40)]
                  for p in ("p0", "p1")}
        for i in range(40):             # built first: Scapy is too slow to congest inline
            inj.send(sw.tap["p0"], frames["p0"][i])
            inj.send(sw.tap["p1"], frames["p1"][i])
        wait_until(lambda: queues(sw, "p2")[3]["dequeued_packets"] - q0["dequeued_packets"]
                   >= 80, 10, what="80 TC 3 frames out")
        try:
            wait_until(lambda: all(pfc_rows(sw, p)[3]["tx_xon"] > r0[p]["tx_xon"]
                                   for p in ("p0", "p1")), 5, what="XON on p0 and p1")
        except TimeoutError:
            raise AssertionError(f"no XON: before {r0}, after "
                                 f"{ {p: pfc_rows(sw, p)[3] for p in ('p0', 'p1')} }, "
                                 f"{sw.ctl('show', 'buffer')}") from None
    q1 = queues(sw, "p2")[3]
    assert q1["lossless_drops"] == q0["lossless_drops"]
    assert all(pfc_rows(sw, p)[3]["tx_xoff"] > r0[p]["tx_xoff"] for p in ("p0", "p1"))


def test_congestion_drops_lossy(sw, inj):
    """Tail drops on lossy TC 0 (queue_limit 32KB) and ECN drops of Not-ECT frames
    on TC 4 (kmin 4KB) return every mbuf."""
    with no_mbuf_leak(sw, "congestion drops"):
        q0 = queues(sw, "p2")
        send(sw, inj, "p0", [data(sw, "p0", "p2", 0, 1000, i) for i in range(100)] +
             [data(sw, "p0", "p2", 4, 1000, i) for i in range(60)])
    q1 = queues(sw, "p2")
    assert q1[0]["dropped_packets"] - q0[0]["dropped_packets"] > 0
    assert q1[4]["dropped_packets"] - q0[4]["dropped_packets"] > 0


def test_trimming(sw, inj):
    """UET frames on trim-eligible TC 1 beyond the 16KB threshold are trimmed to
    128 bytes and sent in TC 2: the trimmed frames return their mbufs."""
    with no_mbuf_leak(sw, "trimming"):
        q0 = queues(sw, "p2")
        send(sw, inj, "p0", [data(sw, "p0", "p2", 1, 1000, i, dport=4793) for i in range(80)])
    q1 = queues(sw, "p2")
    assert q1[1]["trimmed"] - q0[1]["trimmed"] > 0 or q1[2]["trimmed"] - q0[2]["trimmed"] > 0, \
        (q1[1], q1[2])


def test_cnp(sw, inj):
    """RoCEv2 CNPs (BTH opcode 0x81) forced into strict TC 6 return their mbufs."""
    bth = bytes([0x81, 0x00, 0xFF, 0xFF, 0x40, 0, 0, 7]) + bytes(4) + bytes(16)
    cnps = [Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"]) /
            IP(src=HOST_IP["p0"], dst=HOST_IP["p2"]) /
            UDP(sport=0xC000 + i, dport=4791) / Raw(bth) for i in range(20)]
    with no_mbuf_leak(sw, "CNP"):
        before = sw.counters()
        send(sw, inj, "p0", cnps)
        wait_until(lambda: delta_of(before, sw, "p2", "cnp_tx") >= 20, 5, what="CNPs out")


def test_reload_under_traffic(sw, inj):
    """`reload` alternating two configs while frames flow: nothing leaks across
    table generations."""
    cfg = json.loads(json.dumps(sw.config))
    cfg["routes"].append({"prefix": "10.44.0.0/16", "nexthops": [HOST_IP["p2"]]})
    cfg["qos"]["ecn"]["4"]["kmin"] = "8KB"   # JSON keys are strings
    alt = os.path.join(sw.tmp, "alt.yaml")
    with open(alt, "w") as f:
        json.dump(cfg, f)
    with no_mbuf_leak(sw, "reload"):
        before = sw.counters()
        for i in range(6):
            inj.send(sw.tap["p0"], [udp4(sw, "p0", HOST_IP["p1"], sport=2000 + j)
                                    for j in range(50)])
            r = sw.ctl("reload", alt if i % 2 == 0 else sw.conf)
            assert r.get("ok") is True, r
        wait_until(lambda: delta_of(before, sw, "p1", "tx_packets") >= 300, 10,
                   what="300 frames out across reloads")


def test_learn_and_age_under_traffic(sw, inj):
    """Neighbours learned, added and aged while frames to them flow: none of it leaks.

    Steps: frames from p0 to 40 hosts of p1's connected subnet flow throughout. The hosts
    announce themselves (ARP requests for the switch: learned, each one slot of the
    subnet's adjacency written); then a reload adds 20 static neighbours there, and a
    reload back removes them (their entries invalidated, as when a neighbour ages out),
    while frames to them keep coming.
    Verify: the learned hosts get their frames, routed to their MACs; the frames to the
    removed static neighbours are punted to be resolved again and dropped as unresolved;
    mbufs_in_use comes back to where it was."""
    learned = ["10.2.0.%d" % (100 + k) for k in range(40)]
    static_ips = ["10.2.0.%d" % (200 + k) for k in range(20)]
    mac = lambda ip: "02:bb:00:00:02:%02x" % int(ip.split(".")[3])
    cfg = json.loads(json.dumps(sw.config))
    cfg["neighbors"] = cfg["neighbors"] + [{"ip": ip, "mac": mac(ip), "port": "p1"}
                                           for ip in static_ips]
    alt = os.path.join(sw.tmp, "static_ips.yaml")
    with open(alt, "w") as f:
        json.dump(cfg, f)

    def traffic(dsts, tag):
        inj.send(sw.tap["p0"], [udp4(sw, "p0", d, sport=3000 + i, payload=tag)
                                for i, d in enumerate(dsts)])

    with no_mbuf_leak(sw, "learn and age", timeout=15):
        before = sw.counters()
        with railsw.Capture([sw.tap["p1"]]) as cap:
            traffic(learned, b"early")  # unknown: held, ARP'd, dropped unanswered
            inj.send(sw.tap["p1"], [Ether(dst="ff:ff:ff:ff:ff:ff", src=mac(ip)) /
                                    ARP(op=1, hwsrc=mac(ip), psrc=ip, pdst=SW_IP["p1"])
                                    for ip in learned])
            wait_until(lambda: all(n.get("state") == "reachable" for n in
                                   sw.ctl("show", "neighbors")["neighbors"]
                                   if n.get("ip") in learned) and
                       len([n for n in sw.ctl("show", "neighbors")["neighbors"]
                            if n.get("ip") in learned]) == 40, 10, what="40 hosts learned")
            for r in range(3):
                traffic(learned, b"learned")
            got = cap.collect(count=120, timeout=5, match=lambda i, d: b"learned" in d)
        assert len([d for _, d in got if b"learned" in d]) == 120
        for _, d in got:
            if b"learned" in d:
                fr = Ether(d)
                assert fr.dst == mac(fr[IP].dst) and fr.src == sw.mac["p1"]
        for i in range(4):
            r = sw.ctl("reload", alt if i % 2 == 0 else sw.conf)
            assert r.get("ok") is True, r
            traffic(static_ips + learned, b"reload")
        traffic(static_ips, b"aged")
        wait_until(lambda: delta_of(before, sw, "p0", "neigh_unresolved") >= 40, 15,
                   interval=0.2, what="frames to unknown and removed neighbours dropped")

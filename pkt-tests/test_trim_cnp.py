# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""UEC packet trimming and RoCEv2 CNP handling (docs/congestion.md) on
TAP ports shaped to 10 Mbit/s, so a Scapy sender congests the egress port.

Trimming: UET frames (UDP dport 4793) in a trim-eligible class beyond
trim.threshold leave cut to trim.size with DSCP_TRIMMED (DSCP_TRIMMED_LASTHOP
on a leaf's downlink), ECN kept, lengths and checksums fixed, in the trim
class, ahead of most of the backlog; a frame already no longer than the trim
size goes whole; a full trim queue drops and counts. CNPs (BTH opcode 0x81):
forced into qos.cnp.tc whatever their DSCP, over IPv4 and IPv6, tagged or not,
never ECN-marked, never trimmed, not tail-dropped at queue_limit, counted as
cnp_rx / cnp_tx, and coalesced per (dst IP, dest QP) with cnp.coalesce_us.

Sizes are frames without FCS, as Scapy sees them and as trim.size counts.
"""

import struct
import time
import zlib

import pytest
from scapy.all import IP, UDP, Ether, IPv6, Raw

import railsw
import topo
from topo import HOST_IP, HOST_IP6, HOST_MAC, describe

UET_PORT = 4793
ROCE_PORT = 4791
DSCP_DATA = 8       # TC 1: trim-eligible UET data (DSCP_TRIMMABLE)
DSCP_TRIMMED = 11
DSCP_LASTHOP = 21
DSCP_CTRL = 48      # TC 6: strict
TRIM_SIZE = 128
ECT0, CE = 2, 3
MAGIC = b"RSWTRIM1"


def trim_config(role="leaf", p2_role=None, **qos):
    """topo.three_ports() at 10M with trimming on TC 1 (threshold 16KB, size
    128, DSCP 11 / last hop 21, trim class 2), CNPs in strict TC 6; qos
    keys override the defaults."""
    cfg = topo.three_ports()
    cfg["switch"]["role"] = role
    for p in cfg["ports"]:
        p["speed"] = "10M"
    if p2_role:
        cfg["ports"][2]["role"] = p2_role
    base = {
        "trust": "dscp",
        "dscp_to_tc": {DSCP_DATA: 1, 16: 2, 26: 3, DSCP_CTRL: 6},
        "default_tc": 0,
        "scheduler": {"strict": [6], "dwrr": {0: 1, 1: 1, 2: 1, 3: 1}},
        "lossless": [3],
        "buffer": {"total": "4MB", "queue_limit": "256KB",
                   "pfc": {"xoff": "32KB", "xon": "16KB", "headroom": "64KB",
                           "quanta": 65535}},
        "trim": {"tcs": [1], "threshold": "16KB", "size": TRIM_SIZE, "dscp": DSCP_TRIMMED,
                 "dscp_lasthop": DSCP_LASTHOP, "tc": 2},
        "cnp": {"tc": 6},
        "pfc_watchdog": {"action": "off"},
    }
    base.update(qos)
    cfg["qos"] = base
    return cfg


# --------------------------------------------------------------------------
# Frames


def uet_payload(seq, n):
    """n bytes of UET payload: a RUD request PDS header (type 2, next header
    standard SES, PSN = seq), a magic and the sequence number, then a counting
    pattern, so any byte kept by a trim can be checked."""
    pds = struct.pack("!HhIHH", (0x02 << 11) | (0x3 << 7), 0, seq, 0x0101, 0x0202)
    head = pds + MAGIC + struct.pack("!I", seq)
    assert n >= len(head)
    return head + bytes((i * 7 + seq) & 0xFF for i in range(n - len(head)))


def uet_frame(sw, seq, size=1000, v6=False, dscp=DSCP_DATA, ecn=ECT0, dst="p2"):
    """A UET-over-UDP frame of `size` bytes from the host on p0 to the host on
    `dst` (UDP checksum 0 over IPv4 as UET sends, computed over IPv6)."""
    tos = dscp << 2 | ecn
    if v6:
        l3 = IPv6(src=HOST_IP6["p0"], dst=HOST_IP6[dst], tc=tos, hlim=64)
    else:
        l3 = IP(src=HOST_IP["p0"], dst=HOST_IP[dst], tos=tos, ttl=64, flags="DF")
    hdr = 14 + len(l3) + 8
    udp = UDP(sport=0xC000 | (seq & 0xFF), dport=UET_PORT, chksum=None if v6 else 0)
    f = Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"]) / l3 / udp / Raw(uet_payload(seq, size - hdr))
    data = bytes(f)
    assert len(data) == size
    return data


def uet_seq(data):
    """The sequence number of a captured UET frame (tagged or not), else None."""
    i = data.find(MAGIC)
    return None if i < 0 else struct.unpack("!I", data[i + 8:i + 12])[0]


def ip_of(e):
    return e[IP] if IP in e else e[IPv6]


def dscp_ecn(e):
    tos = e[IP].tos if IP in e else e[IPv6].tc
    return tos >> 2, tos & 3


def trimmed_copy(routed, size, dscp):
    """The frame a trim of the routed frame `routed` to `size` bytes must give:
    the first bytes of the UDP payload, DSCP set, ECN kept, IPv4 total
    length / header checksum, IPv6 payload length and UDP length fixed, UDP
    checksum 0 over IPv4 and recomputed over IPv6."""
    e = Ether(routed)
    udp = e[UDP]
    hdr = len(routed) - len(udp)
    keep = bytes(udp.payload)[:size - hdr - 8]
    udp.remove_payload()
    udp.add_payload(Raw(keep))
    udp.len = None
    if IP in e:
        e[IP].tos = dscp << 2 | (e[IP].tos & 3)
        e[IP].len = None
        e[IP].chksum = None
        udp.chksum = 0
    else:
        e[IPv6].tc = dscp << 2 | (e[IPv6].tc & 3)
        e[IPv6].plen = None
        udp.chksum = None
    out = bytes(e)
    assert len(out) == size
    return out


def scapy_checksums_ok(data):
    """Scapy recomputes the IPv4 header checksum, the lengths and (IPv6, or a
    non-zero IPv4 one) the UDP checksum of a captured frame: all match."""
    e = Ether(data)
    again = e.copy()
    if IP in again:
        del again[IP].chksum
        del again[IP].len
    else:
        del again[IPv6].plen
    del again[UDP].len
    if UDP in e and (IPv6 in e or e[UDP].chksum != 0):
        del again[UDP].chksum
    return bytes(again) == data


# RoCEv2 CNP (IBTA RoCEv2, Annex A17: a CNP is BTH opcode 0x81).

def icrc(l3, l4):
    """RoCEv2 ICRC over the IP header, UDP header and the BTH + payload with
    the variant fields masked (IBTA RoCEv2, Annex A17), stored little-endian."""
    if l3[0] >> 4 == 4:
        ip = bytearray(l3)
        ip[1] = 0xFF            # TOS
        ip[8] = 0xFF            # TTL
        ip[10:12] = b"\xff\xff"  # header checksum
    else:
        ip = bytearray(l3)
        ip[0:4] = bytes([ip[0] | 0x0F, 0xFF, 0xFF, 0xFF])  # traffic class, flow label
        ip[7] = 0xFF            # hop limit
    udp = bytearray(l4[:8])
    udp[6:8] = b"\xff\xff"
    bth = bytearray(l4[8:])
    bth[4] = 0xFF               # FECN, BECN, reserved
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth)))


def bth_cnp(qp):
    """BTH opcode 0x81, P_Key 0xFFFF, BECN, DestQP qp, PSN 0; then 16 reserved bytes."""
    return bytes([0x81, 0x00, 0xFF, 0xFF, 0x40]) + qp.to_bytes(3, "big") + bytes(4) + bytes(16)


def cnp_frame(dst_mac, src_mac, src, dst, qp, tos=0, sport=0xC000, vlan=None, ip_id=0):
    """A RoCEv2 CNP, IPv4 or IPv6 by the address family, optionally 802.1Q-tagged."""
    if ":" in src:
        l3 = IPv6(src=src, dst=dst, tc=tos, hlim=64, nh=17, plen=8 + 32)
    else:
        l3 = IP(src=src, dst=dst, tos=tos, ttl=64, id=ip_id, flags="DF", proto=17, len=20 + 40)
    l4 = bytes(UDP(sport=sport, dport=ROCE_PORT, len=40, chksum=0)) + bth_cnp(qp)
    l3b = bytes(l3)
    body = l3b + l4 + icrc(l3b, l4)
    etype = 0x86DD if ":" in src else 0x0800
    eth = Ether(dst=dst_mac, src=src_mac, type=0x8100 if vlan is not None else etype)
    tag = b"" if vlan is None else struct.pack("!HH", vlan, etype)
    return bytes(eth) + tag + body


def cnp(sw, qp, dst="p2", v6=False, tos=0, sport=0xC000, vlan=None, dst_ip=None):
    """A CNP from the host on p0 (the notification point) to the host on `dst`."""
    src = HOST_IP6["p0"] if v6 else HOST_IP["p0"]
    dip = dst_ip or (HOST_IP6[dst] if v6 else HOST_IP[dst])
    return cnp_frame(sw.mac["p0"], HOST_MAC["p0"], src, dip, qp, tos, sport, vlan)


def is_cnp(data):
    e = Ether(data)
    return UDP in e and e[UDP].dport == ROCE_PORT and bytes(e[UDP].payload)[:1] == b"\x81"


def data_frame(sw, seq, dscp, size=1000, ecn=ECT0, dst="p2"):
    """A plain UDP/IPv4 data frame (dport 5000) tagged with MAGIC and seq."""
    f = Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"]) / \
        IP(src=HOST_IP["p0"], dst=HOST_IP[dst], tos=dscp << 2 | ecn, ttl=64) / \
        UDP(sport=4000 + dscp, dport=5000) / Raw(MAGIC + struct.pack("!IB", seq, dscp))
    return bytes(f) + b"\0" * (size - len(f))


def data_tag(data):
    """(dscp sent, seq) of a data_frame(), else None."""
    i = data.find(MAGIC)
    if i < 0:
        return None
    seq, dscp = struct.unpack("!IB", data[i + 8:i + 13])
    return dscp, seq


# --------------------------------------------------------------------------
# Switch helpers


def queue_rows(sw, port):
    return {q["tc"]: q for q in sw.ctl("show", "queues", port)["queues"]}


def wait_drained(sw, timeout=5):
    railsw.wait_until(lambda: sw.ctl("show", "buffer")["buffer"]["used"] == 0, timeout,
                      what="the buffer to drain")


def port_delta(sw, before, port, key):
    return sw.port_counters(port)[key] - before[port][key]


@pytest.fixture
def tsw(make_switch):
    """make_switch for a trim_config()."""
    def start(**kw):
        return make_switch(trim_config(**kw))
    return start


# --------------------------------------------------------------------------
# The CNP builder against a CNP of the RoCEv2 format (IBTA Annex A17)


def test_cnp_builder_matches_vector():
    """The CNP builder these tests use reproduces a RoCEv2 CNP byte for byte.

    Steps: build the canonical CNP (02:..:02 -> 02:..:01, 10.0.0.2 ->
    10.0.0.1, TOS 0xC0, ID 0, DF, TTL 64, UDP 0xC000 -> 4791 checksum 0,
    DestQP 0x000123).
    Verify: the 74 bytes equal the vector, ICRC d2 37 2f b0 included.
    """
    vector = bytes.fromhex(
        "020000000001020000000002080045c0"
        "003c00004000401125ef0a0000020a00"
        "0001c00012b700280000" "8100ffff4000"
        "01230000000000000000000000000000"
        "000000000000d2372fb0")
    got = cnp_frame("02:00:00:00:00:01", "02:00:00:00:00:02", "10.0.0.2", "10.0.0.1",
                    0x123, tos=0xC0)
    assert got == vector, got.hex()


# --------------------------------------------------------------------------
# Trimming


def run_trim_burst(sw, injector, v6, n=60):
    """Send n 1000-byte ECT(0) UET frames of TC 1 from p0 to p2 back to back;
    return (sent frames, frames out of p2 in order) once the buffer drained."""
    frames = [uet_frame(sw, i, v6=v6) for i in range(n)]
    with railsw.Capture([sw.tap["p2"]]) as cap:
        injector.send(sw.tap["p0"], frames)
        got = cap.collect(count=n, timeout=5, quiet=0.4,
                          match=lambda i, d: uet_seq(d) is not None)
    wait_drained(sw)
    return frames, [d for _, d in got if uet_seq(d) is not None]


@pytest.mark.parametrize("role,p2_role,dscp", [
    ("leaf", "uplink", DSCP_TRIMMED),
    ("leaf", "downlink", DSCP_LASTHOP),
    ("spine", "downlink", DSCP_TRIMMED),
], ids=["leaf-uplink", "leaf-downlink-lasthop", "spine-downlink"])
def test_trim_overflow(tsw, injector, role, p2_role, dscp):
    """The overflow of a trim-eligible class leaves trimmed, ahead of the backlog.

    Steps: switch.role `role`, egress port p2 with role `p2_role`; trim on TC 1
    at 16KB (queue_limit 256KB), size 128, dscp 11, dscp_lasthop 21, trim
    class TC 2 (DWRR weight 1, like TC 1). Send 60 UET frames of 1000 bytes
    (UDP dport 4793, DSCP 8, ECT(0), PSN / sequence number in the payload)
    from p0 to p2, first over IPv4, then (buffer drained) over IPv6.
    Verify, per family: every sequence number comes out exactly once (no
    loss); each frame is either exactly its routed copy, or exactly the
    routed copy trimmed to 128 bytes with DSCP `dscp` (21 only on a leaf's
    downlink), ECN still ECT(0), IPv4 total length / header checksum, IPv6
    payload length and UDP length fixed, UDP checksum 0 over IPv4 and valid
    over IPv6 (Scapy recomputes the same), the PDS header and first payload
    bytes intact; at least 16 frames whole (16KB queued) and at least 10
    trimmed; the whole frames keep their order; the first trimmed frame
    comes out before at least 8 whole frames (a separate DWRR class, not
    behind the backlog). `show queues p2`: TC 1 trimmed = trimmed frames
    seen, enqueued = whole frames; TC 2 enqueued = trimmed frames; no drop
    on any TC; the queues drain to 0.
    """
    sw = tsw(role=role, p2_role=p2_role)
    for v6 in (False, True):
        q0 = queue_rows(sw, "p2")
        sent, out = run_trim_burst(sw, injector, v6)
        seqs = sorted(uet_seq(d) for d in out)
        assert seqs == list(range(60)), f"lost or duplicated: {seqs}"
        whole, trimmed = [], []
        for k, d in enumerate(out):
            s = uet_seq(d)
            exp = topo.routed(sent[s], "p2", sw)
            if len(d) == len(exp):
                assert d == exp, f"seq {s}: changed but not trimmed"
                whole.append((k, s))
                continue
            assert len(d) == TRIM_SIZE, f"seq {s}: {len(d)} bytes"
            assert d == trimmed_copy(exp, TRIM_SIZE, dscp), f"seq {s}: {Ether(d).show(dump=True)}"
            e = Ether(d)
            assert dscp_ecn(e) == (dscp, ECT0)
            assert scapy_checksums_ok(d)
            l3 = ip_of(e)
            assert e[UDP].len == TRIM_SIZE - 14 - (20 if not v6 else 40)
            if v6:
                assert l3.plen == TRIM_SIZE - 54 and e[UDP].chksum != 0
            else:
                assert l3.len == TRIM_SIZE - 14 and e[UDP].chksum == 0
                assert topo.ipv4_checksum_ok(d)
            kept = bytes(e[UDP].payload)
            assert len(kept) == TRIM_SIZE - (62 if v6 else 42)
            assert kept == bytes(Ether(sent[s])[UDP].payload)[:len(kept)]
            trimmed.append((k, s))
        assert len(whole) >= 16 and len(trimmed) >= 10, (len(whole), len(trimmed))
        assert [s for _, s in whole] == sorted(s for _, s in whole)
        first_trim = trimmed[0][0]
        assert sum(1 for k, _ in whole if k > first_trim) >= 8, (whole, trimmed)
        q1 = queue_rows(sw, "p2")
        d = {tc: {k: q1[tc][k] - q0[tc][k] for k in ("enqueued_packets", "dropped_packets",
                                                      "trimmed", "lossless_drops")}
             for tc in q1}
        assert d[1]["trimmed"] == len(trimmed)
        assert d[1]["enqueued_packets"] == len(whole)
        assert d[2]["enqueued_packets"] == len(trimmed)
        for tc in range(8):
            assert d[tc]["dropped_packets"] == 0 and d[tc]["lossless_drops"] == 0, (tc, d)
            if tc != 1:
                assert d[tc]["trimmed"] == 0
            assert q1[tc]["depth_bytes"] == 0


def test_trim_short_frames_whole(tsw, injector):
    """A frame no longer than trim.size is never trimmed: it goes whole, in its class.

    Steps: congest TC 1 on p2 with 40 UET frames of 1000 bytes (16KB of them
    queue, the rest are trimmed), then send 30 UET frames of 100 bytes, 5 of
    exactly 128 and 5 of 129, all DSCP 8, ECT(0), p0 -> p2. The short frames
    are admitted whole whatever the depth, so they push TC 1 further over
    the threshold.
    Verify: every frame comes out once. The 100- and 128-byte frames are
    exactly their routed copies (DSCP 8, lengths untouched), in order among
    the whole frames of TC 1; the 129-byte frames come out either whole or
    trimmed to 128 bytes with DSCP 11, and at least one is trimmed (so are
    big ones, as in test_trim_overflow). TC 1 `trimmed` counts exactly the
    frames seen with DSCP 11; TC 1 enqueued = frames seen with DSCP 8; TC 2
    enqueued = trimmed; no drop.
    """
    sw = tsw()
    big = [uet_frame(sw, i) for i in range(40)]
    small = [uet_frame(sw, 100 + i, size=100) for i in range(30)]
    edge = [uet_frame(sw, 200 + i, size=128) for i in range(5)]
    over = [uet_frame(sw, 300 + i, size=129) for i in range(5)]
    sent = {uet_seq(f): f for f in big + small + edge + over}
    q0 = queue_rows(sw, "p2")
    with railsw.Capture([sw.tap["p2"]]) as cap:
        injector.send(sw.tap["p0"], big + small + edge + over)
        got = cap.collect(count=len(sent), timeout=5, quiet=0.4,
                          match=lambda i, d: uet_seq(d) is not None)
    wait_drained(sw)
    out = [d for _, d in got if uet_seq(d) is not None]
    assert sorted(uet_seq(d) for d in out) == sorted(sent), describe(got)
    n_trimmed = n_whole = 0
    order_tc1 = []
    for d in out:
        s = uet_seq(d)
        exp = topo.routed(sent[s], "p2", sw)
        if dscp_ecn(Ether(d))[0] == DSCP_TRIMMED:
            assert s < 100 or s >= 300, f"seq {s} ({len(exp)} bytes) was trimmed"
            assert d == trimmed_copy(exp, TRIM_SIZE, DSCP_TRIMMED)
            n_trimmed += 1
        else:
            assert d == exp, f"seq {s} changed"
            n_whole += 1
            order_tc1.append(s)
    assert order_tc1 == sorted(order_tc1), "TC 1 reordered"
    assert sum(1 for d in out if uet_seq(d) >= 300 and len(d) == TRIM_SIZE) >= 1
    q1 = queue_rows(sw, "p2")
    assert q1[1]["trimmed"] - q0[1]["trimmed"] == n_trimmed
    assert q1[1]["enqueued_packets"] - q0[1]["enqueued_packets"] == n_whole
    assert q1[2]["enqueued_packets"] - q0[2]["enqueued_packets"] == n_trimmed
    for tc in range(8):
        assert q1[tc]["dropped_packets"] == q0[tc]["dropped_packets"], tc


def test_trim_queue_full_drops(tsw, injector):
    """When the trim class is itself full, the trimmed frame is dropped and counted there.

    Steps: queue_limit 2KB (the trim class's limit; 16 trimmed frames of 128
    bytes), trim threshold 16KB on TC 1; send 120 UET frames of 1000 bytes
    p0 -> p2.
    Verify: out of p2 come whole frames (exact routed copies) and 128-byte
    trimmed frames only; whole + trimmed + TC 2 dropped_packets = 120 (every
    frame accounted for); TC 2 dropped_packets > 0; TC 1 trimmed = trimmed
    frames seen (a dropped trim is not counted as trimmed); TC 1 drops 0.
    """
    sw = tsw(buffer={"total": "4MB", "queue_limit": "2KB",
                     "pfc": {"xoff": "32KB", "xon": "16KB", "headroom": "64KB",
                             "quanta": 65535}})
    q0 = queue_rows(sw, "p2")
    sent, out = run_trim_burst(sw, injector, False, n=120)
    whole = trimmed = 0
    for d in out:
        exp = topo.routed(sent[uet_seq(d)], "p2", sw)
        if len(d) == TRIM_SIZE:
            assert d == trimmed_copy(exp, TRIM_SIZE, DSCP_TRIMMED)
            trimmed += 1
        else:
            assert d == exp
            whole += 1
    q1 = queue_rows(sw, "p2")
    dropped2 = q1[2]["dropped_packets"] - q0[2]["dropped_packets"]
    assert whole + trimmed + dropped2 == 120, (whole, trimmed, dropped2)
    assert dropped2 > 0
    assert q1[1]["trimmed"] - q0[1]["trimmed"] == trimmed
    assert q1[1]["dropped_packets"] == q0[1]["dropped_packets"]


# --------------------------------------------------------------------------
# CNPs


def test_cnp_overtakes_unmarked(tsw, injector):
    """CNPs sent with DSCP 0 go in strict cnp.tc, overtake a TC 0 backlog, and are never CE.

    Steps: ECN on TC 6 (the CNP class: kmin 1KB, kmax 2KB, pmax 1.0, at
    dequeue). From p0 to p2: 40 data frames of 1000 bytes in TC 0, then 10
    pairs of (a 1000-byte ECT(0) data frame of DSCP 48 = TC 6, a CNP with
    DSCP 0 and ECT(0), DestQP 0x100 + i).
    Verify: all 60 frames arrive. Each CNP equals its routed copy (ECN still
    ECT(0), not CE, nothing else changed); at least one TC 6 data frame is CE
    (the class was congested and marks); the 10 CNPs come out in order and
    at least 20 TC 0 frames come out after the last CNP. Counters: cnp_rx
    of p0 +10, cnp_tx of p2 +10 (and of the others +0); `show queues p2`
    TC 6 enqueued +20, TC 0 +40, TC 6 ecn_marked = CE data frames seen.
    """
    sw = tsw(ecn={6: {"kmin": "1KB", "kmax": "2KB", "pmax": 1.0}}, ecn_mark_point="dequeue")
    backlog = [data_frame(sw, i, 0) for i in range(40)]
    pairs = []
    cnps = []
    for i in range(10):
        c = cnp(sw, 0x100 + i, tos=ECT0, sport=0xC000 + i)
        cnps.append(c)
        pairs += [data_frame(sw, 100 + i, DSCP_CTRL), c]
    before = sw.counters()
    q0 = queue_rows(sw, "p2")
    with railsw.Capture([sw.tap["p2"]]) as cap:
        injector.send(sw.tap["p0"], backlog + pairs)
        got = cap.collect(count=60, timeout=5, quiet=0.4)
    wait_drained(sw)
    out = [d for _, d in got]
    cnp_out = [d for d in out if is_cnp(d)]
    assert cnp_out == [topo.routed(c, "p2", sw) for c in cnps], describe(got)
    assert all(dscp_ecn(Ether(d)) == (0, ECT0) for d in cnp_out)
    ctrl = [d for d in out if data_tag(d) and data_tag(d)[0] == DSCP_CTRL]
    ce = sum(1 for d in ctrl if dscp_ecn(Ether(d))[1] == CE)
    assert len(ctrl) == 10 and ce >= 1, "TC 6 was not congested: the check proves nothing"
    tc0 = [k for k, d in enumerate(out) if data_tag(d) and data_tag(d)[0] == 0]
    assert len(tc0) == 40
    last_cnp = max(k for k, d in enumerate(out) if is_cnp(d))
    assert sum(1 for k in tc0 if k > last_cnp) >= 20, (last_cnp, tc0)
    assert port_delta(sw, before, "p0", "cnp_rx") == 10
    assert port_delta(sw, before, "p2", "cnp_tx") == 10
    for p in ("p0", "p1"):
        assert port_delta(sw, before, p, "cnp_tx") == 0
    for p in ("p1", "p2"):
        assert port_delta(sw, before, p, "cnp_rx") == 0
    q1 = queue_rows(sw, "p2")
    assert q1[6]["enqueued_packets"] - q0[6]["enqueued_packets"] == 20
    assert q1[0]["enqueued_packets"] - q0[0]["enqueued_packets"] == 40
    assert q1[6]["ecn_marked"] - q0[6]["ecn_marked"] == ce


def test_cnp_ipv6_and_vlan(tsw, injector):
    """CNPs are recognised over IPv4 and IPv6, untagged and 802.1Q-tagged; look-alikes are not.

    Steps: from p0 to p2 send, with DSCP 0: 2 CNPs of each kind (IPv4, IPv6,
    IPv4 tagged VID 10, IPv6 tagged VID 10), then 2 RoCEv2 non-CNPs (BTH
    opcode 0x04, SEND only) and 2 UDP dport 4792 frames whose first payload
    byte is 0x81.
    Verify: all 12 come out exactly as routed (tags kept). cnp_rx of p0 +8,
    cnp_tx of p2 +8; `show queues p2` TC 6 enqueued +8 and TC 0 +4 (the
    look-alikes follow their DSCP).
    """
    sw = tsw()
    cnps = []
    for v6 in (False, True):
        for vlan in (None, 10):
            for _ in range(2):
                cnps.append(cnp(sw, 0x200 + len(cnps), v6=v6, vlan=vlan,
                                sport=0xC100 + len(cnps)))
    others = []
    for i in range(2):
        send_only = bytearray(cnp(sw, 0x300 + i, sport=0xC200 + i))
        send_only[42] = 0x04  # BTH opcode SEND only (the ICRC is not checked by a switch)
        others.append(bytes(send_only))
        port4792 = bytearray(cnp(sw, 0x310 + i, sport=0xC300 + i))
        port4792[36:38] = struct.pack("!H", 4792)
        others.append(bytes(port4792))
    before = sw.counters()
    q0 = queue_rows(sw, "p2")
    with railsw.Capture([sw.tap["p2"]]) as cap:
        injector.send(sw.tap["p0"], cnps + others)
        got = cap.collect(count=12, timeout=3, quiet=0.3)
    wait_drained(sw)
    assert sorted(d for _, d in got) == sorted(topo.routed(f, "p2", sw) for f in cnps + others), \
        describe(got)
    assert port_delta(sw, before, "p0", "cnp_rx") == 8
    assert port_delta(sw, before, "p2", "cnp_tx") == 8
    q1 = queue_rows(sw, "p2")
    assert q1[6]["enqueued_packets"] - q0[6]["enqueued_packets"] == 8
    assert q1[0]["enqueued_packets"] - q0[0]["enqueued_packets"] == 4


def test_cnp_coalescing(tsw, injector):
    """cnp.coalesce_us forwards at most one CNP per (dst IP, dest QP) per interval.

    Steps: coalesce_us 500000 (0.5 s). From p0, back to back: 10 CNPs to
    (h2, QP 0x123), 10 to (h2, QP 0x456), 3 to (h1, QP 0x123), each with its
    own UDP source port. Then, 0.6 s after the first, one more to (h2, QP
    0x123).
    Verify: the burst is sent within 0.4 s (else the interval check is
    void). Out come exactly the first CNP of each (dst IP, QP): two on p2,
    one on p1, exact routed copies; after the interval the late CNP is
    forwarded too. Counters: p0 cnp_rx +24, cnp_coalesced +20; p2 cnp_tx
    +3, p1 cnp_tx +1.
    """
    sw = tsw(cnp={"tc": 6, "coalesce_us": 500000})
    a = [cnp(sw, 0x123, sport=0xD000 + i) for i in range(10)]
    b = [cnp(sw, 0x456, sport=0xD100 + i) for i in range(10)]
    c = [cnp(sw, 0x123, dst="p1", sport=0xD200 + i) for i in range(3)]
    late = cnp(sw, 0x123, sport=0xD300)
    before = sw.counters()
    with railsw.Capture([sw.tap[p] for p in ("p0", "p1", "p2")]) as cap:
        t0 = time.monotonic()
        injector.send(sw.tap["p0"], a + b + c)
        took = time.monotonic() - t0
        assert took < 0.4, f"sending the burst took {took:.3f} s"
        got = cap.collect(count=3, timeout=2, quiet=0.3, match=lambda i, d: is_cnp(d))
        first = [(i, d) for i, d in got if is_cnp(d)]
        assert sorted(first) == sorted([(sw.tap["p2"], topo.routed(a[0], "p2", sw)),
                                        (sw.tap["p2"], topo.routed(b[0], "p2", sw)),
                                        (sw.tap["p1"], topo.routed(c[0], "p1", sw))]), \
            describe(got)
        mid = sw.counters()
        assert mid["p0"]["cnp_rx"] - before["p0"]["cnp_rx"] == 23
        assert mid["p0"]["cnp_coalesced"] - before["p0"]["cnp_coalesced"] == 20
        cap.frames.clear()
        time.sleep(max(0.0, t0 + 0.6 - time.monotonic()))  # the interval must have run out
        injector.send(sw.tap["p0"], late)
        got = cap.collect(count=1, timeout=2, quiet=0.3, match=lambda i, d: is_cnp(d))
    assert [(i, d) for i, d in got if is_cnp(d)] == [(sw.tap["p2"],
                                                      topo.routed(late, "p2", sw))]
    after = sw.counters()
    assert after["p0"]["cnp_rx"] - before["p0"]["cnp_rx"] == 24
    assert after["p0"]["cnp_coalesced"] - before["p0"]["cnp_coalesced"] == 20
    assert after["p2"]["cnp_tx"] - before["p2"]["cnp_tx"] == 3
    assert after["p1"]["cnp_tx"] - before["p1"]["cnp_tx"] == 1


def test_cnp_never_trimmed_nor_tail_dropped(tsw, injector):
    """A CNP in a trim-eligible class is never trimmed; in a full lossy class never tail-dropped.

    Steps: (1) cnp.tc 1, the trim-eligible class, with trim.size 78 (the
    floor of an untagged IPv6 frame) so a 94-byte IPv6 CNP is longer than
    the trim size: 40 UET frames of 1000 bytes (TC 1) then 5 IPv6 CNPs, all
    p0 -> p2. (2) cnp.tc 0 (lossy, not trim-eligible), queue_limit 16KB: 60
    data frames of 1000 bytes in TC 0, then 5 CNPs.
    Verify: (1) the UET overflow is trimmed (some 78-byte frames with DSCP
    11) while the 5 CNPs come out whole, exactly as routed (DSCP 0 kept);
    TC 1 trimmed = 78-byte frames seen; cnp_tx +5. (2) TC 0 tail-drops data
    (dropped_packets > 0, = 60 - data frames seen) while all 5 CNPs come
    out, exactly as routed; cnp_tx +5.
    """
    sw = tsw(cnp={"tc": 1}, trim={"tcs": [1], "threshold": "16KB", "size": 78,
                                  "dscp": DSCP_TRIMMED, "tc": 2})
    data = [uet_frame(sw, i) for i in range(40)]
    cnps = [cnp(sw, 0x400 + i, v6=True, sport=0xC400 + i) for i in range(5)]
    assert all(len(c) == 94 for c in cnps)
    before = sw.counters()
    q0 = queue_rows(sw, "p2")
    with railsw.Capture([sw.tap["p2"]]) as cap:
        injector.send(sw.tap["p0"], data + cnps)
        got = cap.collect(count=45, timeout=5, quiet=0.4)
    wait_drained(sw)
    out = [d for _, d in got]
    assert [d for d in out if is_cnp(d)] == [topo.routed(c, "p2", sw) for c in cnps]
    short = [d for d in out if len(d) == 78]
    assert short and all(dscp_ecn(Ether(d))[0] == DSCP_TRIMMED for d in short)
    assert queue_rows(sw, "p2")[1]["trimmed"] - q0[1]["trimmed"] == len(short)
    assert port_delta(sw, before, "p2", "cnp_tx") == 5

    sw.stop()
    sw = tsw(cnp={"tc": 0}, buffer={"total": "4MB", "queue_limit": "16KB",
                                    "pfc": {"xoff": "32KB", "xon": "16KB",
                                            "headroom": "64KB", "quanta": 65535}})
    data = [data_frame(sw, i, 0) for i in range(60)]
    cnps = [cnp(sw, 0x500 + i, sport=0xC500 + i) for i in range(5)]
    before = sw.counters()
    q0 = queue_rows(sw, "p2")
    with railsw.Capture([sw.tap["p2"]]) as cap:
        injector.send(sw.tap["p0"], data + cnps)
        got = cap.collect(count=65, timeout=3, quiet=0.4)
    wait_drained(sw)
    out = [d for _, d in got]
    assert [d for d in out if is_cnp(d)] == [topo.routed(c, "p2", sw) for c in cnps], \
        describe(got)
    seen = sum(1 for d in out if data_tag(d))
    dropped = queue_rows(sw, "p2")[0]["dropped_packets"] - q0[0]["dropped_packets"]
    assert dropped > 0 and dropped == 60 - seen, (dropped, seen)
    assert port_delta(sw, before, "p2", "cnp_tx") == 5

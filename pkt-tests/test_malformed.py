# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Malformed frames: counted as `parse_errors`, dropped, never forwarded,
and the switch keeps forwarding and answering afterwards."""

import pytest
from scapy.all import IP, UDP, Ether, IPv6, Raw

import railsw
import topo
from topo import HOST_IP, HOST_IP6, HOST_MAC, describe, deltas, routed, udp4, udp6

PORTS = ("p0", "p1", "p2")


@pytest.fixture(scope="module")
def sw(build):
    with topo.running(build, topo.three_ports()) as s:
        yield s


def good4(sw, payload=b"x" * 32):
    return bytes(Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"]) /
                 IP(src=HOST_IP["p0"], dst=HOST_IP["p1"]) / UDP(sport=7, dport=7) / Raw(payload))


def good6(sw, payload=b"x" * 32):
    return bytes(Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"]) /
                 IPv6(src=HOST_IP6["p0"], dst=HOST_IP6["p1"]) / UDP(sport=7, dport=7) /
                 Raw(payload))


def ip4_fix(frame):
    """Recompute the IPv4 header checksum of a frame (over IHL*4 bytes, or 20
    when IHL is below 5 or runs past the frame)."""
    b = bytearray(frame)
    ihl = (b[14] & 0x0F) * 4
    if ihl < 20 or 14 + ihl > len(b):
        ihl = 20
    if 14 + ihl > len(b):
        return bytes(b)
    b[24:26] = b"\0\0"
    total = sum(int.from_bytes(b[14 + i:16 + i], "big") for i in range(0, ihl, 2))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    b[24:26] = (~total & 0xFFFF).to_bytes(2, "big")
    return bytes(b)


def patch(frame, offset, data):
    b = bytearray(frame)
    b[offset:offset + len(data)] = data
    return bytes(b)


def cases(sw):
    g4, g6 = good4(sw), good6(sw)
    g4_udp_only = good4(sw, payload=b"")
    mac_hdr = g4[:12]
    ip4_len = len(g4) - 14
    return {
        "vlan_tag_truncated": mac_hdr + b"\x81\x00\x00",
        "ipv4_no_header": g4[:14],
        "ipv4_truncated_header": g4[:14 + 12],
        "ipv4_ihl_4": ip4_fix(patch(g4, 14, b"\x44")),
        "ipv4_ihl_0": ip4_fix(patch(g4, 14, b"\x40")),
        "ipv4_ihl_beyond_frame": ip4_fix(patch(g4_udp_only, 14, b"\x4f")),
        "ipv4_total_length_beyond_frame":
            ip4_fix(patch(g4, 16, (ip4_len + 100).to_bytes(2, "big"))),
        "ipv4_total_length_below_header": ip4_fix(patch(g4, 16, (12).to_bytes(2, "big"))),
        "ipv4_bad_version_6": ip4_fix(patch(g4, 14, b"\x65")),
        "ipv4_bad_version_0": ip4_fix(patch(g4, 14, b"\x05")),
        "ipv6_truncated_header": g6[:14 + 30],
        "ipv6_payload_length_beyond_frame":
            patch(g6, 18, (len(g6) - 54 + 100).to_bytes(2, "big")),
        "ipv6_bad_version_4": patch(g6, 14, b"\x40"),
        "udp_truncated_ipv4": ip4_fix(patch(g4_udp_only[:14 + 24], 16, (24).to_bytes(2, "big"))),
        "udp_truncated_ipv6": patch(g6[:14 + 40 + 4], 18, (4).to_bytes(2, "big")),
    }


CASE_NAMES = [
    "vlan_tag_truncated", "ipv4_no_header", "ipv4_truncated_header", "ipv4_ihl_4", "ipv4_ihl_0",
    "ipv4_ihl_beyond_frame", "ipv4_total_length_beyond_frame", "ipv4_total_length_below_header",
    "ipv4_bad_version_6", "ipv4_bad_version_0", "ipv6_truncated_header",
    "ipv6_payload_length_beyond_frame", "ipv6_bad_version_4", "udp_truncated_ipv4",
    "udp_truncated_ipv6",
]


def check_alive(sw, injector):
    """The switch still forwards a good frame and answers `show ports`."""
    with railsw.Capture([sw.tap[p] for p in PORTS]) as cap:
        f = udp4(sw, "p0", HOST_IP["p1"])
        injector.send(sw.tap["p0"], f)
        got = cap.collect(count=1, timeout=3)
    assert got == [(sw.tap["p1"], routed(f, "p1", sw))], \
        "good frame not forwarded after malformed ones:\n" + describe(got)
    assert set(sw.ports()) == set(PORTS)


def send_malformed(sw, injector, frames):
    with railsw.Capture([sw.tap[p] for p in PORTS]) as cap:
        before = sw.counters()
        injector.send(sw.tap["p0"], frames)
        # Wait until the switch has received them all, then a while more to
        # prove nothing comes out.
        railsw.wait_until(lambda: deltas(before, sw.counters()).get("p0", {}).get(
            "rx_packets", 0) >= len(frames), 5, what=f"{len(frames)} frames received")
        got = cap.collect(count=None, timeout=0.5)
    return deltas(before, sw.counters()), got


def test_cases_are_malformed(sw):
    """Self-check of the test data: each case differs from a good frame."""
    c = cases(sw)
    assert sorted(c) == sorted(CASE_NAMES)
    assert len(set(c.values())) == len(c)


@pytest.mark.parametrize("case", CASE_NAMES)
def test_malformed_dropped(sw, injector, case):
    """Steps: send one malformed frame (see the case name), addressed to p0's
    MAC and, were it well formed, routable to a host on p1.
    Verify: `parse_errors` on p0 +1 exactly and rx +1; no other drop counter
    moves; nothing comes out on any port; the switch then still forwards a
    good frame and answers `show ports`.
    """
    frame = cases(sw)[case]
    d, got = send_malformed(sw, injector, [frame])
    assert not got, "malformed frame produced output:\n" + describe(got)
    assert d.get("p0", {}).get("parse_errors") == 1, d
    assert d["p0"]["rx_packets"] == 1 and d["p0"]["rx_bytes"] == len(frame), d
    others = {k: v for k, v in d["p0"].items() if k not in ("parse_errors", "rx_packets",
                                                            "rx_bytes")}
    assert not others, f"other counters moved: {d}"
    check_alive(sw, injector)


@pytest.mark.parametrize("family", ["ipv4", "ipv6"])
def test_every_truncation(sw, injector, family):
    """Steps: send every truncation of a good UDP frame, from the bare
    14-byte Ethernet header up to one byte short of the whole frame.
    Verify: each is a parse error (`parse_errors` += number sent exactly),
    nothing comes out, the switch still forwards afterwards.
    """
    g = good4(sw) if family == "ipv4" else good6(sw)
    frames = [g[:n] for n in range(14, len(g))]
    d, got = send_malformed(sw, injector, frames)
    assert not got, "truncated frames produced output:\n" + describe(got)
    assert d["p0"].get("parse_errors") == len(frames), d
    check_alive(sw, injector)


@pytest.mark.parametrize("family", ["ipv4", "ipv6"])
def test_padded_frame_forwarded(sw, injector, family):
    """Ethernet padding is not an error: the IP length, not the frame's, counts.

    Steps: send a short UDP packet (IP length 29/49) padded with zeros to a
    60/80-byte frame.
    Verify: it is forwarded to p1 with the routed header; the IP packet in
    the output equals the expected one (padding may be kept or stripped);
    `parse_errors` does not move.
    """
    f = udp4(sw, "p0", HOST_IP["p1"], payload=b"z") if family == "ipv4" else \
        udp6(sw, "p0", HOST_IP6["p1"], payload=b"z")
    exp = routed(f, "p1", sw)
    padded = bytes(f) + b"\0" * 17
    with railsw.Capture([sw.tap[p] for p in PORTS]) as cap:
        before = sw.counters()
        injector.send(sw.tap["p0"], padded)
        got = cap.collect(count=1, timeout=3)
    assert len(got) == 1 and got[0][0] == sw.tap["p1"], describe(got)
    out = got[0][1]
    assert out[:len(exp)] == exp and not out[len(exp):].strip(b"\0"), describe(got)
    assert "parse_errors" not in deltas(before, sw.counters()).get("p0", {})

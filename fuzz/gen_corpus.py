#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Write the seed corpus of fuzz_packet (fuzz/corpus/fuzz_packet/) with Scapy.

An input is: the ingress port (byte 0), the knobs (byte 1), then frames, each a 2-byte
big-endian length and the frame (fuzz/fuzz_packet.c). The addresses match the fixed
configuration of fuzz_packet.c: port p has MAC 02:00:00:00:00:0<p+1>, 10.0.<p>.0/24 and
fd00:0:<p>::/64; 192.168.0.0/16 and 10.200-202.0.0/16 are 4-way ECMP (hash, spray,
adaptive, flowlet), 172.16.0.0/12 and 2001:db9::/32 have an unresolved next hop,
2001:db8::/32 is 2-way. Run from the repository root: python3 fuzz/gen_corpus.py
"""

import os
import struct

from scapy.layers.inet import ICMP, IP, UDP, TCP
from scapy.layers.inet6 import ICMPv6ND_NS, IPv6
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.packet import Raw

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "fuzz_packet")
HOST = "02:aa:00:00:00:01"


def mac(p):
    return "02:00:00:00:00:%02x" % (p + 1)


def bth(opcode, qp=0x12):
    return struct.pack("!BBHII", opcode, 0x40, 0xFFFF, qp & 0xFFFFFF, 1)


def pfc(enable, times):
    body = struct.pack("!HH", 0x0101, enable) + b"".join(struct.pack("!H", t) for t in times)
    return bytes(Ether(dst="01:80:c2:00:00:01", src=HOST, type=0x8808) / Raw(body.ljust(46, b"\0")))


def write(name, port, knobs, frames):
    data = bytes([port, knobs])
    for f in frames:
        f = bytes(f)
        data += struct.pack("!H", len(f)) + f
    with open(os.path.join(OUT, name), "wb") as fh:
        fh.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    e0 = Ether(dst=mac(0), src=HOST)
    udp4 = e0 / IP(src="10.0.0.2", dst="192.168.1.1") / UDP(sport=1000, dport=5000) / Raw(b"x" * 64)
    write("ipv4-ecmp", 0, 0, [udp4, udp4])
    write("ipv4-lb-modes", 0, 0, [e0 / IP(src="10.0.0.2", dst="10.%d.0.1" % (200 + i % 3))
                                  / UDP(sport=1000 + i, dport=5000) / Raw(b"y" * 100)
                                  for i in range(12)])
    roce = e0 / IP(src="10.0.0.2", dst="10.0.1.2", tos=26 << 2 | 2) / UDP(sport=49152, dport=4791)
    write("roce-lossless-pfc", 0, 0, [roce / Raw(bth(0x0A) + b"r" * 1000)] * 16)
    uet = e0 / IP(src="10.0.0.2", dst="10.0.3.2", tos=10 << 2 | 1) / UDP(sport=40000, dport=4793)
    write("uet-trim", 0, 0, [uet / Raw(b"u" * 1400)] * 24)
    cnp = e0 / IP(src="10.0.0.2", dst="192.168.7.7", tos=48 << 2) / UDP(sport=49152, dport=4791)
    write("roce-cnp", 0, 0, [cnp / Raw(bth(0x81) + b"\0" * 16)] * 3)
    e1 = Ether(dst=mac(1), src=HOST)
    write("ipv6-ecmp", 1, 0, [e1 / IPv6(src="fd00:0:1::2", dst="2001:db8::1", tc=26 << 2)
                              / UDP(sport=7, dport=4791) / Raw(bth(0x04) + b"6" * 200)] * 4)
    write("ipv6-unresolved-hlim", 1, 0, [
        e1 / IPv6(src="fd00:0:1::2", dst="2001:db9::1") / UDP() / Raw(b"z" * 20),
        e1 / IPv6(src="fd00:0:1::2", dst="2001:db8::1", hlim=1) / UDP() / Raw(b"z" * 20)])
    write("vlan-qinq-pcp", 2, 2, [
        Ether(dst=mac(2), src=HOST) / Dot1Q(prio=3, vlan=10) / IP(src="10.0.2.2", dst="10.0.1.2")
        / UDP(dport=4791) / Raw(bth(0x0A) + b"v" * 300),
        Ether(dst=mac(2), src=HOST, type=0x88A8) / Dot1Q(prio=1, vlan=20) / Dot1Q(vlan=30)
        / IP(src="10.0.2.2", dst="192.168.0.9") / TCP(sport=1, dport=2)])
    write("arp-nd", 3, 0, [
        Ether(dst="ff:ff:ff:ff:ff:ff", src=HOST) / ARP(psrc="10.0.3.2", pdst="10.0.3.254"),
        Ether(dst="33:33:ff:00:00:fe", src=HOST) / IPv6(src="fd00:0:3::2", dst="ff02::1:ff00:fe",
                                                      hlim=255) / ICMPv6ND_NS(tgt="fd00:0:3::fe")])
    write("pfc-pause", 1, 0, [pfc(0x0008, [0, 0, 0, 0xFFFF, 0, 0, 0, 0]),
                              pfc(0x00FF, [1] * 8),
                              Ether(dst="01:80:c2:00:00:01", src=HOST, type=0x8808)
                              / Raw(struct.pack("!HH", 1, 0xFFFF).ljust(46, b"\0")),
                              roce / Raw(bth(0x0A) + b"p" * 500)])
    write("local-ttl-noroute", 0, 0, [
        e0 / IP(src="10.0.0.2", dst="10.0.0.254") / ICMP() / Raw(b"ping"),
        e0 / IP(src="10.0.0.2", dst="10.0.1.2", ttl=1) / UDP() / Raw(b"t"),
        e0 / IP(src="10.0.0.2", dst="8.8.8.8") / UDP() / Raw(b"n"),
        e0 / IP(src="10.0.0.2", dst="172.16.1.1", options=b"\x01\x01\x01\x01") / UDP(),
        e0 / IP(src="10.0.0.2", dst="10.0.2.77") / UDP() / Raw(b"c"),
        e0 / IP(src="10.0.0.2", dst="10.0.1.2") / UDP() / Raw(b"m" * 1600)])
    write("knobs-down-storm", 0, 0x1D, [roce / Raw(bth(0x0A) + b"s" * 200)] * 4 + [udp4] * 4)
    write("malformed", 0, 0, [bytes(udp4)[:20], bytes(udp4)[:34], b"\x02\x00\x00\x00\x00\x01",
                              bytes(e0) + b"\x45\x00\xff\xff" + b"\0" * 16])


if __name__ == "__main__":
    main()

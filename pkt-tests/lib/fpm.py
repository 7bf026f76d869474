# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""An FPM client that needs no FRR: frames as zebra's dplane_fpm_nl writes them.

An FPM frame is a 4-byte header (version 1, type 1 = netlink, total length big-endian)
and one or more rtnetlink messages in host byte order (FRR fpm/fpm.h, linux/rtnetlink.h).
`route()` builds RTM_NEWROUTE / RTM_DELROUTE with RTA_DST and inline next hops
(RTA_GATEWAY for one, RTA_MULTIPATH for several); `nexthop()` builds RTM_NEWNEXTHOP;
`frame()` wraps messages. Used by pkt-tests/test_fpm.py, perf/fpm_rate.py and
fuzz/gen_fpm_corpus.py.
"""

import ipaddress
import socket
import struct
import time

RTM_NEWROUTE, RTM_DELROUTE = 24, 25
RTM_NEWNEXTHOP, RTM_DELNEXTHOP = 104, 105
NLM_F_REQUEST, NLM_F_CREATE, NLM_F_REPLACE = 0x1, 0x400, 0x100
RTA_DST, RTA_OIF, RTA_GATEWAY, RTA_PRIORITY, RTA_MULTIPATH, RTA_TABLE, RTA_NH_ID = (
    1, 4, 5, 6, 9, 15, 30)
NHA_ID, NHA_GROUP, NHA_OIF, NHA_GATEWAY = 1, 2, 5, 6
RTPROT_BGP, RTPROT_OSPF, RTPROT_ZSTATIC = 186, 188, 196
RTN_UNICAST, RTN_BLACKHOLE = 1, 6
RTNH_F_ONLINK = 4


def attr(t, data):
    """One rtattr, padded to 4 bytes."""
    a = struct.pack("=HH", 4 + len(data), t) + data
    return a + b"\0" * (-len(a) % 4)


def _addr(s):
    return ipaddress.ip_address(s).packed


def nlmsg(mtype, flags, body, seq=0):
    return struct.pack("=IHHII", 16 + len(body), mtype, flags, seq, 0) + body


def route(prefix, nexthops=(), delete=False, proto=RTPROT_BGP, replace=True, table=254,
          rtype=RTN_UNICAST, nh_id=None, metric=20, extra=b"", oif=None, onlink=False):
    """RTM_NEWROUTE (or RTM_DELROUTE with delete) of prefix; nexthops: addresses, or
    (address, weight) pairs; one → RTA_GATEWAY, several → RTA_MULTIPATH."""
    net = ipaddress.ip_network(prefix, strict=False)
    fam = socket.AF_INET if net.version == 4 else socket.AF_INET6
    flags = RTNH_F_ONLINK if onlink else 0
    rtm = struct.pack("=BBBBBBBBI", fam, net.prefixlen, 0, 0, table if table < 256 else 0,
                      proto, 0, rtype, flags)
    body = rtm + attr(RTA_DST, net.network_address.packed)
    if table >= 256:
        body += attr(RTA_TABLE, struct.pack("=I", table))
    body += attr(RTA_PRIORITY, struct.pack("=I", metric))
    hops = [(n, 1) if isinstance(n, str) else n for n in nexthops]
    if nh_id is not None:
        body += attr(RTA_NH_ID, struct.pack("=I", nh_id))
    elif len(hops) == 1:
        body += attr(RTA_GATEWAY, _addr(hops[0][0]))
        if oif is not None:
            body += attr(RTA_OIF, struct.pack("=I", oif))
    elif hops:
        mp = b""
        for gw, w in hops:
            a = attr(RTA_GATEWAY, _addr(gw))
            mp += struct.pack("=HBBi", 8 + len(a), 0, w - 1, oif or 0) + a
        body += attr(RTA_MULTIPATH, mp)
    body += extra
    mtype = RTM_DELROUTE if delete else RTM_NEWROUTE
    fl = NLM_F_REQUEST | ((NLM_F_CREATE | (NLM_F_REPLACE if replace else 0)) if not delete else 0)
    return nlmsg(mtype, fl, body)


def nexthop(nh_id, gateway=None, group=(), oif=0, delete=False):
    """RTM_NEWNEXTHOP (or RTM_DELNEXTHOP) of object nh_id: a gateway, or a group of
    (id, weight) pairs."""
    fam = 0
    body = b""
    if gateway is not None:
        fam = socket.AF_INET if ipaddress.ip_address(gateway).version == 4 else socket.AF_INET6
    nhm = struct.pack("=BBBBI", fam, 0, RTPROT_BGP, 0, 0)
    body = nhm + attr(NHA_ID, struct.pack("=I", nh_id))
    if gateway is not None:
        body += attr(NHA_GATEWAY, _addr(gateway))
        if oif:
            body += attr(NHA_OIF, struct.pack("=I", oif))
    if group:
        body += attr(NHA_GROUP, b"".join(struct.pack("=IBBH", i, w - 1, 0, 0) for i, w in group))
    return nlmsg(RTM_DELNEXTHOP if delete else RTM_NEWNEXTHOP, NLM_F_REQUEST, body)


def frame(*msgs, version=1, mtype=1, length=None):
    """An FPM frame of msgs (length: override the header's length field)."""
    payload = b"".join(msgs)
    n = 4 + len(payload) if length is None else length
    return struct.pack("!BBH", version, mtype, n & 0xFFFF) + payload


class Client:
    """A TCP connection to railsw's FPM listener, as zebra makes it."""

    def __init__(self, port, host="127.0.0.1", timeout=10):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.s = socket.create_connection((host, port), timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send(self, data, bytewise=False):
        if bytewise:
            for i in range(len(data)):
                self.s.sendall(data[i:i + 1])
        else:
            self.s.sendall(data)

    def close(self):
        self.s.close()

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()

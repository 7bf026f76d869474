# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Flows at a steady rate across the fabric lab, and what a failure cost them
(devtools/fabric-lab.sh failover; docs/routing.md, "Failover").

  fabric_probe.py recv PORT SECONDS [EXPECT]    count what arrives; print JSON at the end
                                                (SECONDS: the longest it listens; EXPECT:
                                                datagrams each flow sends, if the sender's
                                                end marker never arrives)
  fabric_probe.py send DST PORT FLOWS PPS SECONDS   FLOWS UDP flows (a source port each),
                                                PPS datagrams a second per flow

Each datagram carries its flow, its sequence number and the flow's rate. The receiver
reports per flow: received, lost (sequence numbers never seen) and the longest outage
(the longest run of lost sequence numbers times the flow's interval, and when in the
flow it began: outage_from_ms, its first lost sequence number times the interval), and over all
flows: the flows that lost anything, the total loss and the longest outage. Run each in
its host's namespace (ip netns exec).

At the end the sender sends, on every flow, an end marker with the number of datagrams
each flow sent. The receiver stops listening shortly after the first marker and counts
loss up to that number: a sender that started late or fell behind (a busy machine) then
costs nothing, and a flow that never comes back still counts its loss up to the end
(the markers of the other flows carry the number). Without any marker (every flow dead at
the end) the receiver listens for SECONDS and counts up to EXPECT."""

import json
import socket
import struct
import sys
import time

HDR = struct.Struct("!HIHd")  # flow, seq, pps, send time
END = 0xFFFF  # flow of the end marker: seq is the datagrams each flow sent
END_GRACE = 0.5  # seconds the receiver listens on after the first end marker
RCVBUF = 4 << 20  # a receiver a busy machine holds up for a second drops nothing
SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)  # Linux's; Python 3.11 lacks the name


def send(dst, port, flows, pps, seconds):
    socks = []
    for _ in range(flows):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("", 0))
        socks.append(s)
    interval = 1.0 / pps
    start = time.monotonic()
    seq = 0
    while True:
        now = time.monotonic()
        if now - start >= seconds:
            break
        for f, s in enumerate(socks):
            try:
                s.sendto(HDR.pack(f, seq, pps, time.time()) + bytes(32), (dst, port))
            except OSError:
                pass  # no route for a moment: that datagram is lost, as on a wire
        seq += 1
        delay = start + seq * interval - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    for _ in range(3):
        for f, s in enumerate(socks):
            try:
                s.sendto(HDR.pack(END, seq, f, time.time()), (dst, port))
            except OSError:
                pass
        time.sleep(0.01)
    print(json.dumps({"flows": flows, "sent_per_flow": seq, "pps": pps}))


def recv(port, seconds, expect=0):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF)
    except OSError:  # not root: as much as net.core.rmem_max allows
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
    s.bind(("", port))
    s.settimeout(0.1)
    seen = {}
    rate = {}
    sent = None
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            data = s.recv(2048)
        except socket.timeout:
            continue
        if len(data) < HDR.size:
            continue
        f, seq, pps, _t = HDR.unpack_from(data)
        if f == END:
            if sent is None:
                end = min(end, time.monotonic() + END_GRACE)
            sent = max(sent or 0, seq)
            continue
        seen.setdefault(f, set()).add(seq)
        rate[f] = pps
    if sent is not None:
        expect = sent
    flows = {}
    for f, seqs in sorted(seen.items()):
        last = max(max(seqs), expect - 1)
        lost = [q for q in range(last + 1) if q not in seqs]
        run = best = 0
        prev = start = None
        for q in lost:
            run = run + 1 if prev is not None and q == prev + 1 else 1
            if run > best:
                best, start = run, q - run + 1
            prev = q
        flows[f] = {"received": len(seqs), "lost": len(lost),
                    "outage_ms": round(best * 1000.0 / rate[f], 1),
                    "outage_from_ms": None if start is None else round(start * 1000.0 / rate[f])}
    hit = [f for f, v in flows.items() if v["lost"] > 0]
    print(json.dumps({
        "flows": len(flows),
        "flows_hit": len(hit),
        "received": sum(v["received"] for v in flows.values()),
        "lost": sum(v["lost"] for v in flows.values()),
        "outage_ms": max((v["outage_ms"] for v in flows.values()), default=0.0),
        "sent_per_flow": sent,
        "per_flow": flows,
    }))


def main(argv):
    if len(argv) in (4, 5) and argv[1] == "recv":
        recv(int(argv[2]), float(argv[3]), int(argv[4]) if len(argv) == 5 else 0)
    elif len(argv) == 7 and argv[1] == "send":
        send(argv[2], int(argv[3]), int(argv[4]), int(argv[5]), float(argv[6]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

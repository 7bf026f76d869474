#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Learn 1,000 neighbours while forwarding (docs/perf.md "Learning under traffic").

railsw on the packet tests' three TAP ports, p1's subnet widened to a /21 (11 host bits:
it has an adjacency). While frames flow from p0 to a static neighbour on p1, 1,000 hosts of
p1's subnet announce themselves (ARP requests for the switch); then one frame goes to each
of them. Prints how long learning took (neighbours per second, as the control thread
applies them), how many of the steady frames were lost (none expected: learning writes one
adjacency slot and never rebuilds the FIB) and how many of the 1,000 hosts got their frame.

Run as root from the repository root:  flock /tmp/railsw-net.lock perf/learn.py [BUILD]
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pkt-tests",
                                "lib"))

from scapy.all import ARP, IP, UDP, Ether, Raw  # noqa: E402

import railsw  # noqa: E402
import topo  # noqa: E402
from topo import HOST_IP, HOST_MAC, SW_IP  # noqa: E402

N_HOSTS = 1000
STEADY = 20000  # frames p0 -> the static neighbour 10.2.0.1, in chunks around the ARPs
CHUNK = 500


def host(k):
    return "10.2.%d.%d" % (1 + k // 250, 1 + k % 250)


def host_mac(k):
    return "02:cc:00:00:%02x:%02x" % (k >> 8, k & 255)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    cfg = topo.three_ports()
    cfg["ports"][1]["ipv4"] = SW_IP["p1"] + "/21"
    with topo.running(build, cfg) as sw:
        inj = railsw.Injector()
        steady = [bytes(Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"]) /
                        IP(src=HOST_IP["p0"], dst=HOST_IP["p1"]) /
                        UDP(sport=7000 + i % 1000, dport=7000) / Raw(b"steady%06d" % i))
                  for i in range(STEADY)]
        arps = [Ether(dst="ff:ff:ff:ff:ff:ff", src=host_mac(k)) /
                ARP(op=1, hwsrc=host_mac(k), psrc=host(k), pdst=SW_IP["p1"])
                for k in range(N_HOSTS)]
        probes = [Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"]) /
                  IP(src=HOST_IP["p0"], dst=host(k)) / UDP(sport=9000, dport=9000) /
                  Raw(b"probe%04d" % k) for k in range(N_HOSTS)]
        per = N_HOSTS // (STEADY // CHUNK)
        with railsw.Capture([sw.tap["p1"]]) as cap:
            t0 = time.monotonic()
            before = sw.counters()
            for c in range(STEADY // CHUNK):
                inj.send(sw.tap["p0"], steady[c * CHUNK:(c + 1) * CHUNK])
                inj.send(sw.tap["p1"], arps[c * per:(c + 1) * per])
                cap._drain(0.0)  # keep the capture socket from overflowing
            t_sent = time.monotonic()

            def learned():
                return sum(1 for n in sw.neighbors() if n.get("state") == "reachable"
                           and n.get("ip", "").startswith("10.2.") and n["ip"] != HOST_IP["p1"])

            railsw.wait_until(lambda: learned() >= N_HOSTS, 30, interval=0.02,
                              what="%d neighbours learned" % N_HOSTS)
            t_learned = time.monotonic()
            inj.send(sw.tap["p0"], probes)
            got = cap.collect(count=STEADY + N_HOSTS, timeout=15, quiet=0.5,
                              match=lambda i, d: b"steady" in d or b"probe" in d)
        steady_out = sum(1 for _, d in got if b"steady" in d)
        probes_out = len({bytes(d[d.index(b"probe"):d.index(b"probe") + 9])
                          for _, d in got if b"probe" in d})
        after = sw.counters()
        inj.close()
    d = topo.deltas(before, after)
    print("learned %d neighbours in %.3f s after the last ARP was sent (%.3f s from the first): "
          "%.0f neighbours/s" % (N_HOSTS, t_learned - t_sent, t_learned - t0,
                                 N_HOSTS / (t_learned - t0)))
    print("steady frames: %d sent, %d out, %d lost" % (STEADY, steady_out, STEADY - steady_out))
    print("frames to the learned hosts: %d of %d out" % (probes_out, N_HOSTS))
    print("p0 rx_packets +%d, p1 tx_packets +%d; p0 counters that moved: %s" % (
        d.get("p0", {}).get("rx_packets", 0), d.get("p1", {}).get("tx_packets", 0),
        {k: v for k, v in d.get("p0", {}).items() if v and k not in ("rx_packets", "rx_bytes")}))
    return 0 if steady_out == STEADY and probes_out == N_HOSTS else 1


if __name__ == "__main__":
    sys.exit(main())

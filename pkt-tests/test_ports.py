# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Every port kind a lab uses (docs/ports.md): vhost-user with dpdk-testpmd
on virtio_user as the VM, two railsw chained over memif (routed traffic, PFC
back over memif, link down when the peer dies), AF_XDP on a veth pair with a
namespace host (ping and Scapy traffic), and one switch mixing TAP, memif
and AF_XDP. Also `railsw --list-port-kinds` and the `kind` / `mac_ctrl`
fields of `show ports`.

No hugepages are needed: railsw runs with --no-huge; testpmd's virtio_user
memory is a memfd (--no-huge --single-file-segments), which vhost-user can map.
"""

import os
import shutil
import socket
import struct
import tempfile
import threading

import pytest
from scapy.all import ICMP, IP, UDP, Ether, Raw

import railsw
import testpmd
import topo
from railsw import wait_until

PID = os.getpid()
HOST_MAC = "02:aa:00:00:01:01"   # the Scapy host on a TAP
HOST_IP = "10.1.0.1"
NS_MAC = "02:aa:00:00:05:01"     # the namespace host behind AF_XDP
NS_IP = "10.5.0.1"
VM_MAC = "02:aa:00:00:06:01"     # testpmd's virtio_user port
VM_IP = "10.6.0.1"
B_HOST_MAC = "02:aa:00:00:02:01"  # the Scapy host on switch B's TAP
B_HOST_IP = "10.2.0.1"
A_MEMIF_MAC = "02:00:00:00:0a:02"
B_MEMIF_MAC = "02:00:00:00:0b:02"
AF_XDP = 44


@pytest.fixture
def scratch():
    """A scratch directory for sockets; named so cleanup_stale() finds it."""
    d = tempfile.mkdtemp(prefix=f"rswt-{PID}-0.ports.")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def port(sw, name):
    return sw.ports()[name]


def wait_link(sw, name, up=True, timeout=10):
    wait_until(lambda: port(sw, name)["link_up"] == up, timeout,
               what=f"{name} link {'up' if up else 'down'}")


def wait_counter(sw, name, field, value, timeout=5):
    """Poll until `show ports` field of `name` reaches value; return the port row."""
    row = {}

    def ok():
        row.update(port(sw, name))
        return row[field] >= value
    try:
        wait_until(ok, timeout, what=f"{name} {field} >= {value}")
    except TimeoutError:
        raise AssertionError(f"{name} {field} is {row.get(field)}, expected {value}") from None
    return row


def udp(src_mac, dst_mac, src, dst, n, tos=0, size=None):
    payload = topo.marker("ports")
    if size:
        payload = payload.ljust(size - 14 - 20 - 8, b".")
    return Ether(dst=dst_mac, src=src_mac) / IP(src=src, dst=dst, ttl=64, tos=tos) / \
        UDP(sport=1000 + n, dport=5000) / Raw(payload)


# --------------------------------------------------------------------------
# Kernel pieces: veth pairs and namespaces


def af_xdp_supported():
    try:
        s = socket.socket(AF_XDP, socket.SOCK_RAW, 0)
    except OSError:
        return False
    s.close()
    return True


class VethHost:
    """A veth pair: `outer` stays in the root namespace for railsw's net_af_xdp,
    `inner` moves into a namespace as a host with an address and a route via
    the switch. Names carry the test PID (cleanup_stale() removes stale ones)."""

    def __init__(self, tag, addr, gw, mac, routes=()):
        self.outer = f"rt{PID}{tag}x0"
        self.inner = f"rt{PID}{tag}y0"
        self.ns = railsw.lab_netns(f"xdp{tag}")
        run = railsw.run
        run(["ip", "link", "add", self.outer, "type", "veth", "peer", "name", self.inner])
        run(["ip", "netns", "add", self.ns])
        run(["ip", "link", "set", self.inner, "netns", self.ns])
        railsw.quiet_link(self.outer)
        x = ["ip", "netns", "exec", self.ns]
        run(x + ["ip", "link", "set", "lo", "up"])
        run(x + ["sysctl", "-q", "-w", f"net.ipv6.conf.{self.inner}.disable_ipv6=1"])
        run(x + ["ip", "link", "set", self.inner, "address", mac])
        run(x + ["ip", "addr", "add", addr, "dev", self.inner])
        run(x + ["ip", "link", "set", self.inner, "up"])
        for r in routes:
            run(x + ["ip", "route", "add", r, "via", gw])

    def exec(self, cmd, timeout=20, check=True):
        return railsw.run(["ip", "netns", "exec", self.ns] + cmd, timeout=timeout, check=check)

    def stats(self):
        """Kernel counters of the namespace end: {rx_packets, tx_packets}."""
        out = self.exec(["cat", f"/sys/class/net/{self.inner}/statistics/rx_packets",
                         f"/sys/class/net/{self.inner}/statistics/tx_packets"]).stdout.split()
        return {"rx_packets": int(out[0]), "tx_packets": int(out[1])}

    def send_udp(self, dst, n, dport=5000):
        """n UDP datagrams from the namespace host (the kernel stack) to dst."""
        code = ("import socket\n"
                "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                f"for i in range({n}): s.sendto(b'railsw-ports %06d' % i, ('{dst}', {dport}))\n")
        self.exec(["/usr/bin/python3", "-c", code])

    def close(self):
        railsw.run(["ip", "link", "del", self.outer], check=False)
        railsw.run(["ip", "netns", "del", self.ns], check=False)


@pytest.fixture
def veth_hosts():
    if not af_xdp_supported():
        pytest.skip("the kernel has no AF_XDP sockets (CONFIG_XDP_SOCKETS): net_af_xdp "
                    "cannot run here")
    made = []

    def factory(*a, **kw):
        h = VethHost(*a, **kw)
        made.append(h)
        return h
    yield factory
    for h in made:
        h.close()


class EchoResponder:
    """A Scapy host on a TAP: answers ICMP echo requests to `ip` (from `mac`)
    until closed, so a ping through the switch has someone to answer it."""

    def __init__(self, iface, ip, mac):
        self.iface, self.ip, self.mac = iface, ip, mac
        self.s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
        self.s.bind((iface, 0))
        self.s.settimeout(0.1)
        self.stop = False
        self.answered = 0
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        while not self.stop:
            try:
                data, addr = self.s.recvfrom(65535)
            except socket.timeout:
                continue
            except OSError:
                return
            if addr[2] == railsw.PACKET_OUTGOING:
                continue
            e = Ether(data)
            if ICMP in e and e[IP].dst == self.ip and e[ICMP].type == 8:
                r = Ether(dst=e.src, src=self.mac) / IP(src=self.ip, dst=e[IP].src) / \
                    ICMP(type=0, id=e[ICMP].id, seq=e[ICMP].seq) / Raw(bytes(e[ICMP].payload))
                self.s.send(bytes(r))
                self.answered += 1

    def close(self):
        self.stop = True
        self.t.join(timeout=2)
        self.s.close()


# --------------------------------------------------------------------------
# railsw --list-port-kinds and show ports


def test_list_port_kinds(build):
    """`railsw --list-port-kinds` needs no config, EAL or root.

    Steps: run it. Verify: exit 0; every kind of docs/ports.md has a row with
    its devargs example and limits.
    """
    r = railsw.run([os.path.join(build, "control", "railsw"), "--list-port-kinds"])
    lines = r.stdout.splitlines()
    for kind in ("net_tap", "net_memif", "net_vhost", "net_af_xdp", "net_pcap", "net_null",
                 "net_ring", "pci"):
        assert len([ln for ln in lines if ln.startswith(kind + " ")]) == 3, r.stdout
    assert "MULTI-QUEUE" in r.stdout and "KNOWN LIMITS" in r.stdout


def test_pcap_null_ring_kinds(make_switch, scratch):
    """net_pcap, net_null and net_ring come up from their devargs alone.

    Steps: a switch with a TAP, a net_pcap port writing to a file, a net_null
    and a net_ring port; send 5 frames from the TAP host to a neighbour on the
    pcap port. Verify: `show ports` kind net_pcap / net_null / net_ring with
    mac_ctrl true / false / true; the 5 routed frames are in the pcap file.
    """
    out = os.path.join(scratch, "out.pcap")
    empty = os.path.join(scratch, "in.pcap")
    with open(empty, "wb") as f:  # an empty capture: nothing to replay
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    sw = make_switch({
        "ports": [
            {"name": "t0", "ipv4": "10.1.0.254/24"},
            {"name": "c0", "devargs": f"net_pcap0,rx_pcap={empty},tx_pcap={out}",
             "mac": "02:00:00:00:01:02", "ipv4": "10.7.0.254/24"},
            {"name": "n0", "devargs": "net_null0,no-rx=1", "mac": "02:00:00:00:01:03"},
            {"name": "r0", "devargs": "net_ring0", "mac": "02:00:00:00:01:04"},
        ],
        "neighbors": [{"ip": HOST_IP, "mac": HOST_MAC, "port": "t0"},
                      {"ip": "10.7.0.1", "mac": "02:aa:00:00:07:01", "port": "c0"}],
    })
    ports = sw.ports()
    assert [(ports[p]["kind"], ports[p]["mac_ctrl"]) for p in ("t0", "c0", "n0", "r0")] == [
        ("net_tap", True), ("net_pcap", True), ("net_null", False), ("net_ring", True)]
    inj = railsw.Injector()
    try:
        inj.send(sw.tap["t0"], [udp(HOST_MAC, sw.mac["t0"], HOST_IP, "10.7.0.1", i)
                                for i in range(5)])
    finally:
        inj.close()
    wait_counter(sw, "c0", "tx_packets", 5)
    sw.stop()
    with open(out, "rb") as f:
        assert f.read().count(b"railsw-test ports") == 5


# --------------------------------------------------------------------------
# vhost-user


def test_vhost_user_testpmd(make_switch, scratch):
    """vhost-user (server) <-> dpdk-testpmd on virtio_user as the VM.

    Steps: railsw with a TAP t0 and net_vhost0 (server) v0; testpmd attaches
    with net_virtio_user0 (memfd memory, no hugepages) in rxonly mode. (1)
    testpmd `start tx_first 2` sends 64 UDP frames (txonly: to v0's MAC, IP
    10.6.0.1 -> 10.1.0.1). (2) the TAP host sends 20 UDP frames to 10.6.0.1.
    Verify: v0 link up once testpmd attaches, kind net_vhost, mac_ctrl true;
    the 64 frames come out on the TAP routed (MACs rewritten, TTL 63); testpmd
    receives the 20; testpmd's port TX/RX packets equal v0's rx/tx packets
    and t0's tx/rx; v0 link goes down when testpmd quits.
    """
    sock = os.path.join(scratch, "vm0.sock")
    sw = make_switch({
        "ports": [
            {"name": "t0", "ipv4": "10.1.0.254/24"},
            {"name": "v0", "devargs": f"net_vhost0,iface={sock}", "mac": "02:00:00:00:06:fe",
             "ipv4": "10.6.0.254/24"},
        ],
        "neighbors": [{"ip": HOST_IP, "mac": HOST_MAC, "port": "t0"},
                      {"ip": VM_IP, "mac": VM_MAC, "port": "v0"}],
    })
    v0 = port(sw, "v0")
    assert (v0["kind"], v0["mac_ctrl"], v0["link_up"]) == ("net_vhost", True, False)
    vm = testpmd.TestPmd([f"net_virtio_user0,path={sock},mac={VM_MAC}"],
                         ["--forward-mode=rxonly", f"--eth-peer=0,{sw.mac['v0']}",
                          f"--tx-ip={VM_IP},{HOST_IP}", "--burst=32"])
    try:
        wait_link(sw, "v0", True)
        sw.ctl("clear", "counters")
        with railsw.Capture([sw.tap["t0"]]) as cap:
            vm.command("start tx_first 2")
            got = cap.collect(count=64, timeout=10)
        frames = [Ether(d) for _, d in got if UDP in Ether(d)]
        assert len(frames) == 64, topo.describe(got)
        for e in frames:
            assert (e.dst, e.src, e[IP].src, e[IP].dst, e[IP].ttl) == (
                HOST_MAC, sw.mac["t0"], VM_IP, HOST_IP, 63), e.summary()
        inj = railsw.Injector()
        try:
            inj.send(sw.tap["t0"], [udp(HOST_MAC, sw.mac["t0"], HOST_IP, VM_IP, i)
                                    for i in range(20)])
        finally:
            inj.close()
        wait_counter(sw, "v0", "tx_packets", 20)
        wait_until(lambda: vm.port_stats()["rx_packets"] >= 20, 5, what="testpmd rx 20")
        vm.command("stop")
        st = vm.port_stats()
        c = sw.counters()
        assert (st["tx_packets"], st["rx_packets"]) == (64, 20), st
        assert (c["v0"]["rx_packets"], c["v0"]["tx_packets"]) == (64, 20), c["v0"]
        assert (c["t0"]["tx_packets"], c["t0"]["rx_packets"]) == (64, 20), c["t0"]
        assert c["v0"]["rx_bytes"] == st["tx_bytes"] and c["v0"]["tx_bytes"] == st["rx_bytes"]
    finally:
        vm.stop()
    wait_link(sw, "v0", False)


def test_vhost_user_client_mode(make_switch, scratch):
    """net_vhost as a client (client=1) reconnects to a server that comes later.

    Steps: railsw's v0 is a vhost-user client of a socket testpmd serves
    (virtio_user server=1) and starts first; then testpmd starts.
    Verify: v0 link comes up; 10 frames from the TAP host reach testpmd.
    """
    sock = os.path.join(scratch, "vmc.sock")
    sw = make_switch({
        "ports": [
            {"name": "t0", "ipv4": "10.1.0.254/24"},
            {"name": "v0", "devargs": f"net_vhost0,iface={sock},client=1",
             "mac": "02:00:00:00:06:fe", "ipv4": "10.6.0.254/24"},
        ],
        "neighbors": [{"ip": HOST_IP, "mac": HOST_MAC, "port": "t0"},
                      {"ip": VM_IP, "mac": VM_MAC, "port": "v0"}],
    })
    vm = testpmd.TestPmd([f"net_virtio_user0,path={sock},server=1,mac={VM_MAC}"],
                         ["--forward-mode=rxonly"])
    try:
        vm.command("start")
        wait_link(sw, "v0", True, timeout=15)
        inj = railsw.Injector()
        try:
            inj.send(sw.tap["t0"], [udp(HOST_MAC, sw.mac["t0"], HOST_IP, VM_IP, i)
                                    for i in range(10)])
        finally:
            inj.close()
        wait_until(lambda: vm.port_stats()["rx_packets"] >= 10, 5, what="testpmd rx 10")
        assert port(sw, "v0")["tx_packets"] == 10
    finally:
        vm.stop()


# --------------------------------------------------------------------------
# memif: two switches chained

QOS = {
    "trust": "dscp",
    "dscp_to_tc": {26: 3},
    "lossless": [3],
    "buffer": {"total": "4MB", "queue_limit": "512KB",
               "pfc": {"xoff": "16KB", "xon": "8KB", "headroom": "256KB", "quanta": 65535}},
    "pfc_watchdog": {"action": "off"},
}


def memif_pair(make_switch, scratch, a_extra_ports=(), a_neighbors=(), b_speed=None):
    """Switch A (TAP t0 10.1.0.254/24, memif server m0 10.9.0.1/30) and switch
    B (TAP t0 10.2.0.254/24, memif client m0 10.9.0.2/30), routing each
    other's TAP subnet over memif; lossless TC 3 on both."""
    sock = os.path.join(scratch, "m0.sock")
    a = make_switch({
        "ports": [
            {"name": "t0", "ipv4": "10.1.0.254/24"},
            {"name": "m0", "devargs": f"net_memif0,role=server,socket={sock}",
             "mac": A_MEMIF_MAC, "ipv4": "10.9.0.1/30"},
        ] + list(a_extra_ports),
        "neighbors": [{"ip": HOST_IP, "mac": HOST_MAC, "port": "t0"},
                      {"ip": "10.9.0.2", "mac": B_MEMIF_MAC, "port": "m0"}] + list(a_neighbors),
        "routes": [{"prefix": "10.2.0.0/24", "nexthops": ["10.9.0.2"]}],
        "qos": QOS,
    })
    b_t0 = {"name": "t0", "ipv4": "10.2.0.254/24"}
    if b_speed:
        b_t0["speed"] = b_speed
    b = make_switch({
        "ports": [
            b_t0,
            {"name": "m0", "devargs": f"net_memif0,role=client,socket={sock}",
             "mac": B_MEMIF_MAC, "ipv4": "10.9.0.2/30"},
        ],
        "neighbors": [{"ip": B_HOST_IP, "mac": B_HOST_MAC, "port": "t0"},
                      {"ip": "10.9.0.1", "mac": A_MEMIF_MAC, "port": "m0"}],
        "routes": [{"prefix": "10.1.0.0/24", "nexthops": ["10.9.0.1"]},
                   {"prefix": "10.5.0.0/24", "nexthops": ["10.9.0.1"]}],
        "qos": QOS,
    })
    wait_link(a, "m0", True)
    wait_link(b, "m0", True)
    a.ctl("clear", "counters")
    b.ctl("clear", "counters")
    return a, b


def test_memif_chain_routed(make_switch, scratch):
    """Routed traffic crosses two railsw chained over memif, both ways.

    Steps: 20 UDP frames from A's TAP host to B's TAP host, then 20 back.
    Verify: each arrives on the far TAP with TTL 62 (two routers), dst MAC of
    the far host and src MAC of the far switch's TAP port; counters: A t0 rx
    20 = A m0 tx 20 = B m0 rx 20 = B t0 tx 20, and the same back; both memif
    ports show kind net_memif, mac_ctrl true, link up.
    """
    a, b = memif_pair(make_switch, scratch)
    for sw in (a, b):
        m0 = port(sw, "m0")
        assert (m0["kind"], m0["mac_ctrl"], m0["link_up"]) == ("net_memif", True, True)
    inj = railsw.Injector()
    try:
        with railsw.Capture([b.tap["t0"]]) as cap:
            inj.send(a.tap["t0"], [udp(HOST_MAC, a.mac["t0"], HOST_IP, B_HOST_IP, i)
                                   for i in range(20)])
            got = cap.collect(count=20, timeout=5)
        with railsw.Capture([a.tap["t0"]]) as cap:
            inj.send(b.tap["t0"], [udp(B_HOST_MAC, b.mac["t0"], B_HOST_IP, HOST_IP, i)
                                   for i in range(20)])
            back = cap.collect(count=20, timeout=5)
    finally:
        inj.close()
    fwd = [Ether(d) for _, d in got]
    rev = [Ether(d) for _, d in back]
    assert len(fwd) == 20 and len(rev) == 20, topo.describe(got + back)
    assert all((e.dst, e.src, e[IP].ttl) == (B_HOST_MAC, b.mac["t0"], 62) for e in fwd)
    assert all((e.dst, e.src, e[IP].ttl) == (HOST_MAC, a.mac["t0"], 62) for e in rev)
    ca, cb = a.counters(), b.counters()
    assert (ca["t0"]["rx_packets"], ca["m0"]["tx_packets"], ca["m0"]["rx_packets"],
            ca["t0"]["tx_packets"]) == (20, 20, 20, 20), ca
    assert (cb["m0"]["rx_packets"], cb["t0"]["tx_packets"], cb["t0"]["rx_packets"],
            cb["m0"]["tx_packets"]) == (20, 20, 20, 20), cb
    assert ca["m0"]["tx_bytes"] == cb["m0"]["rx_bytes"]
    assert cb["m0"]["tx_bytes"] == ca["m0"]["rx_bytes"]


def pfc_row(sw, port_name, prio=3):
    rows = sw.ctl("show", "pfc", port_name)["pfc"]
    return next(r for r in rows if r["priority"] == prio)


def test_memif_pfc_reaches_peer(make_switch, scratch):
    """PFC generated by the second switch reaches the first over memif.

    Steps: B's TAP egress is shaped to 10M; A's TAP host sends 150 x 1000-byte
    UDP frames of TC 3 (DSCP 26, lossless, xoff 16KB) to B's TAP host at
    once. B's ingress PG of m0 passes xoff, so B sends XOFF over memif.
    Verify: B `show pfc m0` tx_xoff > 0; A `show pfc m0` rx_xoff > 0 on
    priority 3; every one of the 150 frames reaches B's TAP host (lossless),
    and lossless_drops stays 0 on both switches.
    """
    a, b = memif_pair(make_switch, scratch, b_speed="10M")
    frames = [udp(HOST_MAC, a.mac["t0"], HOST_IP, B_HOST_IP, i, tos=26 << 2, size=1000)
              for i in range(150)]
    inj = railsw.Injector()
    try:
        with railsw.Capture([b.tap["t0"]]) as cap:
            inj.send(a.tap["t0"], frames)
            got = cap.collect(count=150, timeout=10,
                              match=lambda i, d: b"railsw-test ports" in d)
    finally:
        inj.close()
    ours = [d for _, d in got if b"railsw-test ports" in d]
    tx = pfc_row(b, "m0")
    rx = pfc_row(a, "m0")
    assert tx["tx_xoff"] > 0, tx
    assert rx["rx_xoff"] > 0, rx
    assert rx["rx_ignored"] == 0, rx
    assert len(ours) == 150
    for sw in (a, b):
        for q in sw.ctl("show", "queues")["queues"]:
            assert q["lossless_drops"] == 0, q


def test_memif_peer_death_link_down(make_switch, scratch):
    """The memif link follows its peer: down when the peer dies, up when it returns.

    Steps: chain A and B; SIGKILL B; then start B again.
    Verify: A's m0 link_up false within 2 s of the kill, true again once B is
    back, and routed traffic crosses again.
    """
    a, b = memif_pair(make_switch, scratch)
    b.kill()
    railsw.run(["ip", "link", "del", b.tap["t0"]], check=False)
    wait_link(a, "m0", False, timeout=2)
    b.start()
    wait_link(a, "m0", True, timeout=10)
    inj = railsw.Injector()
    try:
        inj.send(a.tap["t0"], [udp(HOST_MAC, a.mac["t0"], HOST_IP, B_HOST_IP, i)
                               for i in range(5)])
    finally:
        inj.close()
    wait_counter(b, "t0", "tx_packets", 5)


# --------------------------------------------------------------------------
# AF_XDP


def xdp_switch(make_switch, host, extra_ports=(), extra_neighbors=(), routes=()):
    return make_switch({
        "ports": [
            {"name": "t0", "ipv4": "10.1.0.254/24"},
            {"name": "x0", "devargs": f"net_af_xdp0,iface={host.outer}",
             "mac": "02:00:00:00:05:fe", "ipv4": "10.5.0.254/24"},
        ] + list(extra_ports),
        "neighbors": [{"ip": HOST_IP, "mac": HOST_MAC, "port": "t0"},
                      {"ip": NS_IP, "mac": NS_MAC, "port": "x0"}] + list(extra_neighbors),
        "routes": list(routes),
    })


def test_af_xdp_veth(make_switch, veth_hosts):
    """AF_XDP on a veth pair, a namespace host on the other end.

    Steps: railsw's x0 is net_af_xdp on the outer veth; the inner end is a
    host in a namespace (10.5.0.1/24, route to 10.1.0.0/24 via the switch).
    (1) ping the switch's address 10.5.0.254; (2) ping through the switch a
    Scapy host on the TAP (10.1.0.1), which answers; (3) the TAP host sends
    20 UDP frames to the namespace host; (4) the namespace host sends 20
    UDP datagrams to the TAP host.
    Verify: both pings answered 3/3; the TAP sees the 20 datagrams routed
    (TTL 63); x0 kind net_af_xdp, mac_ctrl true; x0's rx/tx packets equal the
    namespace end's kernel tx/rx packets; t0's counters match the frames.
    """
    host = veth_hosts("a", f"{NS_IP}/24", "10.5.0.254", NS_MAC, routes=["10.1.0.0/24"])
    sw = xdp_switch(make_switch, host)
    x0 = port(sw, "x0")
    assert (x0["kind"], x0["mac_ctrl"]) == ("net_af_xdp", True)
    r = host.exec(["ping", "-c", "3", "-i", "0.2", "-W", "2", "10.5.0.254"], check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    echo = EchoResponder(sw.tap["t0"], HOST_IP, HOST_MAC)
    try:
        sw.ctl("clear", "counters")
        k0 = host.stats()
        r = host.exec(["ping", "-c", "3", "-i", "0.2", "-W", "2", HOST_IP], check=False)
    finally:
        echo.close()
    assert r.returncode == 0 and echo.answered == 3, r.stdout + r.stderr
    c = sw.counters()
    assert (c["t0"]["tx_packets"], c["t0"]["rx_packets"]) == (3, 3), c["t0"]
    inj = railsw.Injector()
    try:
        inj.send(sw.tap["t0"], [udp(HOST_MAC, sw.mac["t0"], HOST_IP, NS_IP, i)
                                for i in range(20)])
    finally:
        inj.close()
    wait_until(lambda: host.stats()["rx_packets"] - k0["rx_packets"] >= 23, 5,
               what="the namespace host to receive 3 echo replies and 20 datagrams")
    with railsw.Capture([sw.tap["t0"]]) as cap:
        host.send_udp(HOST_IP, 20)
        got = cap.collect(count=20, timeout=5, match=lambda i, d: UDP in Ether(d))
    dgrams = [Ether(d) for _, d in got if UDP in Ether(d)]
    assert len(dgrams) == 20, topo.describe(got)
    assert all((e.dst, e.src, e[IP].src, e[IP].ttl) == (HOST_MAC, sw.mac["t0"], NS_IP, 63)
               for e in dgrams)

    def matches():
        # Every frame on the wire between them, seen by both ends: x0's counters
        # (cleared with k0 taken) equal the namespace end's kernel counters.
        k, x = host.stats(), port(sw, "x0")
        return (k["tx_packets"] - k0["tx_packets"], k["rx_packets"] - k0["rx_packets"]) == (
            x["rx_packets"], x["tx_packets"])
    wait_until(matches, 3, what="x0 counters to match the veth's")
    x = port(sw, "x0")
    assert x["tx_packets"] >= 23 and x["rx_packets"] >= 23, x


# --------------------------------------------------------------------------
# Mixed


def test_mixed_tap_memif_af_xdp(make_switch, scratch, veth_hosts):
    """One switch forwarding among a TAP, a memif and an AF_XDP port.

    Steps: switch A has t0 (TAP), m0 (memif server to switch B, whose TAP
    host is 10.2.0.1) and x0 (AF_XDP to a namespace host 10.5.0.1, routes to
    10.1/24 and 10.2/24 via A). (1) TAP host -> B's TAP host (TAP -> memif);
    (2) TAP host -> namespace host (TAP -> AF_XDP); (3) namespace host -> B's
    TAP host (AF_XDP -> memif), 10 datagrams each.
    Verify: (1) and (3) arrive on B's TAP (TTL 62 and 62), (2) reaches the
    namespace end (kernel rx counter); A's counters: t0 rx 20, m0 tx 20,
    x0 tx 10 and rx 10.
    """
    host = veth_hosts("m", f"{NS_IP}/24", "10.5.0.254", NS_MAC,
                      routes=["10.1.0.0/24", "10.2.0.0/24"])
    a, b = memif_pair(make_switch, scratch,
                      a_extra_ports=[{"name": "x0", "devargs": f"net_af_xdp0,iface={host.outer}",
                                      "mac": "02:00:00:00:05:fe", "ipv4": "10.5.0.254/24"}],
                      a_neighbors=[{"ip": NS_IP, "mac": NS_MAC, "port": "x0"}])
    assert [port(a, p)["kind"] for p in ("t0", "m0", "x0")] == [
        "net_tap", "net_memif", "net_af_xdp"]
    k0 = host.stats()
    inj = railsw.Injector()
    try:
        with railsw.Capture([b.tap["t0"]]) as cap:
            inj.send(a.tap["t0"], [udp(HOST_MAC, a.mac["t0"], HOST_IP, B_HOST_IP, i)
                                   for i in range(10)])
            inj.send(a.tap["t0"], [udp(HOST_MAC, a.mac["t0"], HOST_IP, NS_IP, i)
                                   for i in range(10)])
            host.send_udp(B_HOST_IP, 10)
            got = cap.collect(count=20, timeout=5, match=lambda i, d: UDP in Ether(d))
    finally:
        inj.close()
    dgrams = [Ether(d) for _, d in got if UDP in Ether(d)]
    from_tap = [e for e in dgrams if e[IP].src == HOST_IP]
    from_ns = [e for e in dgrams if e[IP].src == NS_IP]
    assert len(from_tap) == 10 and len(from_ns) == 10, topo.describe(got)
    assert all(e[IP].ttl == 62 and e.dst == B_HOST_MAC for e in dgrams)
    wait_until(lambda: host.stats()["rx_packets"] - k0["rx_packets"] >= 10, 5,
               what="the namespace host to receive 10")
    c = a.counters()
    assert (c["t0"]["rx_packets"], c["m0"]["tx_packets"]) == (20, 20), c
    assert c["x0"]["tx_packets"] >= 10 and c["x0"]["rx_packets"] >= 10, c["x0"]
    assert b.counters()["t0"]["tx_packets"] == 20

# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Table-size limits and control-plane hardening (docs/reliability.md).

Limits: a switch with 65536 IPv4 routes (to two next hops: two shared next-hop
groups) starts with -m 1024 --no-huge and forwards to the first and last prefix; a
configuration one step beyond each documented limit (docs/config.md "Limits") is
refused by `railsw --check` with FILE:LINE and the right message.

Hardening: the control socket is mode 0600 and owned by the running user; over-long
lines, binary garbage, half lines and 100 concurrent clients neither disturb a steady
stream crossing the switch (nothing lost) nor stop `show ports` from answering.
"""

import os
import socket
import stat
import subprocess
import threading
import time

import pytest

import railsw
import topo
from topo import HOST_IP, udp4

N_ROUTES = 65536
MAX_ROUTES = 1 << 20  # routes per family (docs/config.md "Limits")


def routes_config(n=N_ROUTES):
    """three_ports() plus n IPv4 /24 routes 100.X.Y.0/24, alternately via p1's and p2's
    host: 2 distinct next-hop groups."""
    cfg = topo.three_ports(routes=False)
    cfg["routes"] = [{"prefix": f"100.{i >> 8}.{i & 255}.0/24",
                      "nexthops": [HOST_IP["p1"] if i % 2 == 0 else HOST_IP["p2"]]}
                     for i in range(n)]
    return cfg


def test_64k_routes_forward(build, injector):
    """65536 IPv4 routes fit in -m 1024 (--no-huge) and forward.

    Steps: start railsw (Switch helper, -m 1024) with 65536 /24 routes, even ones via
    p1's host, odd ones via p2's; send one frame to 100.0.0.1 (the first prefix) and
    one to 100.255.255.1 (the last) from p0.
    Verify: the first comes out on p1, the last on p2, each routed (MACs, TTL - 1);
    `show lb` lists 2 groups holding 32768 routes each.
    """
    sw = railsw.Switch(build, routes_config(), start=False, mem=1024)
    try:
        sw.start(timeout=120)
        lb = sw.ctl("show", "lb")["groups"]
        assert sorted(g["routes"] for g in lb) == [N_ROUTES // 2, N_ROUTES // 2]
        first = udp4(sw, "p0", "100.0.0.1")
        last = udp4(sw, "p0", "100.255.255.1")
        with railsw.Capture([sw.tap["p1"], sw.tap["p2"]]) as cap:
            injector.send(sw.tap["p0"], [first, last])
            got = cap.collect(count=2, timeout=5)
        assert sorted(got) == sorted([(sw.tap["p1"], topo.routed(first, "p1", sw)),
                                      (sw.tap["p2"], topo.routed(last, "p2", sw))])
        sw.stop()
    finally:
        sw.cleanup()


def check(build, tmp_path, cfg):
    """railsw --check on cfg (a dict); returns (exit code, output).

    cfg["routes"] may be a str: YAML lines written as they are (a million routes through
    to_yaml would take minutes)."""
    path = tmp_path / "railsw.yaml"
    raw = cfg.pop("routes") if isinstance(cfg.get("routes"), str) else None
    text = railsw.to_yaml(cfg) + "\n"
    if raw is not None:
        text += "routes:\n" + raw
    path.write_text(text)
    r = subprocess.run([os.path.join(build, "control", "railsw"), "-c", str(path), "--check"],
                       capture_output=True, text=True, timeout=120)
    return r.returncode, (r.stdout + r.stderr).strip(), str(path)


def beyond(kind):
    """A configuration one step beyond limit `kind`, and the message expected."""
    cfg = topo.three_ports(routes=False)
    cfg["switch"]["name"] = "limits"
    for i, p in enumerate(cfg["ports"]):
        p["devargs"] = f"net_tap{i}"
    # A /16 on p1 holds enough distinct next hops.
    cfg["ports"][1]["ipv4"] = "10.2.255.254/16"
    if kind == "groups":
        cfg["routes"] = [{"prefix": f"100.{i >> 8}.{i & 255}.0/24",
                          "nexthops": [f"10.2.{(i + 1) >> 8}.{(i + 1) & 255}"]} for i in range(1025)]
        return cfg, "too many distinct next-hop groups: 1025, at most 1024"
    if kind == "neighbours":
        # With the three static IPv4 neighbours, 4097 distinct next hops are too many.
        cfg["routes"] = [{"prefix": f"100.{i >> 8}.{i & 255}.0/24",
                          "nexthops": [f"10.2.{(i + 1) >> 8}.{(i + 1) & 255}"]} for i in range(4097)]
        return cfg, "too many neighbours"
    if kind == "routes":
        # MAX_ROUTES /24s from 32.0.0.0, then one more.
        nh = HOST_IP["p1"]
        cfg["routes"] = "".join(
            f"  - {{ prefix: {32 + (i >> 16)}.{i >> 8 & 255}.{i & 255}.0/24, nexthops: [{nh}] }}\n"
            for i in range(MAX_ROUTES + 1))
        return cfg, f"too many IPv4 routes (at most {MAX_ROUTES})"
    if kind == "tbl8":
        # Three port /32s already use three /24 blocks.
        cfg["routes"] = [{"prefix": f"100.{i >> 8}.{i & 255}.1/32",
                          "nexthops": [HOST_IP["p1"]]} for i in range(4094)]
        return cfg, "too many IPv4 routes longer than /24"
    if kind == "members":
        cfg["routes"] = [{"prefix": "100.0.0.0/24",
                          "nexthops": [f"10.2.0.{i + 1}" for i in range(17)]}]
        return cfg, "must list 1 to 16 next hops (got 17)"
    raise ValueError(kind)


@pytest.mark.parametrize("kind", ["groups", "neighbours", "routes", "tbl8", "members"])
def test_beyond_limit_refused(build, tmp_path, kind):
    """A configuration beyond a table limit is refused at load, with FILE:LINE.

    Steps: write a configuration one step beyond the limit; run `railsw -c FILE --check`.
    Verify: exit status 1; the message starts with FILE:LINE: and names the limit.
    """
    cfg, msg = beyond(kind)
    rc, out, path = check(build, tmp_path, cfg)
    assert rc == 1, out
    assert msg in out, out
    assert f"{path}:" in out and out.split(f"{path}:")[1].split(":")[0].isdigit(), out


def test_at_limits_accepted(build, tmp_path):
    """Exactly at the limits is accepted, and the tables really hold it.

    Steps: `railsw --check` on 1024 routes with distinct next hops plus 4093 /32 host
    routes in distinct /24 blocks via one next hop (with the 3 port addresses: 4096
    blocks); then start railsw on it.
    Verify: exit status 0; railsw starts; `show lb` lists 1024 groups, the shared one with
    4093 routes.
    """
    cfg, _ = beyond("groups")
    cfg["routes"] = cfg["routes"][:1023] + [
        {"prefix": f"101.{i >> 8}.{i & 255}.1/32", "nexthops": ["10.2.200.1"]}
        for i in range(4093)]
    rc, out, _ = check(build, tmp_path, cfg)
    assert rc == 0, out
    del cfg["switch"]["name"]
    for p in cfg["ports"]:
        del p["devargs"]
    sw = railsw.Switch(build, cfg, start=False, mem=1024)
    try:
        sw.start(timeout=120)
        lb = sw.ctl("show", "lb")["groups"]
        assert len(lb) == 1024
        assert sorted(g["routes"] for g in lb)[-2:] == [1, 4093]
        sw.stop()
    finally:
        sw.cleanup()


# -- control-plane hardening


@pytest.fixture(scope="module")
def sw(build):
    with topo.running(build, topo.three_ports()) as s:
        yield s


def test_socket_mode_owner(sw):
    """The control socket is a socket file, mode 0600, owned by the running user.

    Verify: stat of the socket path: S_ISSOCK, permission bits 0600, uid = our uid.
    """
    st = os.stat(sw.sock)
    assert stat.S_ISSOCK(st.st_mode)
    assert stat.S_IMODE(st.st_mode) == 0o600, oct(st.st_mode)
    assert st.st_uid == os.getuid()


def connect(sw):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(sw.sock)
    return s


def read_line(s):
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
    return buf


def abuse(sw):
    """Over-long lines, binary garbage, half lines, 100 concurrent clients."""
    # More than 4 KiB without a newline: an error reply, then the server hangs up.
    s = connect(sw)
    try:
        s.sendall(b"show ports " + b"A" * 8192)
    except (BrokenPipeError, ConnectionResetError):
        pass
    reply = read_line(s)
    assert b"error" in reply, reply
    s.close()
    # An over-long line with its newline, then a good one on the same connection.
    s = connect(sw)
    try:
        s.sendall(b"x" * 5000 + b"\nshow ports\n")
        assert b"error" in read_line(s)
    except (BrokenPipeError, ConnectionResetError):
        pass
    s.close()
    # Binary garbage with and without newlines.
    for junk in (bytes(range(256)) * 4, b"\x00\xff\xfe\n\x01\x02\n", b"\xc3\x28\n"):
        s = connect(sw)
        try:
            s.sendall(junk)
            if b"\n" in junk:
                assert b"error" in read_line(s)
        except (BrokenPipeError, ConnectionResetError):
            pass
        s.close()
    # Half lines, then disconnect.
    for _ in range(20):
        s = connect(sw)
        s.sendall(b"show po")
        s.close()
    # 100 concurrent clients: all connected at once, each asks, each gets its answer.
    clients = [connect(sw) for _ in range(100)]
    for c in clients:
        c.sendall(b"show ports\n")
    for c in clients:
        assert read_line(c).startswith(b"{"), "a client got no reply"
    for c in clients:
        c.close()


def test_hostile_clients_do_not_disturb_forwarding(sw, injector):
    """Hostile control clients do not cost a packet.

    Steps: a thread sends 3000 UDP frames p0 → p1 (10.20.x.x, static route) in small
    bursts over about 3 s; meanwhile, over the control socket: a line over 4 KiB without
    a newline, one with it, binary garbage, 20 half lines followed by a disconnect, and
    100 clients connected at once each sending `show ports`.
    Verify: all 3000 frames come out on p1; `show ports` still answers; p0 rx = p1 tx =
    3000 and no drop counter moved.
    """
    n = 3000
    frames = [bytes(udp4(sw, "p0", "10.20.0.9", sport=1000 + i % 1000,
                         payload=b"hard%06d" % i)) for i in range(n)]

    def stream():
        for i in range(0, n, 20):
            injector.send(sw.tap["p0"], frames[i:i + 20])
            time.sleep(0.02)

    before = sw.counters()
    with railsw.Capture([sw.tap["p1"]]) as cap:
        t = threading.Thread(target=stream)
        t.start()
        try:
            abuse(sw)
        finally:
            t.join()
        got = cap.collect(count=n, timeout=20, match=lambda i, d: b"hard" in d)
    seen = {d[-10:] for _, d in got if b"hard" in d}
    assert len(seen) == n, f"{n - len(seen)} of {n} frames lost"
    ports = sw.ctl("show", "ports")
    assert ports
    after = sw.counters()
    d = topo.deltas(before, after)
    assert d["p0"]["rx_packets"] == n
    assert d["p1"]["tx_packets"] == n
    drops = {(p, k): v for p, c in d.items() for k, v in c.items()
             if k not in ("rx_packets", "rx_bytes", "tx_packets", "tx_bytes")}
    assert not drops, drops

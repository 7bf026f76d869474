# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Observability: DPDK telemetry commands /railsw/... (through dpdk-telemetry.py and a
plain telemetry socket client), Prometheus text on control.metrics_listen, and packet
capture with dpdk-dumpcap (rte_pdump) when railsw runs on hugepages."""

import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time

import pytest
from scapy.all import rdpcap

import railsw
from railsw import free_tcp_port, telemetry
import topo

N_FRAMES = 5
TELEMETRY_PY = shutil.which("dpdk-telemetry.py")
DUMPCAP = shutil.which("dpdk-dumpcap")

# Text format 0.0.4: a sample line, and the labels inside its braces.
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\[\\"n])*"'
SAMPLE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:' + LABEL + r'(?:,' + LABEL +
                       r')*)?\})? (-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|NaN|[+-]Inf)$')
LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\[\\"n])*)"')


def telemetry_py(sw, *cmds):
    """Run dpdk-telemetry.py -f PREFIX with cmds on stdin; the values of its replies."""
    r = railsw.run([TELEMETRY_PY, "-f", sw.prefix], input="\n".join(cmds) + "\n")
    replies = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    assert len(replies) == len(cmds), r.stdout + r.stderr
    return [rep[c.split(",")[0]] for rep, c in zip(replies, cmds)]


def http(port, request, timeout=5):
    """Send raw bytes to 127.0.0.1:port; the whole response until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass
        buf = b""
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            buf += chunk
    return buf


def scrape(port):
    """GET /metrics: (status line, headers dict, {(name, labels): value}, types, text)."""
    resp = http(port, b"GET /metrics HTTP/1.0\r\nHost: railsw\r\n\r\n")
    head, _, body = resp.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(h.split(": ", 1) for h in lines[1:])
    text = body.decode()
    samples, types, helps, order = {}, {}, set(), []
    assert text.endswith("\n")
    for line in text.split("\n")[:-1]:
        if line.startswith("# HELP "):
            name = line.split(" ")[2]
            assert name not in helps, f"second HELP for {name}"
            helps.add(name)
            order.append(name)
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert name == order[-1] and name not in types, line
            assert kind in ("counter", "gauge"), line
            types[name] = kind
            continue
        m = SAMPLE_RE.match(line)
        assert m, f"not a text-format 0.0.4 sample line: {line!r}"
        name = m.group(1)
        assert name == order[-1], f"sample of {name} outside its group: {line!r}"
        labels = tuple(sorted(LABEL_RE.findall(m.group(2) or "")))
        samples[(name, labels)] = float(m.group(3))
    return lines[0], headers, samples, types, text


def send_traffic(sw, injector, n=N_FRAMES):
    """n UDP frames from h0 (p0) to 10.20.0.5 (routed to h1 out of p1); wait until
    railctl counts them."""
    before = sw.ports()["p0"]["rx_packets"]
    injector.send(sw.tap["p0"], [topo.udp4(sw, "p0", "10.20.0.5") for _ in range(n)])
    railsw.wait_until(lambda: sw.ports()["p1"]["tx_packets"] >= n and
                      sw.ports()["p0"]["rx_packets"] >= before + n, 10,
                      what="the frames to cross the switch")


def settled(fetch, expect, timeout=3.0):
    """Poll fetch() until it equals expect() (the telemetry snapshot is ~200 ms old)."""
    last = {}

    def same():
        last["got"], last["want"] = fetch(), expect()
        return last["got"] == last["want"]

    try:
        railsw.wait_until(same, timeout, interval=0.1, what="telemetry to match railctl")
    except TimeoutError:
        assert last["got"] == last["want"]


@pytest.fixture(scope="module")
def metrics_port():
    return free_tcp_port()


@pytest.fixture(scope="module")
def sw(build, metrics_port):
    cfg = topo.three_ports(control={"metrics_listen": f"127.0.0.1:{metrics_port}"})
    with topo.running(build, cfg) as s:
        inj = railsw.Injector()
        try:
            send_traffic(s, inj)
        finally:
            inj.close()
        yield s


# --------------------------------------------------------------------------
# Telemetry


@pytest.mark.skipif(TELEMETRY_PY is None, reason="dpdk-telemetry.py not installed")
def test_telemetry_py_ports_match_railctl(sw):
    """**Steps**: after traffic p0 -> p1, run `dpdk-telemetry.py -f PREFIX` with
    /railsw/ports and /railsw/ports,p1.
    **Verify**: every port and every field equal `railctl --json show ports` (booleans
    as 0/1; a null field, such as `peer_down` of a port that is up, is left out, as
    docs/observability.md says); the parameter selects one port; the help text is
    registered."""
    def fetch():
        allp, one, helps = telemetry_py(sw, "/railsw/ports", "/railsw/ports,p1",
                                        "/help,/railsw/ports")
        return allp, one, "port" in helps["/railsw/ports"]

    def expect():
        ports = {n: {k: v for k, v in p.items() if v is not None}
                 for n, p in sw.ports().items()}
        return ports, {"p1": ports["p1"]}, True

    settled(fetch, expect)
    assert telemetry(sw, "/railsw/ports")["p0"]["rx_packets"] >= N_FRAMES


def test_telemetry_queues_pfc(sw):
    """**Steps**: /railsw/queues,p1 and /railsw/pfc,p0.
    **Verify**: one entry per TC/priority keyed "0".."7", equal to the rows of
    `railctl show queues p1` / `show pfc p0`; the frames are counted on p1's queues."""
    def rows(cmd, key, index, port):
        return {str(r[index]): r for r in sw.ctl("show", cmd, port)[key]}

    settled(lambda: telemetry(sw, "/railsw/queues,p1"),
            lambda: rows("queues", "queues", "tc", "p1"))
    settled(lambda: telemetry(sw, "/railsw/pfc,p0"),
            lambda: rows("pfc", "pfc", "priority", "p0"))
    q = telemetry(sw, "/railsw/queues,p1")
    assert sorted(q, key=int) == [str(tc) for tc in range(8)]
    assert sum(r["enqueued_packets"] for r in q.values()) >= N_FRAMES


def test_telemetry_lb_drops_buffer(sw):
    """**Steps**: /railsw/lb, /railsw/lb,0, /railsw/drops, /railsw/buffer.
    **Verify**: groups, members, drop reasons and buffer totals equal railctl's."""
    def lb_expect():
        groups = sw.ctl("show", "lb")["groups"]
        summary = {str(g["id"]): {"id": g["id"], "prefix": g["prefix"], "mode": g["mode"],
                                  "routes": g["routes"], "members": len(g["members"]),
                                  "members_up": sum(m["up"] for m in g["members"]),
                                  "packets": sum(m["packets"] for m in g["members"]),
                                  "bytes": sum(m["bytes"] for m in g["members"]),
                                  "hash": g["hash"]}
                   for g in groups}
        members = {str(j): dict(m, group=0, prefix=groups[0]["prefix"], mode=groups[0]["mode"])
                   for j, m in enumerate(groups[0]["members"])}
        return summary, members

    settled(lambda: (telemetry(sw, "/railsw/lb"), telemetry(sw, "/railsw/lb,0")), lb_expect)
    assert telemetry(sw, "/railsw/lb,0")["0"]["packets"] >= N_FRAMES
    settled(lambda: telemetry(sw, "/railsw/drops"),
            lambda: {d["reason"]: d["packets"] for d in sw.ctl("show", "drops")["drops"]})
    settled(lambda: telemetry(sw, "/railsw/buffer"), lambda: sw.ctl("show", "buffer")["buffer"])


@pytest.mark.parametrize("cmd", [
    "/railsw/queues", "/railsw/pfc", "/railsw/queues,nope", "/railsw/pfc,p0,p1",
    "/railsw/ports,nope", "/railsw/lb,99", "/railsw/lb,-1", "/railsw/lb,x",
])
def test_telemetry_bad_parameters(sw, cmd):
    """**Steps**: a per-port command without its port, unknown ports and groups.
    **Verify**: an {"error": ...} reply naming the problem; railsw keeps answering."""
    reply = telemetry(sw, cmd)
    assert isinstance(reply, dict) and "error" in reply, reply
    if cmd in ("/railsw/queues", "/railsw/pfc"):
        assert reply["error"].startswith(f"usage: {cmd},PORT"), reply
    assert sw.running()
    assert telemetry(sw, "/railsw/ports,p0")["p0"]["name"] == "p0"


# --------------------------------------------------------------------------
# Prometheus


def test_metrics_scrape_matches_railctl(sw, metrics_port):
    """**Steps**: GET /metrics on 127.0.0.1.
    **Verify**: 200 with the 0.0.4 content type; every line is HELP, TYPE or a valid
    sample, grouped per metric; values equal railctl's (ports, queues, pfc, buffer,
    drops, workers); counters and gauges typed as documented."""
    status, headers, samples, types, _ = scrape(metrics_port)
    assert status == "HTTP/1.0 200 OK"
    assert headers["Content-Type"].startswith("text/plain; version=0.0.4")
    ports = sw.ports()
    for name, p in ports.items():
        for field in sw.port_counter_names():
            assert samples[("railsw_" + field, (("port", name),))] == p[field], (name, field)
            assert types["railsw_" + field] == "counter"
        assert samples[("railsw_link_up", (("port", name),))] == int(p["link_up"])
    assert samples[("railsw_rx_packets", (("port", "p0"),))] >= N_FRAMES
    for q in sw.ctl("show", "queues")["queues"]:
        key = (("port", q["port"]), ("tc", str(q["tc"])))
        for field in ("enqueued_packets", "dequeued_packets", "dropped_packets", "depth_bytes",
                      "watermark_bytes"):
            assert samples[("railsw_" + field, key)] == q[field], (key, field)
    for r in sw.ctl("show", "pfc")["pfc"]:
        key = (("port", r["port"]), ("priority", str(r["priority"])))
        for field in ("tx_xoff", "tx_xon", "rx_xoff", "rx_xon"):
            assert samples[("railsw_" + field, key)] == r[field], (key, field)
    buf = sw.ctl("show", "buffer")["buffer"]
    assert samples[("railsw_buffer_used", ())] == buf["used"]
    assert samples[("railsw_buffer_total", ())] == buf["total"]
    for d in sw.ctl("show", "drops")["drops"]:
        assert samples[("railsw_drop_packets", (("reason", d["reason"]),))] == d["packets"]
    g = sw.ctl("show", "lb")["groups"][0]
    m = g["members"][0]
    key = tuple(sorted((("group", str(g["id"])), ("prefix", g["prefix"]),
                        ("nexthop", m["nexthop"]), ("port", m["port"]))))
    assert samples[("railsw_lb_member_packets", key)] == m["packets"]
    for w in sw.ctl("show", "workers")["workers"]:
        key = (("lcore", str(w["lcore"])), ("worker", str(w["worker"])))
        for field in ("rx_packets", "tx_packets", "handed_off", "bursts"):
            assert samples[("railsw_worker_" + field, key)] == w[field], (key, field)
    assert samples[("railsw_worker_rx_packets", (("lcore", "1"), ("worker", "0")))] >= N_FRAMES
    assert types["railsw_worker_busy_pct"] == "gauge"
    assert types["railsw_worker_handed_off"] == "counter"
    for gauge in ("depth_bytes", "watermark_bytes", "buffer_used", "speed_bps", "link_up",
                  "pg_bytes"):
        assert types["railsw_" + gauge] == "gauge", gauge
    for counter in ("enqueued_packets", "tx_xoff", "drop_packets", "lb_member_packets"):
        assert types["railsw_" + counter] == "counter", counter


@pytest.mark.parametrize("request_line, status", [
    (b"GET / HTTP/1.0\r\n\r\n", b"404"),
    (b"GET /metrics/x HTTP/1.0\r\n\r\n", b"404"),
    (b"GET /favicon.ico HTTP/1.1\r\nHost: x\r\n\r\n", b"404"),
    (b"DELETE /metrics HTTP/1.0\r\n\r\n", b"405"),
    (b"GET /metrics HTTP/1.0\r\nno colon\r\n\r\n", b"400"),
    (b"\x00\x01\x02garbage\r\n\r\n", None),
])
def test_metrics_other_requests(sw, metrics_port, request_line, status):
    """**Steps**: other paths, another method, a malformed header, binary garbage.
    **Verify**: 404 / 405 (HTTP/1.0 replies) / 400 (libmicrohttpd's own, an HTTP/1.1 status
    line); garbage gets no reply, or a 400, and the connection closed within the server's
    5 s; railsw still answers."""
    resp = http(metrics_port, request_line, timeout=10)
    if status is None:
        assert resp == b"" or re.match(rb"HTTP/1\.[01] 400 ", resp), resp[:80]
    elif status == b"400":
        assert re.match(rb"HTTP/1\.[01] 400 ", resp), resp[:80]
    else:
        assert resp.startswith(b"HTTP/1.0 " + status + b" "), resp[:80]
    assert sw.ctl("show", "ports")["ports"]


def test_metrics_bad_clients_do_not_disturb(sw, metrics_port, injector):
    """**Steps**: an over-long request (64 KiB without an end of headers), a client that
    connects and says nothing, more clients than the server keeps; then traffic.
    **Verify**: 431 (or a reset) for the long one; the switch still forwards and counts,
    and a normal scrape still works and shows the new frames."""
    resp = http(metrics_port, b"GET /metrics HTTP/1.0\r\nX-Long: " + b"a" * 65536)
    assert resp == b"" or re.match(rb"HTTP/1\.[01] 431 ", resp), resp[:80]
    idle = [socket.create_connection(("127.0.0.1", metrics_port), timeout=5) for _ in range(20)]
    try:
        # With the client slots taken by idle connections, new ones are refused (503)
        # rather than queued forever.
        resp = http(metrics_port, b"GET /metrics HTTP/1.0\r\n\r\n")
        assert resp.startswith(b"HTTP/1.0 503 ") or resp.startswith(b"HTTP/1.0 200 "), resp[:80]
    finally:
        for s in idle:
            s.close()
    before = sw.ports()["p0"]["rx_packets"]
    send_traffic(sw, injector, 3)
    railsw.wait_until(lambda: scrape(metrics_port)[2][("railsw_rx_packets", (("port", "p0"),))]
                      == before + 3, 5, what="the scrape to count the new frames")


def test_metrics_bind_failure(build):
    """**Steps**: start railsw with metrics_listen on a port another socket holds.
    **Verify**: exit 1 at start-up with a message naming metrics_listen and the cause."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        sw = railsw.Switch(build, topo.three_ports(
            control={"metrics_listen": f"127.0.0.1:{port}"}), start=False)
        try:
            with pytest.raises(railsw.SwitchError, match="exited with 1 during start-up"):
                sw.start()
            log = open(sw.log).read()
            assert f"metrics_listen 127.0.0.1:{port}: cannot listen: Address already in use" \
                in log, log
        finally:
            sw.cleanup()


# --------------------------------------------------------------------------
# Packet capture


def test_no_huge_says_capture_needs_hugepages(sw):
    """**Verify**: with --no-huge railsw runs and logs one line that dpdk-dumpcap
    needs it on hugepages."""
    log = open(sw.log).read()
    assert log.count("dpdk-dumpcap needs railsw on hugepages") == 1, log


HUGE_SYSFS = "/sys/kernel/mm/hugepages/hugepages-2048kB"
HUGE_PAGES = 256  # 512 MiB: railsw -m 256 plus what dpdk-dumpcap allocates


@pytest.fixture
def hugepages():
    """HUGE_PAGES free 2 MiB pages and a private hugetlbfs mount; both undone after
    (request it before make_switch, so that the switch has stopped by then)."""
    if not os.path.isdir(HUGE_SYSFS):
        pytest.skip("no 2 MiB hugepage support in this kernel")
    nr_path = os.path.join(HUGE_SYSFS, "nr_hugepages")
    before = int(open(nr_path).read())
    free = int(open(os.path.join(HUGE_SYSFS, "free_hugepages")).read())
    want = before + max(0, HUGE_PAGES - free)
    mnt = tempfile.mkdtemp(prefix=f"rswt-{os.getpid()}-huge.")
    mounted = False
    try:
        try:
            with open(nr_path, "w") as f:
                f.write(str(want))
        except OSError as e:
            pytest.skip(f"cannot reserve hugepages: {e}")
        free = int(open(os.path.join(HUGE_SYSFS, "free_hugepages")).read())
        if free < HUGE_PAGES:
            pytest.skip(f"only {free} free 2 MiB hugepages after asking for {HUGE_PAGES} "
                        "(memory fragmented or in use)")
        r = railsw.run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M", "nodev", mnt],
                       check=False)
        if r.returncode != 0:
            pytest.skip(f"cannot mount hugetlbfs: {r.stderr.strip()}")
        mounted = True
        yield mnt
    finally:
        if mounted:
            railsw.run(["umount", mnt], check=False)
        shutil.rmtree(mnt, ignore_errors=True)
        with open(nr_path, "w") as f:
            f.write(str(before))


@pytest.mark.skipif(DUMPCAP is None, reason="dpdk-dumpcap not installed")
def test_dumpcap_captures_port(hugepages, make_switch, injector):
    # hugepages first: it is set up before the switch and torn down after it.
    """**Steps**: railsw on hugepages (-m 256, --huge-dir on a private hugetlbfs);
    `dpdk-dumpcap -i net_tap0 -w FILE -c 5 --file-prefix PREFIX`; send frames into p0
    until dumpcap stops.
    **Verify**: railsw logs that capture is on; dumpcap exits 0; the pcapng holds 5
    packets, each one of the frames sent (same bytes), stamped with the time they were
    sent (within the last minute, in order); the switch forwarded them."""
    sw = make_switch(topo.three_ports(), huge_dir=hugepages, mem=256)
    assert "packet capture on" in open(sw.log).read(), sw.log_tail()
    out = os.path.join(sw.tmp, "p0.pcapng")
    cmd = [DUMPCAP, "-i", "net_tap0", "-w", out, "-c", "5", "--file-prefix", sw.prefix]
    dc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sent = []
    try:
        deadline = time.monotonic() + 30
        while dc.poll() is None and time.monotonic() < deadline:
            fr = topo.udp4(sw, "p0", "10.20.0.5")
            injector.send(sw.tap["p0"], fr)
            sent.append(bytes(fr))
            time.sleep(0.1)
        if dc.poll() is None:
            dc.kill()
        output = dc.communicate(timeout=10)[0]
    finally:
        if dc.poll() is None:
            dc.kill()
            dc.wait(timeout=10)
    assert dc.returncode == 0, f"dpdk-dumpcap exited {dc.returncode}:\n{output}"
    pkts = rdpcap(out)
    assert len(pkts) == 5, output
    for p in pkts:
        assert bytes(p) in sent, p.summary()
    # Stamped with the wall clock (DPDK 22.11 stamps them centuries ahead unless railsw
    # primes pcapng's clock: docs/observability.md), in the order they were sent.
    now = time.time()
    stamps = [float(p.time) for p in pkts]
    assert all(now - 60 < t <= now + 1 for t in stamps), (now, stamps)
    assert stamps == sorted(stamps), stamps
    assert sw.running()
    railsw.wait_until(lambda: sw.ports()["p1"]["tx_packets"] >= len(sent) - 1, 5,
                      what="the captured frames to be forwarded too")

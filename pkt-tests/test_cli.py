# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""The command line: `railsw --check`, bad configs (FILE:LINE, exit 1,
nothing started), railctl exit codes and JSON, the control socket under bad
input, `clear counters`, and clean shutdown on SIGTERM / SIGINT."""

import json
import os
import re
import shutil
import signal
import socket
import tempfile

import pytest

import railsw
import topo
from topo import HOST_MAC, deltas

GOOD = """\
switch:
  name: check-good
  role: leaf
  idle_sleep_us: 50
ports:
  - name: p0
    devargs: net_tap0,iface={tap}0
    mac: "02:00:00:00:aa:01"
    ipv4: 10.1.0.254/24
    ipv6: fd00:1::fe/64
    mtu: 1500
  - name: p1
    devargs: net_tap1,iface={tap}1
    ipv4: 10.2.0.254/24
neighbors:
  - {{ ip: 10.2.0.1, mac: "02:aa:00:00:02:01", port: p1 }}
routes:
  - prefix: 10.20.0.0/16
    nexthops: [10.2.0.1]
load_balance:
  mode: hash
  hash_fields: [src_ip, dst_ip, proto, src_port, dst_port]
qos:
  trust: dscp
  dscp_to_tc: {{ 26: 3, 46: 7 }}
  default_tc: 0
control:
  socket: {sock}
"""

# (name, config text, a text on the line the error must name (None: any line),
#  message regex)
BAD = [
    ("unknown_key", GOOD.replace("    mtu: 1500\n", "    mtu: 1500\n    colour: red\n"),
     "colour: red", r"unknown key"),
    ("unknown_top_key", GOOD + "bogus: 1\n", "bogus: 1", r"unknown key"),
    ("wrong_type", GOOD.replace("idle_sleep_us: 50", "idle_sleep_us: fast"), "idle_sleep_us", r""),
    ("tc_out_of_range", GOOD.replace("46: 7", "46: 8"), "dscp_to_tc", r""),
    ("dscp_out_of_range", GOOD.replace("26: 3", "64: 3"), "dscp_to_tc", r""),
    ("duplicate_port_name", GOOD.replace("  - name: p1", "  - name: p0"), None, r""),
    ("neighbor_unknown_port", GOOD.replace("port: p1 }", "port: p9 }"), "port: p9", r""),
    ("nexthop_unresolvable", GOOD.replace("nexthops: [10.2.0.1]", "nexthops: [192.0.2.1]"),
     None, r""),
    ("bad_prefix", GOOD.replace("10.20.0.0/16", "10.20.0.0/33"), "/33", r""),
    ("bad_mac", GOOD.replace('"02:00:00:00:aa:01"', '"02:00:00:zz:aa:01"'), "zz", r""),
    ("duplicate_key", GOOD.replace("  role: leaf\n", "  role: leaf\n  role: spine\n"), "spine",
     r"duplicate"),
    ("trim_missing_tc", GOOD.replace("  default_tc: 0\n", "  default_tc: 0\n  trim:\n"
                                     "    tcs: [1]\n    size: 128\n    dscp: 11\n"),
     "trim:", r"missing required key 'tc' in 'qos.trim'"),
    ("trim_size_too_small", GOOD.replace("  default_tc: 0\n", "  default_tc: 0\n  trim:\n"
                                         "    tcs: [1]\n    size: 77\n    dscp: 11\n"
                                         "    tc: 2\n"),
     "size: 77", r"'trim.size' must be between 78"),
    ("trim_dscp_out_of_range", GOOD.replace("  default_tc: 0\n", "  default_tc: 0\n  trim:\n"
                                            "    tcs: [1]\n    dscp: 64\n    tc: 2\n"),
     "dscp: 64", r"'trim.dscp' must be between 0 and 63"),
    ("trim_tc_eligible_and_lossless",
     GOOD.replace("  default_tc: 0\n", "  default_tc: 0\n  lossless: [3]\n  trim:\n"
                  "    tcs: [1, 3]\n    dscp: 11\n    tc: 2\n"),
     "tcs: [1, 3]", r"TC 3 cannot be both trim-eligible"),
    ("trim_tc_lossless", GOOD.replace("  default_tc: 0\n", "  default_tc: 0\n  lossless: [2]\n"
                                      "  trim:\n    tcs: [1]\n    dscp: 11\n    tc: 2\n"),
     "    tc: 2", r"'trim.tc' 2 is lossless"),
    ("trim_tc_strict", GOOD.replace("  default_tc: 0\n", "  default_tc: 0\n  scheduler:\n"
                                    "    strict: [2]\n  trim:\n    tcs: [1]\n    dscp: 11\n"
                                    "    tc: 2\n"),
     "    tc: 2", r"'trim.tc' 2 is strict priority"),
    ("cnp_missing_tc", GOOD.replace("  default_tc: 0\n", "  default_tc: 0\n  cnp:\n"
                                    "    coalesce_us: 50\n"),
     "cnp:", r"missing required key 'tc' in 'qos.cnp'"),
    ("cnp_tc_out_of_range", GOOD.replace("  default_tc: 0\n", "  default_tc: 0\n  cnp:\n"
                                         "    tc: 8\n"),
     "tc: 8", r"'cnp.tc' value must be a TC between 0 and 7"),
    ("cnp_coalesce_out_of_range", GOOD.replace("  default_tc: 0\n", "  default_tc: 0\n  cnp:\n"
                                               "    tc: 6\n    coalesce_us: 1000001\n"),
     "coalesce_us: 1000001", r"'cnp.coalesce_us' must be between 0 and 1000000"),
    ("unknown_lb_mode", GOOD.replace("  mode: hash", "  mode: ecmp"), "ecmp",
     r"unknown load-balance mode"),
    ("topology_zero_rails", GOOD + "topology:\n  sus: 2\n  servers_per_su: 4\n  rails: 0\n"
     "  spines: 2\n  this: {{ su: 0, rail: 0 }}\n", "rails: 0", r"'rails' must be between 1"),
    # The devargs checks that need no device, the same at --check as at start-up.
    ("unknown_driver", GOOD.replace("net_tap1,iface={tap}1", "net_bogus1"), "net_bogus1",
     r"'devargs' 'net_bogus1': this DPDK has no driver of that name"),
    ("bad_pci_address", GOOD.replace("net_tap1,iface={tap}1", "0000:3b:00.8"), "0000:3b:00.8",
     r"'devargs' '0000:3b:00.8' is not a PCI address"),
    ("duplicate_tap_iface", GOOD.replace("net_tap1,iface={tap}1", "net_tap1,iface={tap}0"),
     "net_tap1", r"duplicate TAP interface '.*0' \(port 'p0' has it\)"),
    ("duplicate_vdev_name", GOOD.replace("net_tap1,iface={tap}1", "net_tap0,iface={tap}1 # p1"),
     "# p1", r"duplicate device 'net_tap0' \(port 'p0' has it\)"),
    ("memif_socket_dir", GOOD.replace("net_tap1,iface={tap}1",
                                      "net_memif0,role=server,socket=/nonexistent/m.sock"),
     "net_memif0", r"port p1: directory '/nonexistent' of socket= does not exist"),
    ("af_xdp_mtu", GOOD.replace("net_tap1,iface={tap}1\n    ipv4: 10.2.0.254/24\n",
                                "net_af_xdp0,iface={tap}1\n    ipv4: 10.2.0.254/24\n"
                                "    mtu: 9000\n"),
     "mtu: 9000", r"'mtu' 9000 is more than net_af_xdp takes"),
    ("did_you_mean", GOOD + "qso:\n  trust: dscp\n", "qso:",
     r"^unknown key 'qso'; did you mean 'qos'\?$"),
    ("empty", "", None, r""),
    ("binary", "\x00\x01\x02\xff\xfe garbage \x7f\x00\n", None, r""),
    ("not_a_mapping", "- just\n- a list\n", None, r""),
]


@pytest.fixture
def cfgdir():
    d = tempfile.mkdtemp(prefix=f"rswt-{os.getpid()}-0.cli.")
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def write(cfgdir, name, text):
    path = os.path.join(cfgdir, name + ".yaml")
    with open(path, "wb") as f:
        f.write(text.encode("latin-1"))
    os.chmod(path, 0o644)
    return path


def tap_prefix():
    return f"rt{os.getpid()}C"  # upper case: never a switch's own TAP name


def railsw_bin(build):
    return os.path.join(build, "control", "railsw")


def test_check_good_config(build, cfgdir):
    """Steps: `railsw -- -c FILE --check` and `railsw -c FILE --check` on a
    valid config naming two TAP ports and a socket.
    Verify: exit 0 both ways, nothing on stderr that looks like an error, no
    TAP interface and no socket created, no DPDK runtime directory.
    """
    sock = os.path.join(cfgdir, "ctl.sock")
    path = write(cfgdir, "good", GOOD.format(tap=tap_prefix(), sock=sock))
    for args in (["--", "-c", path, "--check"], ["-c", path, "--check"]):
        r = railsw.run([railsw_bin(build)] + args, timeout=20, check=False)
        assert r.returncode == 0, f"{args}: rc={r.returncode}\n{r.stdout}\n{r.stderr}"
        assert not re.search(r"error|invalid", r.stderr, re.I), r.stderr
    assert not railsw.link_exists(tap_prefix() + "0")
    assert not os.path.exists(sock)
    assert not os.path.exists("/var/run/dpdk/railsw-check-good")


EXAMPLES = sorted(f for f in os.listdir(os.path.join(railsw.REPO, "config")) if f.endswith(".yaml"))


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_configs_valid(build, example):
    """Steps: `railsw -c config/<example> --check` for every shipped example.
    Verify: exit 0: the examples users copy are valid.
    """
    path = os.path.join(railsw.REPO, "config", example)
    r = railsw.run([railsw_bin(build), "-c", path, "--check"], check=False)
    assert r.returncode == 0, r.stderr


def test_check_needs_no_root(build, cfgdir):
    """Steps: run `railsw -c FILE --check` as user nobody (setpriv), from a
    copy of the binary in a world-readable directory.
    Verify: exit 0 on the good config, exit 1 on a bad one.
    """
    if not shutil.which("setpriv"):
        pytest.skip("setpriv not installed")
    exe = os.path.join(cfgdir, "railsw")
    shutil.copy(railsw_bin(build), exe)
    os.chmod(exe, 0o755)
    good = write(cfgdir, "good", GOOD.format(tap=tap_prefix(), sock="/run/railsw/x.sock"))
    bad = write(cfgdir, "bad", GOOD.format(tap=tap_prefix(), sock="/x") + "bogus: 1\n")
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    r = railsw.run(nobody + [exe, "-c", good, "--check"], check=False)
    assert r.returncode == 0, r.stderr
    r = railsw.run(nobody + [exe, "-c", bad, "--check"], check=False)
    assert r.returncode == 1, r.stderr


@pytest.mark.parametrize("name,text,line,msg", BAD, ids=[b[0] for b in BAD])
def test_bad_config(build, cfgdir, name, text, line, msg):
    """Steps: validate a broken config with `--check`, then try to run it for
    real (EAL arguments, no --check).
    Verify: both exit 1 with `FILE:LINE: message` on stderr (the exact line
    where the test knows it; the message matching where the contract names
    it); the real run starts nothing: no TAP interface, no control socket.
    """
    sock = os.path.join(cfgdir, "ctl.sock")
    text = text.format(tap=tap_prefix(), sock=sock) if "{tap}" in text else text
    path = write(cfgdir, name, text)
    # An empty file has no line to name: `FILE: message` is accepted there.
    pattern = re.escape(path) + (r"(?::(\d+))?: (.+)" if name == "empty" else r":(\d+): (.+)")
    for args in (["-c", path, "--check"],
                 ["-l", "0,1", "--no-huge", "-m", "1024", "--file-prefix",
                  f"rswt-{os.getpid()}-0", "--", "-c", path]):
        r = railsw.run([railsw_bin(build)] + args, timeout=30, check=False)
        assert r.returncode == 1, f"{args}: rc={r.returncode}\n{r.stderr}"
        m = re.search(pattern, r.stderr)
        assert m, f"no '{path}:LINE: message' on stderr:\n{r.stderr}"
        if line is not None:
            want = [i + 1 for i, t in enumerate(text.split("\n")) if line in t][0]
            assert int(m.group(1)) == want, f"expected line {want}:\n{r.stderr}"
        assert re.search(msg, m.group(2), re.I), f"expected /{msg}/:\n{r.stderr}"
    assert not railsw.link_exists(tap_prefix() + "0")
    assert not railsw.link_exists(tap_prefix() + "1")
    assert not os.path.exists(sock)


def test_check_every_error(build, cfgdir):
    """Steps: `railsw -c FILE --check` on a file with four independent mistakes: a
    top-level typo, a bad MAC on p0, an unknown driver on p1, a neighbour on a port
    that does not exist; then run it for real.
    Verify: exit 1 both ways and exactly four lines on stderr, each `FILE:LINE:` on
    the line of its mistake, in file order, the typo with its suggestion.
    """
    sock = os.path.join(cfgdir, "ctl.sock")
    text = (GOOD.replace('"02:00:00:00:aa:01"', '"02:00:00:zz:aa:01"')
            .replace("net_tap1,iface={tap}1", "net_bogus1")
            .replace("port: p1 }}", "port: p9 }}")
            .format(tap=tap_prefix(), sock=sock)
            + "qso:\n  trust: dscp\n")
    path = write(cfgdir, "every", text)
    lines = text.split("\n")

    def at(marker):
        return [i + 1 for i, t in enumerate(lines) if marker in t][0]

    want = [(at("zz:aa"), r"'mac' must be a MAC address"),
            (at("net_bogus1"), r"this DPDK has no driver of that name"),
            (at("port: p9"), r"^unknown port 'p9'$"),
            (at("qso:"), r"^unknown key 'qso'; did you mean 'qos'\?$")]
    for args in (["-c", path, "--check"],
                 ["-l", "0,1", "--no-huge", "-m", "1024", "--file-prefix",
                  f"rswt-{os.getpid()}-0", "--", "-c", path]):
        r = railsw.run([railsw_bin(build)] + args, timeout=30, check=False)
        assert r.returncode == 1, f"{args}: rc={r.returncode}\n{r.stderr}"
        got = [ln for ln in r.stderr.splitlines() if ln.startswith(path + ":")]
        assert len(got) == len(want), r.stderr
        for ln, (line, msg) in zip(got, want):
            m = re.match(re.escape(path) + r":(\d+): (.+)$", ln)
            assert m and int(m.group(1)) == line and re.search(msg, m.group(2)), r.stderr
    assert not railsw.link_exists(tap_prefix() + "0")


@pytest.mark.parametrize("key,what", [
    ("llr", "answer it"),
    ("cbfc", "grant it credits"),
])
def test_check_warning_keeps_exit_code(build, cfgdir, key, what):
    """Steps: `railsw -c FILE --check` on a valid file whose p1 is a net_null port with
    `llr: true` or `cbfc: true` (no railsw peer can answer it).
    Verify: exit 0, the OK line on stdout, and on stderr exactly one line
    `FILE:LINE: warning: ...` naming the key's line and the port.
    """
    text = GOOD.replace("net_tap1,iface={tap}1", "net_null1\n    " + key + ": true").format(
        tap=tap_prefix(), sock=os.path.join(cfgdir, "ctl.sock"))
    if key == "cbfc":
        text = text.replace("  default_tc: 0\n", "  default_tc: 0\n  lossless: [3]\n")
    path = write(cfgdir, "warn-" + key, text)
    line = [i + 1 for i, t in enumerate(text.split("\n")) if key + ": true" in t][0]
    r = railsw.run([railsw_bin(build), "-c", path, "--check"], check=False)
    assert r.returncode == 0, r.stderr
    assert "configuration OK" in r.stdout
    assert r.stderr.strip() == (f"{path}:{line}: warning: port p1: '{key}' on a net_null port, "
                                f"which has no railsw peer to {what}"), r.stderr


def test_missing_config_file(build):
    """Steps: `railsw -c /nonexistent.yaml --check`.
    Verify: exit 1 and the path named on stderr.
    """
    r = railsw.run([railsw_bin(build), "-c", "/nonexistent/railsw.yaml", "--check"],
                   check=False)
    assert r.returncode == 1 and "/nonexistent/railsw.yaml" in r.stderr, r


@pytest.fixture(scope="module")
def sw(build):
    with topo.running(build, topo.three_ports()) as s:
        yield s


def test_show_ports_fields(sw):
    """Steps: `railctl --json show ports`, `railctl --json describe`.
    Verify: every port has exactly the fields `describe` lists for `show ports`, in
    that order (every port has both addresses here); ids 0..2 in config order; MACs
    as configured; counters are non-negative integers.
    """
    ports = sw.ctl("show", "ports")["ports"]
    fields = sw.fields("show ports", "ports")
    assert [p["name"] for p in ports] == ["p0", "p1", "p2"]
    for i, p in enumerate(ports):
        assert list(p) == fields, f"{p['name']}: {list(p)} != describe's {fields}"
        assert p["id"] == i
        assert p["mac"].lower() == sw.mac[p["name"]]
        for c in sw.port_counter_names():
            assert isinstance(p[c], int) and p[c] >= 0, (c, p[c])


def test_show_routes_neighbors_config(sw):
    """Steps: `show routes`, `show neighbors`, `show config` with --json.
    Verify: connected routes for every port address and the static routes
    with their next hops are listed; static neighbours have state `static`;
    `show config` is a JSON object naming the ports.
    """
    routes = {r["prefix"]: r for r in sw.ctl("show", "routes")["routes"]}
    for prefix in ("10.1.0.0/24", "10.2.0.0/24", "10.3.0.0/24",
                   "fd00:1::/64", "fd00:2::/64", "fd00:3::/64"):
        assert prefix in routes, f"connected route {prefix} missing: {sorted(routes)}"
    assert routes["10.20.0.0/16"]["nexthops"] == ["10.2.0.1"], routes["10.20.0.0/16"]
    assert routes["fd00:30::/48"]["nexthops"] == ["fd00:3::1"], routes["fd00:30::/48"]
    neigh = {n["ip"]: n for n in sw.ctl("show", "neighbors")["neighbors"]}
    for port, ip in list(topo.HOST_IP.items()) + list(topo.HOST_IP6.items()):
        assert ip in neigh, f"static neighbour {ip} missing: {sorted(neigh)}"
        assert neigh[ip]["state"] == "static" and neigh[ip]["port"] == port, neigh[ip]
        assert neigh[ip]["mac"].lower() == HOST_MAC[port]
    cfg = sw.ctl("show", "config")
    assert isinstance(cfg, dict) and "p1" in json.dumps(cfg)


def test_tables_without_json(sw):
    """Steps: `railctl show ports|routes|neighbors|lb` without --json.
    Verify: exit 0, a table (not JSON) naming each port / route / neighbour.
    """
    r = sw.ctl_raw("show", "ports", json_out=False)
    assert r.returncode == 0, r.stderr
    assert not r.stdout.lstrip().startswith("{")
    for p in ("p0", "p1", "p2"):
        assert p in r.stdout
    r = sw.ctl_raw("show", "routes", json_out=False)
    assert r.returncode == 0 and "10.20.0.0/16" in r.stdout, r
    r = sw.ctl_raw("show", "neighbors", json_out=False)
    assert r.returncode == 0 and "10.2.0.1" in r.stdout, r
    r = sw.ctl_raw("show", "lb", json_out=False)
    assert r.returncode == 0, r


def test_railctl_exit_codes(sw):
    """Steps: railctl with a good command, an unknown command, no command,
    an unknown option, and an unreachable socket.
    Verify: exit 0; exit 1 with {"error": "unknown command 'shw'"} on stdout;
    exit 2 with usage on stderr; exit 2; exit 2 naming the socket path.
    """
    assert sw.ctl_raw("show", "ports").returncode == 0
    r = sw.ctl_raw("shw", "ports")
    assert r.returncode == 1, r
    err = json.loads(r.stdout)
    assert "error" in err and "unknown command" in err["error"] and "shw" in err["error"], err
    ctl = os.path.join(sw.build, "control", "railctl")
    r = railsw.run([ctl, "-s", sw.sock], check=False)
    assert r.returncode == 2 and r.stderr.strip(), r
    r = railsw.run([ctl, "-s", sw.sock, "--no-such-option", "show", "ports"], check=False)
    assert r.returncode == 2, r
    missing = f"/tmp/rswt-{os.getpid()}-none/none.sock"
    r = railsw.run([ctl, "-s", missing, "--json", "show", "ports"], check=False)
    assert r.returncode == 2 and missing in r.stderr, r


def test_railctl_help_lists_every_command(sw):
    """Steps: `railctl help` (the switch's own list of commands), then
    `railctl --help` (railctl's usage, no switch asked).
    Verify: every command the switch knows is in the usage text (a `show`
    noun on a `show` line, any other command at the start of a line), and so
    are railctl's own `plan` and `top`.
    """
    reply = sw.ctl("help")
    names = [c["command"] for c in next(v for v in reply.values() if isinstance(v, list))]
    assert "lookup" in names and "show ports" in names, names
    ctl = os.path.join(sw.build, "control", "railctl")
    text = railsw.run([ctl, "--help"]).stdout
    for name in names + ["plan", "top"]:
        if name.startswith("show "):
            pattern = r"^\s+show .*\b" + re.escape(name[5:]) + r"\b"
        else:
            pattern = r"^\s+" + re.escape(name) + r"\b"
        assert re.search(pattern, text, re.M), f"'{name}' missing from railctl --help:\n{text}"


def test_describe_without_switch(sw):
    """Steps: `railctl --json describe` against the switch, then against a
    socket path where nothing listens, with and without --json.
    Verify: without a switch railctl answers itself, exit 0, with exactly the
    catalog the switch gives; other commands still exit 2 without a switch;
    `describe extra` is the switch's business (no local answer).
    """
    ctl = os.path.join(sw.build, "control", "railctl")
    missing = f"/tmp/rswt-{os.getpid()}-none/none.sock"
    r = railsw.run([ctl, "-s", missing, "--json", "describe"], check=False)
    assert r.returncode == 0, r
    assert json.loads(r.stdout) == sw.ctl("describe")
    r = railsw.run([ctl, "-s", missing, "describe"], check=False)
    assert r.returncode == 0 and "show ports" in r.stdout, r
    for words in (["show", "ports"], ["describe", "extra"]):
        r = railsw.run([ctl, "-s", missing, "--json"] + words, check=False)
        assert r.returncode == 2 and missing in r.stderr, r


@pytest.mark.parametrize("words", [["plan"], ["plan", "--bogus"],
                                   ["plan", "config/fabric-lab.yaml", "--check-lldp"],
                                   ["plan", "config/fabric-lab.yaml", "--bogus"]],
                         ids=["no-file", "option-first", "no-dir", "unknown-option"])
def test_plan_bad_words(build, words):
    """Steps: `railctl plan` with no file, an option in place of the file,
    --check-lldp without its directory, an unknown option.
    Verify: exit 2 and a usage line naming `plan FILE` on stderr.
    """
    ctl = os.path.join(build, "control", "railctl")
    r = railsw.run([ctl] + words, check=False, cwd=railsw.REPO)
    assert r.returncode == 2 and "usage: plan FILE" in r.stderr, r


def test_socket_bad_input(sw):
    """Steps: on the raw socket send an unknown command, an empty line,
    binary garbage, a 5000-byte line, and a client that disconnects
    mid-line.
    Verify: the replies that come are one-line JSON error objects; afterwards
    the switch answers `show ports` normally.
    """
    for line in (b"shw\n", b"\n", b"\x00\x01\xff\xfe\x7f\n"):
        reply = sw.request(line)
        obj = json.loads(reply)
        assert "error" in obj, (line, reply)
    assert json.loads(sw.request("shw\n"))["error"] == "unknown command 'shw'"
    try:
        reply = sw.request(b"show " + b"x" * 5000 + b"\n")
        if reply:
            assert "error" in json.loads(reply)
    except (ConnectionResetError, BrokenPipeError):
        pass  # dropping an over-long client is allowed
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(sw.sock)
        s.sendall(b"show po")
    assert json.loads(sw.request("show ports\n"))["ports"][0]["name"] == "p0"
    assert sw.ctl_raw("show", "ports").returncode == 0


def test_clear_counters(sw, injector):
    """Steps: send frames that move counters (forwarded, not-for-us, no
    route), then `clear counters`.
    Verify: the counters moved; `clear counters` answers {"ok": true}; then
    every counter of every port reads 0; traffic afterwards counts from 0.
    """
    before = sw.counters()
    injector.send(sw.tap["p0"], [
        topo.udp4(sw, "p0", topo.HOST_IP["p1"]),
        topo.udp4(sw, "p0", "192.0.2.9"),
        topo.Ether(dst="02:99:99:99:99:99", src=HOST_MAC["p0"]) / topo.IP() / topo.UDP(),
    ])
    railsw.wait_until(lambda: deltas(before, sw.counters()).get("p0", {}).get(
        "rx_packets", 0) >= 3, 5, what="3 frames counted")
    d = deltas(before, sw.counters())
    assert d["p0"]["no_route"] == 1 and d["p0"]["not_for_us"] == 1, d
    assert sw.ctl("clear", "counters") == {"ok": True}
    for port, ctrs in sw.counters().items():
        assert not any(ctrs.values()), f"{port} not cleared: {ctrs}"
    injector.send(sw.tap["p0"], topo.udp4(sw, "p0", topo.HOST_IP["p1"]))
    railsw.wait_until(lambda: sw.counters()["p1"]["tx_packets"] == 1, 5, what="tx count 1")
    assert sw.counters()["p0"]["rx_packets"] == 1


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_clean_shutdown(make_switch, sig):
    """Steps: start railsw, then send it SIGTERM (or SIGINT) by PID.
    Verify: it exits 0 within 15 s, removes its socket file, and its TAP
    interfaces disappear.
    """
    sw = make_switch(topo.three_ports())
    taps = list(sw.tap.values())
    assert all(railsw.link_exists(t) for t in taps)
    assert sw.stop(sig=sig) == 0
    assert not os.path.exists(sw.sock)
    railsw.wait_until(lambda: not any(railsw.link_exists(t) for t in taps), 5,
                      what="TAP interfaces to disappear")

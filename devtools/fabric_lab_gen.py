# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""The configurations of a fabric lab (devtools/fabric_lab.py, docs/fabric-lab.md), as a
function of its plan (`railctl plan FILE --json`): one railsw configuration per switch
(memif links between leaves and spines, a TAP per server NIC, `topology:` or, with BGP,
the plan's addresses), FRR and lldpd files, and the tables the lab's other commands read
(switches.tsv, hosts.tsv, swapped.tsv, design, mode), all in the state directory.

`generate()` raises LabError with the message the user sees."""

import json
import os
import subprocess

import fabric_frr

MAX_SWITCHES = 16  # each one is a railsw process


class LabError(RuntimeError):
    """What stops the lab, said to the user as `fabric-lab: MESSAGE`."""


def plan_ports(plan, leaves, host_dev, fabric_sock):
    """The ports of every switch of plan and the hosts (server NICs) on them; the lab's
    (fabric_lab.py) and the experiments' (fabric_lab_rswhost.py) alike.

    Per switch: [(sort key, port, role, (kind, arg))]: a leaf's downlink to a server NIC is
    host_dev(host, k) (k: the NIC's number in plan order), e.g. ("tap", IFACE) or
    ("memif-server", SOCKET); a leaf-spine cable is one memif socket, fabric_sock(a, ap, b,
    bp), whose server is the spine. A host: server, nic, addr (with its prefix), gw, mac,
    leaf, port, and what host_dev put in it."""
    leaf_no = {s["name"]: i for i, s in enumerate(leaves)}
    ports = {s["name"]: [] for s in plan["switches"]}
    hosts = []
    for ln in plan["links"]:
        a, ap = ln["a"], ln["a_port"]
        if ln["kind"] == "server":
            s = int(ap[len("down"):])
            leaf = next(x for x in leaves if x["name"] == a)
            h = {"server": ln["b"], "nic": ln["b_port"], "addr": ln["b_ip"],
                 "gw": leaf["gateway"],
                 "mac": "02:48:%02x:%02x:%02x:01" % (leaf_no[a], s, int(ln["b_port"][3:])),
                 "leaf": a, "port": ap}
            ports[a].append(((0, s), ap, "downlink", host_dev(h, len(hosts))))
            hosts.append(h)
        elif ln["kind"] == "fabric":
            b, bp = ln["b"], ln["b_port"]
            sock = fabric_sock(a, ap, b, bp)
            ports[a].append(((1, int(ap[len("up"):])), ap, "uplink", ("memif-client", sock)))
            ports[b].append(((0, int(bp[len("down"):])), bp, "downlink", ("memif-server", sock)))
        else:
            raise LabError(f"unknown link kind {ln['kind']!r}")
    return ports, hosts


def _ports(plan, tag, memif_dir, leaves):
    """The lab's ports (plan_ports): a TAP per server NIC, in namespace TAG-SERVER."""
    leaf_no = {s["name"]: i for i, s in enumerate(leaves)}

    def tap(h, _k):
        iface = f"{tag}{leaf_no[h['leaf']]}d{h['port'][len('down'):]}"
        if len(iface) > 15:
            raise LabError(f"interface name {iface} is longer than 15 characters")
        h.update(ns=f"{tag}-{h['server']}", iface=iface)
        return ("tap", iface)

    def sock(a, _ap, b, bp):
        # One socket per cable: a rail-only leaf may have parallel links to one spine.
        path = os.path.join(memif_dir, f"{b}--{a}-{bp}.sock")
        if len(path) > 107:
            raise LabError(f"memif socket path {path} is too long for a unix socket; "
                           "use a shorter RAILSW_LAB_STATE")
        return path
    return plan_ports(plan, leaves, tap, sock)


def _miscable(ports, leaves, spines):
    """--miscable: the last spine's cables to the first two leaves are swapped (each leaf's
    last uplink reaches the other leaf's port of that spine), so the LLDP check has
    something to find. Returns the rows of swapped.tsv."""
    sp = spines[-1]["name"]
    if len(leaves) < 2:
        raise LabError("--miscable needs two leaves")
    la, lb = leaves[0]["name"], leaves[1]["name"]
    ia = max(i for i, x in enumerate(ports[la]) if x[3][0] == "memif-client" and
             f"/{sp}--{la}-down" in x[3][1])
    ib = max(i for i, x in enumerate(ports[lb]) if x[3][0] == "memif-client" and
             f"/{sp}--{lb}-down" in x[3][1])
    ka, na, ra, (kinda, socka) = ports[la][ia]
    kb, nb, rb, (kindb, sockb) = ports[lb][ib]
    ports[la][ia] = (ka, na, ra, (kinda, sockb))
    ports[lb][ib] = (kb, nb, rb, (kindb, socka))
    return [(la, na, sp, lb), (lb, nb, sp, la)]


TOPO_KEYS = ("design", "sus", "servers_per_su", "rails", "spines", "radix", "gpu_prefix",
             "fabric_prefix")


def topology_lines(plan, sw):
    """The `topology:` section of switch sw's configuration (with a blank line before):
    the plan's keys and `this`, where sw stands in it."""
    if sw["tier"] == "leaf":
        this = f"{{ su: {sw['su']}, rail: {sw['rail']} }}"
    elif "rail" in sw and plan["design"] == "rail-only":
        this = f"{{ rail: {sw['rail']}, spine: {sw['spine']} }}"
    else:
        this = f"{{ spine: {sw['spine']} }}"
    return ["", "topology:"] + [f"  {k}: {plan[k]}" for k in TOPO_KEYS] + [f"  this: {this}"]


def port_mac(i, j):
    """The MAC of port j (in sorted port order) of switch i (in plan order)."""
    return "02:52:%02x:%02x:00:01" % (i, j)


def port_line(name, devargs, mac, role, more=""):
    """One entry of `ports:` (more: further keys, each with its leading ', ')."""
    return f'  - {{ name: {name}, devargs: "{devargs}", mac: "{mac}", role: {role}{more} }}'


def devargs(kind, arg, n):
    """A port's devargs: kind "tap" (arg: the interface), "memif-server" or "memif-client"
    (arg: the socket); n numbers the PMD's instances."""
    if kind == "tap":
        return f"net_tap{n},iface={arg}"
    return f"net_memif{n},role={kind[len('memif-'):]},socket={arg},socket-abstract=no"


def railctl_plan(railctl, topo):
    """plan: `railctl plan topo --json` as a dict, `railctl plan topo` (text) and the JSON
    as railctl wrote it."""
    r = subprocess.run([railctl, "plan", topo], capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise LabError(f"railctl plan rejected {topo}: {(r.stdout + r.stderr).strip()}")
    js = subprocess.run([railctl, "plan", topo, "--json"], capture_output=True, text=True,
                        check=True).stdout
    return json.loads(js), r.stdout, js


def _switch_yaml(plan, sw, i, ports, addr, opt, sock):
    """The railsw configuration of switch sw (index i in the plan), as text."""
    name, bgp = sw["name"], opt["bgp"]
    seed = 1 if sw["tier"] == "leaf" else 2
    lines = [
        f"# {name}: generated by devtools/fabric-lab.sh from {opt['topo']}; `down` removes it.",
        "# Addresses from the plan, routes from BGP over FPM (docs/routing.md)." if bgp else
        "# Addresses and routes are derived from `topology:` (docs/topology.md).",
        "switch:",
        f"  name: {name}",
        f"  role: {sw['tier']}",
        f"  idle_sleep_us: {opt['idle_us']}",
        "",
        "ports:",
    ]
    n_tap = n_memif = 0
    for j, (_, pname, role, (kind, arg)) in enumerate(sorted(ports[name])):
        dev = devargs(kind, arg, n_tap if kind == "tap" else n_memif)
        n_tap, n_memif = (n_tap + 1, n_memif) if kind == "tap" else (n_tap, n_memif + 1)
        ip = f", ipv4: {addr[(name, pname)]}" if bgp else ""
        # --cbfc: credits on every leaf-spine link (both of its ends are memif ports).
        cbfc = ", cbfc: true" if opt.get("cbfc") and kind != "tap" else ""
        lines.append(port_line(pname, dev, port_mac(i, j), role, ip + cbfc))
    if bgp:
        # Addresses from the plan, routes from BGP: no topology section (its derived routes
        # would win over BGP's, distance 5 against 20).
        lines += ["", f"# BGP: ASN {fabric_frr.asn(plan, name)}; FRR in netns "
                      f"{opt['tag']}-sw-{name}"]
    else:
        lines += topology_lines(plan, sw)
    lines += [
        "",
        "load_balance:",
        "  mode: hash",
        "  hash_fields: [src_ip, dst_ip, proto, src_port, dst_port]",
        f"  hash_seed: {seed}             # leaves and spines hash differently",
        "",
        "qos:",
        "  buffer: { total: 2MB }      # a small buffer keeps the mbuf pool (and -m) small",
    ]
    if opt.get("cbfc"):
        lines += ["  dscp_to_tc: { 26: 3 }       # RoCEv2 (DSCP 26) in TC 3, lossless: its VC",
                  "  lossless: [3]               # runs CBFC on every leaf-spine link"]
    lines += [
        "",
        "control:",
        f"  socket: {sock}",
    ]
    if bgp or opt["lldp"]:
        lines.append(f"  kernel_interfaces: {{ netns: {opt['tag']}-sw-{name} }}")
    if bgp:
        lines.append("  fpm: { listen: 127.0.0.1:2620, stale_s: 10 }")
    lines.append("")
    return "\n".join(lines)


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def generate(state, plan, opt):
    """Write the lab's files into state. opt: tag, idle_us, topo, bgp, lldp, miscable,
    numbered, bfd, bfd_ms, frr_debug, cbfc."""
    if "error" in plan:
        raise LabError(plan["error"])
    bgp, lldp = opt["bgp"], opt["lldp"]
    switches = plan["switches"]
    leaves = [s for s in switches if s["tier"] == "leaf"]
    spines = [s for s in switches if s["tier"] == "spine"]
    if not leaves or not spines:
        raise LabError("the plan has no leaf or no spine")
    if len(switches) > MAX_SWITCHES:
        raise LabError(f"{len(switches)} switches is more than this lab runs "
                       f"({MAX_SWITCHES}; each one is a railsw process)")
    ports, hosts = _ports(plan, opt["tag"], os.path.join(state, "memif"), leaves)
    swapped = _miscable(ports, leaves, spines) if opt["miscable"] else []

    # Each port's address in the plan (the BGP lab writes them out: no topology routes).
    addr = {}
    for ln in plan["links"]:
        addr[(ln["a"], ln["a_port"])] = ln["a_ip"]
        if ln["kind"] == "fabric":
            addr[(ln["b"], ln["b_port"])] = ln["b_ip"]
    if bgp:
        for s in leaves:
            n = sum(1 for x in ports[s["name"]] if x[2] == "downlink")
            if n > 1:
                raise LabError(f"--bgp runs one server per leaf and rail; {s['name']} has "
                               f"{n} (servers_per_su: 1)")
    # A spine's downlinks map to leaves 0..N-1 in file order: they must be contiguous.
    for s in spines:
        ls = sorted(k[1] for k, *_ in ports[s["name"]])
        if ls != list(range(len(ls))):
            raise LabError(f"{s['name']} is not cabled to leaves 0..{len(ls) - 1}")

    index = {s["name"]: i for i, s in enumerate(switches)}
    rows = []
    for sw in spines + leaves:  # memif servers (spines) first
        name = sw["name"]
        sock = os.path.join(state, f"{name}.sock")
        conf = os.path.join(state, f"{name}.yaml")
        if bgp:
            d = os.path.join(state, "frr", name)
            os.makedirs(d, exist_ok=True)
            for fname, text in fabric_frr.configs(plan, name, d, unnumbered=not opt["numbered"],
                                                  bfd=opt["bfd"], bfd_ms=opt["bfd_ms"],
                                                  debug=opt["frr_debug"]).items():
                _write(os.path.join(d, fname), text)
        if bgp or lldp:
            d = os.path.join(state, "lldp", name)
            os.makedirs(d, exist_ok=True)
            _write(os.path.join(d, "lldpd.conf"), f"configure system hostname {name}\n"
                   "configure lldp tx-interval 1\nconfigure lldp portidsubtype ifname\n")
            _write(os.path.join(d, "ports"), ",".join(x[1] for x in sorted(ports[name])) + "\n")
        _write(conf, _switch_yaml(plan, sw, index[name], ports, addr, opt, sock))
        rows.append([name, sw["tier"], f"{opt['tag']}-{name}", conf, sock,
                     os.path.join(state, f"{name}.log"), os.path.join(state, f"{name}.pid")])
    _write(os.path.join(state, "switches.tsv"), "".join("\t".join(r) + "\n" for r in rows))

    # Each NIC reaches the other leaves of its own rail through its own leaf (rail-aligned,
    # and the only way in a rail-only fabric); the default route (via nic0) carries the rest.
    rail_of = {s["name"]: s["rail"] for s in leaves}
    text = ""
    for h in hosts:
        routes = [x["subnet"] for x in leaves
                  if plan["rails"] > 1 and x["rail"] == rail_of[h["leaf"]] and
                  x["name"] != h["leaf"]]
        text += "\t".join([h["server"], h["ns"], h["iface"], h["addr"], h["gw"], h["mac"],
                           h["leaf"], h["port"], str(rail_of[h["leaf"]]),
                           ",".join(routes) or "-"]) + "\n"
    _write(os.path.join(state, "hosts.tsv"), text)
    _write(os.path.join(state, "design"), plan["design"] + "\n")
    modes = (("bgp", bgp), ("lldp", bgp or lldp), ("numbered", bgp and opt["numbered"]),
             ("bfd", bgp and opt["bfd"]), ("miscable", opt["miscable"]),
             ("cbfc", opt.get("cbfc", False)))
    _write(os.path.join(state, "mode"), " ".join(m for m, on in modes if on) + "\n")
    _write(os.path.join(state, "swapped.tsv"), "".join("\t".join(r) + "\n" for r in swapped))


def read_switches(state):
    """switches.tsv: [{name, tier, prefix, conf, sock, log, pidfile}] in start order."""
    keys = ("name", "tier", "prefix", "conf", "sock", "log", "pidfile")
    with open(os.path.join(state, "switches.tsv")) as f:
        return [dict(zip(keys, ln.rstrip("\n").split("\t"))) for ln in f if ln.strip()]


def read_hosts(state):
    """hosts.tsv: [{server, ns, iface, addr, gw, mac, leaf, port, rail, routes}]."""
    keys = ("server", "ns", "iface", "addr", "gw", "mac", "leaf", "port", "rail", "routes")
    try:
        with open(os.path.join(state, "hosts.tsv")) as f:
            rows = [dict(zip(keys, ln.rstrip("\n").split("\t"))) for ln in f if ln.strip()]
    except FileNotFoundError:
        return []
    for h in rows:
        h["routes"] = [] if h["routes"] == "-" else h["routes"].split(",")
    return rows

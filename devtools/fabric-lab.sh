#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
#
# A leaf-spine fabric of railsw switches on one machine (docs/fabric-lab.md).
#
# Usage: devtools/fabric-lab.sh up [OPTIONS] [TOPOLOGY_FILE]   build the fabric (default config/fabric-lab.yaml)
#        devtools/fabric-lab.sh status                processes, links, admin state, counters, CPU
#        devtools/fabric-lab.sh ping                  ping, tracepath and ECMP over the spines
#        devtools/fabric-lab.sh check-lldp            compare each switch's LLDP neighbours with the plan
#        devtools/fabric-lab.sh failover link|stop    measure how long flows take to move off a spine
#        devtools/fabric-lab.sh down                  stop and remove everything
#        devtools/fabric-lab.sh impair LINK WORDS...  injected faults on both ends of a link
# up OPTIONS: --bgp (FRR on every switch: eBGP unnumbered, BFD; routes over FPM),
#   --numbered (with --bgp: sessions over the /31s), --no-bfd (with --bgp: hold timer only),
#   --lldp (kernel interfaces and lldpd without BGP; --bgp implies it),
#   --miscable (swap two cables of the last spine on purpose)
#
# `up` asks `railctl plan --json` for every switch, cable and address of the
# topology, writes one railsw configuration per switch into the state directory,
# starts one railsw per switch (its own --file-prefix; spines first), links
# leaves to spines over memif (one socket per cable: the spine is the server),
# and puts every server in a network namespace holding the TAP of its leaf
# downlink, with its address and a default route via the leaf's .254. A lab
# that is (half) up is torn down first. `down` stops every railsw by PID
# (SIGTERM, bounded wait, SIGKILL), removes the namespaces, memif sockets, the
# state directory and stale /var/run/dpdk/<prefix> directories. `impair LINK
# WORDS...` runs `railctl port NAME impair WORDS...` on both ends of a leaf-spine
# link (docs/link.md): LINK is SWITCH:PORT of either end (leaf0:up0) or
# LEAF--SPINE (the first link between them); WORDS as railctl's (loss 0.01
# seed 3, or off).
#
# Environment (all optional):
#   RAILSW_BUILD         meson build directory (default: build)
#   RAILSW_LAB_STATE     state directory (default: /run/railsw/fabric)
#   RAILSW_LAB_TAG       1-8 letters/digits naming this lab's objects (default: rf):
#                        EAL prefixes <tag>-<switch>, TAPs <tag><leaf>d<server>,
#                        namespaces <tag>-<server>
#   RAILSW_LAB_MEM       EAL -m per railsw, MB (default: 256, with --no-huge; 384 with --bgp,
#                        whose route updates build a second generation of tables, as
#                        `railctl reload` does, which needs 320)
#   RAILSW_LAB_LCORES    EAL -l for every railsw (default: 0,1)
#   RAILSW_LAB_IDLE_US   switch.idle_sleep_us (default: 1000)
#   RAILSW_LAB_BFD_MS    BFD transmit and receive interval with --bgp (default: 150; x3 to detect)
#   RAILSW_LAB_FRR_DEBUG 1: FRR logs at level debugging, with BGP neighbour events, BFD,
#                        zebra RIB and FPM debugs (default: 0)
# With --bgp or --lldp each switch has kernel interfaces in namespace <tag>-sw-<switch>,
# where its zebra (dplane_fpm_nl to railsw), bgpd, bfdd and lldpd run, each with its
# pid file, sockets and log in STATE/frr/<switch>/ and STATE/lldp/<switch>/ (never the
# packaged services).
# Must run as root (TAP devices, network namespaces).

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

PY=/usr/bin/python3
build=${RAILSW_BUILD:-build}
STATE=${RAILSW_LAB_STATE:-/run/railsw/fabric}
TAG=${RAILSW_LAB_TAG:-rf}
MEM=${RAILSW_LAB_MEM:-}
LCORES=${RAILSW_LAB_LCORES:-0,1}
IDLE_US=${RAILSW_LAB_IDLE_US:-1000}
BFD_MS=${RAILSW_LAB_BFD_MS:-150}
FRR_DEBUG=${RAILSW_LAB_FRR_DEBUG:-0}
BGP_WAIT=${RAILSW_LAB_BGP_WAIT:-90}
MODE_BGP=0 MODE_LLDP=0 MODE_MISCABLE=0 MODE_NUMBERED=0 MODE_BFD=1
FRR=/usr/lib/frr
DEFAULT_TOPO=config/fabric-lab.yaml
RUN_DPDK=/var/run/dpdk

railsw=$build/control/railsw
railctl=$build/control/railctl

die() {
	echo "fabric-lab: $*" >&2
	exit 1
}
say() { printf '\n== %s\n' "$*"; }
usage() {
	sed -n '7,17p' "$0" | sed 's/^# \{0,1\}//'
	echo "(environment and details: sed -n 5,51p $0; docs/fabric-lab.md)"
}

[[ $TAG =~ ^[a-z0-9]{1,8}$ ]] || die "RAILSW_LAB_TAG must be 1-8 lower-case letters or digits (got '$TAG')"
[[ $MEM =~ ^[0-9]*$ ]] || die "RAILSW_LAB_MEM must be a number of MB (got '$MEM')"
[[ $BGP_WAIT =~ ^[0-9]+$ ]] || die "RAILSW_LAB_BGP_WAIT must be a number of seconds (got '$BGP_WAIT')"
[[ $BFD_MS =~ ^[0-9]+$ ]] && [ "$BFD_MS" -ge 10 ] || die "RAILSW_LAB_BFD_MS must be a number of ms, at least 10 (got '$BFD_MS')"
[[ $FRR_DEBUG =~ ^[01]$ ]] || die "RAILSW_LAB_FRR_DEBUG must be 0 or 1 (got '$FRR_DEBUG')"
[[ $IDLE_US =~ ^[0-9]+$ ]] || die "RAILSW_LAB_IDLE_US must be a number of microseconds (got '$IDLE_US')"
case "$STATE" in
/*) ;;
*) STATE=$root/$STATE ;;
esac
STATE=${STATE%/}
[ "$STATE" != "" ] && [ "$STATE" != "/run" ] && [ "$STATE" != "/tmp" ] ||
	die "RAILSW_LAB_STATE must be a directory of its own (got '$STATE')"

# ---------------------------------------------------------------------------
# Processes

# Is PID a railsw of this lab with EAL prefix PREFIX?
is_ours() { # pid prefix
	[ -n "${1:-}" ] && [ -r "/proc/$1/cmdline" ] &&
		tr '\0' '\n' 2>/dev/null <"/proc/$1/cmdline" | grep -qx -- "$2"
}

# Any process at all using EAL prefix PREFIX?
prefix_in_use() { # prefix
	local d
	for d in /proc/[0-9]*; do
		if tr '\0' '\n' 2>/dev/null <"$d/cmdline" | grep -qx -- "$1"; then
			tr '\0' '\n' 2>/dev/null <"$d/cmdline" | grep -qx -- "--file-prefix" && return 0
		fi
	done
	return 1
}

# SIGTERM every PID of STOP_PIDS, wait up to TENTHS/10 s in all until CHECK PID KEY (KEY
# from STOP_KEYS) fails for each, then SIGKILL what is left (STOP_NAMES say what it was).
# CHECK tells this lab's process from anything that reused the PID: only those are signalled.
STOP_PIDS=() STOP_KEYS=() STOP_NAMES=()
stop_pids() { # check tenths
	local check=$1 tenths=$2 i left
	for i in "${!STOP_PIDS[@]}"; do
		kill -TERM "${STOP_PIDS[$i]}" 2>/dev/null || true
	done
	for _ in $(seq 1 "$tenths"); do
		left=0
		for i in "${!STOP_PIDS[@]}"; do
			"$check" "${STOP_PIDS[$i]}" "${STOP_KEYS[$i]}" && left=1
		done
		[ $left -eq 0 ] && break
		sleep 0.1
	done
	for i in "${!STOP_PIDS[@]}"; do
		if "$check" "${STOP_PIDS[$i]}" "${STOP_KEYS[$i]}"; then
			echo "fabric-lab: ${STOP_NAMES[$i]} (pid ${STOP_PIDS[$i]}) ignored SIGTERM for $((tenths / 10)) s; killing it" >&2
			kill -KILL "${STOP_PIDS[$i]}" 2>/dev/null || true
		fi
	done
}

# Stop every railsw named in the pidfiles of the state directory: SIGTERM all,
# wait up to 15 s in all, then SIGKILL what is left. Only PIDs whose command line
# carries this lab's prefix are signalled.
stop_switches() {
	local f name pid i
	STOP_PIDS=() STOP_KEYS=() STOP_NAMES=()
	for f in "$STATE"/*.pid; do
		[ -e "$f" ] || continue
		name=$(basename "$f" .pid)
		pid=$(cat "$f" 2>/dev/null || true)
		if is_ours "$pid" "$TAG-$name"; then
			STOP_PIDS+=("$pid")
			STOP_KEYS+=("$TAG-$name")
			STOP_NAMES+=("$name")
		fi
	done
	stop_pids is_ours 150
	for i in "${!STOP_PIDS[@]}"; do
		for _ in $(seq 1 50); do
			is_ours "${STOP_PIDS[$i]}" "${STOP_KEYS[$i]}" || break
			sleep 0.1
		done
		echo "stopped ${STOP_NAMES[$i]} (pid ${STOP_PIDS[$i]})"
	done
	rm -f "$STATE"/*.pid
}

# exec "$@" with no descriptor open but 0, 1 and 2. The lab's switches and daemons outlive
# this script: they must not keep the caller's descriptors, such as the lock of `flock FILE
# fabric-lab.sh up` (flock(1) hands its descriptor to the command it runs) or this script's
# own lock (9).
exec_closed() {
	local fd
	for fd in /proc/$BASHPID/fd/*; do
		fd=${fd##*/}
		[ "$fd" -gt 2 ] 2>/dev/null && { eval "exec $fd>&-" 2>/dev/null || true; }
	done
	exec "$@"
}

lab_namespaces() {
	ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$TAG-(server|sw)-" || true
}

# Is PID a daemon this lab started from pid file FILE (STATE/{frr,lldp}/SWITCH/D.pid)?
# An FRR daemon or lldpd (by its executable) in that switch's namespace: lldpd rewrites
# its command line, so the namespace is what tells it from the packaged service.
is_our_daemon() { # pid file
	local exe ns want
	[ -n "${1:-}" ] && [ -e "/proc/$1/exe" ] || return 1
	exe=$(basename "$(readlink "/proc/$1/exe" 2>/dev/null)")
	case $exe in
	zebra | bgpd | bfdd | staticd | lldpd) ;;
	*) return 1 ;;
	esac
	ns=$(sw_ns "$(basename "$(dirname "$2")")")
	want=$(stat -L -c %i "/run/netns/$ns" 2>/dev/null) || return 1
	[ "$(readlink "/proc/$1/ns/net" 2>/dev/null)" = "net:[$want]" ]
}

# Stop the FRR daemons and lldpd instances of the state directory by the PIDs of their
# pid files (SIGTERM, up to 5 s, then SIGKILL); never anything else, nor the packaged
# services.
stop_daemons() {
	local f pid
	STOP_PIDS=() STOP_KEYS=() STOP_NAMES=()
	for f in "$STATE"/frr/*/*.pid "$STATE"/lldp/*/lldpd.pid; do
		[ -e "$f" ] || continue
		pid=$(cat "$f" 2>/dev/null || true)
		if is_our_daemon "$pid" "$f"; then
			STOP_PIDS+=("$pid")
			STOP_KEYS+=("$f")
			STOP_NAMES+=("$f")
		fi
	done
	stop_pids is_our_daemon 50
	return 0
}

teardown() {
	local ns d f left
	mkdir -p "$RUN_DPDK" 2>/dev/null || true
	if [ -d "$STATE" ]; then
		stop_daemons
		stop_switches
	fi
	for ns in $(lab_namespaces); do
		ip netns del "$ns" 2>/dev/null || echo "fabric-lab: could not delete namespace $ns" >&2
	done
	# EAL runtime directories of this lab's prefixes that no process uses (a
	# killed railsw leaves its directory behind).
	for d in "$RUN_DPDK/$TAG"-*; do
		[ -d "$d" ] || continue
		if prefix_in_use "$(basename "$d")"; then
			echo "fabric-lab: $d is still in use by a process; left alone" >&2
		else
			rm -rf "$d"
		fi
	done
	if [ -d "$STATE" ]; then
		# Only the files this script makes, so a mistyped RAILSW_LAB_STATE loses nothing else.
		rm -f "$STATE"/memif/*.sock "$STATE"/memif/*.sock.admin-down "$STATE"/*.sock \
			"$STATE"/*.yaml "$STATE"/*.log "$STATE"/*.tsv "$STATE"/plan.json "$STATE"/plan.txt \
			"$STATE"/tag "$STATE"/topology "$STATE"/design "$STATE"/mode "$STATE"/failover-*.json
		# The FRR and lldpd directories are this script's (configs, pid files, sockets, logs).
		rm -rf "$STATE/frr" "$STATE/lldp"
		rmdir "$STATE/memif" 2>/dev/null || true
		if ! rmdir "$STATE" 2>/dev/null; then
			left=$(ls -A "$STATE" 2>/dev/null | head -n 5 | tr '\n' ' ')
			echo "fabric-lab: $STATE holds files this script did not make ($left); left in place" >&2
		fi
	fi
	return 0
}

# ---------------------------------------------------------------------------
# Helpers

need_root() {
	[ "$(id -u)" -eq 0 ] || die "run as root (sudo $0 $*): the lab creates TAP devices and network namespaces"
}

need_build() {
	[ -x "$railsw" ] && [ -x "$railctl" ] ||
		die "$railsw or $railctl not found: build first (devtools/build.sh $build) or set RAILSW_BUILD"
}

need_lab() {
	[ -s "$STATE/switches.tsv" ] ||
		die "no lab in $STATE (start one with: $0 up; RAILSW_LAB_STATE picks another state directory)"
}

ctl() { # switch-socket args...
	local s=$1
	shift
	timeout 10 "$railctl" -s "$s" "$@"
}

# JSON field extraction without jq: jpy 'python expression over j' < json
jpy() {
	"$PY" -c 'import json,sys
j = json.load(sys.stdin)
r = eval(sys.argv[1])
if isinstance(r, (list, tuple)):
    print("\n".join(str(x) for x in r))
elif r is not None:
    print(r)' "$@"
}

# switches.tsv: name tier prefix conf sock log pidfile ; hosts.tsv: server ns iface addr gw mac leaf port
read_switches() {
	SW_NAMES=() SW_TIER=() SW_SOCK=() SW_LOG=() SW_CONF=() SW_PIDF=()
	local name tier prefix conf sock log pidf
	while IFS=$'\t' read -r name tier prefix conf sock log pidf; do
		[ -n "$name" ] || continue
		SW_NAMES+=("$name")
		SW_TIER+=("$tier")
		SW_CONF+=("$conf")
		SW_SOCK+=("$sock")
		SW_LOG+=("$log")
		SW_PIDF+=("$pidf")
	done <"$STATE/switches.tsv"
}

read_hosts() {
	H_SERVER=() H_NS=() H_IF=() H_ADDR=() H_GW=() H_MAC=() H_LEAF=() H_PORT=() H_RAIL=() H_ROUTES=()
	local server ns ifc addr gw mac leaf port rail routes
	[ -e "$STATE/hosts.tsv" ] || return 0
	while IFS=$'\t' read -r server ns ifc addr gw mac leaf port rail routes; do
		[ -n "$server" ] || continue
		H_SERVER+=("$server")
		H_NS+=("$ns")
		H_IF+=("$ifc")
		H_ADDR+=("$addr")
		H_GW+=("$gw")
		H_MAC+=("$mac")
		H_LEAF+=("$leaf")
		H_PORT+=("$port")
		H_RAIL+=("$rail")
		H_ROUTES+=("$routes")
	done <"$STATE/hosts.tsv"
}

sock_of() { # switch name
	local i
	for i in "${!SW_NAMES[@]}"; do
		[ "${SW_NAMES[$i]}" = "$1" ] && {
			echo "${SW_SOCK[$i]}"
			return 0
		}
	done
	return 1
}

pid_of() { # index into SW_*
	local pid
	pid=$(cat "${SW_PIDF[$1]}" 2>/dev/null || true)
	if is_ours "$pid" "$TAG-${SW_NAMES[$1]}"; then
		echo "$pid"
	fi
}

# ---------------------------------------------------------------------------
# Configuration generator: STATE/plan.json -> configs and tables in STATE.

generate() { # topology-file
	"$PY" - "$STATE" "$TAG" "$IDLE_US" "$1" "$MODE_BGP" "$MODE_LLDP" "$MODE_MISCABLE" \
		"$MODE_NUMBERED" "$MODE_BFD" "$BFD_MS" "$root/devtools" "$FRR_DEBUG" <<'PYEOF'
import json, os, sys

state, tag, idle_us, topo = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
bgp, lldp, miscable, numbered, bfd = (a == "1" for a in sys.argv[5:10])
bfd_ms = int(sys.argv[10])
frr_debug = sys.argv[12] == "1"
sys.path.insert(0, sys.argv[11])
import fabric_frr
with open(os.path.join(state, "plan.json")) as f:
    plan = json.load(f)
if "error" in plan:
    sys.exit(f"fabric-lab: {plan['error']}")
memif_dir = os.path.join(state, "memif")

switches = plan["switches"]
leaves = [s for s in switches if s["tier"] == "leaf"]
spines = [s for s in switches if s["tier"] == "spine"]
if not leaves or not spines:
    sys.exit("fabric-lab: the plan has no leaf or no spine")
if len(switches) > 16:
    sys.exit(f"fabric-lab: {len(switches)} switches is more than this lab runs "
             "(16; each one is a railsw process)")
index = {s["name"]: i for i, s in enumerate(switches)}
leaf_no = {s["name"]: i for i, s in enumerate(leaves)}

# ports per switch: (sort key, name, role, devargs kind, peer)
ports = {s["name"]: [] for s in switches}
hosts = []
for ln in plan["links"]:
    a, ap = ln["a"], ln["a_port"]
    if ln["kind"] == "server":
        s = int(ap[len("down"):])
        iface = f"{tag}{leaf_no[a]}d{s}"
        if len(iface) > 15:
            sys.exit(f"fabric-lab: interface name {iface} is longer than 15 characters")
        ports[a].append(((0, s), ap, "downlink", ("tap", iface)))
        leaf = next(x for x in leaves if x["name"] == a)
        hosts.append({"server": ln["b"], "nic": ln["b_port"], "ns": f"{tag}-{ln['b']}",
                      "iface": iface, "addr": ln["b_ip"], "gw": leaf["gateway"],
                      "mac": "02:48:%02x:%02x:%02x:01" % (leaf_no[a], s,
                                                          int(ln["b_port"][3:])),
                      "leaf": a, "port": ap})
    elif ln["kind"] == "fabric":
        b, bp = ln["b"], ln["b_port"]
        # One socket per cable: a rail-only leaf may have parallel links to one spine.
        sock = os.path.join(memif_dir, f"{b}--{a}-{bp}.sock")
        if len(sock) > 107:
            sys.exit(f"fabric-lab: memif socket path {sock} is too long for a unix socket; "
                     "use a shorter RAILSW_LAB_STATE")
        ports[a].append(((1, int(ap[len("up"):])), ap, "uplink", ("memif-client", sock)))
        ports[b].append(((0, int(bp[len("down"):])), bp, "downlink", ("memif-server", sock)))
    else:
        sys.exit(f"fabric-lab: unknown link kind {ln['kind']!r}")

# --miscable: the last spine's cables to the first two leaves are swapped (each leaf's
# last uplink reaches the other leaf's port of that spine), so the LLDP check has
# something to find.
swapped = []
if miscable:
    sp = spines[-1]["name"]
    la, lb = leaves[0]["name"], leaves[1]["name"] if len(leaves) > 1 else None
    if lb is None:
        sys.exit("fabric-lab: --miscable needs two leaves")
    ia = max(i for i, x in enumerate(ports[la]) if x[3][0] == "memif-client" and
             f"/{sp}--{la}-down" in x[3][1])
    ib = max(i for i, x in enumerate(ports[lb]) if x[3][0] == "memif-client" and
             f"/{sp}--{lb}-down" in x[3][1])
    ka, na, ra, (kinda, socka) = ports[la][ia]
    kb, nb, rb, (kindb, sockb) = ports[lb][ib]
    ports[la][ia] = (ka, na, ra, (kinda, sockb))
    ports[lb][ib] = (kb, nb, rb, (kindb, socka))
    swapped = [(la, na, sp, lb), (lb, nb, sp, la)]

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
            sys.exit(f"fabric-lab: --bgp runs one server per leaf and rail; {s['name']} has "
                     f"{n} (servers_per_su: 1)")

# A spine's downlinks map to leaves 0..N-1 in file order: they must be contiguous.
for s in spines:
    ls = sorted(k[1] for k, *_ in ports[s["name"]])
    if ls != list(range(len(ls))):
        sys.exit(f"fabric-lab: {s['name']} is not cabled to leaves 0..{len(ls) - 1}")

topo_keys = ("design", "sus", "servers_per_su", "rails", "spines", "radix",
             "gpu_prefix", "fabric_prefix")
rows = []
order = spines + leaves   # memif servers (spines) first
for sw in order:
    name = sw["name"]
    i = index[name]
    if sw["tier"] == "leaf":
        this = f"{{ su: {sw['su']}, rail: {sw['rail']} }}"
        seed = 1
    elif "rail" in sw and plan["design"] == "rail-only":
        this = f"{{ rail: {sw['rail']}, spine: {sw['spine']} }}"
        seed = 2
    else:
        this = f"{{ spine: {sw['spine']} }}"
        seed = 2
    sock = os.path.join(state, f"{name}.sock")
    lines = [
        f"# {name}: generated by devtools/fabric-lab.sh from {topo}; `down` removes it.",
        "# Addresses from the plan, routes from BGP over FPM (docs/routing.md)." if bgp else
        "# Addresses and routes are derived from `topology:` (docs/topology.md).",
        "switch:",
        f"  name: {name}",
        f"  role: {sw['tier']}",
        f"  idle_sleep_us: {idle_us}",
        "",
        "ports:",
    ]
    n_tap = n_memif = 0
    for j, (_, pname, role, (kind, arg)) in enumerate(sorted(ports[name])):
        if kind == "tap":
            dev = f"net_tap{n_tap},iface={arg}"
            n_tap += 1
        else:
            r = "server" if kind == "memif-server" else "client"
            dev = f"net_memif{n_memif},role={r},socket={arg},socket-abstract=no"
            n_memif += 1
        mac = "02:52:%02x:%02x:%02x:01" % (i, j, 0)
        ip = f", ipv4: {addr[(name, pname)]}" if bgp else ""
        lines.append(f'  - {{ name: {pname}, devargs: "{dev}", mac: "{mac}", role: {role}{ip} }}')
    if bgp:
        # Addresses from the plan, routes from BGP: no topology section (its derived routes
        # would win over BGP's, distance 5 against 20).
        lines += ["", f"# BGP: ASN {fabric_frr.asn(plan, name)}; FRR in netns {tag}-sw-{name}"]
    else:
        lines += ["", "topology:"]
        for k in topo_keys:
            lines.append(f"  {k}: {plan[k]}")
        lines.append(f"  this: {this}")
    lines += [
        "",
        "load_balance:",
        "  mode: hash",
        "  hash_fields: [src_ip, dst_ip, proto, src_port, dst_port]",
        f"  hash_seed: {seed}             # leaves and spines hash differently",
        "",
        "qos:",
        "  buffer: { total: 2MB }      # a small buffer keeps the mbuf pool (and -m) small",
        "",
        "control:",
        f"  socket: {sock}",
    ]
    if bgp or lldp:
        lines.append(f"  kernel_interfaces: {{ netns: {tag}-sw-{name} }}")
    if bgp:
        lines.append("  fpm: { listen: 127.0.0.1:2620, stale_s: 10 }")
    lines.append("")
    conf = os.path.join(state, f"{name}.yaml")
    if bgp:
        d = os.path.join(state, "frr", name)
        os.makedirs(d, exist_ok=True)
        for fname, text in fabric_frr.configs(plan, name, d, unnumbered=not numbered,
                                              bfd=bfd, bfd_ms=bfd_ms,
                                              debug=frr_debug).items():
            with open(os.path.join(d, fname), "w") as f:
                f.write(text)
    if bgp or lldp:
        d = os.path.join(state, "lldp", name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "lldpd.conf"), "w") as f:
            f.write(f"configure system hostname {name}\n"
                    "configure lldp tx-interval 1\n"
                    "configure lldp portidsubtype ifname\n")
        with open(os.path.join(d, "ports"), "w") as f:
            f.write(",".join(x[1] for x in sorted(ports[name])) + "\n")
    with open(conf, "w") as f:
        f.write("\n".join(lines))
    rows.append([name, sw["tier"], f"{tag}-{name}", conf, sock,
                 os.path.join(state, f"{name}.log"), os.path.join(state, f"{name}.pid")])

with open(os.path.join(state, "switches.tsv"), "w") as f:
    for r in rows:
        f.write("\t".join(r) + "\n")
# Each NIC reaches the other leaves of its own rail through its own leaf
# (rail-aligned, and the only way in a rail-only fabric); the default route
# (via nic0) carries the rest.
rail_of = {s["name"]: s["rail"] for s in leaves}
with open(os.path.join(state, "hosts.tsv"), "w") as f:
    for h in hosts:
        routes = [x["subnet"] for x in leaves
                  if plan["rails"] > 1 and x["rail"] == rail_of[h["leaf"]] and
                  x["name"] != h["leaf"]]
        f.write("\t".join([h["server"], h["ns"], h["iface"], h["addr"], h["gw"], h["mac"],
                           h["leaf"], h["port"], str(rail_of[h["leaf"]]),
                           ",".join(routes) or "-"]) + "\n")
with open(os.path.join(state, "design"), "w") as f:
    f.write(plan["design"] + "\n")
with open(os.path.join(state, "mode"), "w") as f:
    f.write(" ".join(m for m, on in (("bgp", bgp), ("lldp", bgp or lldp),
                                     ("numbered", bgp and numbered), ("bfd", bgp and bfd),
                                     ("miscable", miscable)) if on) + "\n")
with open(os.path.join(state, "swapped.tsv"), "w") as f:
    for row in swapped:
        f.write("\t".join(row) + "\n")
PYEOF
}


# ---------------------------------------------------------------------------
# Routing daemons and LLDP (up --bgp / --lldp)

mode_has() { # word of STATE/mode: bgp lldp numbered bfd miscable
	grep -qw -- "$1" "$STATE/mode" 2>/dev/null
}

sw_ns() { # switch name -> its kernel_interfaces namespace
	echo "$TAG-sw-$1"
}

# Wait until railsw made the kernel interfaces of switch i in its namespace.
wait_kif() { # index
	local name=${SW_NAMES[$1]} ns ports p ok
	ns=$(sw_ns "$name")
	ports=$(cat "$STATE/lldp/$name/ports")
	for _ in $(seq 1 100); do
		ok=1
		for p in ${ports//,/ }; do
			ip -n "$ns" link show "$p" >/dev/null 2>&1 || {
				ok=0
				break
			}
		done
		[ $ok -eq 1 ] && return 0
		sleep 0.1
	done
	tail -n 15 "${SW_LOG[$1]}" >&2
	die "$name: kernel interfaces ($ports) did not appear in netns $ns within 10 s (log ${SW_LOG[$1]})"
}

wait_pidfile() { # file what
	for _ in $(seq 1 100); do
		[ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null && return 0
		sleep 0.1
	done
	die "$2 did not start (no live pid in $1)"
}

# zebra (with dplane_fpm_nl: it connects to railsw's FPM listener in the same
# namespace), bfdd and bgpd of switch i, in its namespace, with its own files.
start_frr() { # index
	local name=${SW_NAMES[$1]} d ns dm
	local -a extra
	d=$STATE/frr/$name
	ns=$(sw_ns "$name")
	chown -R frr:frr "$d"
	for dm in zebra bfdd bgpd; do
		[ -e "$d/$dm.conf" ] || continue
		extra=()
		case $dm in
		zebra) extra=(-M dplane_fpm_nl) ;;
		bfdd) extra=(--bfdctl "$d/bfdd.sock") ;;
		esac
		(exec_closed ip netns exec "$ns" "$FRR/$dm" -d "${extra[@]}" -f "$d/$dm.conf" \
			-i "$d/$dm.pid" -z "$d/zserv.api" --vty_socket "$d" -P 0 -u frr -g frr \
			>>"$d/$dm.out" 2>&1 </dev/null) ||
			die "$name: $dm did not start (see $d/$dm.out and $d/$dm.log)"
		wait_pidfile "$d/$dm.pid" "$name: $dm"
		if [ $dm = zebra ]; then
			for _ in $(seq 1 50); do
				[ -S "$d/zserv.api" ] && break
				sleep 0.1
			done
		fi
	done
}

# lldpd of switch i on its kernel interfaces: its own socket, pid file and configuration.
start_lldpd() { # index
	local name=${SW_NAMES[$1]} d ns
	d=$STATE/lldp/$name
	ns=$(sw_ns "$name")
	(exec_closed ip netns exec "$ns" lldpd -u "$d/lldpd.sock" -p "$d/lldpd.pid" \
		-I "$(cat "$d/ports")" -O "$d/lldpd.conf" -L /usr/sbin/lldpcli -k \
		-S "railsw $name (fabric-lab)" >>"$d/lldpd.out" 2>&1 </dev/null) ||
		die "$name: lldpd did not start (see $d/lldpd.out)"
	wait_pidfile "$d/lldpd.pid" "$name: lldpd"
}

vty() { # switch command...
	local name=$1
	shift
	timeout 10 vtysh --vty_socket "$STATE/frr/$name" "$@"
}

# Python over the lab's plan and one switch's JSON reply: labcheck WHAT SWITCH < reply
labcheck() {
	"$PY" -c "$LABCHECK_PY" "$STATE/plan.json" "$@"
}
LABCHECK_PY=$(
	cat <<'PYEOF'
import json, sys
plan = json.load(open(sys.argv[1]))
what, sw = sys.argv[2], sys.argv[3]
j = json.load(sys.stdin)
leaves = [s for s in plan["switches"] if s["tier"] == "leaf"]
uplinks = [ln["a_port"] for ln in plan["links"] if ln["kind"] == "fabric" and ln["a"] == sw]
if what == "bgp-routes":
    # Every other leaf's subnet: a BGP route, active, over every uplink.
    bad = []
    for s in leaves:
        if s["name"] == sw:
            continue
        rs = [r for r in j["routes"] if r["prefix"] == s["subnet"] and r.get("source") == "bgp"]
        if not rs:
            bad.append(f"{s['subnet']}: no bgp route")
        elif not rs[0].get("active", True):
            bad.append(f"{s['subnet']}: bgp route not active")
        elif rs[0].get("resolved", len(rs[0]["nexthops"])) != len(uplinks):
            bad.append(f"{s['subnet']}: {rs[0].get('resolved')} of {len(uplinks)} next hops "
                       f"({','.join(rs[0]['nexthops'])})")
    print("\n".join(bad))
elif what == "bgp-sessions":
    peers = j.get("ipv4Unicast", {}).get("peers", {})
    up = sum(1 for p in peers.values() if p.get("state") == "Established")
    print(f"{up}/{len(peers)}")
elif what == "bfd-peers":
    # One single-hop session per fabric port, up, with its local address and interface: the
    # session bgpd installs once the BGP session is established (bgp_peer_bfd_update_source).
    ports = [ln["a_port"] if ln["a"] == sw else ln["b_port"] for ln in plan["links"]
             if ln["kind"] == "fabric" and sw in (ln["a"], ln["b"])]
    final = {p["interface"] for p in j if p.get("status") == "up" and p.get("interface") and
             p.get("local", "") not in ("", "0.0.0.0", "::")}
    missing = [p for p in ports if p not in final]
    if missing:
        print(f"BFD not up with its source on {','.join(missing)} "
              f"({len(j)} sessions: " + ", ".join(f"{p.get('interface') or '-'} "
                                                  f"{p.get('status')}" for p in j) + ")")
PYEOF
)

# Until every leaf has a BGP route over all its uplinks to every other leaf and, with BFD,
# every switch has its BFD sessions up with their source addresses (RAILSW_LAB_BGP_WAIT,
# 90 s, at most). FRR 8.4's bgpd installs a session's BFD session without a source at
# first and re-installs it with one when the BGP session is established; when the first one
# was up already (numbered sessions, whose BFD starts before BGP), the re-install reads as
# BFD down and bgpd resets the BGP session (Cease/BFD Down), once or twice per session, a
# few seconds after routes first arrived (fixed in FRR 10.3, bgpd 247a75d5). Routes alone
# are not the end of start-up.
wait_bgp() {
	local i bad="" t0 out
	t0=$(date +%s)
	for _ in $(seq 1 $((BGP_WAIT * 2))); do
		bad=""
		for i in "${!SW_NAMES[@]}"; do
			if [ "${SW_TIER[$i]}" = leaf ]; then
				out=$(ctl "${SW_SOCK[$i]}" --json show routes 2>/dev/null | labcheck bgp-routes "${SW_NAMES[$i]}" 2>&1) ||
					out="no answer"
				[ -z "$out" ] || bad+="${SW_NAMES[$i]}: $out; "
			fi
			if [ -z "$bad" ] && mode_has bfd; then
				out=$(vty "${SW_NAMES[$i]}" -c "show bfd peers json" 2>/dev/null | labcheck bfd-peers "${SW_NAMES[$i]}" 2>&1) ||
					out="no answer from bfdd"
				[ -z "$out" ] || bad+="${SW_NAMES[$i]}: $out; "
			fi
		done
		if [ -z "$bad" ]; then
			echo "BGP converged in $(($(date +%s) - t0)) s: every leaf reaches every other leaf's subnet over all its uplinks$(mode_has bfd && echo ", BFD up on every session")"
			return 0
		fi
		sleep 0.5
	done
	for i in "${!SW_NAMES[@]}"; do
		echo "--- ${SW_NAMES[$i]}: show bgp summary" >&2
		vty "${SW_NAMES[$i]}" -c "show bgp summary" >&2 || true
		if [ "${SW_TIER[$i]}" = leaf ]; then
			echo "--- ${SW_NAMES[$i]}: railctl show routes, show neighbors" >&2
			ctl "${SW_SOCK[$i]}" show routes >&2 || true
			ctl "${SW_SOCK[$i]}" show neighbors >&2 || true
		fi
	done
	die "BGP did not converge within $BGP_WAIT s: $bad"
}

# ---------------------------------------------------------------------------
# Subcommands

cmd_down() {
	need_root down
	if [ -s "$STATE/tag" ] && [ "$(cat "$STATE/tag")" != "$TAG" ]; then
		die "$STATE belongs to a lab with tag $(cat "$STATE/tag"), not $TAG: set RAILSW_LAB_TAG"
	fi
	teardown
	echo "fabric-lab: down (state $STATE, tag $TAG)"
}

wait_ready() { # index timeout-seconds
	local i=$1 pid
	pid=$(cat "${SW_PIDF[$i]}")
	for _ in $(seq 1 $(($2 * 10))); do
		# Gone or a zombie: it exited. (Right after the fork /proc/PID/cmdline may still be
		# the shell's, so is_ours is not the test here.)
		if ! kill -0 "$pid" 2>/dev/null ||
			[ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ]; then
			tail -n 25 "${SW_LOG[$i]}" >&2
			die "${SW_NAMES[$i]} exited during start-up (log ${SW_LOG[$i]})"
		fi
		if ctl "${SW_SOCK[$i]}" show ports >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.1
	done
	tail -n 25 "${SW_LOG[$i]}" >&2
	die "${SW_NAMES[$i]} did not answer on ${SW_SOCK[$i]} within $2 s (log ${SW_LOG[$i]})"
}

# Every memif port of every switch link up (both ends run and connected).
memif_down_ports() {
	local i out
	for i in "${!SW_NAMES[@]}"; do
		out=$(ctl "${SW_SOCK[$i]}" --json show ports 2>/dev/null) || {
			echo "${SW_NAMES[$i]}:?"
			continue
		}
		printf '%s' "$out" | jpy '["'"${SW_NAMES[$i]}"':" + p["name"] for p in j["ports"]
			if p.get("kind") == "net_memif" and not p["link_up"]]'
	done
}

cmd_up() {
	local topo=$DEFAULT_TOPO i pid fails ifc
	while [ $# -gt 0 ]; do
		case $1 in
		--bgp) MODE_BGP=1 ;;
		--lldp) MODE_LLDP=1 ;;
		--miscable) MODE_MISCABLE=1 ;;
		--numbered) MODE_NUMBERED=1 ;;
		--no-bfd) MODE_BFD=0 ;;
		-*) die "up: unknown option '$1' (--bgp, --numbered, --no-bfd, --lldp, --miscable)" ;;
		*) topo=$1 ;;
		esac
		shift
	done
	# Every batch of routes from FPM builds a new generation of tables beside the old one
	# (like `railctl reload`): 256 MB holds one only.
	if [ -z "$MEM" ]; then
		MEM=256
		[ $MODE_BGP -eq 1 ] && MEM=384
	fi
	if [ $MODE_BGP -eq 1 ] || [ $MODE_LLDP -eq 1 ]; then
		[ -x "$FRR/zebra" ] || [ $MODE_BGP -eq 0 ] || die "FRR not found in $FRR (devtools/install-deps.sh: frr)"
		command -v lldpd >/dev/null || die "lldpd not found (devtools/install-deps.sh: lldpd)"
	fi
	{ [ $MODE_NUMBERED -eq 0 ] && [ $MODE_BFD -eq 1 ]; } || [ $MODE_BGP -eq 1 ] ||
		die "up: --numbered and --no-bfd go with --bgp"
	need_root up
	need_build
	[ -r "$topo" ] || die "topology file $topo not found or not readable"
	command -v "$PY" >/dev/null || die "$PY not found (devtools/install-deps.sh)"
	if [ -s "$STATE/tag" ] && [ "$(cat "$STATE/tag")" != "$TAG" ]; then
		die "$STATE belongs to a lab with tag $(cat "$STATE/tag"), not $TAG: set RAILSW_LAB_TAG or RAILSW_LAB_STATE"
	fi

	say "plan of $topo"
	local plan err
	err=$("$railctl" plan "$topo" 2>&1 >/dev/null) || die "railctl plan rejected $topo: $err"
	plan=$("$railctl" plan "$topo" --json)
	"$railctl" plan "$topo" | sed -n '1,2p;/^tiers:/,/^$/p'

	if [ -d "$STATE" ] || [ -n "$(lab_namespaces)" ] || compgen -G "$RUN_DPDK/$TAG-*" >/dev/null; then
		say "clearing what an earlier lab left (state $STATE, tag $TAG)"
		teardown
	fi
	mkdir -p "$STATE/memif"
	echo "$TAG" >"$STATE/tag"
	printf '%s\n' "$plan" >"$STATE/plan.json"
	"$railctl" plan "$topo" >"$STATE/plan.txt"
	realpath "$topo" >"$STATE/topology"
	generate "$topo" || die "could not generate the switch configurations"
	read_switches
	read_hosts

	for ifc in "${H_IF[@]}"; do
		if [ -e "/sys/class/net/$ifc" ]; then
			teardown
			die "interface $ifc already exists: another lab uses tag $TAG (set RAILSW_LAB_TAG)"
		fi
	done
	for i in "${!SW_NAMES[@]}"; do
		"$railsw" -c "${SW_CONF[$i]}" --check >/dev/null ||
			die "railsw rejected the generated ${SW_CONF[$i]} (see above)"
	done

	say "starting ${#SW_NAMES[@]} switches (-l $LCORES --no-huge -m $MEM, idle_sleep_us $IDLE_US)"
	local started=0
	on_fail() {
		local rc=$?
		if [ $rc -ne 0 ] && [ $started -eq 1 ]; then
			echo "fabric-lab: up failed; tearing down what it started" >&2
			teardown >/dev/null 2>&1 || true
		fi
	}
	trap on_fail EXIT
	started=1
	for i in "${!SW_NAMES[@]}"; do
		# setsid: the switches outlive this script and a Ctrl-C in its terminal.
		exec_closed setsid "$railsw" -l "$LCORES" --no-huge -m "$MEM" \
			--file-prefix "$TAG-${SW_NAMES[$i]}" -- -c "${SW_CONF[$i]}" \
			>"${SW_LOG[$i]}" 2>&1 </dev/null &
		pid=$!
		echo "$pid" >"${SW_PIDF[$i]}"
		wait_ready "$i" 30
		printf '  %-14s pid %-7s socket %s\n' "${SW_NAMES[$i]}" "$pid" "${SW_SOCK[$i]}"
	done

	say "waiting for the memif links"
	local down_ports=""
	for _ in $(seq 1 100); do
		down_ports=$(memif_down_ports)
		[ -z "$down_ports" ] && break
		sleep 0.2
	done
	[ -z "$down_ports" ] || die "memif links still down after 20 s: $(echo "$down_ports" | tr '\n' ' ')"
	echo "all $(jpy 'sum(1 for l in j["links"] if l["kind"] == "fabric")' <"$STATE/plan.json") leaf-spine links up (memif)"

	say "hosts"
	for i in "${!H_SERVER[@]}"; do
		local ns=${H_NS[$i]} dev=${H_IF[$i]}
		[ -e "/sys/class/net/$dev" ] || die "TAP $dev of ${H_LEAF[$i]} is missing"
		# A server with several rails has one NIC (TAP) per rail in its namespace.
		ip netns pids "$ns" >/dev/null 2>&1 || ip netns add "$ns"
		ip link set "$dev" netns "$ns"
		ip -n "$ns" link set lo up
		# The TAP PMD gives the kernel side the switch port's MAC: the host gets its own.
		ip -n "$ns" link set "$dev" address "${H_MAC[$i]}"
		# No IPv6 on the hosts: the fabric is IPv4 and the counters stay quiet.
		ip netns exec "$ns" sysctl -q -w "net.ipv6.conf.$dev.disable_ipv6=1"
		ip -n "$ns" addr add "${H_ADDR[$i]}" dev "$dev"
		# A TAP reports link down to DPDK once moved, but still carries traffic.
		ip -n "$ns" link set "$dev" up
		# The default route goes via the first NIC's leaf (nic0); the other NICs
		# reach their own rail subnet directly.
		if [ -z "$(ip -n "$ns" route show default)" ]; then
			ip -n "$ns" route add default via "${H_GW[$i]}"
		fi
		if [ "${H_ROUTES[$i]}" != - ]; then
			local net
			for net in ${H_ROUTES[$i]//,/ }; do
				ip -n "$ns" route add "$net" via "${H_GW[$i]}" dev "$dev"
			done
		fi
		printf '  %-14s netns %-18s %-6s %-15s gw %-12s %s:%s\n' "${H_SERVER[$i]}" "$ns" "$dev" \
			"${H_ADDR[$i]}" "${H_GW[$i]}" "${H_LEAF[$i]}" "${H_PORT[$i]}"
	done
	if mode_has lldp; then
		say "routing daemons and LLDP in each switch's namespace ($(cat "$STATE/mode"))"
		for i in "${!SW_NAMES[@]}"; do
			wait_kif "$i"
			mode_has bgp && start_frr "$i"
			start_lldpd "$i"
			printf '  %-14s netns %-22s %s\n' "${SW_NAMES[$i]}" "$(sw_ns "${SW_NAMES[$i]}")" \
				"$(mode_has bgp && echo "zebra bfdd bgpd ASN $(sed -n 's/^router bgp //p' "$STATE/frr/${SW_NAMES[$i]}/bgpd.conf") + ")lldpd"
		done
		if mode_has bgp; then
			wait_bgp
		fi
	fi
	if [ -s "$STATE/swapped.tsv" ]; then
		say "miscabled on purpose (--miscable)"
		while IFS=$'\t' read -r a ap sp b; do
			echo "  $a $ap is cabled to $sp's port of $b"
		done <"$STATE/swapped.tsv"
	fi
	trap - EXIT

	summary
}

summary() {
	say "fabric (railctl plan $(cat "$STATE/topology" 2>/dev/null))"
	sed -n '/^cables/,$p' "$STATE/plan.txt"
	say "the lab is up (state $STATE)"
	local i
	for i in "${!SW_NAMES[@]}"; do
		printf '  %-14s %-5s pid %-7s %s -s %s show ports\n' "${SW_NAMES[$i]}" "${SW_TIER[$i]}" \
			"$(pid_of "$i")" "$railctl" "${SW_SOCK[$i]}"
	done
	echo
	if [ ${#H_SERVER[@]} -ge 2 ]; then
		printf '  %-58s # %s\n' \
			"ip netns exec ${H_NS[0]} ping ${H_ADDR[-1]%/*}" "across the fabric" \
			"ip netns exec ${H_NS[0]} tracepath -n ${H_ADDR[-1]%/*}" "leaf -> spine -> leaf hops"
	fi
	printf '  %-58s # %s\n' \
		"$0 ping" "pings, tracepath, ECMP over the spines" \
		"$0 status" "processes, links, counters, CPU" \
		"$0 down" "stop and remove everything"
}

cmd_status() {
	need_root status
	need_build
	need_lab
	read_switches
	read_hosts
	local i pid bad=0 out hz t0 t1 cpu drops
	hz=$(getconf CLK_TCK)
	declare -A ticks0
	for i in "${!SW_NAMES[@]}"; do
		pid=$(pid_of "$i")
		[ -n "$pid" ] && ticks0[$i]=$(awk '{sub(/^.*\) /, ""); print $12 + $13}' "/proc/$pid/stat")
	done
	t0=$(date +%s%N)
	sleep 2
	t1=$(date +%s%N)
	say "switches (state $STATE, tag $TAG; CPU over the last 2 s)"
	printf '  %-14s %-5s %-8s %-6s %-22s %-8s %s\n' switch tier pid cpu% "ports up/all (down)" drops "rx/tx packets"
	for i in "${!SW_NAMES[@]}"; do
		pid=$(pid_of "$i")
		if [ -z "$pid" ]; then
			printf '  %-14s %-5s %-8s\n' "${SW_NAMES[$i]}" "${SW_TIER[$i]}" "NOT RUNNING (log ${SW_LOG[$i]})"
			bad=1
			continue
		fi
		cpu=$(awk -v a="${ticks0[$i]:-0}" -v hz="$hz" -v dt="$((t1 - t0))" \
			'{sub(/^.*\) /, ""); printf "%.1f", ($12 + $13 - a) * 100 / hz / (dt / 1e9)}' "/proc/$pid/stat")
		if out=$(ctl "${SW_SOCK[$i]}" --json show ports 2>/dev/null); then
			drops=$(ctl "${SW_SOCK[$i]}" --json show drops 2>/dev/null | jpy 'sum(d["packets"] for d in j["drops"])') || drops=?
			printf '  %-14s %-5s %-8s %-6s %s\n' "${SW_NAMES[$i]}" "${SW_TIER[$i]}" "$pid" "$cpu" \
				"$(printf '%s' "$out" | jpy '"%-22s %-8s %s" % ("%d/%d%s" % (sum(1 for p in j["ports"] if p.get("admin_up", True) and (p["link_up"] or p.get("link_state") == "unknown")), len(j["ports"]), "".join(" %s:%s" % (p["name"], "admin" if not p.get("admin_up", True) else "link") for p in j["ports"] if not p.get("admin_up", True) or p["link_up"] is False)), sys.argv[2], " ".join("%s:%d/%d" % (p["name"], p["rx_packets"], p["tx_packets"]) for p in j["ports"]))' "$drops")"
		else
			printf '  %-14s %-5s %-8s %-6s %s\n' "${SW_NAMES[$i]}" "${SW_TIER[$i]}" "$pid" "$cpu" \
				"no answer on ${SW_SOCK[$i]}"
			bad=1
		fi
	done
	echo "  (down: NAME:admin after \`railctl port NAME down\`, NAME:link when its link is down;"
	echo "  drops: every drop reason of railctl show drops; a TAP moved into a namespace counts"
	echo "  as up: its link state is unknown)"
	if mode_has lldp; then
		say "routing daemons and LLDP ($(cat "$STATE/mode"); namespaces $TAG-sw-<switch>)"
		local f dm alive sess
		for i in "${!SW_NAMES[@]}"; do
			alive=""
			for f in "$STATE/frr/${SW_NAMES[$i]}"/*.pid "$STATE/lldp/${SW_NAMES[$i]}/lldpd.pid"; do
				[ -e "$f" ] || continue
				dm=$(basename "$f" .pid)
				if is_our_daemon "$(cat "$f" 2>/dev/null)" "$f"; then
					alive+=" $dm"
				else
					alive+=" $dm:DEAD"
					bad=1
				fi
			done
			sess=""
			if mode_has bgp; then
				sess="bgp sessions established $(vty "${SW_NAMES[$i]}" -c "show bgp summary json" 2>/dev/null | labcheck bgp-sessions "${SW_NAMES[$i]}" 2>/dev/null || echo '?')"
			fi
			printf '  %-14s %-34s %s\n' "${SW_NAMES[$i]}" "${alive# }" "$sess"
		done
	fi
	say "hosts (kernel counters of each host's TAP: a frame the host sent that railsw never read"
	echo "   is a tx drop here, in the TAP's queue, and in no counter of railsw: docs/lab.md)"
	printf '  %-14s %-24s %-6s %-16s %s\n' server netns iface address "rx/tx packets, dropped"
	for i in "${!H_SERVER[@]}"; do
		if out=$(ip -n "${H_NS[$i]}" -s -j link show "${H_IF[$i]}" 2>/dev/null); then
			printf '  %-14s %-24s %-6s %-16s %s\n' "${H_SERVER[$i]}" "${H_NS[$i]}" "${H_IF[$i]}" "${H_ADDR[$i]}" \
				"$(printf '%s' "$out" | jpy '"rx %d (dropped %d)  tx %d (dropped %d)" % tuple(j[0]["stats64"][d][k] for d in ("rx", "tx") for k in ("packets", "dropped"))')"
		else
			printf '  %-14s netns %-18s MISSING\n' "${H_SERVER[$i]}" "${H_NS[$i]}"
			bad=1
		fi
	done
	if [ $bad -ne 0 ]; then
		echo "fabric-lab: the lab is only partly up; '$0 up' rebuilds it" >&2
		return 1
	fi
}

# Does traffic from host NIC $1's namespace to host NIC $2's address cross the
# spines? Not when $2 hangs off a leaf the namespace is attached to: that
# subnet is connected there (and the same leaf answers no proxy ARP yet).
crosses() { # i k
	local j
	[ "${H_NS[$1]}" != "${H_NS[$2]}" ] || return 1
	for j in "${!H_NS[@]}"; do
		[ "${H_NS[$j]}" = "${H_NS[$1]}" ] && [ "${H_LEAF[$j]}" = "${H_LEAF[$2]}" ] && return 1
	done
	return 0
}

# The first host whose traffic from host 0 crosses the spines (dies when none does).
first_crossing() {
	local k
	for k in "${!H_SERVER[@]}"; do
		if crosses 0 "$k"; then
			echo "$k"
			return 0
		fi
	done
	die "all hosts hang off one leaf: nothing crosses the spines"
}

# Is host NIC $1 the first of its namespace (pings go from each namespace once)?
first_nic() {
	local j
	for j in "${!H_NS[@]}"; do
		[ "$j" -lt "$1" ] && [ "${H_NS[$j]}" = "${H_NS[$1]}" ] && return 1
	done
	return 0
}

# Before the ECMP flows: wait (at most SECONDS) until LEAF's next-hop group for PREFIX has
# every next hop of its active route as a member, each up, and (with BGP) the route has one
# next hop per uplink: a route that is still settling (a session that came up last, or one
# reset at once, `up --bgp` in docs/routing.md) would spread the flows over fewer uplinks.
# Prints what it saw; the ECMP check after it reports what the flows did.
wait_group() { # leaf-socket leaf prefix seconds
	local sock=$1 leaf=$2 prefix=$3 secs=$4 t0 now seen="" last="" ok
	t0=$(date +%s%N)
	while :; do
		seen=$({ ctl "$sock" --json show routes && echo && ctl "$sock" --json show lb; } 2>/dev/null |
			"$PY" -c "$WAIT_GROUP_PY" "$STATE/plan.json" "$leaf" "$prefix" "$(mode_has bgp && echo bgp)") ||
			seen="? no answer from $leaf"
		now=$(date +%s%N)
		ok=${seen%% *}
		seen=${seen#* }
		if [ "$seen" != "$last" ] && [ -n "$last" ]; then
			printf '  %6.1f s: %s\n' "$(((now - t0) / 1000000))e-3" "$last"
		fi
		last=$seen
		if [ "$ok" = ok ]; then
			printf '  %6.1f s: %s\n' "$(((now - t0) / 1000000))e-3" "$seen"
			return 0
		fi
		if [ $((now - t0)) -ge $((secs * 1000000000)) ]; then
			printf '  %6.1f s: %s (waited %d s; sending anyway)\n' "$(((now - t0) / 1000000))e-3" "$seen" "$secs"
			return 0
		fi
		sleep 0.2
	done
}
WAIT_GROUP_PY=$(
	cat <<'PYEOF'
import json, sys
plan = json.load(open(sys.argv[1]))
leaf, prefix, bgp = sys.argv[2], sys.argv[3], sys.argv[4] == "bgp"
dec = json.JSONDecoder()
text = sys.stdin.read()
routes, end = dec.raw_decode(text)
lb, _ = dec.raw_decode(text[end:].lstrip())
uplinks = sum(1 for ln in plan["links"] if ln["kind"] == "fabric" and ln["a"] == leaf)
rs = [r for r in routes["routes"] if r["prefix"] == prefix and r.get("active", True) and
      (not bgp or r.get("source") == "bgp")]
ms = [m for g in lb["groups"] if g["prefix"] == prefix for m in g["members"]]
up = [m for m in ms if m.get("up", True)]
if not rs:
    print(f"wait no active {'bgp ' if bgp else ''}route to {prefix} on {leaf}")
    sys.exit(0)
res = rs[0].get("resolved", len(rs[0]["nexthops"]))
desc = (f"{leaf}: route {prefix} resolved {res}"
        + (f" of {uplinks} uplinks" if bgp else "")
        + f", group {len(ms)} members ({len(up)} up: "
        + (", ".join(f"{m['nexthop']} on {m['port']}" for m in up) or "none") + ")")
good = res == len(ms) == len(up) and res > 0 and (not bgp or res == uplinks)
print(("ok " if good else "wait ") + desc)
PYEOF
)

cmd_ping() {
	need_root ping
	need_build
	need_lab
	read_switches
	read_hosts
	local i k fails=0 src dst ns out
	[ ${#H_SERVER[@]} -ge 2 ] || die "the lab has fewer than 2 hosts"

	say "ping between hosts on different leaves"
	for i in "${!H_SERVER[@]}"; do
		first_nic "$i" || continue
		for k in "${!H_SERVER[@]}"; do
			crosses "$i" "$k" || continue
			dst=${H_ADDR[$k]%/*}
			if out=$(ip netns exec "${H_NS[$i]}" ping -n -c 3 -i 0.2 -w 10 "$dst" 2>&1); then
				printf '  PING OK    %-14s -> %-14s %-10s %s\n' "${H_SERVER[$i]}" "${H_SERVER[$k]}" "$dst" \
					"$(echo "$out" | grep -o 'rtt.*' || true)"
			else
				printf '  PING FAIL  %-14s -> %-14s %s\n%s\n' "${H_SERVER[$i]}" "${H_SERVER[$k]}" "$dst" "$out"
				fails=$((fails + 1))
			fi
		done
	done

	# The first host and the first host on another leaf: tracepath and ECMP.
	src=0
	dst=$(first_crossing) || exit 1
	ns=${H_NS[$src]}
	local daddr=${H_ADDR[$dst]%/*}

	say "tracepath ${H_SERVER[$src]} -> ${H_SERVER[$dst]} ($daddr): leaf, spine, leaf, host"
	echo "\$ ip netns exec $ns tracepath -n -m 6 $daddr"
	if ! ip netns exec "$ns" timeout 30 tracepath -n -m 6 "$daddr"; then
		echo "  TRACEPATH FAIL"
		fails=$((fails + 1))
	fi

	say "ECMP: 32 UDP flows ${H_SERVER[$src]} -> ${H_SERVER[$dst]} over the spines"
	local leaf_sock
	leaf_sock=$(sock_of "${H_LEAF[$src]}")
	# The group of the GPU prefix (topology routes), or of the destination leaf's subnet (BGP).
	local group_prefix
	group_prefix=$(jpy 'j["gpu_prefix"]' <"$STATE/plan.json")
	if mode_has bgp; then
		group_prefix=$(jpy '[s["subnet"] for s in j["switches"] if s["name"] == "'"${H_LEAF[$dst]}"'"][0]' <"$STATE/plan.json")
	fi
	wait_group "$leaf_sock" "${H_LEAF[$src]}" "$group_prefix" 10
	ctl "$leaf_sock" clear counters >/dev/null
	for i in "${!SW_NAMES[@]}"; do
		[ "${SW_TIER[$i]}" = spine ] && ctl "${SW_SOCK[$i]}" clear counters >/dev/null
	done
	# Each redirection is a new socket: a new source port, so a new flow; 5 datagrams a flow.
	ip netns exec "$ns" bash -c '
		for p in $(seq 5001 5032); do
			exec 3>/dev/udp/'"$daddr"'/$p
			for n in 1 2 3 4 5; do echo "flow $p $n" >&3; done
			exec 3>&-
		done'
	sleep 0.5
	echo "\$ $railctl -s $leaf_sock show lb   # on ${H_LEAF[$src]}"
	ctl "$leaf_sock" show lb
	local members
	members=$(ctl "$leaf_sock" --json show lb | jpy '[ "%s %s %d" % (m["port"], m["nexthop"], m["packets"]) for g in j["groups"] if g["prefix"] == "'"$group_prefix"'" for m in g["members"]]')
	local used=0 total=0
	while read -r port _ pk; do
		[ -n "$port" ] || continue
		total=$((total + 1))
		[ "$pk" -gt 0 ] && used=$((used + 1))
	done <<<"$members"
	echo
	for i in "${!SW_NAMES[@]}"; do
		[ "${SW_TIER[$i]}" = spine ] || continue
		printf '  %-10s rx_packets %s\n' "${SW_NAMES[$i]}" \
			"$(ctl "${SW_SOCK[$i]}" --json show ports | jpy 'sum(p["rx_packets"] for p in j["ports"])')"
	done
	if [ "$total" -lt 2 ]; then
		echo "  ECMP: nothing to spread (${H_LEAF[$src]} has $total uplink per plane)"
	elif [ "$used" -eq "$total" ]; then
		echo "  ECMP OK: the flows used all $total uplinks of ${H_LEAF[$src]}"
	else
		echo "  ECMP FAIL: $used of $total uplinks of ${H_LEAF[$src]} carried packets"
		fails=$((fails + 1))
	fi

	if mode_has bgp; then
		say "BGP: every leaf's routes to the other leaves, from FPM, over every spine"
		for i in "${!SW_NAMES[@]}"; do
			[ "${SW_TIER[$i]}" = leaf ] || continue
			echo "\$ $railctl -s ${SW_SOCK[$i]} show routes   # on ${SW_NAMES[$i]}"
			ctl "${SW_SOCK[$i]}" show routes | sed -n '1p;/bgp/p'
			out=$(ctl "${SW_SOCK[$i]}" --json show routes | labcheck bgp-routes "${SW_NAMES[$i]}")
			if [ -n "$out" ]; then
				echo "  BGP FAIL ${SW_NAMES[$i]}: $out"
				fails=$((fails + 1))
			else
				echo "  BGP OK   ${SW_NAMES[$i]}: source bgp, active, every uplink a next hop"
			fi
		done
	fi

	if [ $fails -ne 0 ]; then
		echo "fabric-lab: $fails checks FAILED" >&2
		return 1
	fi
	echo
	echo "fabric-lab: ping OK"
}

# Every switch's LLDP neighbours (lldpcli -f json0 show neighbors, into STATE/lldp/json/)
# against the plan, by `railctl plan TOPOLOGY --check-lldp DIR`. Waits up to 15 s for
# every fabric port to hear a neighbour (lldpd sends every second).
cmd_check_lldp() {
	need_root check-lldp
	need_build
	need_lab
	mode_has lldp || die "this lab runs no lldpd: start it with '$0 up --lldp' (or --bgp)"
	read_switches
	local i dir=$STATE/lldp/json want got
	mkdir -p "$dir"
	want=$(jpy 'sum(2 for l in j["links"] if l["kind"] == "fabric")' <"$STATE/plan.json")
	for _ in $(seq 1 30); do
		got=0
		for i in "${!SW_NAMES[@]}"; do
			timeout 10 lldpcli -u "$STATE/lldp/${SW_NAMES[$i]}/lldpd.sock" -f json0 show neighbors \
				>"$dir/${SW_NAMES[$i]}.json" 2>/dev/null || rm -f "$dir/${SW_NAMES[$i]}.json"
			[ -s "$dir/${SW_NAMES[$i]}.json" ] &&
				got=$((got + $(jpy 'len([i for l in j.get("lldp", []) for i in l.get("interface", [])])' \
					<"$dir/${SW_NAMES[$i]}.json" 2>/dev/null || echo 0)))
		done
		[ "$got" -ge "$want" ] && break
		sleep 0.5
	done
	echo "\$ $railctl plan $(cat "$STATE/topology") --check-lldp $dir"
	"$railctl" plan "$(cat "$STATE/topology")" --check-lldp "$dir"
}

# How long flows take to move off a failed spine, and what they lose. 16 UDP flows each
# way between the first host and the first host on another leaf, 200 datagrams a second
# each, for SECONDS; after 2 s the last spine fails:
#   link: `railctl port upN down` on the first leaf's link to it (both ends see link
#         down at once; the other leaf learns it from BGP);
#   stop: the spine's railsw is frozen (SIGSTOP: no link goes down; BFD or the hold
#         timer has to find it), and continued at the end.
cmd_failover() {
	local how=${1:-} secs=${2:-} src dst k spine_i leaf_sock uplink pid out rc=0
	need_root failover
	need_build
	need_lab
	read_switches
	read_hosts
	case $how in
	link | stop) ;;
	*) die "usage: $0 failover link|stop [SECONDS]" ;;
	esac
	if [ -z "$secs" ]; then
		secs=8
		mode_has bfd || secs=16
	fi
	[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -ge 4 ] || die "failover: SECONDS must be at least 4"
	src=0
	dst=$(first_crossing) || exit 1
	for k in "${!SW_NAMES[@]}"; do
		[ "${SW_TIER[$k]}" = spine ] && spine_i=$k
	done
	leaf_sock=$(sock_of "${H_LEAF[$src]}")
	uplink=$(jpy '[l["a_port"] for l in j["links"] if l["kind"] == "fabric" and l["a"] == "'"${H_LEAF[$src]}"'" and l["b"] == "'"${SW_NAMES[$spine_i]}"'"][0]' <"$STATE/plan.json")
	say "failover ($how): ${SW_NAMES[$spine_i]} fails after 2 s of $secs; 16 flows each way, 200/s each ($(cat "$STATE/mode" 2>/dev/null))"
	local probe=$root/devtools/fabric_probe.py o1=$STATE/failover-fwd.json o2=$STATE/failover-rev.json
	local sa=${H_ADDR[$src]%/*} da=${H_ADDR[$dst]%/*}
	# One ping each way first: the leaves' neighbour entries for the hosts are resolved, so
	# the flows' first datagrams are not the ARP exchange's (held three, the rest dropped).
	ip netns exec "${H_NS[$src]}" ping -n -q -c 1 -w 5 "$da" >/dev/null ||
		echo "  (no ping reply from ${H_SERVER[$dst]} before the flows)"
	ip netns exec "${H_NS[$dst]}" ping -n -q -c 1 -w 5 "$sa" >/dev/null ||
		echo "  (no ping reply from ${H_SERVER[$src]} before the flows)"
	# The receivers stop half a second after the senders' end markers; the margin is for
	# a sender that a busy machine starts late.
	ip netns exec "${H_NS[$dst]}" "$PY" "$probe" recv 47001 $((secs + 10)) $((secs * 200)) >"$o1" &
	local r1=$!
	ip netns exec "${H_NS[$src]}" "$PY" "$probe" recv 47002 $((secs + 10)) $((secs * 200)) >"$o2" &
	local r2=$!
	sleep 0.3
	ip netns exec "${H_NS[$src]}" "$PY" "$probe" send "$da" 47001 16 200 "$secs" >"$STATE/failover-fwd-sent.json" &
	local s1=$!
	ip netns exec "${H_NS[$dst]}" "$PY" "$probe" send "$sa" 47002 16 200 "$secs" >"$STATE/failover-rev-sent.json" &
	local s2=$!
	sleep 2
	if [ "$how" = link ]; then
		echo "  t=2 s: ${H_LEAF[$src]}: railctl port $uplink down"
		ctl "$leaf_sock" port "$uplink" down >/dev/null
	else
		pid=$(pid_of "$spine_i")
		echo "  t=2 s: kill -STOP ${SW_NAMES[$spine_i]} (pid $pid)"
		kill -STOP "$pid"
	fi
	wait "$s1" "$s2" || true
	wait "$r1" "$r2" || rc=1
	if [ "$how" = link ]; then
		ctl "$leaf_sock" port "$uplink" up >/dev/null
	else
		kill -CONT "$pid"
	fi
	for k in "$o1:${H_SERVER[$src]} -> ${H_SERVER[$dst]}" "$o2:${H_SERVER[$dst]} -> ${H_SERVER[$src]}"; do
		out=$(jpy '"%d of %d flows hit, %d datagrams lost, longest outage %.0f ms" % (j["flows_hit"], j["flows"], j["lost"], j["outage_ms"])' <"${k%%:*}") ||
			out="no result"
		printf '  %-34s %s\n' "${k#*:}" "$out"
	done
	echo "  (results: $o1, $o2; the spine's end and the links are restored)"
	return $rc
}

# impair LINK WORDS...: the same faults on both ends' ports of a fabric link.
cmd_impair() {
	local link=$1 ends a ap b bp sa sb
	shift
	need_lab
	read_switches
	ends=$("$PY" -c 'import json,sys
plan = json.load(open(sys.argv[1]))
want = sys.argv[2]
links = [l for l in plan["links"] if l["kind"] == "fabric"]
for l in links:
    a, ap, b, bp = l["a"], l["a_port"], l["b"], l["b_port"]
    if want in (a + ":" + ap, b + ":" + bp, a + "--" + b, b + "--" + a):
        print(a, ap, b, bp)
        sys.exit(0)
sys.exit("fabric-lab: no fabric link %r; links: %s" % (want, " ".join(
    "%s:%s--%s:%s" % (l["a"], l["a_port"], l["b"], l["b_port"]) for l in links)))' "$STATE/plan.json" "$link") ||
		exit 1
	read -r a ap b bp <<<"$ends"
	sa=$(sock_of "$a") && sb=$(sock_of "$b") || die "switch $a or $b is not in this lab"
	ctl "$sa" port "$ap" impair "$@" || die "$a: railctl port $ap impair $* failed"
	ctl "$sb" port "$bp" impair "$@" || die "$b: railctl port $bp impair $* failed"
	echo "fabric-lab: $a:$ap and $b:$bp impair $*"
}

main() {
	local sub=${1:-}
	[ $# -gt 0 ] && shift
	case "$sub" in
	up)
		mkdir -p "$(dirname "$STATE")"
		exec 9>"$(dirname "$STATE")/.$(basename "$STATE").lock"
		flock -w 60 9 || die "another fabric-lab.sh holds the lock of $STATE"
		cmd_up "$@"
		;;
	down)
		[ $# -eq 0 ] || die "usage: $0 down"
		if [ -d "$(dirname "$STATE")" ]; then
			exec 9>"$(dirname "$STATE")/.$(basename "$STATE").lock"
			flock -w 60 9 || die "another fabric-lab.sh holds the lock of $STATE"
		fi
		cmd_down
		rm -f "$(dirname "$STATE")/.$(basename "$STATE").lock"
		;;
	status)
		[ $# -eq 0 ] || die "usage: $0 status"
		cmd_status
		;;
	ping)
		[ $# -eq 0 ] || die "usage: $0 ping"
		cmd_ping
		;;
	check-lldp)
		[ $# -eq 0 ] || die "usage: $0 check-lldp"
		cmd_check_lldp
		;;
	failover)
		[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: $0 failover link|stop [SECONDS]"
		cmd_failover "$@"
		;;
	impair)
		[ $# -ge 2 ] || die "usage: $0 impair LINK loss P [loss_burst N] [corrupt P] [delay_us D] [seed S] | $0 impair LINK off"
		cmd_impair "$@"
		;;
	-h | --help | help)
		usage
		;;
	"")
		usage >&2
		exit 2
		;;
	*)
		echo "fabric-lab: unknown command '$sub'" >&2
		usage >&2
		exit 2
		;;
	esac
}

main "$@"

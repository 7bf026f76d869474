#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
#
# README command 1: install the dependencies, build, run railsw on
# config/lab.yaml and show it routing between two hosts.
#
#   host rsw-h1 (netns)                 railsw                 host rsw-h2 (netns)
#   rsw-p0 10.0.1.1/24  --TAP--  p0 10.0.1.254 | p1 10.0.2.254  --TAP--  rsw-p1 10.0.2.1/24
#
# Usage: devtools/demo.sh [--keep] [--no-install] [--build-dir DIR]
#        devtools/demo.sh --down
#   --keep        leave the lab running (stop it later with --down)
#   --down        stop a lab left by --keep (or by a killed run) and exit
#   --no-install  skip devtools/install-deps.sh
#   --build-dir   build directory (default: $RAILSW_BUILD or "build")
# Must run as root (TAP devices, network namespaces).

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

CONFIG=config/lab.yaml
PREFIX=railsw-demo               # EAL --file-prefix
STATE=/run/railsw                # pidfile and log live here
PIDFILE=$STATE/demo.pid
LOG=$STATE/demo.log
H1=rsw-h1 H2=rsw-h2
P0=rsw-p0 P1=rsw-p1
H1_IP=10.0.1.1/24 H1_GW=10.0.1.254 H1_MAC=02:00:00:00:01:01
H2_IP=10.0.2.1/24 H2_GW=10.0.2.254 H2_MAC=02:00:00:00:02:01

keep=0 down=0 install=1
build=${RAILSW_BUILD:-build}
while [ $# -gt 0 ]; do
	case "$1" in
	--keep) keep=1 ;;
	--down) down=1 ;;
	--no-install) install=0 ;;
	--build-dir)
		build=$2
		shift
		;;
	-h | --help)
		sed -n '5,17p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "demo: unknown argument '$1' (try --help)" >&2
		exit 2
		;;
	esac
	shift
done

if [ "$(id -u)" -ne 0 ]; then
	echo "demo: run as root (sudo $0): it creates TAP devices and network namespaces" >&2
	exit 1
fi

railsw=$build/control/railsw
railctl=$build/control/railctl
sock=$(sed -n 's/^[[:space:]]*socket:[[:space:]]*\([^[:space:]#]*\).*/\1/p' "$CONFIG" 2>/dev/null |
	tr -d '"'"'" | head -n 1)
sock=${sock:-/run/railsw/railsw.sock}

say() { printf '\n== %s\n' "$*"; }

# Is PID a railsw we started (its command line carries our EAL prefix)?
is_ours() {
	[ -n "${1:-}" ] && [ -r "/proc/$1/cmdline" ] &&
		tr '\0' ' ' <"/proc/$1/cmdline" | grep -q -- "--file-prefix $PREFIX"
}

# Stop the demo's railsw by PID: SIGTERM, bounded wait, SIGKILL fallback.
# Returns railsw's exit status when it was our child, else 0.
stop_railsw() {
	local pid rc=0 i
	pid=$(cat "$PIDFILE" 2>/dev/null || true)
	if is_ours "$pid"; then
		kill -TERM "$pid" 2>/dev/null || true
		for i in $(seq 1 150); do
			is_ours "$pid" || break
			sleep 0.1
		done
		if is_ours "$pid"; then
			echo "demo: railsw $pid ignored SIGTERM for 15 s, killing it" >&2
			kill -KILL "$pid" 2>/dev/null || true
			rc=1
		fi
		if [ "${child:-}" = "$pid" ]; then
			wait "$pid" 2>/dev/null || rc=$?
		fi
	fi
	rm -f "$PIDFILE"
	return $rc
}

teardown() {
	local rc=0
	stop_railsw || rc=$?
	for ns in $H1 $H2; do
		ip netns del "$ns" 2>/dev/null || true
	done
	# A killed railsw leaves its DPDK runtime directory (and maybe its socket).
	if ! pgrep -f -- "--file-prefix $PREFIX" >/dev/null 2>&1; then
		rm -rf "/var/run/dpdk/$PREFIX"
		if [ -S "$sock" ] && ! "$railctl" -s "$sock" show ports >/dev/null 2>&1; then
			rm -f "$sock"
		fi
	fi
	return $rc
}

if [ $down -eq 1 ]; then
	teardown
	echo "demo: lab stopped"
	exit 0
fi

if [ $install -eq 1 ]; then
	say "installing dependencies"
	devtools/install-deps.sh
fi

say "building ($build)"
devtools/build.sh "$build" >"/tmp/railsw-demo-build.log" 2>&1 || {
	tail -n 40 /tmp/railsw-demo-build.log >&2
	echo "demo: build failed (log: /tmp/railsw-demo-build.log)" >&2
	exit 1
}
echo "built $railsw and $railctl"

say "clearing what an earlier run left"
teardown || true
for l in $P0 $P1; do
	if [ -e "/sys/class/net/$l" ]; then
		echo "demo: interface $l exists: another railsw runs a lab here; stop it first" >&2
		exit 1
	fi
done
if [ -S "$sock" ] && "$railctl" -s "$sock" show ports >/dev/null 2>&1; then
	echo "demo: a railsw already answers on $sock; stop it first" >&2
	exit 1
fi

say "checking $CONFIG"
"$railsw" -c "$CONFIG" --check

mkdir -p "$STATE"
child=
ok=0
cleanup_on_exit() {
	local rc=$?
	if [ $keep -eq 1 ] && [ $ok -eq 1 ]; then
		return
	fi
	trap - EXIT
	teardown || rc=1
	exit $rc
}
trap cleanup_on_exit EXIT
trap 'exit 130' INT TERM

say "starting railsw (log: $LOG)"
cmd=("$railsw" -l 0,1 --no-huge -m 1024 --file-prefix "$PREFIX" -- -c "$CONFIG")
echo "${cmd[*]}"
nohup "${cmd[@]}" >"$LOG" 2>&1 </dev/null &
child=$!
echo "$child" >"$PIDFILE"

ready=0
for _ in $(seq 1 300); do
	if ! kill -0 "$child" 2>/dev/null; then
		break
	fi
	if [ -e "/sys/class/net/$P0" ] && [ -e "/sys/class/net/$P1" ] &&
		"$railctl" -s "$sock" show ports >/dev/null 2>&1; then
		ready=1
		break
	fi
	sleep 0.1
done
if [ $ready -ne 1 ]; then
	tail -n 30 "$LOG" >&2
	echo "demo: railsw did not come up within 30 s" >&2
	exit 1
fi
echo "railsw running, pid $child, socket $sock"

say "hosts: $H1 ($H1_IP) on $P0, $H2 ($H2_IP) on $P1"
setup_host() { # ns iface addr gw mac
	ip netns add "$1"
	ip link set "$2" netns "$1"
	ip -n "$1" link set lo up
	# The TAP PMD gives the kernel side the switch port's MAC: give the host its own.
	ip -n "$1" link set "$2" address "$5"
	ip -n "$1" addr add "$3" dev "$2"
	# Once moved, nothing in railsw's namespace can read the TAP's link (link_state
	# unknown), but it carries traffic.
	ip -n "$1" link set "$2" up
	ip -n "$1" route add default via "$4"
}
setup_host $H1 $P0 $H1_IP $H1_GW $H1_MAC
setup_host $H2 $P1 $H2_IP $H2_GW $H2_MAC

fails=0
ping_from() { # ns target
	echo "\$ ip netns exec $1 ping -c 3 -i 0.2 -w 20 $2"
	if ip netns exec "$1" ping -c 3 -i 0.2 -w 20 "$2"; then
		echo "demo: PING OK $1 -> $2"
	else
		echo "demo: PING FAILED $1 -> $2"
		fails=$((fails + 1))
	fi
}
say "ping through railsw"
ping_from $H1 $H1_GW
ping_from $H1 "${H2_IP%/*}"
ping_from $H2 "${H1_IP%/*}"

say "railctl show ports"
"$railctl" -s "$sock" show ports || fails=$((fails + 1))
say "railctl show neighbors"
"$railctl" -s "$sock" show neighbors || fails=$((fails + 1))
say "railctl show drops (every frame railsw dropped, by reason)"
"$railctl" -s "$sock" show drops || fails=$((fails + 1))
# A frame a host sent that railsw never read dies in the TAP's queue: the host's kernel counts
# it (TX dropped), no counter of railsw does (docs/drops.md, "Frames no railsw counter sees").
say "the hosts' side of the TAPs (kernel counters: ip -s link)"
host_stats() { # ns iface
	echo "$1 $2:"
	ip -n "$1" -s link show "$2" | sed -n '/RX:/,$p' | sed 's/^/  /'
}
host_stats $H1 $P0
host_stats $H2 $P1

if [ $fails -ne 0 ]; then
	echo
	tail -n 20 "$LOG"
	echo "demo: FAILED ($fails problems)" >&2
	exit 1
fi

if [ $keep -eq 1 ]; then
	ok=1
	say "the lab keeps running (railsw pid $child, log $LOG)"
	printf '  %-58s # %s\n' \
		"ip netns exec $H1 ping ${H2_IP%/*}" "traffic between the hosts" \
		"ip netns exec $H1 bash" "a shell on host h1" \
		"$railctl -s $sock show ports" "counters (--json for scripts)" \
		"$railctl -s $sock show routes" "also: neighbors, lb, config" \
		"$railctl -s $sock clear counters" "zero every counter" \
		"sudo devtools/demo.sh --down" "stop railsw, remove the namespaces"
	exit 0
fi

say "tearing down"
trap - EXIT
if teardown; then
	echo "demo: railsw exited cleanly; namespaces removed"
else
	echo "demo: railsw did not shut down cleanly" >&2
	exit 1
fi
echo "demo: OK (hosts pinged each other through railsw)"

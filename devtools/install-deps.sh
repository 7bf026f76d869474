#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
#
# Install the Debian 12 packages railsw needs to build, lint and test.
# Idempotent and non-interactive: packages already installed are skipped,
# so a second run only checks and returns.

set -euo pipefail

PACKAGES=(
	build-essential
	meson
	ninja-build
	pkg-config
	libdpdk-dev
	dpdk-dev
	dpdk-doc
	libbpf-dev
	libxdp-dev
	libcmocka-dev
	libyaml-dev
	libjansson-dev
	libmicrohttpd-dev
	python3-scapy
	python3-pytest
	python3-matplotlib
	python3-jsonschema
	graphviz
	iperf3
	iproute2
	clang
	libclang-rt-14-dev
	clang-format
	codespell
	valgrind
	tcpdump
	iputils-ping
	iputils-tracepath
	procps
	frr
	lldpd
)

missing=()
for p in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	if [ "$status" != "installed" ]; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#PACKAGES[@]} packages already installed"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages: ${missing[*]}" >&2
	echo "install-deps: run as root (sudo $0) to install them" >&2
	exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt_opts=(-q -y -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)

# Refresh the package lists only when they are missing or older than a day,
# or when the first install attempt fails (stale lists).
lists=/var/lib/apt/lists
if [ -z "$(find "$lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null | head -n1)" ]; then
	apt-get -q update >/dev/null
fi
if ! apt-get install "${apt_opts[@]}" --no-install-recommends "${missing[@]}" >/tmp/install-deps.log 2>&1; then
	apt-get -q update >/dev/null
	if ! apt-get install "${apt_opts[@]}" --no-install-recommends "${missing[@]}" \
		>/tmp/install-deps.log 2>&1; then
		tail -n 30 /tmp/install-deps.log >&2
		echo "install-deps: apt-get install failed (log: /tmp/install-deps.log)" >&2
		exit 1
	fi
fi
echo "install-deps: done"

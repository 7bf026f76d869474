#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
#
# Static checks run by CI (devtools/test.sh):
#   1. clang-format --dry-run --Werror on every C file;
#   2. SPDX-License-Identifier on the first line (after a shebang) of every
#      .c, .h, .py, .sh, meson.build and script;
#   3. codespell on the tree (build directories excluded);
#   4. forbidden tokens in dataplane/ and control/ modules: exit(, printf(,
#      rte_panic, rte_exit (allowed only in control/main.c and control/client/*.c);
#   5. words that have no place in docs or code comments (devtools/lint_words.py):
#      references to files outside the repository (DESIGN.md, CLI.md, CONFIG.md,
#      ../shared, ...), "session N", "Nth session", "issue N", "the issue's",
#      branch names, paths of a development machine, internal source ids (idx:N).
# Exits non-zero if anything is wrong and prints the offending lines.

set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

fail=0
problem() {
	echo "lint: $*" >&2
	fail=1
}

# Tracked files plus new files not yet added (but never ignored ones such as build/).
list_files() {
	git ls-files --cached --others --exclude-standard -- "$@" | sort -u | while read -r f; do
		[ -f "$f" ] && printf '%s\n' "$f"
	done
}

# 1. clang-format
mapfile -t cfiles < <(list_files '*.[ch]')
if [ ${#cfiles[@]} -gt 0 ]; then
	if ! command -v clang-format >/dev/null; then
		problem "clang-format not installed (devtools/install-deps.sh)"
	elif ! out=$(clang-format --dry-run --Werror "${cfiles[@]}" 2>&1); then
		printf '%s\n' "$out" | head -n 200 >&2
		problem "clang-format: files above are not formatted (clang-format -i FILE)"
	fi
fi

# 2. SPDX line
mapfile -t spdx_files < <(list_files '*.[ch]' '*.py' '*.sh' 'meson.build' '*/meson.build' \
	'meson_options.txt' '.ci/*' 'devtools/*')
for f in "${spdx_files[@]}"; do
	first=$(head -n 1 "$f")
	line=$first
	case "$first" in
	'#!'*) line=$(sed -n 2p "$f") ;;
	esac
	case "$line" in
	*SPDX-License-Identifier:*) ;;
	*) problem "$f: no SPDX-License-Identifier on its first line (after the shebang)" ;;
	esac
done

# 3. codespell
if ! command -v codespell >/dev/null; then
	problem "codespell not installed (devtools/install-deps.sh)"
else
	mapfile -t all_files < <(list_files)
	# Network terms codespell takes for typos: ND (neighbour discovery), UE (Ultra
	# Ethernet), ECT (ECN-capable transport), iif (input interface), inout, SerDes,
	# STrack (a datacenter transport the experiments cite).
	ignore='nd,ue,ect,iif,inout,ser,strack'
	if ! out=$(codespell --quiet-level=2 -L "$ignore" "${all_files[@]}" 2>&1); then
		printf '%s\n' "$out" >&2
		problem "codespell: misspellings above"
	fi
fi

# 4. forbidden tokens
mapfile -t modules < <(list_files 'dataplane/*.[ch]' 'control/*.[ch]' | grep -v '/test/' |
	grep -v -x -e 'control/main.c' | grep -v '^control/client/')
if [ ${#modules[@]} -gt 0 ]; then
	# Comments and string literals are blanked first (newlines kept, so line
	# numbers stay right): a comment that mentions printf( is not a call.
	if out=$(perl -0777 -ne '
		my $src = $_;
		$src =~ s{(/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|'"'"'(?:\\.|[^'"'"'\\\n])*'"'"')}
			{ my $m = $1; $m =~ s/[^\n]/ /g; $m }gse;
		my @code = split /\n/, $src, -1;
		my @orig = split /\n/, $_, -1;
		for my $i (0 .. $#code) {
			if ($code[$i] =~ /(^|[^A-Za-z0-9_])(exit|printf)\s*\(|rte_panic|rte_exit\s*\(/) {
				print "$ARGV:", $i + 1, ":$orig[$i]\n";
			}
		}' "${modules[@]}") && [ -n "$out" ]; then
		printf '%s\n' "$out" >&2
		problem "forbidden tokens above: modules return errors and log with RTE_LOG;" \
			"only control/main.c and control/client/ may exit or print"
	fi
fi

# 5. words of work logs and outside files in docs and comments
mapfile -t word_files < <(list_files '*.md' '*.[ch]' '*.py' '*.sh' '*.yaml' 'meson.build' \
	'*/meson.build' 'meson_options.txt' '.ci/*' 'devtools/*' | grep -v -x -e 'devtools/lint_words.py' -e 'devtools/lint.sh')
if [ ${#word_files[@]} -gt 0 ]; then
	if ! out=$(python3 devtools/lint_words.py "${word_files[@]}" 2>&1); then
		printf '%s\n' "$out" >&2
		problem "docs and comments above refer to work logs or to files outside the" \
			"repository: describe the product as it is and point to docs/ (devtools/lint_words.py)"
	fi
fi

if [ $fail -ne 0 ]; then
	echo "lint: FAILED" >&2
	exit 1
fi
echo "lint: OK (${#cfiles[@]} C files, ${#spdx_files[@]} SPDX files)"

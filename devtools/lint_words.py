#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Words that have no place in the docs or in code comments (devtools/lint.sh, check 5).

The docs describe the product as it is now, and code comments point to docs/: neither
refers to files outside the repository (the design notes it was built from), to work
logs (a "session", an "issue" by number), to branches, to paths of a development
machine or to internal source ids. Every Markdown file is read whole; in C files only
comments, in Python files comments and string literals, in shell, meson and YAML files
the text after '#'; a page of docs/ a comment names must exist. Prints FILE:LINE: what, and the line; exits 1 on any.

Usage: lint_words.py FILE...
"""

import io
import os
import re
import sys
import tokenize

WORDS = r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)"
SESSION = "a work session: say what is, not when it was done"
# In Markdown only: code talks of a protocol's "second session" (FPM, BGP) in its messages.
MD_RULES = [(re.compile(r"\b" + WORDS + r"\s+session\b", re.I), SESSION)]
# A comment that points to a page of docs/ names one that exists (run from the top).
DOCS_PAGE = re.compile(r"(?<![\w/.-])docs/[\w/.-]+?\.md\b")
RULES = [
    (re.compile(r"\b(?:DESIGN|CLI|CONFIG|PROTOCOLS|ROUTING|LINK|EXPERIMENTS|STYLE|ARCHITECTURE)\.md\b"),
     "a file outside the repository: point to the page under docs/"),
    (re.compile(r"\.\./shared\b|(?<![\w/.-])shared/[A-Z]"), "a file outside the repository: point to docs/"),
    (re.compile(r"\bsession\s+\d+", re.I), SESSION),
    (re.compile(r"\b\d+(?:st|nd|rd|th)\s+session\b", re.I), SESSION),
    (re.compile(r"\bissues?\s+#?\d+", re.I), "an issue number: say what is, not which ticket asked for it"),
    (re.compile(r"\bthe\s+issue['’]s\b", re.I), "an issue's wording: say what is"),
    (re.compile(r"\bidx:\d"), "an internal source id: cite the paper, RFC or specification"),
    (re.compile(r"\bs\d+-[a-z][a-z0-9-]*\b"), "a branch name"),
    (re.compile(r"\bbranch(?:es)?\s+[`'\"][^`'\"]+[`'\"]"), "a branch name"),
    (re.compile(r"(?<![\w.])/(?:work|home)/\w"), "a path of a development machine"),
]


def c_comments(text):
    """(line, text) of every comment of a C file, strings and characters skipped."""
    out = []
    pat = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    for m in pat.finditer(text):
        s = m.group(0)
        if s.startswith("/"):
            line = text.count("\n", 0, m.start()) + 1
            for i, part in enumerate(s.split("\n")):
                out.append((line + i, part))
    return out


def py_comments(text):
    """(line, text) of every comment and string literal of a Python file."""
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.COMMENT, tokenize.STRING):
                for i, part in enumerate(tok.string.split("\n")):
                    out.append((tok.start[0] + i, part))
    except (tokenize.TokenError, SyntaxError):
        return hash_comments(text)
    return out


def hash_comments(text):
    """(line, text after an unquoted '#') of a shell, meson or YAML file."""
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        m = re.search(r"(?:^|\s)#(.*)$", line)
        if m:
            out.append((n, m.group(1)))
    return out


def parts(path, text):
    if path.endswith(".md"):
        return list(enumerate(text.split("\n"), 1))
    if path.endswith((".c", ".h")):
        return c_comments(text)
    if path.endswith(".py"):
        return py_comments(text)
    return hash_comments(text)


def main(files):
    bad = 0
    for path in files:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        lines = text.split("\n")
        seen = set()
        rules = RULES + (MD_RULES if path.endswith(".md") else [])
        for n, part in parts(path, text):
            for page in ([] if path.endswith(".md") else DOCS_PAGE.findall(part)):
                if not os.path.exists(page):
                    print(f"{path}:{n}: {page} does not exist: {lines[n - 1].strip()[:160]}")
                    bad += 1
            for rx, what in rules:
                if rx.search(part) and (n, what) not in seen:
                    seen.add((n, what))
                    print(f"{path}:{n}: {what}: {lines[n - 1].strip()[:160]}")
                    bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""The sizes a reader can hold (make layout; make unit and make test run it):
no file of src/ over 800 lines, no function over 120. A file or a function
that grows past them is split by what it does, not to pass a count.

A function is what .clang-format makes of one (BreakBeforeBraces: Linux):
its body opens with a '{' alone at column 0 and closes with the next '}'
at column 0; its name is the word before the first '(' of the signature
above, attributes aside. Ends with "sizes: N passed, N failed"."""
import glob
import os
import re
import sys

MAX_FILE = 800
MAX_FUNCTION = 120
# Functions allowed past MAX_FUNCTION, each with why: one that is gone or
# back under the limit fails, so the list cannot outlive its reason.
ALLOWED = {
    # The response parser's explicit state switch (picohttpparser's shape),
    # on the hot path: one loop over the bytes, its states side by side.
    ("src/base/http_parse.c", "feed"): "the response parser's state switch",
}


def functions(path):
    """(name, first line, lines) of each function of a C file."""
    lines = open(path, errors="replace").read().split("\n")
    out, start, name = [], None, None
    for i, line in enumerate(lines):
        if line == "{" and start is None:
            sig, j = "", i - 1
            # The signature: the lines above, up to the one that starts it.
            while j >= 0 and lines[j] and not lines[j].startswith(("}", "#", "/*", " *", "//")):
                sig = lines[j] + " " + sig
                if re.match(r"[A-Za-z_]", lines[j]) and "(" in lines[j]:
                    break
                j -= 1
            sig = re.sub(r"__attribute__\s*\(\(.*?\)\)", " ", sig)
            m = re.search(r"(\w+)\s*\(", sig)
            start, name = i, m.group(1) if m else "?"
        elif line.startswith("}") and start is not None:
            out.append((name, start + 1, i - start + 1))
            start = None
    return out


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    passed = failed = 0
    seen = set()
    for path in sorted(glob.glob("src/*/*.[ch]")):
        n = open(path, errors="replace").read().count("\n")
        if n > MAX_FILE:
            print("sizes: %s has %d lines (at most %d): split it by what it does" % (path, n, MAX_FILE))
            failed += 1
        else:
            passed += 1
        if not path.endswith(".c"):
            continue
        for name, at, length in functions(path):
            if length <= MAX_FUNCTION:
                continue
            if (path, name) in ALLOWED:
                seen.add((path, name))
                continue
            print("sizes: %s:%d: %s has %d lines (at most %d): split it by what it does" %
                  (path, at, name, length, MAX_FUNCTION))
            failed += 1
    for key, why in sorted(ALLOWED.items()):
        if key not in seen:
            print("sizes: %s's %s (%s) is gone or within %d lines: take it out of ALLOWED" %
                  (key[0], key[1], why, MAX_FUNCTION))
            failed += 1
    print("sizes: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

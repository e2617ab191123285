#!/usr/bin/env python3
"""Reports the unit programs that tests/run.sh ran at once, in their order.

usage: units_report.py DIR PROGRAM...

DIR holds each program's output (its path with / as _) and exit status
(the same name, .rc). For each: its failure lines, its last line; then a
last line "N M": the checks passed and failed, counted as run.sh counts
(a program that exits non-zero without a failed count is one failure).
One process for all of them: run.sh's shell pipes took 6 s for 225."""
import os
import re
import sys

COUNT = re.compile(r"[0-9]+ passed, [0-9]+ failed")


def main():
    folder, programs = sys.argv[1], sys.argv[2:]
    passed = failed = 0
    for prog in programs:
        name = os.path.join(folder, prog.replace("/", "_"))
        try:
            with open(name, errors="replace") as f:
                out = f.read().rstrip("\n")
        except OSError:
            out = ""
        try:
            with open(name + ".rc") as f:
                rc = int(f.read().strip())
        except (OSError, ValueError):
            rc = 1
        lines = out.split("\n")
        for line in [l for l in lines if re.search(r"FAIL|CHECK|Sanitizer|runtime error", l)][:60]:
            print(line)
        print(lines[-1])
        counted = [l for l in lines if COUNT.search(l)]
        if counted:
            passed += int(re.findall(r"([0-9]+) passed", counted[-1])[-1])
            failed += int(re.findall(r"([0-9]+) failed", counted[-1])[-1])
        else:
            failed += 1
        if rc != 0 and not re.search(r"[1-9][0-9]* failed", out):
            print("FAILED (exit %d): %s" % (rc, prog))
            failed += 1
    print("%d %d" % (passed, failed))


main()

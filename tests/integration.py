#!/usr/bin/env python3
"""Integration tests: the real rafale binary against `rafale serve` and
against small misbehaving servers, checking rafale's JSON against what the
servers themselves counted. Only 127.0.0.1 / ::1 are ever contacted, and
every load run is bounded by -n or -d and by a subprocess timeout.

The tests live by area in tests/integ/ (client, serve, http2, workloads,
report, compare, distributed); tests/integ/common.py holds the servers and
helpers they share. This runner runs them all, or those whose name holds
$ONLY, or those of the areas in $AREA (comma-separated), and ends with
"N passed, N failed".

usage: integration.py [--sanitized] PATH/TO/rafale
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "integ"))
import common  # noqa: E402

AREAS = ["client", "serve", "http2", "workloads", "report", "compare", "distributed", "findings"]


def main():
    args = sys.argv[1:]
    if args and args[0] == "--sanitized":
        common.SANITIZED = True
        args = args[1:]
    common.RAFALE = os.path.abspath(args[0] if args else "./rafale")
    # The areas read RAFALE and SANITIZED when imported: after they are set.
    wanted = [a for a in os.environ.get("AREA", "").split(",") if a] or AREAS
    modules = {a: __import__(a) for a in AREAS}
    name = "integration" + (" (sanitized)" if common.SANITIZED else "")
    only = os.environ.get("ONLY")
    for t in common.TESTS:
        if only and only not in t.__name__:
            continue
        if not any(t.__module__ == modules[a].__name__ for a in wanted):
            continue
        before = common.FAILED
        t0 = time.monotonic()
        try:
            t()
        except Exception as e:  # a crashing test is a failed test, and the rest still run
            common.check(False, "%s raised %r" % (t.__name__, e))
        common.stop_leftover_serves()  # a test that raised half-way leaves no server running
        print("%-45s %s (%.1fs)" % (t.__name__, "ok" if common.FAILED == before else "FAILED",
                                    time.monotonic() - t0), flush=True)
    print("%s: %d passed, %d failed" % (name, common.PASSED, common.FAILED))
    return 1 if common.FAILED else 0


if __name__ == "__main__":
    sys.exit(main())

#!/bin/sh
# Runs every test: unit tests (plain, ASan+UBSan and clang's integer
# sanitizer builds), the layout check, then the integration tests against the
# plain and the sanitized binary in one parallel pool
# (tests/integration.py), and ends with the total line "N passed, N failed".
#
#   tests/run.sh            everything (make test)
#   tests/run.sh --unit     the unit tests and the layout check (make unit)
#   T=NAME tests/run.sh     the unit programs and integration tests whose
#                           name holds NAME (a unit program's path does:
#                           build/tests/FOLDER/test_MODULE; make test T=NAME)
#   JOBS=N                  at most N integration tests at once (default 4 per
#                           CPU, while their CPU shares fit the CPUs)
cd "$(dirname "$0")/.." || exit 1
pass=0
fail=0
# Every failure line, kept to be said again just before the total: a log
# kept by its tail (CI's) still names what failed, a unit program too.
recap=$(mktemp)
trap 'rm -f "$recap"' EXIT
tally() { # $1: output of a test program
    line=$(printf '%s\n' "$1" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -n 1)
    p=$(printf '%s' "$line" | sed -E 's/.*[^0-9]([0-9]+) passed.*/\1/; s/^([0-9]+) passed.*/\1/')
    f=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    [ -n "$p" ] || p=0
    [ -n "$f" ] || f=1
    pass=$((pass + p))
    fail=$((fail + f))
}
run() { # $@: command
    out=$("$@" 2>&1)
    show $? "$*"
}
show() { # $1: exit status, $2: the command; $out: its output
    rc=$1
    # Every failure line, then the summary line.
    printf '%s\n' "$out" | grep -E 'FAIL|CHECK|Sanitizer|runtime error' | head -n 60 | tee -a "$recap"
    printf '%s\n' "$out" | tail -n 1
    tally "$out"
    if [ $rc -ne 0 ] && ! printf '%s' "$out" | grep -qE '[1-9][0-9]* failed'; then
        echo "FAILED (exit $rc): $2" | tee -a "$recap"
        fail=$((fail + 1))
    fi
}

unit_only=0
[ "$1" = "--unit" ] && unit_only=1
# The unit programs, as many at once as CPUs (each is one process that
# waits on nothing), their outputs shown in this order once all are done.
units=$(for t in build/tests/*/test_* build/asan/tests/*/test_* build/int/test_*; do
    [ -x "$t" ] || continue
    case "$t" in *.d) continue ;; *"$T"*) echo "$t" ;; esac
done)
if [ -n "$units" ]; then
    dir=$(mktemp -d)
    printf '%s\n' $units | xargs -P "$(nproc)" -I{} sh -c \
        'n=$(printf %s "$1" | tr / _); "$1" >"$2/$n" 2>&1; echo $? >"$2/$n.rc"' _ {} "$dir"
    python3 tests/units_report.py "$dir" $units >"$dir/report"
    sed '$d' "$dir/report"
    sed '$d' "$dir/report" | grep -E 'FAIL|CHECK|Sanitizer|runtime error' >>"$recap"
    set -- $(tail -n 1 "$dir/report")
    pass=$((pass + ${1:-0}))
    fail=$((fail + ${2:-1}))
    rm -rf "$dir"
fi
# The layout: no circle between modules (calls, used includes), includes
# only of folders the Makefile lets one see, private headers kept home.
[ -n "$T" ] || run sh scripts/check_layout.sh
# The sizes: files of 800 lines at most, functions of 120.
[ -n "$T" ] || run python3 scripts/check_sizes.py
if [ $unit_only -eq 0 ] && [ -f tests/integration.py ]; then
    # Streamed as the tests end (a long pool shows progress); the closing line
    # is tallied from the copy.
    log=$(mktemp)
    # A full run writes each test's times, for tests/integ/times (copied
    # there now and then: its shares schedule the pool).
    times=
    [ -n "$T" ] || times="--times build/integ-times"
    { python3 tests/integration.py ${T:+-k "$T"} ${JOBS:+-j "$JOBS"} $times \
        --plain ./rafale --sanitized ./build/asan/rafale 2>&1; echo "rc $?" >>"$log.rc"; } | tee "$log"
    rc=$(sed -n 's/^rc //p' "$log.rc")
    grep -E '^[^ ].* FAILED \(|^  FAIL: ' "$log" >>"$recap"
    out=$(tail -n 1 "$log")
    tally "$out"
    if [ $rc -ne 0 ] && ! printf '%s' "$out" | grep -qE '[1-9][0-9]* failed'; then
        echo "FAILED (exit $rc): tests/integration.py" | tee -a "$recap"
        fail=$((fail + 1))
    fi
    rm -f "$log" "$log.rc"
fi
if [ $((pass + fail)) -eq 0 ]; then
    echo "no test's name holds '$T'"
    fail=1
fi
if [ -s "$recap" ]; then
    echo "what failed, again:"
    head -n 40 "$recap"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

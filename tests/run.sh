#!/bin/sh
# Runs every test: unit tests (plain and ASan+UBSan builds), then the
# integration tests against the real binary (plain and sanitized), and ends
# with the total line "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
pass=0
fail=0
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
    rc=$?
    # Every failure line, then the summary line.
    printf '%s\n' "$out" | grep -E 'FAIL|CHECK|Sanitizer|runtime error' | head -n 60
    printf '%s\n' "$out" | tail -n 1
    tally "$out"
    if [ $rc -ne 0 ] && ! printf '%s' "$out" | grep -qE '[1-9][0-9]* failed'; then
        echo "FAILED (exit $rc): $*"
        fail=$((fail + 1))
    fi
}

for t in build/test_*; do
    [ -x "$t" ] && run "$t"
done
for t in build/asan/test_*; do
    [ -x "$t" ] && run "$t"
done
for t in build/int/test_*; do
    [ -x "$t" ] && run "$t"
done
# The layout: no call circle between files, private headers kept home.
run sh scripts/check_layout.sh
if [ -f tests/integration.py ]; then
    run python3 tests/integration.py ./rafale
    run python3 tests/integration.py --sanitized ./build/asan/rafale
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

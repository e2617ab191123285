#!/bin/sh
# make perf-check: instructions per request of a fixed keep-alive run
# (rafale -t 1 -c 50 -n 20000 against rafale serve on 127.0.0.1, less one of
# 2000 requests: what a run costs once), counted by
# callgrind: unlike time, the count does not move with a noisy machine, so a
# regression on the hot path shows. Compares with bench/perf-check.ref and
# fails when the count is more than 10% above it.
set -e
cd "$(dirname "$0")/.."
sh scripts/deps.sh valgrind
make -s rafale
n=20000
out=$(mktemp -d /tmp/rafale-perf.XXXXXX)
trap 'kill $srv 2>/dev/null; rm -rf "$out"' EXIT
./rafale serve --listen 127.0.0.1:0 -t 1 > "$out/serve.txt" 2>/dev/null &
srv=$!
for _ in $(seq 100); do
    grep -q listening "$out/serve.txt" 2>/dev/null && break
    sleep 0.05
done
addr=$(sed -n 's/^listening on \([^ ]*\).*/\1/p' "$out/serve.txt")
# Twice, n and n0 requests: the difference is the requests' own work, with
# what a run costs once (the dynamic linker resolving OpenSSL, nghttp2 and,
# built with HTTP/3, GnuTLS, ngtcp2 and nghttp3; threads; the report) taken
# out, so a library linked in does not read as a slower request.
n0=2000
valgrind --tool=callgrind --callgrind-out-file="$out/cg0.out" ./rafale -q -t 1 -c 50 -n $n0 "http://$addr/" \
    2> "$out/vg0.txt" >/dev/null
valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" ./rafale -q -t 1 -c 50 -n $n "http://$addr/" \
    2> "$out/vg.txt" >/dev/null
total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/vg.txt")
total0=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/vg0.txt")
[ -n "$total" ] && [ -n "$total0" ] || { cat "$out/vg0.txt" "$out/vg.txt" >&2; exit 1; }
# The parser's own lines, wherever link-time optimization inlined them.
parse=$(callgrind_annotate "$out/cg.out" 2>/dev/null | grep -E ' src/base/http_(parse\.c|lex\.h):' |
        sed 's/^ *\([0-9,]*\) .*/\1/' | tr -d , | awk '{ s += $1 } END { print s + 0 }')
per=$(((total - total0) / (n - n0)))
ref=$(cat bench/perf-check.ref)
echo "perf-check: $per instructions per request (rafale -t 1 -c 50, -n $n less -n $n0, against rafale serve; callgrind, user space);" \
     "of which the response parser: $((parse / n)); reference $ref"
if [ "$per" -gt $((ref * 11 / 10)) ]; then
    echo "perf-check: more than 10% above the reference ($ref): a regression on the hot path" >&2
    exit 1
fi

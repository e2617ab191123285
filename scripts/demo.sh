#!/bin/sh
# make demo: start `rafale serve` on a free loopback port, benchmark it for
# 5 seconds, print the report, then 3 seconds over HTTP/2 and, when this
# rafale was built with HTTP/3, 3 seconds over HTTP/3 (the headline lines),
# stop the server.
set -e
cd "$(dirname "$0")/.."
out=$(mktemp)
h3=
if ! ./rafale --http3 -q -n 1 https://127.0.0.1:1/ 2>&1 | grep -q 'built without HTTP/3'; then
    h3=--http3
fi
./rafale serve --listen 127.0.0.1:0 -t 1 $h3 >"$out" 2>/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$out"' EXIT INT TERM
i=0
while ! grep -q '^listening on' "$out"; do
    i=$((i + 1))
    if [ $i -gt 100 ] || ! kill -0 $pid 2>/dev/null; then
        echo "demo: rafale serve did not start" >&2
        exit 1
    fi
    sleep 0.05
done
addr=$(sed -n 's/^listening on \([^ ]*\).*/\1/p' "$out")
echo "demo: rafale serve is listening on $addr; 5 s of load, 50 keep-alive connections:"
echo "      ./rafale -t 1 -c 50 -d 5s http://$addr/"
echo
./rafale -t 1 -c 50 -d 5s "http://$addr/"
echo
echo "demo: the same server over HTTP/2 (h2c, 10 streams per connection), 3 s:"
echo "      ./rafale --http2 --streams 10 -t 1 -c 50 -d 3s http://$addr/"
echo
./rafale --http2 --streams 10 -t 1 -c 50 -d 3s -q "http://$addr/" | grep -E '^(Requests|Throughput|HTTP/2|Latency +min|  total|Errors)'
if [ -n "$h3" ]; then
    echo
    echo "demo: the same server over HTTP/3 (QUIC on UDP, the same port; its certificate is self-signed), 3 s:"
    echo "      ./rafale --http3 --insecure --streams 10 -t 1 -c 50 -d 3s https://$addr/"
    echo
    ./rafale --http3 --insecure --streams 10 -t 1 -c 50 -d 3s -q "https://$addr/" |
        grep -E '^(Requests|Throughput|QUIC|Latency +min|  total|Errors)'
fi

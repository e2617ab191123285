#!/bin/sh
# make bench: installs the peers from Debian (wrk, ab, h2load, nginx, GNU
# time, strace) when missing, builds rafale, and runs bench/peers.py.
set -e
cd "$(dirname "$0")/.."
missing=""
for p in wrk apache2-utils nghttp2-client nginx-light time strace python3; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "bench: installing$missing"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    else
        echo "bench: missing Debian packages:$missing; run: sudo apt-get install -y$missing" >&2
        exit 1
    fi
fi
make -s rafale
exec python3 bench/peers.py "$@"

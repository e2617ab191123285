#!/bin/sh
# make bench: installs the peers from Debian (wrk, ab, h2load, nginx, GNU
# time, strace) when missing, builds rafale, and runs bench/peers.py.
set -e
cd "$(dirname "$0")/.."
sh scripts/deps.sh wrk apache2-utils nghttp2-client nginx-light time strace openssl python3 gcc make libssl-dev libjansson-dev libnghttp2-dev
make -s rafale
exec python3 bench/peers.py "$@"

#!/bin/sh
# make bench: installs the peers from Debian (wrk, ab, h2load, nginx, GNU
# time, strace) when missing, builds rafale, and runs bench/peers.py.
set -e
cd "$(dirname "$0")/.."
sh scripts/deps.sh wrk apache2-utils nghttp2-client nginx-light time strace openssl python3 gcc make libssl-dev libjansson-dev libnghttp2-dev
make -s rafale build/floor
# The io_uring floor where liburing is there (make bench says when it is not).
make -s build/floor_uring 2>/dev/null || true
exec python3 bench/peers.py "$@"

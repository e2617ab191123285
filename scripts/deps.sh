#!/bin/sh
# Installs Debian packages when missing: the ones given as arguments, or by
# default those rafale needs to build and test. As root it runs apt-get;
# otherwise it prints the exact command and fails.
# (chromium: make test renders the HTML report in a headless browser;
# clang: make test runs the parsers' tests under its integer sanitizer;
# mpich, libmpich-dev: make test builds and runs rafale-mpi; iproute2: the
# shards' test puts each in a network namespace of its own; nginx: the
# findings' tests check that a healthy nginx gives no warning; iptables:
# they drop SYNs and packets at random in a namespace of their own;
# dpkg-dev, fakeroot: make deb, and the test that builds the package;
# python3-prometheus-client: the metrics test parses a scrape with it;
# zsh, fish: the completion test completes in each shell; tcpdump: the
# latency test and bench/wire_latency.py hold rafale's figures against a
# packet capture; libngtcp2-dev, libngtcp2-crypto-gnutls-dev,
# libnghttp3-dev, libgnutls28-dev: HTTP/3, and ngtcp2-server, ngtcp2-client:
# ngtcp2's own peers its tests talk to.)
set -e
need="$*"
[ -n "$need" ] || need="gcc make libc6-dev libssl-dev libjansson-dev libnghttp2-dev openssl python3 chromium clang mpich libmpich-dev iproute2 nginx iptables dpkg-dev fakeroot python3-prometheus-client zsh fish tcpdump libngtcp2-dev libngtcp2-crypto-gnutls-dev libnghttp3-dev libgnutls28-dev ngtcp2-server ngtcp2-client"
missing=""
for p in $need; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    # No service starts at install (nginx would take port 80): the tests
    # start their own, on loopback ports of their choosing.
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
        trap 'rm -f /usr/sbin/policy-rc.d' EXIT
    fi
    apt-get update -qq && apt-get install -y -qq $missing >/dev/null
else
    echo "deps: missing Debian packages:$missing" >&2
    echo "deps: run: sudo apt-get install -y$missing" >&2
    exit 1
fi

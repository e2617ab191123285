#!/bin/sh
# make deb: rafale_VERSION_ARCH.deb from the built binaries, with Depends
# (and, for rafale-mpi when it is built, Recommends) found by dpkg-shlibdeps
# from the libraries they link.
#
# usage: sh scripts/deb.sh [OUT_DIR]   (after make rafale; OUT_DIR default .)
set -e
umask 022 # the package's folders and files as Debian wants them, whatever the caller's umask
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(cd "${1:-.}" && pwd)
cd "$root"
version=$(./rafale --version | awk '{print $2}')
arch=$(dpkg --print-architecture)
stage=$(mktemp -d /tmp/rafale-deb.XXXXXX)
trap 'rm -rf "$stage"' EXIT
pkg=$stage/rafale_${version}_$arch
install -s -D -m 755 rafale "$pkg/usr/bin/rafale"
mpi=
# rafale-mpi only when it is as new as rafale: an old build is not packaged.
if [ -x rafale-mpi ] && [ ! rafale-mpi -ot rafale ]; then
    install -s -D -m 755 rafale-mpi "$pkg/usr/bin/rafale-mpi"
    mpi=$pkg/usr/bin/rafale-mpi
fi
install -d "$pkg/usr/share/man/man1" "$pkg/usr/share/bash-completion/completions" \
    "$pkg/usr/share/fish/vendor_completions.d" "$pkg/usr/share/zsh/vendor-completions" "$pkg/usr/share/doc/rafale"
gzip -9n < rafale.1 > "$pkg/usr/share/man/man1/rafale.1.gz"
./rafale completion bash > "$pkg/usr/share/bash-completion/completions/rafale"
./rafale completion zsh > "$pkg/usr/share/zsh/vendor-completions/_rafale"
./rafale completion fish > "$pkg/usr/share/fish/vendor_completions.d/rafale.fish"
install -m 644 README.md "$pkg/usr/share/doc/rafale/README.md"
cat > "$pkg/usr/share/doc/rafale/copyright" <<COPY
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: rafale

Files: *
Copyright: 2026 The rafale developers
License: none-chosen
 The project has not chosen a license yet; until it does, no right beyond
 running this package is granted.
COPY
printf 'rafale (%s) unstable; urgency=medium\n\n  * Built by make deb.\n\n -- The rafale developers <rafale@localhost>  %s\n' \
    "$version" "$(date -R)" | gzip -9n > "$pkg/usr/share/doc/rafale/changelog.Debian.gz"
chmod 644 "$pkg"/usr/share/*/*/* "$pkg"/usr/share/*/*/*/* 2>/dev/null || true
# dpkg-shlibdeps reads a debian/control of the source it works for.
mkdir -p "$stage/debian"
printf 'Source: rafale\n\nPackage: rafale\nArchitecture: any\n' > "$stage/debian/control"
deps=$(cd "$stage" && dpkg-shlibdeps -O "-e$pkg/usr/bin/rafale" ${mpi:+"-dRecommends" "-e$mpi"} 2>/dev/null)
depends=$(printf '%s\n' "$deps" | sed -n 's/^shlibs:Depends=//p')
recommends=$(printf '%s\n' "$deps" | sed -n 's/^shlibs:Recommends=//p')
[ -n "$depends" ] || { echo "deb: dpkg-shlibdeps found no dependency" >&2; exit 1; }
size=$(du -sk "$pkg" | awk '{print $1}')
mkdir -p "$pkg/DEBIAN"
{
    echo "Package: rafale"
    echo "Version: $version"
    echo "Architecture: $arch"
    echo "Maintainer: The rafale developers <rafale@localhost>"
    echo "Installed-Size: $size"
    echo "Depends: $depends"
    [ -z "$recommends" ] || echo "Recommends: $recommends"
    echo "Section: net"
    echo "Priority: optional"
    echo "Description: HTTP load tester and built-in target server"
    echo " rafale measures how many requests per second a web server takes, with"
    echo " what latency, keep-alive or not, closed-loop or at a constant rate, and"
    echo " says why its numbers look as they do; rafale compare benchmarks several"
    echo " servers side by side with confidence intervals."
} > "$pkg/DEBIAN/control"
fakeroot dpkg-deb --build --root-owner-group "$pkg" "$out/rafale_${version}_$arch.deb" >/dev/null
echo "$out/rafale_${version}_$arch.deb"

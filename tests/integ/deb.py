"""Integration tests: make deb: the Debian package installs and runs."""
from common import *  # noqa: F401,F403 (the runner sets RAFALE first)


@test
def deb_package_installs_and_runs():
    if SANITIZED:
        print("  (the package is of the plain build: checked once)")
        return
    root = os.path.dirname(os.path.dirname(os.path.abspath(RAFALE)))
    if not os.path.exists(os.path.join(root, "scripts", "deb.sh")):
        root = os.path.dirname(os.path.abspath(RAFALE))
    out = os.path.join(TMP, "deb")
    os.makedirs(out, exist_ok=True)
    # Under a restrictive umask too (the control folder must still be 755).
    p = subprocess.run(["sh", "-c", "umask 077; sh '%s' '%s'" % (os.path.join(root, "scripts", "deb.sh"), out)],
                       capture_output=True, text=True, timeout=300, cwd=root)
    deb = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    check(p.returncode == 0 and deb.endswith(".deb"), "deb: built (%s)" % p.stderr[-300:])
    if not os.path.exists(deb):
        return
    files = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True).stdout
    for f in ("./usr/bin/rafale", "./usr/share/man/man1/rafale.1.gz", "./usr/share/bash-completion/completions/rafale",
              "./usr/share/fish/vendor_completions.d/rafale.fish", "./usr/share/zsh/vendor-completions/_rafale",
              "./usr/share/doc/rafale/copyright", "./usr/share/doc/rafale/README.md"):
        check(f in files, "deb: holds %s" % f)
    info = subprocess.run(["dpkg-deb", "-f", deb, "Package", "Version", "Depends"], capture_output=True, text=True).stdout
    check("Package: rafale" in info and "libssl3" in info and "libjansson4" in info and "libnghttp2" in info and
          "libc6 (>=" in info, "deb: Depends from the libraries it links (%s)" % info)
    # Installed into a scratch root: it runs from there, its man page and completion in place.
    dest = os.path.join(TMP, "debroot")
    subprocess.run(["dpkg-deb", "-x", deb, dest], check=True)
    v = subprocess.run([os.path.join(dest, "usr", "bin", "rafale"), "--version"], capture_output=True, text=True)
    want = subprocess.run([RAFALE, "--version"], capture_output=True, text=True).stdout
    check(v.returncode == 0 and v.stdout == want and os.path.basename(deb).startswith("rafale_" + want.split()[1]),
          "deb: the installed rafale runs (%r)" % v.stdout)
    if shutil.which("lintian"):
        l = subprocess.run(["lintian", "--no-tag-display-limit", deb], capture_output=True, text=True, timeout=300)
        errors = [x for x in l.stdout.splitlines() if x.startswith("E:")]
        print("  lintian: %d errors" % len(errors))

#!/usr/bin/env python3
"""Integration tests: the real rafale binary against `rafale serve` and
against small misbehaving servers, checking rafale's JSON against what the
servers themselves counted. Only 127.0.0.1 / ::1 are ever contacted, and
every load run is bounded by -n or -d and by a subprocess timeout.

The tests live by area in tests/integ/AREA.py (client, serve, http2,
http3, workloads, replay, report, monitor, metrics: --metrics-listen, log:
--log, diff, calibrate, compare, distributed, findings, wire, completion,
deb: make deb, build: make itself, evidence, layout: make layout's rules
bite, and terminal: the views on a pseudo-terminal); tests/integ/common.py
holds the servers and helpers they share.

Tests run in a pool of processes: each test is forked from this runner with
a temporary directory, a process group and a leftover mark of its own, its
output kept and printed whole if it fails. Most tests wait (on servers, on
timeouts, on fixed-length runs): measured, the pool's tests used a CPU a
quarter of their time. So the pool is as wide as their CPU allows: each
test's share of a CPU (its CPU time over its wall time, and the CPU time of
what it ran and waited for) is kept in tests/integ/times from a full run,
and tests start, longest first, while the running ones' shares add up to
no more than the CPUs other processes leave (measured before the start: a
CPU-bound process beside the suite leaves one of two), at most -j at once
(a test not in the file counts a whole CPU). A test that measures CPU time
or needs a CPU to itself is marked @alone: those run one at a time after
the pool, with nothing beside them, and in the plain build only: what they
measure (time, CPU, a rate held) under ASan is the sanitizer's, and the
code they go through runs under ASan in the pool (compare, diff, sweep,
shards, -R, --warmup, the findings) and in the unit tests.
The same test never runs in both builds at once (a test may name a network
namespace or a cgroup after itself).

usage: integration.py [-j N] [-k NAME] [--durations N] [--times FILE]
                      [--plain PATH] [--sanitized PATH] [PATH]

  PATH / --plain PATH   the plain rafale build (default ./rafale unless
                        only --sanitized is given)
  --sanitized PATH      the ASan+UBSan build: its tests run in the same pool
  -j N                  at most N tests at once (default: 4 per CPU; $JOBS
                        also sets it); -j 1 runs them one by one
  -k NAME               only the tests whose name holds NAME ($ONLY too;
                        $AREA=client,serve keeps those areas)
  --durations N         list the N slowest tests at the end (default 20)
  --times FILE          write each test's wall and CPU seconds to FILE
                        (tests/integ/times is such a file, from a full run)

Ends with "integration: N passed, N failed".
"""
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "integ"))
import common  # noqa: E402

AREAS = ["client", "serve", "http2", "http3", "workloads", "replay", "replay_compare", "replay_proof", "report", "monitor", "metrics", "log", "diff", "calibrate",
         "compare", "distributed", "findings", "wire", "completion", "deb", "build", "evidence", "layout", "terminal"]
TEST_TIMEOUT = 600  # seconds: a test still running then is a hang; its process group is killed
TIMES = os.path.join(HERE, "integ", "times")


def usage(msg):
    sys.stderr.write("integration.py: %s\n" % msg)
    sys.exit(2)


def parse(argv):
    opt = {"jobs": int(os.environ.get("JOBS") or 0) or 4 * len(os.sched_getaffinity(0)),
           "only": os.environ.get("ONLY", ""), "durations": 20, "plain": None, "sanitized": None, "times": None}
    i = 0
    while i < len(argv):
        a = argv[i]
        val = argv[i + 1] if i + 1 < len(argv) else None
        if a in ("-j", "-k", "--durations", "--plain", "--sanitized", "--times"):
            if val is None:
                usage("%s needs a value" % a)
            if a == "-j" or a == "--durations":
                if not val.isdigit() or (a == "-j" and int(val) < 1):
                    usage("%s: a positive number, not %r" % (a, val))
                opt["jobs" if a == "-j" else "durations"] = int(val)
            else:
                opt[{"-k": "only", "--plain": "plain", "--sanitized": "sanitized", "--times": "times"}[a]] = val
            i += 2
        elif a.startswith("-"):
            usage("unknown option %s" % a)
        else:
            opt["plain"] = a
            i += 1
    if opt["plain"] is None and opt["sanitized"] is None:
        opt["plain"] = "./rafale"
    return opt


def load_areas():
    """The area modules, imported once here: each forked test inherits them. Their names RAFALE, SANITIZED, TMP
    and MARK_TOKEN are copies (`from common import *`), so a test's own values are set in every module."""
    wanted = [a for a in os.environ.get("AREA", "").split(",") if a] or AREAS
    modules = [__import__(a) for a in AREAS]
    keep = {m.__name__ for m in modules if m.__name__ in wanted}
    return modules, [t for t in common.TESTS if t.__module__ in keep]


def run_child(t, binary, sanitized, modules, out_fd):
    """In the forked child: one test with state of its own; writes "passed failed" as its last line."""
    os.setpgid(0, 0)
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    sys.stdout = os.fdopen(1, "w", buffering=1)
    sys.stderr = sys.stdout
    tmp = tempfile.mkdtemp(prefix="rafale-it-")
    mark = "%d-%s" % (os.getpid(), os.urandom(6).hex())
    os.environ["RAFALE_IT_MARK"] = mark
    own = {"RAFALE": os.path.abspath(binary), "SANITIZED": sanitized, "TMP": tmp, "MARK_TOKEN": mark}
    for m in [common] + modules:
        for k, v in own.items():
            if k in vars(m):
                setattr(m, k, v)
    common.PASSED = common.FAILED = 0
    try:
        t()
    except Exception as e:  # a crashing test is a failed test
        traceback.print_exc()
        common.check(False, "%s raised %r" % (t.__name__, e))
    try:
        common.stop_leftover_serves()  # a test that raised half-way leaves no server running
    except Exception as e:
        common.check(False, "stopping %s's servers raised %r" % (t.__name__, e))
    if not common.FAILED:  # a failed test's files are kept for a look
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print("  (its files: %s)" % tmp)
    print("\n%d %d" % (common.PASSED, common.FAILED), flush=True)
    os._exit(0)


class Job:
    def __init__(self, t, mode, binary):
        self.t, self.mode, self.binary = t, mode, binary
        self.name = t.__name__ + (" [sanitized]" if mode == "sanitized" else "")
        self.out = None
        self.pid = None
        self.t0 = self.t1 = self.cpu = 0.0
        self.passed = self.failed = 0
        self.text = ""
        # From the times file: how long it ran, its share of a CPU. A test not in it starts first, counted a CPU.
        self.wall, self.share = float("inf"), 1.0


def load_times(jobs):
    """Each job's wall time and share of a CPU from the last full run's file, when it is there."""
    known = {}
    try:
        with open(TIMES) as fh:
            for line in fh:
                f = line.rstrip("\n").split(" ", 2)
                if len(f) == 3 and not line.startswith("#"):
                    known[f[2]] = (float(f[0]), float(f[1]))
    except (OSError, ValueError):
        return
    for j in jobs:
        if j.name in known:
            wall, cpu = known[j.name]
            j.wall, j.share = wall, min(1.0, cpu / max(wall, 0.1))


def save_times(jobs, path):
    with open(path, "w") as fh:
        fh.write("# wall_s cpu_s test: integration.py --times, from a full run (its shares schedule the pool)\n")
        for j in sorted(jobs, key=lambda j: j.name):
            fh.write("%.1f %.1f %s\n" % (j.t1 - j.t0, j.cpu, j.name))


def start(job, modules):
    sys.stdout.flush()
    job.out = tempfile.TemporaryFile()
    job.t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            run_child(job.t, job.binary, job.mode == "sanitized", modules, job.out.fileno())
        finally:
            os._exit(3)
    job.pid = pid
    try:
        os.setpgid(pid, pid)  # also done by the child: whichever comes first
    except OSError:
        pass


def finish(job, status):
    job.t1 = time.monotonic()
    try:
        os.killpg(job.pid, signal.SIGKILL)  # whatever the test left running
    except OSError:
        pass
    job.out.seek(0)
    job.text = job.out.read().decode("utf-8", "replace")
    job.out.close()
    tail = job.text.rstrip().rsplit("\n", 1)[-1].split()
    if len(tail) == 2 and all(x.isdigit() for x in tail):
        job.passed, job.failed = int(tail[0]), int(tail[1])
        job.text = job.text.rstrip().rsplit("\n", 1)[0] if "\n" in job.text.rstrip() else ""
    else:
        job.failed = max(job.failed, 1)
        job.text += "\n  FAIL: %s ended without its counts (status %s)" % (job.name, status)
    ok = job.failed == 0
    print("%-58s %s (%.1fs)" % (job.name, "ok" if ok else "FAILED", job.t1 - job.t0), flush=True)
    if not ok:
        print("---- output of %s ----\n%s\n---- end of %s ----" % (job.name, job.text.rstrip(), job.name),
              flush=True)


def alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except OSError:
        return False


def cpu_ticks():
    """The machine's busy ticks (user nice system, irq softirq steal) and all of them (with idle iowait), from
    /proc/stat; None where it cannot be read."""
    try:
        with open("/proc/stat") as fh:
            f = [int(x) for x in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    return sum(f[:3]) + sum(f[5:8]), sum(f[:8])


def busy_between(a, b):
    """How many CPUs were busy on average between two cpu_ticks() (0 where either is missing)."""
    if a is None or b is None:
        return 0.0
    return (os.cpu_count() or 1) * (b[0] - a[0]) / max(1, b[1] - a[1])


def busy_cpus(seconds=0.5):
    """How many CPUs other processes keep busy now, from /proc/stat over a moment (0 where it cannot be read)."""
    a = cpu_ticks()
    time.sleep(seconds)
    return busy_between(a, cpu_ticks())


def run_pool(jobs, width, modules, cpus):
    """Runs jobs, longest first, at most width at once and their shares within cpus, never one test in both
    builds at once."""
    pending, running = sorted(jobs, key=lambda j: -j.wall), {}
    # The shares were measured on one day; on a slower one a test's CPU grows while its waits do not, so shares
    # alone filled the machine (1.99 of 2 CPUs busy, and a 20-ms wait answered 1 ms late). So no test starts while
    # the machine was more than 85% busy over the last half second (95% still left it 1.90 busy on average).
    ticks, seen, full = cpu_ticks(), time.monotonic(), False
    while pending or running:
        if time.monotonic() - seen >= 0.5:
            now_ticks = cpu_ticks()
            full = busy_between(ticks, now_ticks) > 0.85 * (os.cpu_count() or 1)
            ticks, seen = now_ticks, time.monotonic()
        busy = {j.t for j in running.values()}
        load = sum(j.share for j in running.values())
        while len(running) < width and not (full and running):
            nxt = next((j for j in pending if j.t not in busy and (not running or load + j.share <= cpus)), None)
            if nxt is None:
                break
            pending.remove(nxt)
            start(nxt, modules)
            running[nxt.pid] = nxt
            busy.add(nxt.t)
            load += nxt.share
        pid, status, use = os.wait4(-1, os.WNOHANG)
        if pid == 0:
            time.sleep(0.02)  # polled: a timed wait for a child has no simpler portable form
        job = running.pop(pid, None)
        if job is not None:
            job.cpu = use.ru_utime + use.ru_stime  # the test's and what it ran and waited for
            finish(job, status)
        now = time.monotonic()
        for j in list(running.values()):
            if now - j.t0 > TEST_TIMEOUT:
                j.out.write(("\n  FAIL: %s still running after %d s: killed" % (j.name, TEST_TIMEOUT)).encode())
                os.killpg(j.pid, signal.SIGKILL)


def main():
    opt = parse(sys.argv[1:])
    modules, tests = load_areas()
    if opt["only"]:
        tests = [t for t in tests if opt["only"] in t.__name__]
    modes = [(m, opt[m]) for m in ("plain", "sanitized") if opt[m]]
    for _, b in modes:
        if not os.access(b, os.X_OK):
            usage("%s: not an executable" % b)
    jobs = [Job(t, m, b) for t in tests for m, b in modes if m == "plain" or not getattr(t, "alone", False)
            or len(modes) == 1]
    pool = [j for j in jobs if not getattr(j.t, "alone", False)]
    alone = [j for j in jobs if getattr(j.t, "alone", False)]
    load_times(jobs)
    # The CPUs the pool may fill: those other processes leave (a build or a CPU-bound process beside the suite:
    # its tests' shares then fit in what is left, and fewer run at once).
    cpus = len(os.sched_getaffinity(0))
    other = busy_cpus() if len(pool) > 1 else 0.0
    if other >= 0.5:
        print("integration: other processes keep %.1f of %d CPUs busy: the pool fills %.1f" %
              (other, cpus, max(1.0, cpus - other)), flush=True)
    cpus = max(1.0, cpus - other)
    t0 = time.monotonic()
    try:
        ticks, p0 = cpu_ticks(), time.monotonic()
        run_pool(pool, opt["jobs"], modules, cpus)
        if len(pool) > 1:
            # What it used of the machine (with any other process): the room left in it is wall time to take.
            print("integration: the pool ran %.0f s, the machine's %d CPUs %.2f busy on average" %
                  (time.monotonic() - p0, os.cpu_count() or 1, busy_between(ticks, cpu_ticks())), flush=True)
        run_pool(alone, 1, modules, cpus)
    except KeyboardInterrupt:
        # The tests are in process groups of their own: Ctrl-C reached only this runner. Passed on, so that what
        # they run (compare and its servers) stops as it would; what is left after 5 s is killed.
        left = [j for j in jobs if j.pid and not j.t1]
        for sig in (signal.SIGINT, signal.SIGKILL):
            for j in left:
                try:
                    os.killpg(j.pid, sig)
                except OSError:
                    pass
            until = time.monotonic() + 5
            while sig == signal.SIGINT and time.monotonic() < until and any(alive(j.pid) for j in left):
                time.sleep(0.05)
        print("integration: interrupted")
        return 130
    finally:
        shutil.rmtree(common.TMP, ignore_errors=True)  # made when common was imported; the tests have their own
    wall = time.monotonic() - t0
    if opt["durations"] and jobs:
        print("\nslowest tests (of %d, %d at once, %.0f s in all):" % (len(jobs), opt["jobs"], wall))
        for j in sorted(jobs, key=lambda j: j.t1 - j.t0, reverse=True)[:opt["durations"]]:
            print("  %6.1fs %6.1fs cpu  %s%s" % (j.t1 - j.t0, j.cpu, j.name,
                                               " (alone)" if getattr(j.t, "alone", False) else ""))
    if opt["times"]:
        save_times(jobs, opt["times"])
    passed = sum(j.passed for j in jobs)
    failed = sum(j.failed for j in jobs)
    if not jobs:
        print("integration: no test's name holds %r" % opt["only"])
    names = "+".join(m for m, _ in modes)
    print("integration (%s): %d passed, %d failed" % (names, passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

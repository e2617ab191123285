"""rafale replay's evidence (issue 43): a log far larger than memory streams through a FIFO in bounded memory,
every line counted."""
import json
import os
import threading

import common
from common import *

T0 = 1700000000.0


def json_line(t, method, uri):
    return json.dumps({"msec": "%.3f" % t, "request_method": method, "request_uri": uri, "status": 200})


def fifo_writer(fifo, total, gets, said):
    """Writes a generated log of about `total` bytes into fifo: POST lines (replay skips them without a request),
    a GET first and `gets` - 1 more spread through it. said: the lines written, by method, or the error met."""
    post = (json_line(T0, "POST", "/api/v1/orders/12345?x=1") + "\n").encode()
    per = (1 << 20) // len(post)
    block = post * per
    nblocks = max(1, total // len(block))
    every = max(1, nblocks // (gets - 1))
    n_post = n_get = size = 0
    try:
        with open(fifo, "wb", buffering=0) as w:
            for b in range(nblocks + 1):
                if n_get < gets and (b == 0 or b % every == 0 or b == nblocks):
                    size += w.write((json_line(T0 + n_get * 0.01, "GET", "/g/%d" % n_get) + "\n").encode())
                    n_get += 1
                if b < nblocks:
                    size += w.write(block)
                    n_post += per
    except OSError as e:
        said["error"] = repr(e)
    said["POST"], said["GET"], said["bytes"] = n_post, n_get, size


@test
def replay_streams_a_huge_log_in_bounded_memory():
    # A generated log of 1 GiB (256 MiB with the sanitizers, whose parse is four times slower), through a FIFO,
    # so never on disk nor seekable (as <(zcat access.log.gz)): its lines are read once, as they come. Nearly all
    # are POST lines, skipped without a request, so the run is the reader's: rafale's peak memory stays that of a
    # small log, and every line is counted. Measured: 1 GiB in 3.6 s, 15 MiB at most.
    total = (256 if SANITIZED else 1024) << 20
    fifo = os.path.join(TMP, "huge.fifo")
    os.mkfifo(fifo)
    rec = RecServer()
    said = {}
    writer = threading.Thread(target=fifo_writer, args=(fifo, total, 5, said), daemon=True)
    writer.start()
    out, err = open(os.path.join(TMP, "huge.out"), "w+"), open(os.path.join(TMP, "huge.err"), "w+")
    try:
        p = subprocess.Popen([RAFALE, "replay", "-q", "-c", "1", fifo, rec.url("")], stdout=out, stderr=err)
        # A hang is a failure: a reader that opened the FIFO twice waits for a writer that is gone.
        watchdog = threading.Timer(60, p.kill)
        watchdog.start()
        _, status, usage = os.wait4(p.pid, 0)
        watchdog.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        writer.join(timeout=30)
    finally:
        rec.stop()
    err.seek(0)
    text = err.read()
    check("Sanitizer" not in text and "runtime error" not in text, "ran clean:\n" + text[:3000])
    check(p.returncode == 0 and "error" not in said, "rc %d, the whole log written (%s): %s" % (p.returncode, said,
                                                                                             text))
    lines = said["POST"] + said["GET"]
    check(said["bytes"] > total * 0.99, "a log of %d MiB written: %d lines" % (said["bytes"] >> 20, lines))
    check("rafale replay: 5 requests of %d lines replayed" % lines in text and
          "skipped for their method (not in --methods): %d POST\n" % said["POST"] in text,
          "every line counted: %d GET, %d POST: %s" % (said["GET"], said["POST"], text))
    check([r[2] for r in rec.records] == ["/g/%d" % i for i in range(5)],
          "the GETs sent, the first line's too: %s" % [r[2] for r in rec.records])
    bound = (160 if SANITIZED else 64) << 20
    check(usage.ru_maxrss * 1024 < bound, "peak memory %.1f MiB, under %d MiB" % (usage.ru_maxrss / 1024,
                                                                                   bound >> 20))

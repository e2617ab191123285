/* calibrate.h - rafale calibrate: this machine's reference. rafale serve,
 * started and pinned as compare pins servers, measured with one fixed
 * workload and stored in the user's cache, so that a result can carry what
 * its machine does with the same work (--calibrate yes, calibrate = yes). */
#ifndef RAFALE_CALIBRATE_H
#define RAFALE_CALIBRATE_H

#include <stdatomic.h>
#include <stddef.h>

#include "compare.h"
#include "machine.h"

/* The workload, always the same: a reference is only worth its sameness. */
#define CALIBRATE_WORKLOAD "GET /, 16 connections, keep-alive, 3 rounds of 2s after 500ms of warm-up"

/* Where the reference is kept: $XDG_CACHE_HOME/rafale/calibration.json,
 * or ~/.cache/rafale/calibration.json. Returns 0, or -1 with neither set. */
int calibrate_path(char *buf, size_t len);

/* Measures it now (about 8 s). rafale's own CPU affinity is put back as it
 * was. Returns 0, or -1 with a one-line reason in err. */
int calibrate_run(const atomic_int *stop, compare_log_fn log, void *arg, struct machine_ref *out, char *err,
                  size_t errlen);

/* Writes it to path (its folder made), atomically. Returns 0 or -1 (err). */
int calibrate_save(const char *path, const struct machine_ref *ref, char *err, size_t errlen);
/* Reads one saved by calibrate_save (or any JSON with a "calibration"). */
int calibrate_load(const char *path, struct machine_ref *ref, char *err, size_t errlen);

/* The stored reference when it was measured on this machine, else a new
 * one, measured and stored (a store that fails is only said in log).
 * Returns 0 or -1 (err). */
int calibrate_get(const atomic_int *stop, compare_log_fn log, void *arg, struct machine_ref *out, char *err,
                  size_t errlen);

#endif

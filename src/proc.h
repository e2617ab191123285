/* proc.h - starting and stopping the servers `rafale compare` measures. */
#ifndef RAFALE_PROC_H
#define RAFALE_PROC_H

#include <stddef.h>
#include <stdint.h>

/* Runs `sh -c cmd` in a new process group (its own session), in dir, with
 * extra env ("NAME=VALUE"), pinned to cpus when ncpus > 0, its stdout and
 * stderr appended to logfile. Returns the pid, or -1 with a reason in err. */
int proc_spawn(const char *cmd, const char *dir, char *const *env, int nenv, const int *cpus, int ncpus,
               const char *logfile, char *err, size_t errlen);

/* 1 while the child runs; 0 once it exited (reaped), with a description of
 * how in how (optional). */
int proc_alive(int pid, char *how, size_t howlen);

/* SIGTERM to the whole group, SIGKILL after grace_ns; reaps the child. */
void proc_stop(int pid, uint64_t grace_ns);

/* Pins the calling process (and the threads it starts) to cpus. */
int proc_pin_self(const int *cpus, int ncpus);

/* The last nlines lines of a file, joined with " | ". */
void proc_tail(const char *file, int nlines, char *buf, size_t len);

#endif

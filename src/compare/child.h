/* child.h - starting, following and stopping the servers `rafale compare`
 * measures, private to src/compare/. A server runs in a cgroup v2 of its
 * own when the machine allows it, so every process it spawns is followed
 * and stopped whatever it does (setsid, double fork, daemonize); otherwise
 * in a process group of its own, which a daemonizing server escapes. */
#ifndef RAFALE_CHILD_H
#define RAFALE_CHILD_H

#include <stddef.h>
#include <stdint.h>

#include "cgroup.h"

struct child {
    int pid;              /* the start command's shell, -1 when none */
    int reaped;           /* it exited, and this is how: */
    int status;           /* wait status */
    struct cgroup cg;
    int in_cgroup;        /* started inside cg */
};

/* Runs `/bin/sh -c cmd` in its own session and process group, and in a new
 * cgroup named cgname when cgname is not NULL (moved there before it runs
 * anything), in dir, with extra env ("NAME=VALUE"), pinned to cpus when
 * ncpus > 0, its stdout and stderr written to logfile (made anew: a file
 * or a link already there is refused). When the cgroup
 * cannot be made, the server still starts, in its process group only, and
 * warn says why. Returns 0, or -1 with a reason in err. */
int child_start(struct child *p, const char *cmd, const char *dir, char *const *env, int nenv, const int *cpus,
                int ncpus, const char *logfile, const char *cgname, char *warn, size_t warnlen, char *err,
                size_t errlen);

/* 1 while the server is up: its start command runs, or, in a cgroup, the
 * command exited with status 0 and left processes behind (a daemon). 0 when
 * it is gone or its command failed, with how in how. */
int child_alive(struct child *p, char *how, size_t howlen);

/* Stops all of it: SIGTERM to every process (the cgroup, or the group),
 * SIGKILL after grace_ns (cgroup.kill), reaps the command, removes the
 * cgroup. Safe to call twice and on a child that never started. */
void child_stop(struct child *p, uint64_t grace_ns);

/* Runs `sh -c cmd` with stdout and stderr captured, for at most timeout_ns;
 * its first non-empty line goes into out. Returns 0, or -1 (out says why). */
int child_capture(const char *cmd, char *out, size_t len, uint64_t timeout_ns);

/* Makes orphans of the servers (a daemon's abandoned parent, workers left
 * behind) children of this process rather than of init, so that
 * child_reap_orphans() can collect them: no zombie outlives a compare. */
void child_become_subreaper(void);
/* Reaps every child that has ended or ends within timeout_ns; returns once
 * no child is left or the time is up. Call it when every server is stopped. */
void child_reap_orphans(uint64_t timeout_ns);

/* The last len - 1 bytes of a file (from a line's start when the file is
 * longer), NUL-terminated in buf; empty when it cannot be read. */
void child_log_tail(const char *file, char *buf, size_t len);

#endif

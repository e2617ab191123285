/* proc.h - starting, following and stopping the servers `rafale compare`
 * measures. A server runs in a cgroup v2 of its own when the machine allows
 * it, so every process it spawns is followed and stopped whatever it does
 * (setsid, double fork, daemonize); otherwise in a process group of its own,
 * which a daemonizing server escapes. */
#ifndef RAFALE_PROC_H
#define RAFALE_PROC_H

#include <stddef.h>
#include <stdint.h>

#include "cgroup.h"

struct proc {
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
int proc_start(struct proc *p, const char *cmd, const char *dir, char *const *env, int nenv, const int *cpus,
               int ncpus, const char *logfile, const char *cgname, char *warn, size_t warnlen, char *err,
               size_t errlen);

/* 1 while the server is up: its start command runs, or, in a cgroup, the
 * command exited with status 0 and left processes behind (a daemon). 0 when
 * it is gone or its command failed, with how in how. */
int proc_alive(struct proc *p, char *how, size_t howlen);

/* Stops all of it: SIGTERM to every process (the cgroup, or the group),
 * SIGKILL after grace_ns (cgroup.kill), reaps the command, removes the
 * cgroup. Safe to call twice and on a proc that never started. */
void proc_stop(struct proc *p, uint64_t grace_ns);

/* Runs `sh -c cmd` with stdout and stderr captured, for at most timeout_ns;
 * its first non-empty line goes into out. Returns 0, or -1 (out says why). */
int proc_capture(const char *cmd, char *out, size_t len, uint64_t timeout_ns);

/* Makes orphans of the servers (a daemon's abandoned parent, workers left
 * behind) children of this process rather than of init, so that
 * proc_reap_orphans() can collect them: no zombie outlives a compare. */
void proc_become_subreaper(void);
/* Reaps every child that has ended or ends within timeout_ns; returns once
 * no child is left or the time is up. Call it when every server is stopped. */
void proc_reap_orphans(uint64_t timeout_ns);

/* The CPUs this process may run on, lowest first, at most max of them in
 * cpus. Returns how many (0 when unknown). */
int proc_cpus_allowed(int *cpus, int max);
/* Pins the calling process (and the threads it starts) to cpus. */
int proc_pin_self(const int *cpus, int ncpus);

/* Who listens on sa's TCP address and port (a listener on the wildcard
 * address or, for IPv4, on the same address mapped in IPv6 counts too):
 * from /proc/net/tcp and tcp6, then the process holding that socket among
 * /proc/PID/fd. Returns 1 when something listens, with "pid N (COMMAND)"
 * in who and N in *pid (the holder highest in its process tree), or with
 * *pid 0 and who saying it cannot be named (another user's process);
 * 0 when nothing listens; -1 when /proc/net/tcp cannot be read. */
struct sockaddr_storage;
int proc_port_holder(const struct sockaddr_storage *sa, int *pid, char *who, size_t wholen);

/* The last len - 1 bytes of a file (from a line's start when the file is
 * longer), NUL-terminated in buf; empty when it cannot be read. */
void proc_tail(const char *file, char *buf, size_t len);

#endif

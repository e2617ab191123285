/* cgroup.h - a cgroup v2 per server: every process a server spawns stays
 * in it whatever it does (setsid, double fork, daemonize), so all of it is
 * measured (cpu.stat keeps the CPU of processes that already exited) and all
 * of it is stopped (cgroup.kill). Needs only the cgroup2 file system and the
 * right to make a directory in it: no controller has to be enabled. */
#ifndef RAFALE_CGROUP_H
#define RAFALE_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cgroup {
    char path[512];     /* its directory, e.g. /sys/fs/cgroup/rafale-123-0 */
    int owned;          /* made by cgroup_create: cgroup_remove deletes it */
};

/* Makes a new cgroup called name beside rafale's own (or at the root of the
 * cgroup2 mount, /sys/fs/cgroup or a hybrid's /sys/fs/cgroup/unified).
 * Returns 0, or -1 with the reason in err (no cgroup2, no permission). */
int cgroup_create(struct cgroup *cg, const char *name, char *err, size_t errlen);
/* Uses an existing cgroup (a systemd service's) without owning it. Returns
 * 0, or -1 with the reason in err. */
int cgroup_open(struct cgroup *cg, const char *path, char *err, size_t errlen);
/* Moves pid into the cgroup. Returns 0 or an errno value. */
int cgroup_move(const struct cgroup *cg, pid_t pid);
/* Every process in the cgroup and the cgroups below it, into a malloc'ed
 * array. Returns how many, or -1. */
int cgroup_pids(const struct cgroup *cg, int **pids);
/* 1 while some process is in it (cgroup.events), 0 when empty, -1 unknown. */
int cgroup_populated(const struct cgroup *cg);
/* CPU used by every process that ever ran in it, in µs (cpu.stat
 * usage_usec). Returns 0, or -1 when not readable. */
int cgroup_cpu_usec(const struct cgroup *cg, uint64_t *usec);
/* cpu.stat's nr_throttled: periods cpu.max held it back. Returns 0, or -1. */
int cgroup_throttled(const struct cgroup *cg, long long *n);
/* The CPUs cpu.max lets it use (quota / period), 0 when unlimited or
 * unreadable. */
double cgroup_cpu_max(const struct cgroup *cg);
/* memory.current and memory.peak (0 when the file is missing; the memory
 * controller is not always enabled). Returns 0, or -1 when neither is. */
int cgroup_memory(const struct cgroup *cg, uint64_t *current, uint64_t *peak);
/* Sends sig to every process in it. */
void cgroup_signal(const struct cgroup *cg, int sig);
/* Kills everything in it (cgroup.kill, or SIGKILL to each process on kernels
 * before 5.14) and waits up to timeout_ns for it to empty. Returns 0 when
 * empty, -1 otherwise. */
int cgroup_kill(const struct cgroup *cg, uint64_t timeout_ns);
/* Removes an owned, empty cgroup (and the empty cgroups below it). Returns 0
 * or an errno value. */
int cgroup_remove(struct cgroup *cg);

#endif

/* proc.h - this process's CPUs (the ones it may use, pinning itself), and
 * who listens on a TCP port, from /proc: what compare reads of the host
 * around the servers it starts (compare/child.h). */
#ifndef RAFALE_PROC_H
#define RAFALE_PROC_H

#include <stddef.h>

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

#endif

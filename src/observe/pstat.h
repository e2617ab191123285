/* pstat.h - one process's figures from /proc/PID, for the monitor: private
 * to src/observe/. Each returns 0, or -1 (or an errno value, where said)
 * when the process is gone or the file unreadable. */
#ifndef RAFALE_PSTAT_H
#define RAFALE_PSTAT_H

#include <stddef.h>
#include <stdint.h>

struct pstat {
    int pid, ppid;
    uint64_t ticks;          /* utime + stime */
    uint64_t start;          /* starttime: tells a reused pid apart */
    uint64_t rss_pages;
    uint32_t threads;
    char comm[32];
};

/* /proc/PID/stat into p; the command name may hold spaces and parentheses. */
int pstat_read(int pid, struct pstat *p);
/* p's command line, arguments joined by spaces, control bytes made spaces;
 * "[comm]" when it has none (a zombie, a kernel thread, a process in the
 * middle of its exec). Returns 1 when read from the command line, else 0. */
int pstat_command(const struct pstat *p, char *out, size_t len);
/* PSS, USS (Private_Clean + Private_Dirty) and RSS of pid, in bytes, from
 * smaps_rollup (Linux 4.14). Returns 0, or an errno value. */
int pstat_smaps(int pid, uint64_t *pss, uint64_t *uss, uint64_t *rss);
/* /proc/PID/io's write_bytes (to storage), wchar (what write() and its
 * kind passed, send() not among them) and syscw (write calls). */
int pstat_io(int pid, uint64_t *out, uint64_t *wchar, uint64_t *syscw);

#endif

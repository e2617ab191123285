/* monitor.h - samples a server process and all its descendants from /proc
 * while a run goes on: CPU time, resident memory, processes, threads. */
#ifndef RAFALE_MONITOR_H
#define RAFALE_MONITOR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct monitor_result {
    int pid;
    double cpu_s;            /* user+sys of the process tree during the run */
    uint64_t rss_peak_bytes; /* largest sum of RSS over the tree */
    uint64_t rss_mean_bytes;
    uint32_t processes;      /* most seen at once */
    uint32_t threads;        /* most seen at once */
    uint32_t samples;
    int gone;                /* the root process vanished during the run */
};

struct monitor;

/* Starts sampling pid's tree every 100 ms, after delay_ns (the warm-up).
 * Returns 0, or -1 with a reason in err (no such process). */
int monitor_start(int pid, uint64_t delay_ns, struct monitor **out, char *err, size_t errlen);

/* Takes a last sample, stops, fills r and frees m. */
void monitor_stop(struct monitor *m, struct monitor_result *r);

#endif

/* monitor.h - watches a server while a run goes on: a process and all its
 * descendants, or every process of a cgroup v2. CPU time; memory as if it
 * ran alone (as root: its resident pages each counted once, however many
 * of its processes map them, so a prefork pool is not counted five times
 * over and other servers beside it change nothing), PSS (the kernel's:
 * each shared page divided among every process of the machine that maps
 * it), USS (private) and RSS; and every process seen, for a per-process
 * table. */
#ifndef RAFALE_MONITOR_H
#define RAFALE_MONITOR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One process seen during the run. */
struct monitor_proc {
    int pid, ppid;
    char command[96];         /* its command line, arguments joined by spaces */
    double cpu_s;             /* user+sys while it was watched */
    uint64_t rss_peak_bytes, pss_peak_bytes, uss_peak_bytes;
    uint64_t alone_peak_bytes;/* its share of the server's pages (has_alone) */
    double first_seen_s;      /* since the monitor began */
    int exited;               /* gone before the end */
};

/* Memory about once a second, and the size of the server then. */
struct monitor_point {
    double t_s;
    uint64_t pss_bytes, rss_bytes;
    uint64_t alone_bytes;     /* has_alone */
    /* The fewest processes and threads seen since the point before (at
     * 100 ms samples; the first point: at its moment): a pool that grew
     * within a second is counted at its new size for that second. 0: not
     * recorded (an older result). */
    uint32_t processes, threads;
};

struct monitor_result {
    int pid;                  /* the root process, 0 when watching a cgroup */
    char cgroup[512];         /* the cgroup watched, or "" */
    double cpu_s;             /* user+sys of all of it during the run */
    int cpu_exact;            /* from the cgroup's cpu.stat (exited processes included) */
    /* The kernel's PSS (smaps_rollup): a shared page divided among every
     * process of the machine that maps it, so other servers of the same
     * interpreter lower it; never above RSS. Sums over the processes. */
    uint64_t pss_peak_bytes, pss_mean_bytes, uss_peak_bytes;
    uint64_t rss_peak_bytes, rss_mean_bytes;
    int has_pss;              /* smaps_rollup was readable: PSS/USS are meaningful */
    /* As if alone (pagemap's frame numbers, as root): the server's resident
     * pages each counted once, a shared page divided among its own
     * processes only, shared libraries whole; every sample, or none. */
    uint64_t alone_peak_bytes, alone_mean_bytes;
    int has_alone;
    char pss_note[192];       /* why not (PSS, or alone), when not */
    uint64_t cg_memory_peak_bytes; /* the cgroup's memory.peak (or highest memory.current), 0 unknown */
    uint32_t processes;       /* most seen at once */
    uint32_t threads;         /* most seen at once */
    uint32_t samples;
    /* The CPUs it may use: its affinity (the union of its processes' that
     * ran), its cgroup's cpu.max, the CPUs online, the least of them (0
     * unknown). */
    double cpus;
    /* Bytes its processes caused to be written to storage (/proc/PID/io
     * write_bytes) while watched; has_io: some of it was readable. */
    uint64_t write_bytes;
    int has_io;
    /* Bytes its processes passed to write(), writev(), sendfile() (/proc/PID/io
     * wchar), to files, pipes, terminals and sockets alike; send() and
     * sendmsg() are not counted. has_wchar: read (not in older results). */
    uint64_t wchar;
    int has_wchar;
    /* The calls of the write() family (/proc/PID/io syscw: write, writev,
     * pwrite, sendfile; not send(), sendmsg()), and when the reads that
     * bound them were taken: the wall clock of the first and last process
     * read for the baseline (io_begin_s) and for the last figures
     * (io_end_s), the first of each taken before its read and the last
     * after it. has_syscw: read (not in older results). */
    uint64_t syscw;
    int has_syscw;
    double io_begin_s[2], io_end_s[2];
    long long nr_throttled;   /* its cgroup's periods throttled by cpu.max while watched, -1 unknown */
    int gone;                 /* nothing was left to watch before the end */
    struct monitor_proc *procs;   /* every process seen, in order of first sight */
    uint32_t nprocs;
    struct monitor_point *series; /* memory over time */
    uint32_t npoints;
};

struct monitor;

/* Starts watching pid's tree (cgroup NULL) or every process of the cgroup
 * directory (pid 0), after delay_ns (the warm-up): /proc/PID/stat every
 * 100 ms, /proc/PID/smaps_rollup about once a second (it walks page
 * tables). Returns 0, or -1 with a reason in err. */
int monitor_start(int pid, const char *cgroup, uint64_t delay_ns, struct monitor **out, char *err, size_t errlen);

/* Takes a last sample, stops, fills r (free it with monitor_result_free)
 * and frees m. */
void monitor_stop(struct monitor *m, struct monitor_result *r);

/* The figures so far, for --metrics-listen (any thread may ask, at any
 * time between start and stop). */
struct monitor_live {
    int ok;                   /* a sample was taken */
    double cpu_s;             /* user+sys since watching began */
    uint64_t pss_bytes, rss_bytes; /* at the last sample (PSS about once a second) */
    uint64_t alone_bytes;     /* has_alone (see monitor_result) */
    int has_pss, has_alone;
    double cpus;              /* the CPUs it may use, 0 unknown */
    uint32_t processes;
};
void monitor_live(struct monitor *m, struct monitor_live *out);

void monitor_result_free(struct monitor_result *r);
/* A deep copy. Returns 0 or -1. */
int monitor_result_copy(struct monitor_result *dst, const struct monitor_result *src);

/* Per-process table: processes of the same command and the same parent
 * command are one group ("4 x gunicorn", the workers, beside "1 x
 * gunicorn", the master). */
struct monitor_group {
    const char *command;      /* points into the result, past argv[0]'s directory */
    uint32_t count;           /* processes in the group */
    uint32_t exited;          /* of which exited before the end */
    double cpu_s;             /* summed */
    uint64_t alone_each, pss_each, uss_each, rss_each; /* mean of the processes' peaks */
};
/* Groups r's processes into out (at most max). Returns how many groups. */
uint32_t monitor_groups(const struct monitor_result *r, struct monitor_group *out, uint32_t max);

#endif

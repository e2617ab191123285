/* machine.h - the machine a result was measured on: CPU, frequency policy,
 * kernel, rafale's build, the network limits a load test meets (Linux:
 * /proc and /sys). Every result's JSON carries it ("environment"). */
#ifndef RAFALE_MACHINE_H
#define RAFALE_MACHINE_H

#include <stdint.h>

struct machine {
    char cpu_model[128];        /* "" unknown */
    int cpus_online;
    char governor[32];          /* cpufreq's scaling_governor of cpu0, "" unknown (a VM) */
    int boost;                  /* 1 on, 0 off, -1 unknown */
    char kernel[200];           /* "Linux 6.1.0-18-amd64 x86_64": uname, its 3 fields */
    char version[16];           /* rafale's */
    char build[160];            /* compiler and flags */
    long long somaxconn;        /* -1 unknown */
    long long port_lo, port_hi; /* ip_local_port_range */
};

/* rafale calibrate's reference: rafale serve measured by rafale on a
 * machine, always the same workload, so that results from two machines can
 * be read beside what each machine does with the same work. A reference,
 * not a conversion: a server's figures do not scale with it. */
struct machine_ref {
    int known;
    double when_unix_s;
    struct machine m;           /* where it was measured */
    char workload[96];          /* "GET /, 16 connections, keep-alive, 3 rounds of 2s" */
    char pin[128];              /* "rafale serve on CPU 0, rafale on CPU 1" */
    double rps, rps_ci[2];      /* median of the rounds; 95% interval */
    double p50_us, p99_us;
};

/* The same machine as far as a reference goes: CPU model, CPUs online,
 * kernel. */
int machine_same(const struct machine *a, const struct machine *b);

/* Reads it now (version: rafale's); what cannot be read stays unknown. */
void machine_read(struct machine *m, const char *version);

/* The first (which 0) or second number of a /proc or /sys file, -1 when
 * unreadable. */
long long machine_proc_ll(const char *path, int which);

/* The machine's CPU time so far (/proc/stat's "cpu" line), in seconds:
 * busy (neither idle nor waiting on I/O) and stolen by the hypervisor. */
struct machine_cpu {
    int ok;
    double busy_s, steal_s;
};
void machine_cpu_read(struct machine_cpu *c);

/* What else ran on the machine during a run: its busy CPU time less
 * rafale's and the server's, and the time stolen, as a share of all the
 * CPUs' time; nr_throttled: the server cgroup's throttled periods (-1
 * unknown). known 0: not measured (the server's own CPU unknown while it
 * runs here). */
struct machine_noise {
    int known;
    double foreign_cpu_pct, steal_pct;
    long long nr_throttled;
};

#endif

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

/* Reads it now (version: rafale's); what cannot be read stays unknown. */
void machine_read(struct machine *m, const char *version);

#endif

/* machine.c - the machine a result was measured on (Linux): what a reader of
 * a saved JSON needs to judge it, read once per run from /proc and /sys. */
#include "machine.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef RAFALE_BUILD
#define RAFALE_BUILD "unknown flags"
#endif

/* The first line of path, without its newline; "" when unreadable. */
static void first_line(const char *path, char *out, size_t n)
{
    FILE *f = fopen(path, "r");
    out[0] = '\0';
    if (f == NULL)
        return;
    if (fgets(out, (int)n, f) == NULL)
        out[0] = '\0';
    out[strcspn(out, "\n")] = '\0';
    fclose(f);
}

long long machine_proc_ll(const char *path, int which)
{
    long long a = -1, b = -1;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    if (fscanf(f, "%lld %lld", &a, &b) < 1)
        a = -1;
    fclose(f);
    return which ? b : a;
}

static void cpu_model(char *out, size_t n)
{
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    out[0] = '\0';
    if (f == NULL)
        return;
    while (fgets(line, sizeof(line), f)) {
        /* x86 "model name", arm64 "CPU part" has no name: "Hardware" or "Model" where given. */
        if (strncmp(line, "model name", 10) == 0 || strncmp(line, "Model", 5) == 0 ||
            strncmp(line, "Hardware", 8) == 0) {
            const char *v = strchr(line, ':');
            if (v) {
                v++;
                while (*v == ' ' || *v == '\t')
                    v++;
                snprintf(out, n, "%s", v);
                out[strcspn(out, "\n")] = '\0';
                break;
            }
        }
    }
    fclose(f);
}

int machine_same(const struct machine *a, const struct machine *b)
{
    return strcmp(a->cpu_model, b->cpu_model) == 0 && a->cpus_online == b->cpus_online &&
           strcmp(a->kernel, b->kernel) == 0;
}

void machine_read(struct machine *m, const char *version)
{
    struct utsname u;
    long long v;
    memset(m, 0, sizeof(*m));
    cpu_model(m->cpu_model, sizeof(m->cpu_model));
    m->cpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
    first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", m->governor, sizeof(m->governor));
    /* Boost: acpi-cpufreq's switch, or intel_pstate's (inverted). */
    m->boost = -1;
    if ((v = machine_proc_ll("/sys/devices/system/cpu/cpufreq/boost", 0)) >= 0)
        m->boost = v != 0;
    else if ((v = machine_proc_ll("/sys/devices/system/cpu/intel_pstate/no_turbo", 0)) >= 0)
        m->boost = v == 0;
    if (uname(&u) == 0)
        snprintf(m->kernel, sizeof(m->kernel), "%.64s %.64s %.64s", u.sysname, u.release, u.machine);
    snprintf(m->version, sizeof(m->version), "%s", version);
    snprintf(m->build, sizeof(m->build), "%s", RAFALE_BUILD);
    m->somaxconn = machine_proc_ll("/proc/sys/net/core/somaxconn", 0);
    m->port_lo = machine_proc_ll("/proc/sys/net/ipv4/ip_local_port_range", 0);
    m->port_hi = machine_proc_ll("/proc/sys/net/ipv4/ip_local_port_range", 1);
}

void machine_cpu_read(struct machine_cpu *c)
{
    unsigned long long v[10] = { 0 };
    long hz = sysconf(_SC_CLK_TCK);
    FILE *f = fopen("/proc/stat", "r");
    memset(c, 0, sizeof(*c));
    if (f == NULL)
        return;
    /* user nice system idle iowait irq softirq steal guest guest_nice; guest
     * time is inside user already. */
    if (hz > 0 && fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                         &v[6], &v[7]) == 8) {
        c->busy_s = (double)(v[0] + v[1] + v[2] + v[5] + v[6]) / (double)hz;
        c->steal_s = (double)v[7] / (double)hz;
        c->ok = 1;
    }
    fclose(f);
}

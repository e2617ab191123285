/* report_observed: what was observed around a run, in words: the memory a
 * report leads with (alone, else the kernel's PSS, else RSS) and what it
 * means; the server's text block in each of those measures, a cgroup's,
 * its CPU per request or why not, a server gone before the end, groups of
 * processes; the machine's reference; the findings under an indent. */
#include "report.h"
#include "../t.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void memory_lead(void)
{
    struct monitor_result m;
    const char *label;
    memset(&m, 0, sizeof(m));
    m.rss_peak_bytes = 300, m.pss_peak_bytes = 200, m.alone_peak_bytes = 100;
    CHECK(report_server_memory(&m, &label) == 300 && strcmp(label, "RSS") == 0);
    m.has_pss = 1;
    CHECK(report_server_memory(&m, &label) == 200 && strcmp(label, "PSS") == 0);
    m.has_alone = 1;
    CHECK(report_server_memory(&m, &label) == 100 && strcmp(label, "alone") == 0);
    CHECK(strncmp(report_memory_meaning("alone"), "alone: its resident pages each counted once", 43) == 0);
    CHECK(strncmp(report_memory_meaning("PSS"), "PSS: the kernel's, a shared page divided", 40) == 0);
    CHECK(strcmp(report_memory_meaning("RSS"), "") == 0);
}

static char *server_text(const struct run_result *res, const char *in)
{
    char *t = NULL;
    size_t len;
    FILE *f = open_memstream(&t, &len);
    report_server_text(f, res, in);
    fclose(f);
    return t;
}

/* A prefork server: a master and three workers (one exited), 1000 answers. */
static void prefork(struct run_result *res, struct monitor_proc *p)
{
    struct monitor_result *m = &res->server;
    int i;
    result_init(res);
    res->fig.total.completed = 1000;
    res->has_server = 1;
    m->pid = 10;
    m->cpu_s = 0.5;
    m->processes = 4;
    m->threads = 4;
    m->rss_peak_bytes = 40 << 20;
    m->rss_mean_bytes = 30 << 20;
    snprintf(m->pss_note, sizeof(m->pss_note), "PSS unavailable (/proc/PID/smaps_rollup: not read): RSS shown");
    memset(p, 0, 4 * sizeof(*p));
    for (i = 0; i < 4; i++) {
        p[i].pid = 10 + i;
        p[i].ppid = i ? 10 : 1;
        snprintf(p[i].command, sizeof(p[i].command), "/usr/sbin/httpd -k start");
        p[i].rss_peak_bytes = (uint64_t)(i ? 12 : 4) << 20;
        p[i].cpu_s = 0.125;
    }
    p[3].exited = 1;
    m->procs = p;
    m->nprocs = 4;
}

static void server_block(void)
{
    struct run_result res;
    struct monitor_proc p[4];
    char *t;
    prefork(&res, p);
    t = server_text(&res, "> ");
    CHECKF(strcmp(t, "> Server        pid 10 and its children: 4 processes, 4 threads at most\n"
                     ">   CPU         0.50s, 500us per request\n"
                     ">   memory      RSS summed 40.00MiB peak (mean 30.00MiB): shared pages counted in each process; "
                     "PSS unavailable (/proc/PID/smaps_rollup: not read): RSS shown\n"
                     ">   processes   count                         RSS each       CPU  command\n"
                     ">                   1                          4.00MiB     0.12s  httpd -k start\n"
                     ">                   3                         12.00MiB     0.38s  httpd -k start  (some exited)\n") == 0,
           "\n%s", t);
    free(t);

    /* PSS read: PSS, USS and RSS, and what PSS means. */
    res.server.has_pss = 1;
    res.server.pss_peak_bytes = 20 << 20, res.server.pss_mean_bytes = 10 << 20, res.server.uss_peak_bytes = 8 << 20;
    snprintf(res.server.pss_note, sizeof(res.server.pss_note), "not measured as if alone: not root");
    t = server_text(&res, "");
    CHECKF(strstr(t, "  memory      PSS 20.00MiB peak (mean 10.00MiB), USS 8.00MiB; RSS summed 40.00MiB (shared pages "
                     "counted in each process)\n              PSS: the kernel's") != NULL &&
               strstr(t, "; not measured as if alone: not root\n") != NULL,
           "\n%s", t);
    free(t);

    /* As if alone: all four measures. */
    res.server.has_alone = 1;
    res.server.alone_peak_bytes = 16 << 20, res.server.alone_mean_bytes = 15 << 20;
    t = server_text(&res, "");
    CHECKF(strstr(t, "  memory      alone 16.00MiB peak (mean 15.00MiB), PSS 20.00MiB, USS 8.00MiB; RSS summed 40.00MiB") !=
               NULL && strstr(t, "alone each") != NULL,
           "\n%s", t);
    free(t);

    /* A cgroup's, counted exactly, gone before the end, its memory peak. */
    snprintf(res.server.cgroup, sizeof(res.server.cgroup), "/sys/fs/cgroup/srv");
    res.server.cpu_exact = 1;
    res.server.gone = 1;
    res.server.processes = 1;
    res.server.threads = 1;
    res.server.cg_memory_peak_bytes = 64 << 20;
    t = server_text(&res, "");
    CHECKF(strncmp(t, "Server        cgroup /sys/fs/cgroup/srv: 1 process, 1 thread at most (nothing was left of it before "
                      "the end)\n  CPU         0.50s, 500us per request (the cgroup's own count, exited processes "
                      "included)\n", 180) == 0 &&
               strstr(t, "              the cgroup's own memory peak: 64.00MiB\n") != NULL,
           "\n%s", t);
    free(t);

    /* Too short for /proc's ticks: said, not 0 per request. */
    res.server.cpu_exact = 0;
    res.server.cpu_s = 0;
    t = server_text(&res, "");
    CHECKF(strstr(t, "\n  CPU         0.00s (the run was shorter than what /proc counts, 10ms ticks)\n") != NULL, "\n%s", t);
    free(t);
}

static void reference(void)
{
    struct machine_ref ref;
    char *t = NULL;
    size_t len;
    FILE *f;
    memset(&ref, 0, sizeof(ref));
    ref.known = 1;
    ref.when_unix_s = 1700000000; /* 2023-11-14 22:13:20 UTC */
    ref.rps = 41234.6;
    ref.rps_ci[0] = 40100.4, ref.rps_ci[1] = 42300.5;
    ref.p50_us = 95, ref.p99_us = 410;
    snprintf(ref.workload, sizeof(ref.workload), "GET /, 16 connections");
    snprintf(ref.pin, sizeof(ref.pin), "rafale serve on CPU 0");
    snprintf(ref.m.kernel, sizeof(ref.m.kernel), "Linux 6.1");
    ref.m.cpus_online = 1;
    f = open_memstream(&t, &len);
    report_ref_text(f, &ref, "  ");
    ref.rps_ci[0] = NAN;
    report_ref_text(f, &ref, "");
    fclose(f);
    CHECKF(strcmp(t, "  Reference     this machine's: rafale serve at 41235 req/s (40100\xe2\x80\x93" "42300), p50 95us, p99 "
                     "410us (rafale calibrate, 2023-11-14 22:13 UTC)\n"
                     "                GET /, 16 connections; rafale serve on CPU 0; CPU unknown, 1 CPU, Linux 6.1\n"
                     "                a reference, not a conversion: a server's figures do not scale with it\n"
                     "Reference     this machine's: rafale serve at 41235 req/s, p50 95us, p99 410us (rafale calibrate, "
                     "2023-11-14 22:13 UTC)\n"
                     "              GET /, 16 connections; rafale serve on CPU 0; CPU unknown, 1 CPU, Linux 6.1\n"
                     "              a reference, not a conversion: a server's figures do not scale with it\n") == 0,
           "\n%s", t);
    free(t);
}

static void findings(void)
{
    struct findings fs;
    char *t = NULL;
    size_t len;
    FILE *f = open_memstream(&t, &len);
    memset(&fs, 0, sizeof(fs));
    report_findings_text(f, &fs, "  "); /* none: nothing */
    report_findings_text(f, NULL, "  ");
    fs.n = 2;
    snprintf(fs.f[0].id, sizeof(fs.f[0].id), "starved_connections");
    fs.f[0].warning = 1;
    snprintf(fs.f[0].summary, sizeof(fs.f[0].summary), "3 connections waited 2.0s");
    snprintf(fs.f[0].advice, sizeof(fs.f[0].advice), "look at the server's accept loop");
    snprintf(fs.f[1].id, sizeof(fs.f[1].id), "cpu_bound");
    snprintf(fs.f[1].summary, sizeof(fs.f[1].summary), "the server used 2 CPUs");
    snprintf(fs.f[1].advice, sizeof(fs.f[1].advice), "more CPUs");
    report_findings_text(f, &fs, "  ");
    fclose(f);
    CHECKF(strcmp(t, "  Findings\n"
                     "    [!] starved_connections: 3 connections waited 2.0s\n"
                     "        -> look at the server's accept loop\n"
                     "    [i] cpu_bound: the server used 2 CPUs\n"
                     "        -> more CPUs\n") == 0,
           "\n%s", t);
    free(t);
}

int main(void)
{
    T_RUN(memory_lead);
    T_RUN(server_block);
    T_RUN(reference);
    T_RUN(findings);
    T_END("test_report_observed");
}

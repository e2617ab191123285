/* monitor_result: a server's processes grouped for the process table (by
 * command and by their parent's command, the program's directory dropped,
 * the peaks averaged, the CPU summed), a deep copy that owns its arrays, and
 * the result freed and zeroed. */
#include "monitor.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

static void proc(struct monitor_proc *p, int pid, int ppid, const char *cmd, double cpu, uint64_t rss, int exited)
{
    memset(p, 0, sizeof(*p));
    p->pid = pid;
    p->ppid = ppid;
    snprintf(p->command, sizeof(p->command), "%s", cmd);
    p->cpu_s = cpu;
    p->rss_peak_bytes = rss;
    p->pss_peak_bytes = rss / 2;
    p->uss_peak_bytes = rss / 4;
    p->alone_peak_bytes = rss / 3;
    p->exited = exited;
}

/* A prefork server: a master, three workers (one recycled), and a shell
 * that started it all. */
static void server(struct monitor_result *r)
{
    memset(r, 0, sizeof(*r));
    r->nprocs = 6;
    r->procs = calloc(6, sizeof(*r->procs));
    proc(&r->procs[0], 100, 1, "/bin/sh -c run", 0.01, 3000, 0);
    proc(&r->procs[1], 101, 100, "/usr/bin/gunicorn -w 3 app:app", 0.5, 60000, 0);
    proc(&r->procs[2], 102, 101, "/usr/bin/gunicorn -w 3 app:app", 1.0, 90000, 0);
    proc(&r->procs[3], 103, 101, "/usr/bin/gunicorn -w 3 app:app", 2.0, 120000, 1);
    proc(&r->procs[4], 104, 101, "/usr/bin/gunicorn -w 3 app:app", 3.0, 150000, 0);
    proc(&r->procs[5], 105, 100, "sleep 1/2", 0, 600, 1); /* a slash in an argument stays */
    r->npoints = 2;
    r->series = calloc(2, sizeof(*r->series));
    r->series[1].t_s = 1.0;
    r->series[1].rss_bytes = 423600;
    r->pid = 100;
    r->cpu_s = 6.51;
}

static void groups(void)
{
    struct monitor_result r;
    struct monitor_group g[8];
    uint32_t n;
    server(&r);
    n = monitor_groups(&r, g, 8);
    CHECKF(n == 4, "%u groups", n);
    if (n == 4) {
        CHECKF(strcmp(g[0].command, "sh -c run") == 0 && g[0].count == 1, "'%s'", g[0].command);
        /* The master apart from its workers: their parents' commands differ. */
        CHECK(strcmp(g[1].command, "gunicorn -w 3 app:app") == 0 && g[1].count == 1 && g[1].cpu_s == 0.5);
        CHECK(strcmp(g[2].command, "gunicorn -w 3 app:app") == 0 && g[2].count == 3 && g[2].exited == 1);
        CHECK(g[2].cpu_s == 6.0 && g[2].rss_each == 120000 && g[2].pss_each == 60000);
        CHECK(g[2].uss_each == (22500 + 30000 + 37500) / 3 && g[2].alone_each == 40000);
        CHECKF(strcmp(g[3].command, "sleep 1/2") == 0 && g[3].count == 1 && g[3].exited == 1, "'%s'", g[3].command);
        /* The names point into the result. */
        CHECK(g[1].command == r.procs[1].command + strlen("/usr/bin/"));
    }
    /* Room for two: the first two groups, every process of them counted. */
    n = monitor_groups(&r, g, 2);
    CHECK(n == 2 && g[0].count == 1 && g[1].count == 1 && strcmp(g[1].command, "gunicorn -w 3 app:app") == 0);
    monitor_result_free(&r);
}

/* Processes without pids (0, a result read back that had none) still
 * group by command; no process at all, no group. */
static void own_parent_ignored(void)
{
    struct monitor_result r;
    struct monitor_group g[4];
    memset(&r, 0, sizeof(r));
    r.nprocs = 2;
    r.procs = calloc(2, sizeof(*r.procs));
    proc(&r.procs[0], 0, 0, "a", 1, 10, 0);
    proc(&r.procs[1], 0, 0, "a", 1, 30, 0);
    CHECK(monitor_groups(&r, g, 4) == 1 && g[0].count == 2 && g[0].rss_each == 20 && g[0].cpu_s == 2);
    monitor_result_free(&r);
    CHECK(monitor_groups(&r, g, 4) == 0); /* none */
}

static void copy_owns(void)
{
    struct monitor_result a, b, z;
    server(&a);
    CHECK(monitor_result_copy(&b, &a) == 0);
    CHECK(b.procs != a.procs && b.series != a.series && b.nprocs == 6 && b.npoints == 2);
    CHECK(memcmp(b.procs, a.procs, 6 * sizeof(*a.procs)) == 0 && b.series[1].rss_bytes == 423600);
    CHECK(b.pid == 100 && b.cpu_s == 6.51);
    monitor_result_free(&a); /* the copy stands alone */
    CHECK(strcmp(b.procs[4].command, "/usr/bin/gunicorn -w 3 app:app") == 0 && b.series[1].t_s == 1.0);
    memset(&z, 0, sizeof(z));
    CHECK(memcmp(&a, &z, sizeof(z)) == 0);
    /* An empty one copies to an empty one, no arrays made. */
    CHECK(monitor_result_copy(&a, &z) == 0 && a.procs == NULL && a.series == NULL);
    monitor_result_free(&b);
    CHECK(memcmp(&b, &z, sizeof(z)) == 0);
}

int main(void)
{
    T_RUN(groups);
    T_RUN(own_parent_ignored);
    T_RUN(copy_owns);
    T_END("test_monitor_result");
}

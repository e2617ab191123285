/* monitor.c - samples a process tree from /proc every 100 ms in a thread
 * of its own. CPU is summed per process as the growth of utime+stime since
 * the process was first seen, so children that start or exit mid-run (a
 * gunicorn worker recycled) count for the time they lived. */
#include "monitor.h"
#include "clock.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS 65536
#define TABLE 8192          /* pid -> last CPU ticks, open addressing */

struct pstat {
    int pid, ppid;
    uint64_t ticks;         /* utime + stime */
    uint64_t rss_pages;
    uint32_t threads;
};

struct seen {
    int pid;                /* 0: empty */
    uint64_t ticks;
};

struct monitor {
    int root;
    uint64_t delay_ns;
    pthread_t thread;
    atomic_int stop;
    struct pstat *ps;       /* scratch: every process on the system */
    struct seen *table;
    uint64_t cpu_ticks;
    int started;            /* the first sample set the baselines */
    struct monitor_result r;
    double rss_sum;
};

/* Parses /proc/PID/stat; the command name may hold spaces and parentheses. */
static int read_stat(int pid, struct pstat *p)
{
    char path[64], buf[1024], *s;
    unsigned long long ut, st;
    long rss, threads;
    int ppid;
    FILE *f;
    size_t n;

    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    if ((f = fopen(path, "r")) == NULL)
        return -1;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    s = strrchr(buf, ')');
    if (s == NULL)
        return -1;
    /* After ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt
     * cmajflt utime stime cutime cstime priority nice num_threads itrealvalue
     * starttime vsize rss */
    if (sscanf(s + 2, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %ld %*d %*u %*u %ld",
               &ppid, &ut, &st, &threads, &rss) != 5)
        return -1;
    p->pid = pid;
    p->ppid = ppid;
    p->ticks = ut + st;
    p->rss_pages = rss > 0 ? (uint64_t)rss : 0;
    p->threads = threads > 0 ? (uint32_t)threads : 0;
    return 0;
}

static struct seen *lookup(struct monitor *m, int pid)
{
    uint32_t h = (uint32_t)pid * 2654435761u % TABLE, i;
    for (i = 0; i < TABLE; i++) {
        struct seen *e = &m->table[(h + i) % TABLE];
        if (e->pid == pid || e->pid == 0)
            return e;
    }
    return NULL;
}

static void sample(struct monitor *m)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    int n = 0, i;
    uint64_t rss = 0;
    uint32_t procs = 0, threads = 0;
    char *in_tree;

    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL && n < MAX_PROCS) {
        if (!isdigit((unsigned char)de->d_name[0]))
            continue;
        if (read_stat(atoi(de->d_name), &m->ps[n]) == 0)
            n++;
    }
    closedir(d);
    in_tree = calloc((size_t)n + 1, 1);
    if (in_tree == NULL)
        return;
    /* Is each process under the root? Walk up its parents, remembering the
     * answers (1 in, 2 out), so the whole pass stays linear. */
    {
        int *idx = malloc(sizeof(int) * (size_t)(2 * n + 1)), cap = 2 * n + 1;
        if (idx == NULL) {
            free(in_tree);
            return;
        }
        for (i = 0; i < cap; i++)
            idx[i] = -1;
        for (i = 0; i < n; i++) {
            int h = (int)((uint32_t)m->ps[i].pid * 2654435761u % (uint32_t)cap);
            while (idx[h] >= 0)
                h = (h + 1) % cap;
            idx[h] = i;
        }
        for (i = 0; i < n; i++) {
            int path[64], depth = 0, cur = i, verdict = 2, k;
            while (depth < 64) {
                int pid = m->ps[cur].pid, ppid, h, found = -1;
                if (in_tree[cur]) {
                    verdict = in_tree[cur];
                    break;
                }
                path[depth++] = cur;
                if (pid == m->root) {
                    verdict = 1;
                    break;
                }
                ppid = m->ps[cur].ppid;
                if (ppid <= 1)
                    break;
                for (h = (int)((uint32_t)ppid * 2654435761u % (uint32_t)cap); idx[h] >= 0; h = (h + 1) % cap)
                    if (m->ps[idx[h]].pid == ppid) {
                        found = idx[h];
                        break;
                    }
                if (found < 0)
                    break;
                cur = found;
            }
            for (k = 0; k < depth; k++)
                in_tree[path[k]] = (char)verdict;
        }
        free(idx);
    }

    for (i = 0; i < n; i++) {
        struct seen *e;
        if (in_tree[i] != 1)
            continue;
        procs++;
        threads += m->ps[i].threads;
        rss += m->ps[i].rss_pages;
        e = lookup(m, m->ps[i].pid);
        if (e == NULL)
            continue;
        if (e->pid == 0) {
            /* New: from zero if it was born during the run, else a baseline. */
            e->pid = m->ps[i].pid;
            e->ticks = m->started ? 0 : m->ps[i].ticks;
        }
        if (m->ps[i].ticks > e->ticks)
            m->cpu_ticks += m->ps[i].ticks - e->ticks;
        e->ticks = m->ps[i].ticks;
    }
    free(in_tree);
    m->started = 1;
    if (procs == 0) {
        m->r.gone = 1;
        return;
    }
    rss *= (uint64_t)sysconf(_SC_PAGESIZE);
    m->r.samples++;
    m->rss_sum += (double)rss;
    if (rss > m->r.rss_peak_bytes)
        m->r.rss_peak_bytes = rss;
    if (procs > m->r.processes)
        m->r.processes = procs;
    if (threads > m->r.threads)
        m->r.threads = threads;
}

static void *monitor_main(void *arg)
{
    struct monitor *m = arg;
    uint64_t until = clock_ns() + m->delay_ns;
    while (clock_ns() < until && !atomic_load(&m->stop)) {
        struct timespec ts = { 0, 20 * 1000000L };
        nanosleep(&ts, NULL);
    }
    while (!atomic_load(&m->stop)) {
        struct timespec ts = { 0, 100 * 1000000L };
        sample(m);
        nanosleep(&ts, NULL);
    }
    return NULL;
}

int monitor_start(int pid, uint64_t delay_ns, struct monitor **out, char *err, size_t errlen)
{
    struct monitor *m;
    struct pstat p;

    if (pid <= 0 || read_stat(pid, &p) != 0) {
        snprintf(err, errlen, "--monitor: no process %d", pid);
        return -1;
    }
    m = calloc(1, sizeof(*m));
    if (m == NULL || (m->ps = calloc(MAX_PROCS, sizeof(*m->ps))) == NULL ||
        (m->table = calloc(TABLE, sizeof(*m->table))) == NULL) {
        if (m) {
            free(m->ps);
            free(m);
        }
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    m->root = pid;
    m->delay_ns = delay_ns;
    m->r.pid = pid;
    if (delay_ns == 0)
        sample(m); /* the baseline, before any load */
    if (pthread_create(&m->thread, NULL, monitor_main, m) != 0) {
        free(m->ps);
        free(m->table);
        free(m);
        snprintf(err, errlen, "cannot start the monitor thread");
        return -1;
    }
    *out = m;
    return 0;
}

void monitor_stop(struct monitor *m, struct monitor_result *r)
{
    atomic_store(&m->stop, 1);
    pthread_join(m->thread, NULL);
    sample(m);
    m->r.cpu_s = (double)m->cpu_ticks / (double)sysconf(_SC_CLK_TCK);
    m->r.rss_mean_bytes = m->r.samples ? (uint64_t)(m->rss_sum / m->r.samples) : 0;
    *r = m->r;
    free(m->ps);
    free(m->table);
    free(m);
}

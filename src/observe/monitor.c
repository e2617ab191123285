/* monitor.c - watches a server's processes from /proc in a thread of its
 * own. Which processes: a root and its descendants (a linear walk of every
 * process's parent), or every process of a cgroup v2 (cgroup.procs), which
 * also holds the ones that left the process tree (daemons, setsid).
 *
 * CPU: per process, the growth of utime+stime since it was first seen, so
 * workers born or recycled mid-run count for the time they lived; with a
 * cgroup, the total comes from cpu.stat instead, exact and including what
 * exited between two samples.
 *
 * Memory: RSS counts a page shared by N processes N times, so summed over a
 * prefork pool it overstates the server several times over. PSS
 * (/proc/PID/smaps_rollup, Linux 4.14) divides each shared page among its
 * sharers and sums to the memory really used; USS is the private part.
 * But the kernel divides among every process of the machine: a server's PSS
 * falls when a second server of the same interpreter starts beside it. So,
 * as root, a page is also divided among the server's own processes only
 * (pageshare.c, from pagemap's frame numbers): its memory as if it ran
 * alone, shared libraries whole. The two are kept apart, each under its
 * name: a figure called PSS is the kernel's and never exceeds RSS. Both
 * walk the page tables, so they are read about once a second while the
 * cheap RSS of /proc/PID/stat is read ten times a second. */
#include "monitor.h"
#include "err.h"
#include "cgroup.h"
#include "clock.h"
#include "pageshare.h"
#include "pstat.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_ENTRIES 4096     /* processes kept one by one; more still count in the sums */
#define TABLE 8192           /* pid -> entry, open addressing (twice MAX_ENTRIES) */
#define SMAPS_EVERY 10       /* rounds of 100 ms between two PSS reads */

struct entry {
    int pid, ppid;
    uint64_t start;
    uint64_t base_ticks, last_ticks;
    uint64_t rss_peak, pss_peak, uss_peak;
    uint64_t own_peak;       /* its share of pages among the server's processes (alone) */
    uint64_t base_wbytes, last_wbytes, base_wchar, last_wchar, base_syscw, last_syscw;
    int io_seen;
    double first_seen_s;
    uint32_t round_seen;     /* last round it was seen in */
    char command[96];
    char comm[32];           /* the name its command was read under */
    int named;               /* command read from its cmdline, not "[comm]" */
};

struct monitor {
    int root;
    struct cgroup cg;
    int use_cg;
    uint64_t delay_ns;
    uint64_t t0;             /* when sampling began (after the delay) */
    pthread_t thread;
    atomic_int stop;
    struct pstat *ps;        /* scratch: the processes of one round */
    uint32_t nps, capps;
    struct entry *e;
    uint32_t ne;
    int32_t table[TABLE];    /* entry index + 1, 0 when free */
    uint32_t round;
    uint32_t io_round;       /* the last round that read /proc/PID/io */
    uint64_t cg_cpu0;        /* usage_usec at the start, or 0 once the cgroup was made again */
    uint64_t cg_prev;        /* usage_usec last read */
    double cg_carried_s;     /* CPU counted in a cgroup of the same path that was removed */
    int cg_cpu_ok;
    long long thr0;          /* nr_throttled at the start, -1 unknown */
    double rss_sum, pss_sum, own_sum;
    uint32_t pss_rounds, smaps_ok, smaps_failed;
    int smaps_errno;
    uint64_t own_peak;       /* the server's pages, each once (pageshare) */
    uint32_t own_rounds;
    int own_failed;          /* pageshare could not count a sample: no alone figure for the whole run */
    char own_why[96];
    int *pids;               /* scratch for pageshare: the processes of one round */
    uint64_t *shares;
    uint32_t cappids;
    struct monitor_point *series;
    uint32_t npoints, cappoints;
    uint32_t least_procs, least_threads; /* since the last point, UINT32_MAX none */
    struct monitor_result r;
    /* monitor_live's copy: the sampling thread writes it under live_mu. */
    pthread_mutex_t live_mu;
    struct monitor_live live;
};

static int push_ps(struct monitor *m, const struct pstat *p)
{
    if (m->nps == m->capps) {
        uint32_t c = m->capps ? m->capps * 2 : 256;
        struct pstat *n = realloc(m->ps, c * sizeof(*n));
        if (n == NULL)
            return -1;
        m->ps = n;
        m->capps = c;
    }
    m->ps[m->nps++] = *p;
    return 0;
}

/* The processes of the cgroup, into m->ps. */
static void list_cgroup(struct monitor *m)
{
    int *pids, n, i;
    struct pstat p;
    m->nps = 0;
    n = cgroup_pids(&m->cg, &pids);
    for (i = 0; i < n; i++)
        if (pstat_read(pids[i], &p) == 0)
            push_ps(m, &p);
    free(pids);
}

/* The root and its descendants, into m->ps: every process of the system is
 * read, then each one's parents are walked up, remembering the answers (1
 * in, 2 out) so the whole pass stays linear. */
static void list_tree(struct monitor *m)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    struct pstat *all = NULL;
    uint32_t n = 0, cap = 0, i, hcap;
    char *verdict;
    int *idx;

    m->nps = 0;
    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        struct pstat p;
        if (!isdigit((unsigned char)de->d_name[0]) || pstat_read(atoi(de->d_name), &p) != 0)
            continue;
        if (n == cap) {
            struct pstat *a;
            cap = cap ? cap * 2 : 1024;
            if ((a = realloc(all, cap * sizeof(*a))) == NULL)
                break;
            all = a;
        }
        all[n++] = p;
    }
    closedir(d);
    hcap = 2 * n + 1;
    verdict = calloc(n + 1, 1);
    idx = malloc(sizeof(int) * hcap);
    if (verdict == NULL || idx == NULL)
        goto out;
    for (i = 0; i < hcap; i++)
        idx[i] = -1;
    for (i = 0; i < n; i++) {
        uint32_t h = (uint32_t)all[i].pid * 2654435761u % hcap;
        while (idx[h] >= 0)
            h = (h + 1) % hcap;
        idx[h] = (int)i;
    }
    for (i = 0; i < n; i++) {
        int path[64], depth = 0, cur = (int)i, v = 2, k;
        while (depth < 64) {
            int ppid, found = -1;
            uint32_t h;
            if (verdict[cur]) {
                v = verdict[cur];
                break;
            }
            path[depth++] = cur;
            if (all[cur].pid == m->root) {
                v = 1;
                break;
            }
            ppid = all[cur].ppid;
            if (ppid <= 1)
                break;
            for (h = (uint32_t)ppid * 2654435761u % hcap; idx[h] >= 0; h = (h + 1) % hcap)
                if (all[idx[h]].pid == ppid) {
                    found = idx[h];
                    break;
                }
            if (found < 0)
                break;
            cur = found;
        }
        for (k = 0; k < depth; k++)
            verdict[path[k]] = (char)v;
    }
    for (i = 0; i < n; i++)
        if (verdict[i] == 1)
            push_ps(m, &all[i]);
out:
    free(verdict);
    free(idx);
    free(all);
}

/* e's command from p's cmdline. Read again when its name changed (it
 * exec'd another program) or it had none yet: a process seen in the middle
 * of its exec has an empty cmdline, and kept "[test_monitor]" for a sleep. */
static void entry_name(struct entry *e, const struct pstat *p)
{
    if (e->named && strcmp(e->comm, p->comm) == 0)
        return;
    e->named = pstat_command(p, e->command, sizeof(e->command));
    snprintf(e->comm, sizeof(e->comm), "%s", p->comm);
}

/* The entry of process p, made on first sight; NULL when the table is full. */
static struct entry *entry_for(struct monitor *m, const struct pstat *p)
{
    uint32_t h = (uint32_t)p->pid * 2654435761u % TABLE, i;
    struct entry *e;
    for (i = 0; i < TABLE; i++, h = (h + 1) % TABLE) {
        if (m->table[h] == 0)
            break;
        e = &m->e[m->table[h] - 1];
        if (e->pid == p->pid) {
            if (e->start == p->start) {
                entry_name(e, p);
                return e;
            }
            break; /* the pid was reused: a new process takes the slot */
        }
    }
    if (i == TABLE || m->ne == MAX_ENTRIES)
        return NULL;
    e = &m->e[m->ne];
    memset(e, 0, sizeof(*e));
    e->pid = p->pid;
    e->ppid = p->ppid;
    e->start = p->start;
    /* Seen in the first round: a baseline; born later: from zero. */
    e->base_ticks = m->round > 1 ? 0 : p->ticks;
    e->last_ticks = e->base_ticks;
    e->first_seen_s = (double)(clock_ns() - m->t0) / 1e9;
    entry_name(e, p);
    m->table[h] = (int32_t)++m->ne;
    return e;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The CPUs its processes may run on, as a count, or 0: the union of the
 * affinities of those that ran while watched (workers pinned apart, as
 * nginx's worker_cpu_affinity does, add up; an idle parent, a shell that
 * waits, does not widen it), else of the root's. */
static double affinity_cpus(struct monitor *m)
{
    cpu_set_t all, one;
    uint32_t i;
    int any = 0, root = m->root ? m->root : m->nps ? m->ps[0].pid : 0;
    CPU_ZERO(&all);
    for (i = 0; i < m->ne; i++)
        if (m->e[i].last_ticks > m->e[i].base_ticks && sched_getaffinity(m->e[i].pid, sizeof(one), &one) == 0) {
            CPU_OR(&all, &all, &one);
            any = 1;
        }
    if (!any && (root <= 0 || sched_getaffinity(root, sizeof(all), &all) != 0))
        return 0;
    return CPU_COUNT(&all);
}

/* The CPUs it may use: the least of its affinity, its cgroup's cpu.max and
 * the CPUs online (0 unknown). */
static double limit_cpus(struct monitor *m)
{
    double online = (double)sysconf(_SC_NPROCESSORS_ONLN), aff, q, cpus;
    aff = affinity_cpus(m);
    q = m->use_cg ? cgroup_cpu_max(&m->cg) : 0;
    cpus = online > 0 ? online : 0;
    if (aff > 0 && (cpus == 0 || aff < cpus))
        cpus = aff;
    if (q > 0 && (cpus == 0 || q < cpus))
        cpus = q;
    return cpus;
}

/* CPU seconds so far: the cgroup's own count when it has one (exited
 * processes included), else the ticks of every process seen. */
static double cpu_so_far(struct monitor *m, int *exact)
{
    uint64_t ticks = 0, usec;
    uint32_t i;
    *exact = 0;
    if (m->use_cg && m->cg_cpu_ok && cgroup_cpu_usec(&m->cg, &usec) == 0) {
        /* A count that went down is a new cgroup at the same path (a
         * service restarted): what the old one counted is carried, so the
         * figure only grows. */
        if (usec < m->cg_prev || usec < m->cg_cpu0) {
            m->cg_carried_s += (double)(m->cg_prev - m->cg_cpu0) / 1e6;
            m->cg_cpu0 = 0;
        }
        m->cg_prev = usec;
        *exact = 1;
        return m->cg_carried_s + (double)(usec - m->cg_cpu0) / 1e6;
    }
    for (i = 0; i < m->ne; i++)
        ticks += m->e[i].last_ticks - m->e[i].base_ticks;
    return (double)ticks / (double)sysconf(_SC_CLK_TCK);
}

static void push_point(struct monitor *m, uint64_t pss, uint64_t own, uint64_t rss, uint32_t procs, uint32_t threads)
{
    if (m->npoints == m->cappoints) {
        uint32_t c = m->cappoints ? m->cappoints * 2 : 64;
        struct monitor_point *n = realloc(m->series, c * sizeof(*n));
        if (n == NULL)
            return;
        m->series = n;
        m->cappoints = c;
    }
    m->series[m->npoints].t_s = (double)(clock_ns() - m->t0) / 1e9;
    m->series[m->npoints].pss_bytes = pss;
    m->series[m->npoints].alone_bytes = own;
    m->series[m->npoints].rss_bytes = rss;
    m->series[m->npoints].processes = procs < m->least_procs ? procs : m->least_procs;
    m->series[m->npoints].threads = threads < m->least_threads ? threads : m->least_threads;
    m->least_procs = m->least_threads = UINT32_MAX;
    m->npoints++;
}

/* The server's pages, each divided among its own processes that map it:
 * each process's share into its entry's peak, the sum into *own. Returns 0,
 * or -1 when it cannot be counted (then never again in this run). */
static int sample_own(struct monitor *m, uint64_t *own)
{
    uint32_t i;
    *own = 0;
    if (m->own_failed)
        return -1;
    if (m->nps > m->cappids) {
        int *p = realloc(m->pids, m->nps * sizeof(*p));
        uint64_t *s;
        if (p != NULL)
            m->pids = p;
        if (p == NULL || (s = realloc(m->shares, m->nps * sizeof(*s))) == NULL) {
            m->own_failed = 1;
            snprintf(m->own_why, sizeof(m->own_why), "out of memory");
            return -1;
        }
        m->shares = s;
        m->cappids = m->nps;
    }
    for (i = 0; i < m->nps; i++)
        m->pids[i] = m->ps[i].pid;
    if (pageshare_measure(m->pids, m->nps, m->shares, m->own_why, sizeof(m->own_why)) != 0) {
        m->own_failed = 1;
        return -1;
    }
    for (i = 0; i < m->nps; i++) {
        struct entry *e = entry_for(m, &m->ps[i]);
        *own += m->shares[i];
        if (e && m->shares[i] > e->own_peak)
            e->own_peak = m->shares[i];
    }
    return 0;
}

/* What the live view reads, under its lock: the CPU so far, the memory of
 * this sample. */
static void live_update(struct monitor *m, uint64_t rss, uint64_t pss, uint64_t own, int own_ok, int want_smaps)
{
    int exact;
    double cpu = cpu_so_far(m, &exact);
    pthread_mutex_lock(&m->live_mu);
    m->live.ok = 1;
    if (cpu > m->live.cpu_s)
        m->live.cpu_s = cpu; /* a counter: a cgroup gone a moment (its ticks instead) never lowers it */
    m->live.rss_bytes = rss;
    m->live.processes = m->nps;
    if (m->live.cpus == 0 || want_smaps)
        m->live.cpus = limit_cpus(m); /* once a second: cpu.max may change */
    if (want_smaps) {
        m->live.pss_bytes = pss;
        m->live.alone_bytes = own;
        m->live.has_pss = m->smaps_ok > 0 && m->smaps_failed == 0;
        m->live.has_alone = own_ok;
    }
    pthread_mutex_unlock(&m->live_mu);
}

/* A process's write counters (/proc/PID/io), and when they were read. The
 * read happened between before and now: a loaded machine may stop the
 * monitor between the two for milliseconds. The phase's edges take the
 * side that counts the fewest answers in the window: the end read at its
 * earliest, the baseline read at its latest (and at its earliest after a
 * warm-up). */
static void io_read(struct monitor *m, struct entry *e, pid_t pid)
{
    uint64_t wb, wc, sc;
    double before = wall_now(), now;
    if (pstat_io(pid, &wb, &wc, &sc) != 0)
        return;
    now = wall_now();
    /* Seen first now: a baseline in the first round, else from 0. */
    if (!e->io_seen) {
        e->base_wbytes = m->round > 1 ? 0 : wb;
        e->base_wchar = m->round > 1 ? 0 : wc;
        e->base_syscw = m->round > 1 ? 0 : sc;
    }
    e->io_seen = 1;
    e->last_wbytes = wb;
    e->last_wchar = wc;
    e->last_syscw = sc;
    /* When: the baseline's reads, and this round's (the last round that
     * reads is the end). */
    if (m->round <= 1) {
        if (m->r.io_begin_s[0] == 0)
            m->r.io_begin_s[0] = before;
        m->r.io_begin_s[1] = now;
    }
    if (m->io_round != m->round) {
        m->io_round = m->round;
        m->r.io_end_s[0] = before;
    }
    m->r.io_end_s[1] = now;
}

static void sample(struct monitor *m, int want_smaps)
{
    uint64_t rss = 0, pss = 0, uss = 0, own = 0, page = (uint64_t)sysconf(_SC_PAGESIZE);
    uint32_t threads = 0, i;
    int own_ok = 0;

    if (m->use_cg)
        list_cgroup(m);
    else
        list_tree(m);
    m->round++;
    /* The write counters first, close together: before the page walks,
     * which take milliseconds a process. */
    for (i = 0; want_smaps && i < m->nps; i++) {
        struct entry *e = entry_for(m, &m->ps[i]);
        if (e)
            io_read(m, e, m->ps[i].pid);
    }
    for (i = 0; i < m->nps; i++) {
        const struct pstat *p = &m->ps[i];
        struct entry *e = entry_for(m, p);
        uint64_t prss = p->rss_pages * page;
        threads += p->threads;
        rss += prss;
        if (want_smaps) {
            uint64_t a, b, c;
            int r = pstat_smaps(p->pid, &a, &b, &c);
            if (r == 0) {
                pss += a;
                uss += b;
                m->smaps_ok++;
                if (e && a > e->pss_peak)
                    e->pss_peak = a;
                if (e && b > e->uss_peak)
                    e->uss_peak = b;
            } else if (r != ENOENT && r != ESRCH) {
                m->smaps_failed++;
                if (m->smaps_errno == 0)
                    m->smaps_errno = r;
            }
        }
        if (e == NULL)
            continue;
        e->round_seen = m->round;
        e->ppid = p->ppid;
        if (p->ticks > e->last_ticks)
            e->last_ticks = p->ticks;
        if (prss > e->rss_peak)
            e->rss_peak = prss;
    }
    if (m->nps == 0) {
        m->r.gone = 1;
        pthread_mutex_lock(&m->live_mu);
        if (m->live.ok) {
            /* Nothing left to watch: no process, no memory (its CPU stays). */
            m->live.processes = 0;
            m->live.rss_bytes = m->live.pss_bytes = m->live.alone_bytes = 0;
        }
        pthread_mutex_unlock(&m->live_mu);
        return;
    }
    if (want_smaps && sample_own(m, &own) == 0) {
        own_ok = 1;
        m->own_rounds++;
        m->own_sum += (double)own;
        if (own > m->own_peak)
            m->own_peak = own;
    }
    m->r.samples++;
    m->rss_sum += (double)rss;
    if (rss > m->r.rss_peak_bytes)
        m->r.rss_peak_bytes = rss;
    if (m->nps > m->r.processes)
        m->r.processes = m->nps;
    if (threads > m->r.threads)
        m->r.threads = threads;
    if (m->nps < m->least_procs)
        m->least_procs = m->nps;
    if (threads < m->least_threads)
        m->least_threads = threads;
    if (want_smaps) {
        m->pss_rounds++;
        m->pss_sum += (double)pss;
        if (pss > m->r.pss_peak_bytes)
            m->r.pss_peak_bytes = pss;
        if (uss > m->r.uss_peak_bytes)
            m->r.uss_peak_bytes = uss;
        push_point(m, pss, own, rss, m->nps, threads);
    }
    if (m->use_cg) {
        uint64_t cur, peak;
        if (cgroup_memory(&m->cg, &cur, &peak) == 0) {
            if (peak > m->r.cg_memory_peak_bytes)
                m->r.cg_memory_peak_bytes = peak;
            if (cur > m->r.cg_memory_peak_bytes)
                m->r.cg_memory_peak_bytes = cur;
        }
    }
    live_update(m, rss, pss, own, own_ok, want_smaps);
}

void monitor_live(struct monitor *m, struct monitor_live *out)
{
    pthread_mutex_lock(&m->live_mu);
    *out = m->live;
    pthread_mutex_unlock(&m->live_mu);
}

/* Watching begins: the clock, the cgroup's counters and a first sample,
 * the baselines everything is counted from. */
static void begin(struct monitor *m)
{
    m->t0 = clock_ns();
    if (m->use_cg) {
        m->cg_cpu_ok = cgroup_cpu_usec(&m->cg, &m->cg_cpu0) == 0;
        m->cg_prev = m->cg_cpu0;
        if (cgroup_throttled(&m->cg, &m->thr0) != 0)
            m->thr0 = -1;
    }
    sample(m, 1);
}

static void *monitor_main(void *arg)
{
    struct monitor *m = arg;
    uint64_t until = clock_ns() + m->delay_ns, now;
    /* To the warm-up's end itself, not to the next 20 ms past it: a
     * baseline read late misses the answers of the window's first
     * milliseconds, at a rate no figure of the run tells. */
    while ((now = clock_ns()) < until && !atomic_load(&m->stop)) {
        uint64_t left = until - now < 20 * 1000000ull ? until - now : 20 * 1000000ull;
        struct timespec ts = { 0, (long)left };
        nanosleep(&ts, NULL);
    }
    if (m->round == 0 && !atomic_load(&m->stop)) {
        begin(m); /* the baselines, after the warm-up */
    }
    while (!atomic_load(&m->stop)) {
        struct timespec ts = { 0, 100 * 1000000L };
        nanosleep(&ts, NULL);
        if (!atomic_load(&m->stop))
            sample(m, m->round % SMAPS_EVERY == 0);
    }
    return NULL;
}

int monitor_start(int pid, const char *cgroup, uint64_t delay_ns, struct monitor **out, char *err, size_t errlen)
{
    struct monitor *m;
    struct pstat p;

    if (cgroup == NULL && (pid <= 0 || pstat_read(pid, &p) != 0)) {
        err_set(err, errlen, NULL, "--monitor: no process %d", pid);
        return -1;
    }
    m = calloc(1, sizeof(*m));
    if (m == NULL || (m->e = calloc(MAX_ENTRIES, sizeof(*m->e))) == NULL) {
        free(m);
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    if (cgroup) {
        if (cgroup_open(&m->cg, cgroup, err, errlen) != 0) {
            free(m->e);
            free(m);
            return -1;
        }
        m->use_cg = 1;
        snprintf(m->r.cgroup, sizeof(m->r.cgroup), "%s", m->cg.path);
    }
    pthread_mutex_init(&m->live_mu, NULL);
    m->root = cgroup ? 0 : pid;
    m->delay_ns = delay_ns;
    m->least_procs = m->least_threads = UINT32_MAX;
    m->thr0 = -1;
    m->r.pid = m->root;
    if (delay_ns == 0) {
        begin(m); /* the baselines, before any load */
    }
    if (pthread_create(&m->thread, NULL, monitor_main, m) != 0) {
        free(m->ps);
        free(m->e);
        free(m->series);
        free(m->pids);
        free(m->shares);
        pthread_mutex_destroy(&m->live_mu);
        free(m);
        err_set(err, errlen, NULL, "cannot start the monitor thread");
        return -1;
    }
    *out = m;
    return 0;
}

void monitor_stop(struct monitor *m, struct monitor_result *r)
{
    uint32_t i;
    long hz = sysconf(_SC_CLK_TCK);

    atomic_store(&m->stop, 1);
    pthread_join(m->thread, NULL);
    if (m->round > 0)
        sample(m, 1);
    for (i = 0; i < m->ne; i++) {
        if (m->e[i].io_seen) {
            m->r.has_io = 1;
            m->r.has_wchar = 1;
            m->r.has_syscw = 1;
            if (m->e[i].last_syscw > m->e[i].base_syscw)
                m->r.syscw += m->e[i].last_syscw - m->e[i].base_syscw;
            if (m->e[i].last_wbytes > m->e[i].base_wbytes)
                m->r.write_bytes += m->e[i].last_wbytes - m->e[i].base_wbytes;
            if (m->e[i].last_wchar > m->e[i].base_wchar)
                m->r.wchar += m->e[i].last_wchar - m->e[i].base_wchar;
        }
    }
    m->r.cpus = limit_cpus(m);
    m->r.cpu_s = cpu_so_far(m, &m->r.cpu_exact);
    m->r.nr_throttled = -1;
    if (m->use_cg && m->thr0 >= 0) {
        long long thr;
        if (cgroup_throttled(&m->cg, &thr) == 0 && thr >= m->thr0)
            m->r.nr_throttled = thr - m->thr0;
    }
    m->r.rss_mean_bytes = m->r.samples ? (uint64_t)(m->rss_sum / m->r.samples) : 0;
    m->r.pss_mean_bytes = m->pss_rounds ? (uint64_t)(m->pss_sum / m->pss_rounds) : 0;
    m->r.has_pss = m->smaps_ok > 0 && m->smaps_failed == 0;
    /* Every sample counted among its own processes, or none: one measure
     * for the whole run. */
    m->r.has_alone = m->r.has_pss && !m->own_failed && m->own_rounds == m->pss_rounds && m->own_rounds > 0;
    if (m->r.has_alone) {
        m->r.alone_peak_bytes = m->own_peak;
        m->r.alone_mean_bytes = (uint64_t)(m->own_sum / m->own_rounds);
    } else {
        for (i = 0; i < m->npoints; i++)
            m->series[i].alone_bytes = 0;
    }
    if (!m->r.has_pss)
        snprintf(m->r.pss_note, sizeof(m->r.pss_note), "PSS unavailable (/proc/PID/smaps_rollup: %s): RSS shown",
                 m->smaps_errno ? strerror(m->smaps_errno) : "not read");
    else if (!m->r.has_alone)
        snprintf(m->r.pss_note, sizeof(m->r.pss_note), "not measured as if alone: %s",
                 m->own_why[0] ? m->own_why : "not counted");
    m->r.procs = calloc(m->ne ? m->ne : 1, sizeof(*m->r.procs));
    if (m->r.procs) {
        for (i = 0; i < m->ne; i++) {
            const struct entry *e = &m->e[i];
            struct monitor_proc *p = &m->r.procs[i];
            p->pid = e->pid;
            p->ppid = e->ppid;
            snprintf(p->command, sizeof(p->command), "%s", e->command);
            p->cpu_s = (double)(e->last_ticks - e->base_ticks) / (double)hz;
            p->rss_peak_bytes = e->rss_peak;
            p->pss_peak_bytes = e->pss_peak;
            p->alone_peak_bytes = m->r.has_alone ? e->own_peak : 0;
            p->uss_peak_bytes = e->uss_peak;
            p->first_seen_s = e->first_seen_s;
            p->exited = e->round_seen != m->round;
        }
        m->r.nprocs = m->ne;
    }
    m->r.series = m->series;
    m->r.npoints = m->npoints;
    *r = m->r;
    pthread_mutex_destroy(&m->live_mu);
    free(m->pids);
    free(m->shares);
    free(m->ps);
    free(m->e);
    free(m);
}

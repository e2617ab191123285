/* compare.c - `rafale compare`: start the servers, wait until each answers,
 * run every workload against every server, repetitions interleaved (server
 * A, B, C, then A, B, C again) so machine drift hits all alike, watch each
 * server's process tree, and stop everything at the end. */
#include "compare.h"
#include "clock.h"
#include "monitor.h"
#include "net.h"
#include "proc.h"

#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>


/* snprintf for messages that may be cut short, and that is fine. */
static void say(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
    double s[16];
    if (n <= 0)
        return 0;
    memcpy(s, v, (size_t)n * sizeof(double));
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* Does the server answer? A TCP connect, or a GET of `ready` that gets any
 * HTTP response. */
static int probe(const struct url *u, const char *ready)
{
    struct net_addr a;
    char err[128], buf[64];
    struct timeval tv = { 1, 0 };
    int fd, ok = 0;

    if (net_resolve(u->host, u->port, &a, err, sizeof(err)) != 0)
        return 0;
    fd = socket(a.ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    if (connect(fd, (struct sockaddr *)&a.ss, a.len) == 0) {
        if (ready == NULL) {
            ok = 1;
        } else {
            char req[1024];
            int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", ready, u->host);
            if (write(fd, req, (size_t)n) == n && read(fd, buf, sizeof(buf)) >= 8 && memcmp(buf, "HTTP/1.", 7) == 0)
                ok = 1;
        }
    }
    close(fd);
    return ok;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* Starts (or finds) server i and waits until it answers. */
static int bring_up(const struct cmp_plan *p, int i, int *pid, const char *log, const atomic_int *stop, char *why,
                    size_t whylen)
{
    const struct cmp_server *s = &p->servers[i];
    struct url u;
    char err[256], how[128], tail[400];
    uint64_t until;

    if (url_parse(s->url, &u, err, sizeof(err)) != 0) {
        snprintf(why, whylen, "bad url: %s", err);
        return -1;
    }
    if (s->pid) {
        *pid = s->pid;
        if (kill(s->pid, 0) != 0) {
            snprintf(why, whylen, "no process %d to attach to", s->pid);
            url_free(&u);
            return -1;
        }
    } else {
        *pid = proc_spawn(s->start, s->dir, s->env, s->nenv, p->server_cpus, p->nserver_cpus, log, err, sizeof(err));
        if (*pid < 0) {
            snprintf(why, whylen, "%s", err);
            url_free(&u);
            return -1;
        }
    }
    until = clock_ns() + p->ready_ns;
    while (!probe(&u, s->ready)) {
        if (s->start && !proc_alive(*pid, how, sizeof(how))) {
            proc_tail(log, 3, tail, sizeof(tail));
            say(why, whylen, "%s before answering%s%s", how, tail[0] ? "; last output: " : "", tail);
            *pid = -1;
            url_free(&u);
            return -1;
        }
        if (clock_ns() > until || atomic_load(stop)) {
            proc_tail(log, 3, tail, sizeof(tail));
            say(why, whylen, "never answered on %s within %.1f s%s%s", s->url, (double)p->ready_ns / 1e9,
                tail[0] ? "; last output: " : "", tail);
            url_free(&u);
            return -1;
        }
        sleep_ms(50);
    }
    url_free(&u);
    return 0;
}

/* One run of workload w against server s. Returns 0, or -1 when the run
 * could not be made (the reason in why). */
static int one_run(const struct cmp_plan *p, const struct config *base, int w, int s, int pid, int rep,
                   const atomic_int *stop, struct cmp_result *out, char *why, size_t whylen, char *line, size_t linelen)
{
    const struct cmp_workload *wl = &p->workloads[w];
    const struct cmp_server *sv = &p->servers[s];
    struct cmp_cell *cell = &out->cells[w][s];
    struct config cfg = *base;
    struct engine_result res;
    struct monitor *mon = NULL;
    struct monitor_result mr;
    struct url u;
    char text[2048], err[512];
    const char *ut[1];
    double rps;
    size_t bl = strlen(sv->url);
    int rc;

    say(text, sizeof(text), "%.*s%s", (int)(bl && sv->url[bl - 1] == '/' ? bl - 1 : bl), sv->url, wl->path);
    if (url_parse(text, &u, err, sizeof(err)) != 0) {
        say(why, whylen, "bad url: %s", err);
        return -1;
    }
    ut[0] = text;
    cfg.urls = &u;
    cfg.url_text = ut;
    cfg.nurls = 1;
    cfg.connections = wl->connections;
    cfg.threads = p->threads < wl->connections ? p->threads : wl->connections;
    cfg.duration_ns = wl->duration_ns;
    cfg.requests = wl->requests;
    if (cfg.requests && cfg.requests < cfg.connections)
        cfg.connections = (uint32_t)cfg.requests;
    if (!cfg.duration_ns && !cfg.requests)
        cfg.duration_ns = 5 * NS_PER_S;
    cfg.keepalive = !wl->close;
    cfg.rate = wl->rate;
    cfg.warmup_ns = p->warmup_ns;
    if (pid > 0 && monitor_start(pid, p->warmup_ns, &mon, err, sizeof(err)) != 0)
        mon = NULL;
    rc = engine_run(&cfg, stop, NULL, NULL, &res, err, sizeof(err));
    if (mon)
        monitor_stop(mon, &mr);
    url_free(&u);
    if (rc != 0) {
        say(why, whylen, "%s", err);
        return -1;
    }
    rps = res.elapsed_s > 0 ? (double)res.total.completed / res.elapsed_s : 0;
    if (cell->runs < 16)
        cell->rps[cell->runs] = rps;
    hist_merge(&cell->lat, &res.total.latency);
    cell->errors += stats_errors(&res.total);
    cell->completed += res.total.completed;
    if (mon && res.total.completed && cell->runs < 16) {
        /* Kept per run in rps' shadow: the median is taken at the end. */
        cell->cpu_runs[cell->runs] = mr.cpu_s * 1e6 / (double)res.total.completed;
        if (mr.rss_peak_bytes > cell->rss_peak)
            cell->rss_peak = mr.rss_peak_bytes;
    }
    if (res.client_cpu_s > 0.9 * (res.elapsed_s + (double)p->warmup_ns / 1e9) * cfg.threads)
        cell->client_bound = 1;
    cell->runs++;
    snprintf(line, linelen, "  run %d: %-24s %-16s %10.1f req/s  p99 %8.3f ms  %llu errors", rep + 1, wl->name, sv->name,
             rps, hist_percentile(&res.total.latency, 99) / 1e6, (unsigned long long)stats_errors(&res.total));
    engine_result_free(&res);
    return 0;
}

int cmp_run(const struct cmp_plan *p, const struct config *base, const atomic_int *stop, cmp_log_fn log, void *arg,
            struct cmp_result *out, char *err, size_t errlen)
{
    int pids[CMP_MAX], i, w, rep, k;
    char logs[CMP_MAX][64], line[1024];

    memset(out, 0, sizeof(*out));
    for (w = 0; w < p->nworkloads; w++)
        for (i = 0; i < p->nservers; i++) {
            out->cells[w][i].server_cpu_us = -1;
            if (hist_init(&out->cells[w][i].lat) != 0) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
        }
    if (p->nclient_cpus && proc_pin_self(p->client_cpus, p->nclient_cpus) != 0) {
        snprintf(err, errlen, "cannot pin rafale to client-cpus: %s", strerror(errno));
        return -1;
    }
    for (i = 0; i < p->nservers; i++) {
        snprintf(logs[i], sizeof(logs[i]), "/tmp/rafale-compare-%d-%d.log", (int)getpid(), i);
        unlink(logs[i]);
        pids[i] = -1;
        if (atomic_load(stop))
            break;
        if (bring_up(p, i, &pids[i], logs[i], stop, out->failure[i], sizeof(out->failure[i])) != 0) {
            out->failed[i] = 1;
            snprintf(line, sizeof(line), "  %s: %s", p->servers[i].name, out->failure[i]);
            if (log)
                log(line, arg);
        }
    }
    for (rep = 0; rep < p->repeat && !atomic_load(stop); rep++) {
        for (w = 0; w < p->nworkloads && !atomic_load(stop); w++) {
            for (i = 0; i < p->nservers && !atomic_load(stop); i++) {
                char how[100], tail[300];
                if (out->failed[i])
                    continue;
                if (one_run(p, base, w, i, pids[i], rep, stop, out, out->failure[i], sizeof(out->failure[i]), line,
                            sizeof(line)) != 0) {
                    out->failed[i] = 1;
                } else if (log) {
                    log(line, arg);
                }
                if (p->servers[i].start && !out->failed[i] && !proc_alive(pids[i], how, sizeof(how))) {
                    proc_tail(logs[i], 3, tail, sizeof(tail));
                    snprintf(out->failure[i], sizeof(out->failure[i]), "%s during the runs%s%s", how,
                             tail[0] ? "; last output: " : "", tail);
                    out->failed[i] = 1;
                    pids[i] = -1;
                }
                if (out->failed[i] && log) {
                    snprintf(line, sizeof(line), "  %s failed: %s", p->servers[i].name, out->failure[i]);
                    log(line, arg);
                }
            }
        }
    }
    out->interrupted = atomic_load(stop) != 0;
    /* Stop what we started, interrupted or not. */
    for (i = 0; i < p->nservers; i++) {
        if (p->servers[i].start && pids[i] > 0)
            proc_stop(pids[i], p->grace_ns);
        unlink(logs[i]);
    }
    for (w = 0; w < p->nworkloads; w++)
        for (i = 0; i < p->nservers; i++) {
            struct cmp_cell *c = &out->cells[w][i];
            int n = c->runs < 16 ? c->runs : 16, m = 0;
            double cpu[16];
            c->p50_ns = hist_percentile(&c->lat, 50);
            c->p99_ns = hist_percentile(&c->lat, 99);
            for (k = 0; k < n; k++)
                if (c->cpu_runs[k] > 0)
                    cpu[m++] = c->cpu_runs[k];
            c->server_cpu_us = m ? median(cpu, m) : -1;
            c->rps_median = median(c->rps, n);
        }
    return 0;
}

void cmp_result_free(struct cmp_result *r, const struct cmp_plan *p)
{
    int w, i;
    for (w = 0; w < p->nworkloads; w++)
        for (i = 0; i < p->nservers; i++)
            hist_fini(&r->cells[w][i].lat);
}

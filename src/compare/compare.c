/* compare.c - `rafale compare`: start the servers (each in a cgroup of its
 * own), wait until each answers with a good status, run every workload
 * against every server, repetitions interleaved (server A, B, C, then A, B,
 * C again) so machine drift hits all alike, watch each server, and stop
 * everything at the end. Each run keeps its full result; the summaries are
 * computed from the runs, so a saved compare rebuilds exactly. */
#include "compare.h"
#include "alike.h"
#include "child.h"
#include "compare_replay.h"
#include "duration_auto.h"
#include "err.h"
#include "targets.h"
#include "verdict.h"
#include "clock.h"
#include "machine.h"
#include "net.h"
#include "observed.h"
#include "proc.h"
#include "text.h"
#include "units.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* snprintf for messages that may be cut short, and that is fine. */

/* Does the server answer? A TCP connect, or a GET of `ready` that gets a
 * status in the expected set. Writes what it got into got. */
static int probe(const struct config *cfg, const struct url *u, const struct compare_server *s, char *got, size_t gotlen)
{
    struct net_addr a;
    char err[128], buf[64];
    struct timeval tv = { 1, 0 };
    int fd, ok = 0;
    ssize_t n;

    got[0] = '\0';
    if (config_resolve(cfg, u->host, (uint16_t)u->port, &a, err, sizeof(err)) != 0)
        return 0;
    fd = socket(a.ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    if (connect(fd, (struct sockaddr *)&a.ss, a.len) == 0) {
        if (s->ready == NULL) {
            ok = 1;
        } else {
            char req[1024], host[URL_HOST_MAX + 16];
            int len = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", s->ready,
                               url_host_header(u, host, sizeof(host)));
            /* "HTTP/1.x NNN" (RFC 9112 §4). */
            if (len > 0 && (size_t)len < sizeof(req) && write(fd, req, (size_t)len) == len &&
                (n = read(fd, buf, sizeof(buf) - 1)) >= 12 && memcmp(buf, "HTTP/1.", 7) == 0) {
                unsigned code = (unsigned)atoi(buf + 9);
                err_set(got, gotlen, NULL, "status %u", code);
                ok = status_set_has(&s->ready_status, code);
            }
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

/* A directory of compare's own for the servers' output: made by mkdtemp
 * (mode 0700, a name no one can guess) in $TMPDIR or /tmp, so no other
 * user can put a file or a link where a log will be written. */
static int private_dir(char *dir, size_t len, char *err, size_t errlen)
{
    const char *tmp = getenv("TMPDIR");
    int n;
    if (tmp == NULL || tmp[0] == '\0')
        tmp = "/tmp";
    n = snprintf(dir, len, "%s/rafale-compare-XXXXXX", tmp);
    if (n < 0 || (size_t)n >= len) {
        err_set(err, errlen, NULL, "TMPDIR is too long (%zu bytes)", strlen(tmp));
        return -1;
    }
    if (mkdtemp(dir) == NULL) {
        err_set(err, errlen, NULL, "cannot make a directory in %s: %s", tmp, strerror(errno));
        return -1;
    }
    return 0;
}

/* Server i's log in dir, a new string; NULL when out of memory. */
static char *log_path(const char *dir, int i)
{
    size_t n = strlen(dir) + 32;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/server-%d.log", dir, i);
    return s;
}

/* How a server is run and watched during the compare. */
struct srv {
    struct child child;      /* started by us */
    int started;
    char *log;               /* its stdout and stderr, in compare's private directory */
    int monitor_pid;         /* what the monitor follows: a pid, */
    const char *monitor_cg;  /* or a cgroup */
};

const char *compare_cut(const char *s, size_t n, char buf[CMP_OUTPUT_COLS + 4])
{
    size_t k = n, shown;
    if (n > CMP_OUTPUT_COLS) {
        k = CMP_OUTPUT_COLS;
        while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
            k--; /* not inside a UTF-8 character */
    }
    memcpy(buf, s, k);
    /* A server's output (its colours, a hostile one's escapes) goes to a
     * terminal: its control bytes become '?'. */
    shown = text_scrub(buf, k, 1);
    if (k < n)
        memcpy(buf + shown, "\xe2\x80\xa6", 3); /* … */
    buf[shown + (k < n ? 3 : 0)] = '\0';
    return buf;
}

int compare_output_lines(const char *out, char lines[][CMP_OUTPUT_COLS + 4])
{
    const char *end = out + strlen(out), *b[CMP_OUTPUT_LINES];
    size_t len[CMP_OUTPUT_LINES];
    int n = 0, k;
    /* From the end back: the last lines that hold more than blanks. */
    while (end > out && n < CMP_OUTPUT_LINES) {
        const char *e = end, *a = end;
        while (a > out && a[-1] != '\n')
            a--;
        end = a > out ? a - 1 : a;
        while (e > a && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
            e--;
        if (e > a) {
            b[n] = a;
            len[n++] = (size_t)(e - a);
        }
    }
    for (k = 0; k < n; k++)
        compare_cut(b[n - 1 - k], len[n - 1 - k], lines[k]);
    return n;
}

int compare_exit_status(const struct compare_result *r)
{
    int w, s, slo = 0;
    if (r->interrupted)
        return 130;
    for (s = 0; s < r->nservers; s++) {
        if (r->failed[s])
            return 1;
        for (w = 0; w < r->nworkloads; w++) {
            const struct compare_cell *c = compare_cell_at(r, w, s);
            if (c->nruns == 0 || c->invalid)
                return 1;
            slo |= c->slo_failed > 0;
        }
    }
    return slo ? 3 : 0;
}

/* A failed server's line for the live log, then its last output lines. */
static void log_failure(compare_log_fn log, void *arg, const char *line, const char *output)
{
    char lines[CMP_OUTPUT_LINES][CMP_OUTPUT_COLS + 4], l[CMP_OUTPUT_COLS + 4 + 8];
    int n, k;
    if (log == NULL)
        return;
    log(line, arg);
    n = compare_output_lines(output, lines);
    if (n)
        log("    last output:", arg);
    for (k = 0; k < n; k++) {
        snprintf(l, sizeof(l), "      %.*s", (int)sizeof(lines[k]) - 1, lines[k]);
        log(l, arg);
    }
}

int compare_ports_free(const struct compare_file *p, char *err, size_t errlen)
{
    int i;
    for (i = 0; i < p->nservers; i++) {
        const struct compare_server *s = &p->servers[i];
        struct url u;
        struct net_addr a;
        char e[300], who[200];
        int pid, rc;
        if (s->start == NULL)
            continue; /* attached: it is expected to listen */
        memset(&u, 0, sizeof(u));
        if (url_parse(s->url, &u, e, sizeof(e)) != 0 ||
            config_resolve(&p->workloads[0].cfg, u.host, u.port, &a, e, sizeof(e)) != 0) {
            url_free(&u);
            continue; /* told when it is started */
        }
        rc = proc_port_holder(&a.ss, &pid, who, sizeof(who));
        if (rc > 0) {
            err_set(err, errlen, NULL,
                    "[server %s]: port %u of %s is already held by %s: compare would measure it, not what start "
                    "runs; stop it, or replace start with reuse = yes to measure the server already there",
                    s->name, u.port, s->url, who);
            url_free(&u);
            return -1;
        }
        url_free(&u);
    }
    return 0;
}

/* Starts (or finds) server i and waits until it answers. */
static int bring_up(const struct compare_file *p, int i, struct srv *sv, struct compare_result *r, const atomic_int *stop,
                    char *why, size_t whylen, char *warn, size_t warnlen)
{
    const struct compare_server *s = &p->servers[i];
    struct url u;
    char err[300], how[128], got[64], cgname[64];
    uint64_t until;

    warn[0] = '\0';
    if (url_parse(s->url, &u, err, sizeof(err)) != 0) {
        err_set(why, whylen, NULL, "bad url: %s", err);
        return -1;
    }
    if (s->pid) {
        if (kill(s->pid, 0) != 0) {
            err_set(why, whylen, NULL, "no process %d to attach to", s->pid);
            url_free(&u);
            return -1;
        }
        sv->monitor_pid = s->pid;
    } else if (s->cgroup) {
        sv->monitor_cg = s->cgroup;
    } else if (s->reuse) {
        /* Already running: watch the process that answers on the port. */
        struct net_addr a;
        char who[200];
        int pid = 0, held = config_resolve(&p->workloads[0].cfg, u.host, u.port, &a, err, sizeof(err)) == 0
                                 ? proc_port_holder(&a.ss, &pid, who, sizeof(who))
                                 : -1;
        if (held <= 0 || pid <= 0) {
            err_set(why, whylen, NULL, "reuse = yes, but %s", held == 0 ? "nothing listens on its url's port"
                                                           : held < 0 ? "/proc/net/tcp cannot be read"
                                                                      : "the process listening cannot be named");
            url_free(&u);
            return -1;
        }
        sv->monitor_pid = pid;
    } else {
        snprintf(cgname, sizeof(cgname), "rafale-%d-%d", (int)getpid(), i);
        if (child_start(&sv->child, s->start, s->dir, s->env, s->nenv, p->set.server_cpus, p->set.nserver_cpus,
                        sv->log, p->set.cgroups ? cgname : NULL, warn, warnlen, err, sizeof(err)) != 0) {
            err_set(why, whylen, NULL, "%s", err);
            url_free(&u);
            return -1;
        }
        sv->started = 1;
        if (sv->child.in_cgroup) {
            sv->monitor_cg = sv->child.cg.path;
            r->cgroups = 1;
        } else {
            sv->monitor_pid = sv->child.pid;
            err_set(r->note, sizeof(r->note), NULL, "%s", p->set.cgroups ? warn : "cgroups = no in the compare file");
        }
    }
    until = clock_ns() + p->set.ready_ns;
    while (!probe(&p->workloads[0].cfg, &u, s, got, sizeof(got))) {
        if (sv->started && !child_alive(&sv->child, how, sizeof(how))) {
            child_log_tail(sv->log, r->output[i], CMP_OUTPUT_MAX + 1);
            err_set(why, whylen, NULL, "%s before answering", how);
            url_free(&u);
            return -1;
        }
        if (atomic_load(stop)) {
            err_set(why, whylen, NULL, "interrupted while waiting for it to answer on %s", s->url);
            url_free(&u);
            return -1;
        }
        if (clock_ns() > until) {
            if (sv->started)
                child_log_tail(sv->log, r->output[i], CMP_OUTPUT_MAX + 1);
            if (got[0])
                err_set(why, whylen, NULL, "never answered GET %s with an expected status (got %s; ready-status %s) within %.1f s",
                    s->ready, got, s->ready_status.text, (double)p->set.ready_ns / 1e9);
            else
                err_set(why, whylen, NULL, "never answered on %s within %.1f s", s->url, (double)p->set.ready_ns / 1e9);
            url_free(&u);
            return -1;
        }
        sleep_ms(50);
    }
    url_free(&u);
    return 0;
}

/* One run of workload w against server s, its log line headed by label
 * ("run 3"). Returns 0, or -1 when the run could not be made (the reason
 * in why). */
static int one_run(const struct compare_file *p, int w, int s, const struct srv *sv, const char *label,
                   const atomic_int *stop, struct compare_result *out, char *why, size_t whylen, char *line,
                   size_t linelen)
{
    const struct compare_workload *wl = &p->workloads[w];
    const struct compare_server *server = &p->servers[s];
    struct compare_cell *cell = compare_cell_at(out, w, s);
    struct config cfg = wl->cfg, own;
    static struct run_result res; /* 20 KiB of findings: off the stack */
    struct observed_in in = { 0 };
    struct url u;
    char text[2048], err[512], p99[32];
    const char *ut[1];
    size_t bl = strlen(server->url);
    int rc, own_targets = wl->cfg.targets_path || wl->cfg.replay_path;

    err_set(text, sizeof(text), NULL, "%.*s%s", (int)(bl && server->url[bl - 1] == '/' ? bl - 1 : bl), server->url, wl->path);
    memset(&own, 0, sizeof(own));
    memset(&u, 0, sizeof(u));
    if (own_targets) {
        /* The workload's targets (a replay's: its log's patterns), their paths on this server. */
        if (wl->cfg.replay_path)
            rc = compare_replay_config(&wl->cfg, server->url, &own, err, sizeof(err));
        else if ((rc = config_copy(&own, &wl->cfg)) == 0)
            rc = targets_load(&own, wl->cfg.targets_path, server->url, err, sizeof(err));
        else
            err_set(err, sizeof(err), NULL, "out of memory");
        if (rc != 0) {
            config_free(&own);
            err_set(why, whylen, NULL, "%s", err);
            return -1;
        }
        cfg = own;
        if (cell->url == NULL)
            cell->url = strdup(server->url);
    } else {
        if (url_parse(text, &u, err, sizeof(err)) != 0) {
            err_set(why, whylen, NULL, "bad url: %s", err);
            return -1;
        }
        if (cell->url == NULL)
            cell->url = strdup(text);
        ut[0] = text;
        cfg.urls = &u;
        cfg.url_text = ut;
        cfg.ntargets = 1;
    }
    if (cfg.threads == 0)
        cfg.threads = p->set.nclient_cpus ? (uint32_t)p->set.nclient_cpus : 1;
    if (cfg.threads > cfg.connections)
        cfg.threads = cfg.connections;
    in.cfg = &cfg;
    in.stop = stop;
    in.monitor_pid = sv->monitor_pid;
    in.monitor_cgroup = sv->monitor_cg; /* a monitor that cannot start: the run goes without */
    in.server_log = sv->started ? sv->log : NULL;
    in.findings = !cfg.no_findings;
    rc = observed_run(&in, &res, err, sizeof(err));
    url_free(&u);
    if (rc != 0) {
        config_free(&own);
        err_set(why, whylen, NULL, "%s", err);
        return -1;
    }
    snprintf(line, linelen, "  %s: %-24s %-20s %10.1f req/s  p99 %8s  %llu errors%s", label, wl->name,
             server->name, res.fig.elapsed_s > 0 ? (double)res.fig.total.completed / res.fig.elapsed_s : 0,
             units_fmt_ns(p99, sizeof(p99), hist_percentile(&res.fig.total.h[H_LATENCY], 99)),
             (unsigned long long)stats_errors(&res.fig.total),
             res.fig.total.completed && res.fig.total.bad_status * 2 > res.fig.total.completed ? "  (mostly bad statuses)" : "");
    /* The run keeps its targets (its results are per target); the
     * others' configuration is the workload's, on the cell's url. */
    res.cfg = NULL;
    if (own_targets) {
        if ((res.own_cfg = malloc(sizeof(*res.own_cfg))) != NULL)
            *res.own_cfg = own;
        else
            config_free(&own);
        res.cfg = res.own_cfg;
    }
    if ((own_targets && res.cfg == NULL) || compare_add_run(cell, &res) != 0) {
        result_free(&res);
        err_set(why, whylen, NULL, "out of memory");
        return -1;
    }
    return 0;
}

static int add_difference(struct compare_alike *al, int server, const char *field, const struct alike_answer *a)
{
    struct compare_difference *n = realloc(al->diff, (size_t)(al->ndiff + 1) * sizeof(*n));
    if (n == NULL)
        return -1;
    al->diff = n;
    n = &al->diff[al->ndiff++];
    n->server = server;
    snprintf(n->field, sizeof(n->field), "%s", field);
    alike_value(a, field, n->value, sizeof(n->value));
    return 0;
}

/* How long the check waits for one server's answer, all of it: the
 * workload's timeout, at most 5 s (the check is one request, not a run). */
#define ALIKE_WAIT_MAX (5 * 1000000000ULL)

/* Do the servers answer workload w alike? Its request once to each, before
 * the load; the differences from the first server's answer, each with the
 * first's own beside it. An answer that could not be read whole is named
 * in al->cut and compared with nothing: alike is claimed only when no
 * answer was cut. The runs happen either way. */
static void check_alike(const struct compare_file *p, int w, const atomic_int *stop, struct compare_result *out)
{
    static const char *const fields[] = { "status", "location", "type", "framing", "body" };
    static const unsigned bits[] = { ALIKE_STATUS, ALIKE_LOCATION, ALIKE_TYPE, ALIKE_BODY, ALIKE_BODY };
    const struct compare_workload *wl = &p->workloads[w];
    struct compare_alike *al = &out->alike[w];
    unsigned want = p->set.same < 0 ? ALIKE_DEFAULT : (unsigned)p->set.same;
    struct alike_answer *ans = calloc((size_t)p->nservers, sizeof(*ans));
    uint64_t wait = wl->cfg.timeout_ns && wl->cfg.timeout_ns < ALIKE_WAIT_MAX ? wl->cfg.timeout_ns : ALIKE_WAIT_MAX;
    int s, ref = -1, k, ncut = 0;
    if (ans == NULL)
        return;
    if (want == 0 || wl->cfg.targets_path || wl->cfg.replay_path) {
        snprintf(al->note, sizeof(al->note), "%s",
                 !want ? "same = no" : wl->cfg.replay_path ? "a replay: not checked" : "a targets file: not checked");
        free(ans);
        return;
    }
    for (s = 0; s < p->nservers; s++) {
        char text[2048], e[256];
        struct url u;
        size_t bl = strlen(p->servers[s].url);
        if (out->failed[s] || atomic_load(stop))
            continue;
        memset(&u, 0, sizeof(u));
        snprintf(text, sizeof(text), "%.*s%s", (int)(bl && p->servers[s].url[bl - 1] == '/' ? bl - 1 : bl),
                 p->servers[s].url, wl->path);
        if (url_parse(text, &u, e, sizeof(e)) == 0)
            alike_fetch(&wl->cfg, &u, want, wait, &ans[s]);
        else
            snprintf(ans[s].why, sizeof(ans[s].why), "%s", e);
        url_free(&u);
        if (ans[s].cut) {
            size_t at = strlen(al->cut);
            snprintf(al->cut + at, sizeof(al->cut) - at, "%s%s: %s", at ? "; " : "", p->servers[s].name, ans[s].why);
            ncut++;
        }
        if (ref < 0 && ans[s].ok)
            ref = s;
    }
    al->checked = ref >= 0;
    if (ref < 0 && ncut) {
        snprintf(al->note, sizeof(al->note), "%s", al->cut);
    } else if (ref < 0) {
        /* Why, as the first server asked says it (a TLS failure, a refused connection). */
        snprintf(al->note, sizeof(al->note), "no server answered the check");
        for (s = 0; s < p->nservers; s++)
            if (!out->failed[s] && ans[s].why[0]) {
                snprintf(al->note, sizeof(al->note), "no server answered the check (%.60s: %.200s)", p->servers[s].name,
                         ans[s].why);
                break;
            }
    }
    for (k = 0; ref >= 0 && k < 5; k++) {
        int first = 1;
        for (s = 0; s < p->nservers; s++) {
            char what[16];
            struct alike_answer one = ans[s];
            if (s == ref || out->failed[s] || ans[s].cut || !(want & bits[k]))
                continue;
            /* This field alone. */
            if (ans[s].ok && alike_same(&ans[ref], &one, bits[k], what, sizeof(what)))
                continue;
            if (ans[s].ok && strcmp(what, fields[k]) != 0)
                continue;
            if (first && add_difference(al, ref, fields[k], &ans[ref]) != 0)
                break;
            first = 0;
            if (add_difference(al, s, ans[s].ok ? fields[k] : "answer", &ans[s]) != 0)
                break;
        }
    }
    if (ncut && al->ndiff == 0 && al->checked) {
        /* The answers read agree, but a cut one may not: no claim. */
        al->checked = 0;
        snprintf(al->note, sizeof(al->note), "%s", al->cut);
    }
    free(ans);
}

/* The first k runs of a cell go. */
static void drop_runs(struct compare_cell *c, int k)
{
    int j, n = k < c->nruns ? k : c->nruns;
    if (n == 0)
        return; /* a failed server's cell has no runs, and no array */
    for (j = 0; j < n; j++)
        result_free(&c->runs[j]);
    memmove(c->runs, c->runs + n, (size_t)(c->nruns - n) * sizeof(*c->runs));
    c->nruns -= n;
}

/* The first k runs of every cell go: warm-up rounds (discard = k). */
static void drop_first_runs(struct compare_result *r, int k)
{
    int i;
    for (i = 0; i < r->nworkloads * r->nservers; i++)
        drop_runs(&r->cells[i], k);
}

/* Server i's run of workload w (label: "run 3"), logged; a server that
 * failed it, or is gone, is marked failed, said, and stopped at once. */
static void server_run(const struct compare_file *p, int w, int i, struct srv *sv, const char *label,
                       const atomic_int *stop, compare_log_fn log, void *arg, struct compare_result *out)
{
    char how[100], line[1200];
    if (one_run(p, w, i, sv, label, stop, out, out->failure[i], CMP_WHY_MAX, line, sizeof(line)) != 0)
        out->failed[i] = 1;
    else if (log)
        log(line, arg);
    if (sv->started && !child_alive(&sv->child, how, sizeof(how))) {
        /* Gone: said first, before what its run met (a run
         * whose first connects all failed stops at once). */
        char met[CMP_WHY_MAX];
        size_t at, n;
        snprintf(met, sizeof(met), "%s", out->failed[i] ? out->failure[i] : "");
        child_log_tail(sv->log, out->output[i], CMP_OUTPUT_MAX + 1);
        snprintf(out->failure[i], CMP_WHY_MAX, "%s during the runs", how);
        at = strlen(out->failure[i]);
        if (met[0] && at + 3 < CMP_WHY_MAX) {
            n = strlen(met) < CMP_WHY_MAX - at - 3 ? strlen(met) : CMP_WHY_MAX - at - 3;
            memcpy(out->failure[i] + at, ": ", 2);
            memcpy(out->failure[i] + at + 2, met, n);
            out->failure[i][at + 2 + n] = '\0';
        }
        out->failed[i] = 1;
    }
    if (out->failed[i]) {
        /* Whatever is left of it goes now, not at the end. */
        if (sv->started)
            child_stop(&sv->child, p->set.grace_ns);
        snprintf(line, sizeof(line), "  %s failed: %s", p->servers[i].name, out->failure[i]);
        log_failure(log, arg, line, out->output[i]);
    }
}

/* duration = auto for workload w (duration_auto.h): probing rounds, every
 * server at the same length, until their own intervals fit half the band
 * or max-duration is reached; the length into the workload's cfg, each
 * probe into its probes, and the probing runs left out. */
static void size_rounds(struct compare_file *p, int w, struct srv *svs, const atomic_int *stop, compare_log_fn log,
                        void *arg, struct compare_result *out)
{
    struct compare_workload *wl = &p->workloads[w];
    double *own = calloc((size_t)p->nservers + 1, sizeof(double));
    uint64_t d = duration_auto_first(p->set.max_duration_ns), next;
    char line[600], dur[32], nx[32], band[32];
    int i, n;
    if (own == NULL)
        return; /* the first length stands */
    /* Half the band on the log scale, as the verdict takes it: ±1.5% of 3%. */
    snprintf(band, sizeof(band), "\xc2\xb1%.1f%%", expm1(log1p(p->set.same_within) / 2) * 100);
    while (!atomic_load(stop) && wl->nprobes < COMPARE_PROBES_MAX) {
        struct compare_probe *pr = &wl->probes[wl->nprobes];
        char label[48];
        wl->cfg.duration_ns = d;
        snprintf(label, sizeof(label), "probe %s", units_fmt_ns(dur, sizeof(dur), (double)d));
        for (i = n = 0; i < p->nservers && !atomic_load(stop); i++) {
            struct compare_cell *c = compare_cell_at(out, w, i);
            if (out->failed[i])
                continue;
            server_run(p, w, i, &svs[i], label, stop, log, arg, out);
            if (!out->failed[i]) /* one that failed is out of the compare, and of the sizing */
                own[n++] = c->nruns ? compare_own_ci(&c->runs[c->nruns - 1]) : NAN;
        }
        for (i = 0; i < p->nservers; i++)
            drop_runs(compare_cell_at(out, w, i), INT_MAX);
        if (n == 0 || atomic_load(stop))
            break; /* every server failed: nothing to size on */
        pr->duration_ns = d;
        pr->own_ci = duration_auto_widest(own, n);
        wl->nprobes++;
        next = duration_auto_next(d, pr->own_ci, p->set.same_within, p->set.max_duration_ns);
        wl->auto_max = next == d;
        if (next == 0 || next == d)
            break;
        if (log) {
            if (isnan(pr->own_ci))
                snprintf(line, sizeof(line), "  duration = auto: %s: rounds of %s gave a run no throughput "
                         "interval: %s next", wl->name, dur, units_fmt_ns(nx, sizeof(nx), (double)next));
            else
                snprintf(line, sizeof(line), "  duration = auto: %s: rounds of %s: own throughput intervals "
                         "\xc2\xb1%.1f%% (the two widest together), wider than %s (half the band): %s next",
                         wl->name, dur, pr->own_ci * 100, band, units_fmt_ns(nx, sizeof(nx), (double)next));
            log(line, arg);
        }
        d = next;
    }
    free(own);
    wl->cfg.duration_ns = d;
    if (log && wl->nprobes) {
        const struct compare_probe *pr = &wl->probes[wl->nprobes - 1];
        char ci[48];
        units_fmt_ns(dur, sizeof(dur), (double)d);
        if (isnan(pr->own_ci))
            snprintf(ci, sizeof(ci), "no throughput interval");
        else
            snprintf(ci, sizeof(ci), "own throughput intervals \xc2\xb1%.1f%%", pr->own_ci * 100);
        if (wl->auto_max)
            snprintf(line, sizeof(line), "  duration = auto: %s: max-duration = %s reached with %s, wider than %s "
                     "(half the band): rounds of %s (the probing rounds left out)", wl->name, dur, ci, band, dur);
        else
            snprintf(line, sizeof(line), "  duration = auto: %s: rounds of %s (%s, within %s, half the band; the "
                     "probing rounds left out)", wl->name, dur, ci, band);
        log(line, arg);
    }
}

/* repeat = auto: may the rounds stop? When every verdict the reports
 * show is decided: each server against the best and the baseline, and
 * every pair of the matrix (up to CMP_MATRIX_MAX servers). */
static int settled(const struct compare_file *p, struct compare_result *r)
{
    int w, s, t;
    compare_summarize(p, r);
    for (w = 0; w < r->nworkloads; w++)
        for (s = 0; s < r->nservers; s++) {
            const struct compare_cell *c = compare_cell_at(r, w, s);
            if (c->verdict == VERDICT_UNDECIDED || c->vs_base.verdict == VERDICT_UNDECIDED)
                return 0;
            for (t = s + 1; r->nservers <= CMP_MATRIX_MAX && t < r->nservers; t++) {
                struct verdict_pair v;
                compare_pair(p, r, w, s, t, &v);
                if (v.verdict == VERDICT_UNDECIDED)
                    return 0;
            }
        }
    return 1;
}

/* The version line of each server, when the compare file gives a command for it. */
static void versions(struct compare_file *p)
{
    int i;
    for (i = 0; i < p->nservers; i++) {
        char line[160];
        if (p->servers[i].version_cmd == NULL)
            continue;
        child_capture(p->servers[i].version_cmd, line, sizeof(line), 5 * 1000000000ULL);
        text_scrub(line, strlen(line), 1); /* printed on the terminal as it is */
        free(p->servers[i].version);
        p->servers[i].version = strdup(line);
    }
}

int compare_rounds(struct compare_file *p, const atomic_int *stop, compare_log_fn log, void *arg, struct compare_result *out,
            char *err, size_t errlen)
{
    struct srv *svs;
    char line[1200], warn[300], dir[PATH_MAX];
    int i, w, rep, rounds, least, rc = 0;

    if (compare_result_init(out, p) != 0 || (svs = calloc((size_t)p->nservers, sizeof(*svs))) == NULL) {
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    /* Nothing started yet: every stop below is safe. */
    for (i = 0; i < p->nservers; i++)
        svs[i].child.pid = -1;
    if (p->set.nclient_cpus && proc_pin_self(p->set.client_cpus, p->set.nclient_cpus) != 0) {
        err_set(err, errlen, NULL, "cannot pin rafale to client-cpus: %s", strerror(errno));
        free(svs);
        return -1;
    }
    if (private_dir(dir, sizeof(dir), err, errlen) != 0) {
        free(svs);
        return -1;
    }
    for (i = 0; i < p->nservers; i++)
        if ((svs[i].log = log_path(dir, i)) == NULL) {
            err_set(err, errlen, NULL, "out of memory");
            rc = -1;
            goto end;
        }
    versions(p);
    child_become_subreaper();
    for (i = 0; i < p->nservers && !atomic_load(stop); i++) {
        if (bring_up(p, i, &svs[i], out, stop, out->failure[i], CMP_WHY_MAX, warn, sizeof(warn)) != 0) {
            out->failed[i] = 1;
            snprintf(line, sizeof(line), "  %s: %s", p->servers[i].name, out->failure[i]);
            log_failure(log, arg, line, out->output[i]);
            if (svs[i].started)
                child_stop(&svs[i].child, p->set.grace_ns);
        }
        if (warn[0] && log) {
            snprintf(line, sizeof(line), "  %s: warning: %s: it runs in a process group only, and a server that "
                                         "daemonizes will escape it", p->servers[i].name, warn);
            log(line, arg);
        }
    }
    for (w = 0; w < p->nworkloads && !atomic_load(stop); w++)
        check_alike(p, w, stop, out);
    rounds = (p->set.repeat_auto ? p->set.max_repeat : p->set.repeat) + p->set.discard;
    /* repeat = auto: at least `repeat` rounds (5; fewer when max-repeat says so). */
    least = p->set.repeat < p->set.max_repeat ? p->set.repeat : p->set.max_repeat;
    for (w = 0; w < p->nworkloads && !atomic_load(stop); w++)
        if (p->workloads[w].duration_auto)
            size_rounds(p, w, svs, stop, log, arg, out);
    for (rep = 0; rep < rounds && !atomic_load(stop); rep++) {
        char label[32];
        snprintf(label, sizeof(label), "run %d", rep + 1);
        for (w = 0; w < p->nworkloads && !atomic_load(stop); w++)
            for (i = 0; i < p->nservers && !atomic_load(stop); i++)
                if (!out->failed[i])
                    server_run(p, w, i, &svs[i], label, stop, log, arg, out);
        if (rep + 1 == p->set.discard) {
            drop_first_runs(out, p->set.discard);
            if (log)
                log("  (the rounds so far were warm-up: left out)", arg);
        }
        if (p->set.repeat_auto && rep + 1 - p->set.discard >= least && !atomic_load(stop) && settled(p, out)) {
            rep++;
            if (log) {
                snprintf(line, sizeof(line), "  repeat = auto: every verdict decided after %d rounds",
                         rep - p->set.discard);
                log(line, arg);
            }
            break;
        }
        if (p->set.repeat_auto && rep + 1 == rounds && !atomic_load(stop) && log) {
            snprintf(line, sizeof(line), "  repeat = auto: max-repeat = %d reached with verdicts still undecided",
                     p->set.max_repeat);
            if (!settled(p, out))
                log(line, arg);
        }
    }
    out->interrupted = atomic_load(stop) != 0;
    /* The rounds that counted (repeat = auto: as many as it took). */
    p->set.repeat = rep - p->set.discard > 0 ? rep - p->set.discard : 0;
end:
    /* Stop what we started, interrupted or not, and leave no file. */
    for (i = 0; i < p->nservers; i++) {
        if (svs[i].started)
            child_stop(&svs[i].child, p->set.grace_ns);
        if (svs[i].log)
            unlink(svs[i].log);
        free(svs[i].log);
    }
    rmdir(dir);
    child_reap_orphans(2 * 1000000000ULL);
    free(svs);
    if (rc == 0)
        compare_summarize(p, out);
    return rc;
}

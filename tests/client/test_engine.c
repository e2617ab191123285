/* The engine (src/client/engine.c, with collect.c and live.c): short -n
 * runs against a server thread of the test's on 127.0.0.1 that counts what
 * it was sent. Every request accounted for: the run's started, completed
 * and errors are the server's count, by status and by how the server ended
 * connections, closed loop and pipelined and -R; a run to a closed port
 * stops in one line. */
#include "engine.h"
#include "fixture.h"

#include <pthread.h>

#define SRV_FDS 32

/* The test's server: every third answer a 500, and with close_every, every
 * close_every-th answer says Connection: close and closes. */
struct srv {
    int lfd;
    uint32_t close_every;
    atomic_int stop;
    /* Counted by its thread, read after join. */
    uint64_t requests, s500, closes, accepted;
    pthread_t th;
};

static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
static const char bad[] = "HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n";
static const char bye[] = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";

/* Answers each whole request in buf (n bytes; what is left of a request
 * cut in two moves to its start). Returns 0, or -1 once it closed fd. */
static int srv_answer(struct srv *s, int fd, char *buf, size_t *n)
{
    char *p = buf, *e;
    while ((e = memmem(p, *n - (size_t)(p - buf), "\r\n\r\n", 4)) != NULL) {
        const char *a = ok;
        p = e + 4;
        s->requests++;
        if (s->close_every && s->requests % s->close_every == 0) {
            s->closes++;
            CHECK(write(fd, bye, sizeof(bye) - 1) == (ssize_t)sizeof(bye) - 1);
            close(fd);
            return -1;
        }
        if (s->requests % 3 == 0) {
            a = bad;
            s->s500++;
        }
        CHECK(write(fd, a, strlen(a)) == (ssize_t)strlen(a));
    }
    *n -= (size_t)(p - buf);
    memmove(buf, p, *n);
    return 0;
}

static void *srv_main(void *arg)
{
    struct srv *s = arg;
    struct pollfd p[SRV_FDS + 1];
    static char bufs[SRV_FDS][8192];
    size_t lens[SRV_FDS];
    int n = 0, i;
    p[0].fd = s->lfd;
    p[0].events = POLLIN;
    while (!atomic_load(&s->stop)) {
        if (poll(p, (nfds_t)n + 1, 10) <= 0)
            continue;
        if ((p[0].revents & POLLIN) && n < SRV_FDS) {
            p[n + 1].fd = accept(s->lfd, NULL, NULL);
            p[n + 1].events = POLLIN;
            p[n + 1].revents = 0;
            lens[n] = 0;
            n += p[n + 1].fd >= 0;
            s->accepted++;
        }
        for (i = 0; i < n; i++) {
            ssize_t r;
            if (!(p[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            r = read(p[i + 1].fd, bufs[i] + lens[i], sizeof(bufs[i]) - lens[i]);
            if (r > 0) {
                lens[i] += (size_t)r;
                if (srv_answer(s, p[i + 1].fd, bufs[i], &lens[i]) == 0)
                    continue;
            } else {
                close(p[i + 1].fd);
            }
            /* Gone: the last one takes its place. */
            p[i + 1] = p[n];
            memcpy(bufs[i], bufs[n - 1], lens[n - 1]);
            lens[i] = lens[n - 1];
            n--;
            i--;
        }
    }
    for (i = 0; i < n; i++)
        close(p[i + 1].fd);
    return NULL;
}

/* A run of cfg (URL, -n, -c, -t set by the caller) against the server. */
static int run(struct srv *s, struct config *cfg, struct run_figures *res, char *err, size_t errlen)
{
    atomic_int stop = 0;
    char notes[256];
    int rc;
    CHECKF(config_finish(cfg, err, errlen, notes, sizeof(notes)) == 0, "%s", err);
    atomic_store(&s->stop, 0);
    CHECK(pthread_create(&s->th, NULL, srv_main, s) == 0);
    rc = engine_run(cfg, &stop, NULL, NULL, res, err, errlen);
    atomic_store(&s->stop, 1);
    pthread_join(s->th, NULL);
    return rc;
}

/* A config for the server's URL: -n n, -c c, -t t. */
static void setup(struct fix *f, struct srv *s, struct config *cfg, uint64_t n, uint32_t c, uint32_t t)
{
    char err[256];
    memset(s, 0, sizeof(*s));
    fix_listen(f, "/e");
    s->lfd = f->lfd;
    config_defaults(cfg);
    CHECKF(targets_add_url(cfg, f->url, err, sizeof(err)) == 0, "%s", err);
    cfg->requests = n;
    cfg->connections = c;
    cfg->threads = t;
    cfg->no_progress = 1;
}

/* Every request accounted for: the run's counts are the server's. */
static void accounted(const struct srv *s, const struct run_figures *res, uint64_t n)
{
    CHECKF(res->total.started == n && res->total.completed == n && stats_errors(&res->total) == 0 &&
           res->in_flight == 0, "started %llu completed %llu", (unsigned long long)res->total.started,
           (unsigned long long)res->total.completed);
    CHECK(s->requests == n);
    CHECK(res->total.status[500] == s->s500 && res->total.status[200] == n - s->s500);
    CHECK(res->per_target[0].completed == n && res->per_target[0].h[H_LATENCY].total == n);
    CHECK(res->total.h[H_LATENCY].total == n);
}

static void closed_loop(void)
{
    struct fix f;
    struct srv s;
    struct config cfg;
    struct run_figures res;
    char err[256];
    setup(&f, &s, &cfg, 200, 4, 2);
    CHECKF(run(&s, &cfg, &res, err, sizeof(err)) == 0, "%s", err);
    accounted(&s, &res, 200);
    CHECK(s.s500 == 66 && res.total.conns_opened == 4 && s.accepted == 4);
    CHECK(stats_server_closes(&res.total) == 0 && res.elapsed_s > 0);
    figures_free(&res);
    config_free(&cfg);
    close(f.lfd);
}

/* Pipelined four deep: -n still ends exactly there, not one more sent. */
static void pipelined(void)
{
    struct fix f;
    struct srv s;
    struct config cfg;
    struct run_figures res;
    char err[256];
    setup(&f, &s, &cfg, 101, 2, 1);
    cfg.pipeline = 4;
    CHECKF(run(&s, &cfg, &res, err, sizeof(err)) == 0, "%s", err);
    accounted(&s, &res, 101);
    figures_free(&res);
    config_free(&cfg);
    close(f.lfd);
}

/* The server closes every 7th connection's turn: each close counted as
 * its header said, the connection replaced, nothing lost. */
static void server_closes(void)
{
    struct fix f;
    struct srv s;
    struct config cfg;
    struct run_figures res;
    char err[256];
    setup(&f, &s, &cfg, 70, 3, 1);
    s.close_every = 7;
    CHECKF(run(&s, &cfg, &res, err, sizeof(err)) == 0, "%s", err);
    CHECK(s.closes == 10 && res.total.closes[CLOSE_HEADER] == 10 && stats_server_closes(&res.total) == 10);
    CHECK(res.total.conns_opened == s.accepted && s.accepted >= 3 + 9);
    accounted(&s, &res, 70);
    figures_free(&res);
    config_free(&cfg);
    close(f.lfd);
}

/* -R: the schedule's requests, every one of them sent and answered. */
static void constant_rate(void)
{
    struct fix f;
    struct srv s;
    struct config cfg;
    struct run_figures res;
    char err[256];
    setup(&f, &s, &cfg, 60, 2, 2);
    cfg.rate = 5000;
    CHECKF(run(&s, &cfg, &res, err, sizeof(err)) == 0, "%s", err);
    accounted(&s, &res, 60);
    CHECK(res.total.h[H_LATENCY_UNC].total == 60 && res.per_target[0].h[H_LAG].total == 60 && res.queued == 0);
    figures_free(&res);
    config_free(&cfg);
    close(f.lfd);
}

/* Nothing listens: the run stops at its first contact, in one line. */
static void nothing_listens(void)
{
    struct fix f;
    struct srv s;
    struct config cfg;
    struct run_figures res;
    char err[256], notes[256];
    atomic_int stop = 0;
    setup(&f, &s, &cfg, 50, 2, 1);
    close(f.lfd);
    CHECKF(config_finish(&cfg, err, sizeof(err), notes, sizeof(notes)) == 0, "%s", err);
    CHECK(engine_run(&cfg, &stop, NULL, NULL, &res, err, sizeof(err)) == ENGINE_EDOWN);
    CHECKF(strstr(err, "connection refused: nothing listens there") != NULL && strncmp(err, "127.0.0.1:", 10) == 0,
           "%s", err);
    config_free(&cfg);
}

int main(void)
{
    T_RUN(closed_loop);
    T_RUN(pipelined);
    T_RUN(server_closes);
    T_RUN(constant_rate);
    T_RUN(nothing_listens);
    T_END("test_engine");
}

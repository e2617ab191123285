/* The engine (src/client/engine.c, with collect.c and live.c): short -n
 * runs against a server thread of the test's on 127.0.0.1 that counts what
 * it was sent. Every request accounted for: the run's started, completed
 * and errors are the server's count, by status and by how the server ended
 * connections, closed loop and pipelined and -R; a run to a closed port
 * stops in one line, at a rate too. */
#include "engine.h"
#include "fixture.h"

/* A run against the server: its listener, its config, its figures. */
struct erun {
    struct fix f;        /* (its listener alone) */
    struct fix_srv s;
    struct config cfg;
    struct run_figures res;
    char err[256];
    atomic_int stop;     /* engine_run's stop, set once the server counted stop_after (0: never) */
    uint64_t stop_after;
    pthread_t stopper;
};

/* Ctrl-C, once the server has answered e->stop_after requests. */
static void *stopper(void *arg)
{
    struct erun *e = arg;
    while (atomic_load(&e->s.requests) < e->stop_after)
        nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
    atomic_store(&e->stop, 1);
    return NULL;
}

/* The server's URL: -n n, -c c, -t t (the test sets the rest). */
static void setup(struct erun *e, uint64_t n, uint32_t c, uint32_t t)
{
    memset(e, 0, sizeof(*e));
    fix_listen(&e->f, "/e");
    e->s.lfd = e->f.lfd;
    config_defaults(&e->cfg);
    CHECKF(targets_add_url(&e->cfg, e->f.url, e->err, sizeof(e->err)) == 0, "%s", e->err);
    e->cfg.requests = n;
    e->cfg.connections = c;
    e->cfg.threads = t;
    e->cfg.no_progress = 1;
}

/* The run, the server answering meanwhile (its thread). Returns
 * engine_run's value. */
static int go(struct erun *e)
{
    char notes[256];
    int rc;
    CHECKF(config_finish(&e->cfg, e->err, sizeof(e->err), notes, sizeof(notes)) == 0, "%s", e->err);
    fix_srv_start(&e->s);
    if (e->stop_after)
        CHECK(pthread_create(&e->stopper, NULL, stopper, e) == 0);
    rc = engine_run(&e->cfg, &e->stop, NULL, NULL, &e->res, e->err, sizeof(e->err));
    if (e->stop_after)
        pthread_join(e->stopper, NULL);
    fix_srv_stop(&e->s);
    return rc;
}

static void end(struct erun *e, int rc)
{
    if (rc == 0)
        figures_free(&e->res);
    config_free(&e->cfg);
    if (e->f.lfd >= 0)
        close(e->f.lfd);
}

/* Every request accounted for: the run's counts are the server's. */
static void accounted(const struct erun *e, uint64_t n)
{
    const struct run_figures *res = &e->res;
    CHECKF(res->total.started == n && res->total.completed == n && stats_errors(&res->total) == 0 &&
           res->in_flight == 0, "started %llu completed %llu", (unsigned long long)res->total.started,
           (unsigned long long)res->total.completed);
    CHECK(e->s.requests == n);
    CHECK(res->total.status[500] == e->s.s500 && res->total.status[200] == n - e->s.s500);
    CHECK(res->per_target[0].completed == n && res->per_target[0].h[H_LATENCY].total == n);
    CHECK(res->total.h[H_LATENCY].total == n);
}

/* Runs of each kind, every request accounted for in each. */
static void runs_accounted(void)
{
    static const struct {
        const char *name;
        uint64_t n;
        uint32_t c, t, pipeline, close_every;
        double rate;
    } runs[] = {
        { "closed loop", 200, 4, 2, 1, 0, 0 },
        /* -n still ends exactly there: not one more sent. */
        { "pipelined four deep", 101, 2, 1, 4, 0, 0 },
        /* Each close counted as its header said, the connection replaced. */
        { "the server closes every 7th answer's connection", 70, 3, 1, 1, 7, 0 },
        { "-R 5000", 60, 2, 2, 1, 0, 5000 },
    };
    size_t i;
    for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        struct erun e;
        t_case = runs[i].name;
        setup(&e, runs[i].n, runs[i].c, runs[i].t);
        e.cfg.pipeline = runs[i].pipeline;
        e.cfg.rate = runs[i].rate;
        e.s.close_every = runs[i].close_every;
        CHECKF(go(&e) == 0, "%s", e.err);
        accounted(&e, runs[i].n);
        CHECK(e.s.s500 == runs[i].n / 3 - runs[i].n / 21 * (runs[i].close_every == 7));
        CHECK(e.res.total.conns_opened == e.s.accepted && e.res.elapsed_s > 0);
        CHECK(e.s.closes == (runs[i].close_every ? runs[i].n / runs[i].close_every : 0));
        CHECK(e.res.total.closes[CLOSE_HEADER] == e.s.closes && stats_server_closes(&e.res.total) == e.s.closes);
        if (runs[i].close_every == 0 && runs[i].rate == 0)
            CHECK(e.s.accepted == runs[i].c);
        if (runs[i].rate) /* each request's lag and uncorrected latency */
            CHECK(e.res.total.h[H_LATENCY_UNC].total == runs[i].n && e.res.per_target[0].h[H_LAG].total == runs[i].n &&
                  e.res.queued == 0);
        end(&e, 0);
    }
}

/* --warmup: its requests are not the run's, but -n still ends exactly:
 * those the window took in from the warm-up count among its n. */
static void after_warmup(void)
{
    struct erun e;
    setup(&e, 150, 3, 1);
    e.cfg.warmup_ns = 30 * NS_PER_MS;
    CHECKF(go(&e) == 0, "%s", e.err);
    CHECK(e.res.total.started == 150 && e.res.total.completed == 150 && stats_errors(&e.res.total) == 0 &&
          e.res.in_flight == 0 && e.res.total.carried_in <= 3);
    /* The server saw the warm-up's answered requests besides. */
    CHECK(atomic_load(&e.s.requests) >= 150 && e.res.total.conns_warmup + e.res.total.conns_opened == e.s.accepted);
    CHECK(e.res.per_target[0].h[H_LATENCY].total == 150);
    end(&e, 0);
}

/* Stopped (Ctrl-C) in the middle of a -d run: a partial result in which
 * every request the server got is answered or in flight, none lost. */
static void interrupted(void)
{
    struct erun e;
    uint64_t served;
    setup(&e, 0, 4, 2);
    e.cfg.duration_ns = 60 * NS_PER_S;
    e.stop_after = 300;
    CHECKF(go(&e) == 0, "%s", e.err);
    served = atomic_load(&e.s.requests);
    CHECK(e.res.interrupted && served >= 300 && stats_errors(&e.res.total) == 0 && e.res.in_flight <= 4);
    CHECKF(e.res.total.completed <= served && served <= e.res.total.completed + e.res.in_flight &&
           e.res.total.started == e.res.total.completed + e.res.in_flight,
           "served %llu completed %llu in flight %llu", (unsigned long long)served,
           (unsigned long long)e.res.total.completed, (unsigned long long)e.res.in_flight);
    CHECK(e.res.total.status[200] + e.res.total.status[500] == e.res.total.completed);
    end(&e, 0);
}

/* Nothing listens: the run stops at its first contact, in one line. */
static void nothing_listens(void)
{
    struct erun e;
    setup(&e, 50, 2, 1);
    close(e.f.lfd);
    e.f.lfd = e.s.lfd = -1; /* (poll passes over it: the server hears nothing) */
    CHECK(go(&e) == ENGINE_EDOWN);
    CHECKF(strstr(e.err, "connection refused: nothing listens there") != NULL && strncmp(e.err, "127.0.0.1:", 10) == 0,
           "%s", e.err);
    end(&e, ENGINE_EDOWN);
}

/* Nothing listens, at a rate whose schedule is always due: the first
 * refusal stops the worker, and the stop is seen. The schedule's timer,
 * set again at its past due time while stopping, spun in one poll. */
static void nothing_listens_at_a_rate(void)
{
    struct erun e;
    int i;
    for (i = 0; i < 20; i++) {
        setup(&e, 0, 2, 1);
        e.cfg.duration_ns = 2 * NS_PER_S;
        e.cfg.rate = 1e6;
        close(e.f.lfd);
        e.f.lfd = e.s.lfd = -1;
        CHECK(go(&e) == ENGINE_EDOWN);
        end(&e, ENGINE_EDOWN);
    }
}

int main(void)
{
    T_RUN(runs_accounted);
    T_RUN(after_warmup);
    T_RUN(interrupted);
    T_RUN(nothing_listens);
    /* (a hang here is a failure: the runner counts a program that ends without its counts) */
    alarm(60);
    T_RUN(nothing_listens_at_a_rate);
    T_END("test_engine");
}

/* fixture.h - a worker of the client, as the engine makes one, its
 * connections to a listener of the test's on 127.0.0.1: the tests of
 * src/client/'s modules drive it by hand (the session's read, the worker's
 * loop one turn at a time) and play the server on the sockets they accept.
 * Nothing waits on the clock but poll's bound, a hung test's end. */
#ifndef RAFALE_TEST_CLIENT_FIXTURE_H
#define RAFALE_TEST_CLIENT_FIXTURE_H

#include "client.h"
#include "clock.h"
#include "targets.h"
#include "../t.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Each test uses some of these. */
#define FIX_FN static __attribute__((unused))

#define FIX_WAIT_MS 2000 /* the longest a socket of the test is waited for */

struct fix {
    struct config cfg;
    struct plan pl;
    struct timeline tl;
    struct worker w;
    struct reqlog lg;    /* --log, when the config asks (fix_free closes it if the test did not) */
    atomic_int stop, failed;
    int lfd;             /* the listener */
    int sfd;             /* the server's end of connection 0 (fix_start), or -1 */
    char url[64];
};

/* A listener on 127.0.0.1, any port; its URL (path after it) into f->url. */
FIX_FN void fix_listen(struct fix *f, const char *path)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t n = sizeof(a);
    f->lfd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(f->lfd >= 0 && bind(f->lfd, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(f->lfd, 64) == 0 &&
          getsockname(f->lfd, (struct sockaddr *)&a, &n) == 0);
    snprintf(f->url, sizeof(f->url), "http://127.0.0.1:%u%s", ntohs(a.sin_port), path);
}

/* The run of cfg (tweak: its options, before config_finish) with nconns
 * connections on one worker, -n budget (0: none), speaking sess; its clock
 * starts now, no warm-up. */
FIX_FN void fix_init(struct fix *f, const char *path, const struct session_ops *sess, uint32_t nconns,
                     uint64_t budget, void (*tweak)(struct config *))
{
    char err[256], notes[256];
    memset(f, 0, sizeof(*f));
    f->sfd = -1;
    fix_listen(f, path);
    config_defaults(&f->cfg);
    CHECKF(targets_add_url(&f->cfg, f->url, err, sizeof(err)) == 0, "%s", err);
    f->cfg.connections = nconns;
    f->cfg.requests = budget;
    if (tweak)
        tweak(&f->cfg);
    CHECKF(config_finish(&f->cfg, err, sizeof(err), notes, sizeof(notes)) == 0, "%s", err);
    CHECKF(plan_build(&f->cfg, &f->pl, err, sizeof(err)) == 0, "%s", err);
    f->pl.sess = sess;
    CHECK(show_init(&f->pl) == 0);
    CHECKF(sess->plan_init == NULL || sess->plan_init(&f->pl, err, sizeof(err)) == 0, "%s", err);
    pthread_mutex_init(&f->pl.batch_mu, NULL);
    batches_init(&f->pl.batches, TL_SUB_BITS);
    CHECK(timeline_init(&f->tl, 1) == 0);
    f->pl.tl = &f->tl;
    f->pl.stop = &f->stop;
    f->pl.failed = &f->failed;
    f->pl.nthreads = 1;
    f->pl.t0 = f->pl.t_measure = clock_ns();
    f->pl.t_deadline = UINT64_MAX;
    if (f->cfg.out[OUT_LOG]) {
        CHECKF(reqlog_open(&f->lg, &f->cfg, 1, err, sizeof(err)) == 0, "%s", err);
        f->pl.log = &f->lg;
    }
    CHECK(worker_init(&f->w, &f->pl, 0, nconns, nconns, 0, budget ? budget : UINT64_MAX) == 0);
    CHECK(reach_init(&f->pl, &f->w, 1) == 0);
    /* As the worker's loop begins (engine.c's worker_main). */
    f->w.t_last = f->pl.t_measure;
    f->w.tl_end = f->pl.t_measure + NS_PER_S;
    f->w.tick_len = BATCH_TICK_NS;
    f->w.tick_start = f->pl.t_measure;
    f->w.tick_end = f->pl.t_measure + BATCH_TICK_NS;
    f->w.carried = 1;
}

FIX_FN void fix_free(struct fix *f)
{
    uint32_t i;
    uint64_t written, dropped;
    int failed;
    for (i = 0; i < f->w.nconns; i++)
        conn_close(&f->w.conns[i]);
    if (f->lg.started)
        reqlog_close(&f->lg, &written, &dropped, &failed);
    worker_free(&f->w);
    show_free(&f->pl);
    reach_fini(&f->pl);
    if (f->pl.sess->plan_free)
        f->pl.sess->plan_free(&f->pl);
    plan_free(&f->pl);
    batches_fini(&f->pl.batches);
    pthread_mutex_destroy(&f->pl.batch_mu);
    timeline_fini(&f->tl);
    config_free(&f->cfg);
    close(f->lfd);
    if (f->sfd >= 0)
        close(f->sfd);
}

/* Waits for fd to be readable (FIX_WAIT_MS at most): 1 when it is. */
FIX_FN int fix_readable(int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    return poll(&p, 1, FIX_WAIT_MS) == 1;
}

/* Has fd something to read now (no wait)? */
FIX_FN int fix_readable_now(int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    return poll(&p, 1, 0) == 1;
}

/* The server's end of the next connection to the listener, or -1. */
FIX_FN int fix_accept(struct fix *f)
{
    return fix_readable(f->lfd) ? accept(f->lfd, NULL, NULL) : -1;
}

/* Reads what came on the server's end fd until it holds the text want
 * times, into buf (cap bytes, NUL-ended). Returns the bytes read. */
FIX_FN size_t fix_recv(int fd, char *buf, size_t cap, const char *want, int times)
{
    size_t n = 0;
    buf[0] = '\0';
    for (;;) {
        const char *p = buf;
        int k = 0;
        ssize_t r;
        while ((p = strstr(p, want)) != NULL) {
            k++;
            p += strlen(want);
        }
        if (k >= times || n + 1 >= cap || !fix_readable(fd) || (r = read(fd, buf + n, cap - 1 - n)) <= 0)
            return n;
        n += (size_t)r;
        buf[n] = '\0';
    }
}

FIX_FN void fix_send(int fd, const char *s)
{
    CHECK(write(fd, s, strlen(s)) == (ssize_t)strlen(s));
}

/* One turn of the worker's loop, then its work queue (engine.c's
 * run_queue): connections given the requests to send again, then their
 * next ones while the budget lasts. Waits up to wait_ms for an event. */
FIX_FN void fix_turn(struct fix *f, int wait_ms)
{
    struct worker *w = &f->w;
    uint32_t n;
    CHECK(loop_poll(&w->loop, (uint64_t)wait_ms * NS_PER_MS) >= 0);
    for (n = w->qlen; n > 0; n--) {
        struct conn *c = workq_dequeue(w);
        uint64_t now = clock_ns();
        if (c->state == C_IDLE && w->rlen)
            conn_take(c, 0, now); /* a request refused unprocessed, sent again */
        else if (c->state == C_IDLE && workq_may_start(w))
            conn_take(c, now, now);
        else if (c->state == C_OPEN && c->count < c->cap)
            conn_fill(c, now);
    }
}

/* The worker's loop turned until cond holds (a hundred turns at most). */
#define FIX_UNTIL(f, cond) do { int k_; for (k_ = 0; k_ < 100 && !(cond); k_++) fix_turn(f, 20); } while (0)

/* Connection c opened, up and its requests written: its server end. */
FIX_FN int fix_connect(struct fix *f, struct conn *c)
{
    int sfd, k;
    uint64_t now = clock_ns();
    conn_take(c, now, now);
    sfd = fix_accept(f);
    CHECK(sfd >= 0);
    for (k = 0; k < 100 && c->state != C_OPEN; k++)
        fix_turn(f, 10);
    CHECK(c->state == C_OPEN);
    return sfd;
}

/* fix_init's run with one connection, connected: its server end in
 * f->sfd (fix_free closes it). */
FIX_FN struct conn *fix_start(struct fix *f, const char *path, const struct session_ops *sess, uint64_t budget,
                              void (*tweak)(struct config *))
{
    fix_init(f, path, sess, 1, budget, tweak);
    f->sfd = fix_connect(f, &f->w.conns[0]);
    return &f->w.conns[0];
}

/* The server closes its end of connection 0. */
FIX_FN void fix_hangup(struct fix *f)
{
    close(f->sfd);
    f->sfd = -1;
}

/* The server hangs up connection 0, which connects again (its next
 * request given by the test): its new server end in f->sfd. */
FIX_FN void fix_redial(struct fix *f)
{
    fix_hangup(f);
    f->sfd = fix_connect(f, &f->w.conns[0]);
}

#define FIX_SRV_FDS 32

/* A server thread of the test's, on the listener lfd, counting what it
 * is sent: every third answer a 500, and with close_every, every
 * close_every-th answer says Connection: close and closes. */
struct fix_srv {
    int lfd;
    uint32_t close_every;
    atomic_int stop;
    /* Counted by its thread, read after join (requests meanwhile too). */
    _Atomic uint64_t requests;
    uint64_t s500, closes, accepted;
    pthread_t th;
};

/* (the answers of fix_srv) */
static const char fix_srv_ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
static const char fix_srv_bad[] = "HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n";
static const char fix_srv_bye[] = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";

/* Answers each whole request in buf (n bytes; what is left of a request
 * cut in two moves to its start). Returns 0, or -1 once it closed fd. */
FIX_FN int fix_srv_answer(struct fix_srv *s, int fd, char *buf, size_t *n)
{
    char *p = buf, *e;
    while ((e = memmem(p, *n - (size_t)(p - buf), "\r\n\r\n", 4)) != NULL) {
        const char *a = fix_srv_ok;
        p = e + 4;
        s->requests++;
        if (s->close_every && s->requests % s->close_every == 0) {
            s->closes++;
            CHECK(write(fd, fix_srv_bye, sizeof(fix_srv_bye) - 1) == (ssize_t)sizeof(fix_srv_bye) - 1);
            close(fd);
            return -1;
        }
        if (s->requests % 3 == 0) {
            a = fix_srv_bad;
            s->s500++;
        }
        CHECK(write(fd, a, strlen(a)) == (ssize_t)strlen(a));
    }
    *n -= (size_t)(p - buf);
    memmove(buf, p, *n);
    return 0;
}

FIX_FN void *fix_srv_main(void *arg)
{
    struct fix_srv *s = arg;
    struct pollfd p[FIX_SRV_FDS + 1];
    static char bufs[FIX_SRV_FDS][8192];
    size_t lens[FIX_SRV_FDS];
    int n = 0, i;
    p[0].fd = s->lfd;
    p[0].events = POLLIN;
    while (!atomic_load(&s->stop)) {
        if (poll(p, (nfds_t)n + 1, 10) <= 0)
            continue;
        if ((p[0].revents & POLLIN) && n < FIX_SRV_FDS) {
            p[n + 1].fd = accept(s->lfd, NULL, NULL);
            p[n + 1].events = POLLIN;
            p[n + 1].revents = 0;
            lens[n] = 0;
            if (p[n + 1].fd >= 0) {
                n++;
                s->accepted++;
            }
        }
        for (i = 0; i < n; i++) {
            ssize_t r;
            if (!(p[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            r = read(p[i + 1].fd, bufs[i] + lens[i], sizeof(bufs[i]) - lens[i]);
            if (r > 0) {
                lens[i] += (size_t)r;
                if (fix_srv_answer(s, p[i + 1].fd, bufs[i], &lens[i]) == 0)
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

/* The server's thread starts, and stops (joined: its counts are read after). */
FIX_FN void fix_srv_start(struct fix_srv *s)
{
    atomic_store(&s->stop, 0);
    CHECK(pthread_create(&s->th, NULL, fix_srv_main, s) == 0);
}

FIX_FN void fix_srv_stop(struct fix_srv *s)
{
    atomic_store(&s->stop, 1);
    pthread_join(s->th, NULL);
}

/* The worker's counts that every test of a request's end reads. */
#define FIX_STARTED(f) ((f)->w.st.started)
#define FIX_DONE(f) ((f)->w.st.completed)
#define FIX_ERRORS(f) (stats_errors(&(f)->w.st))

#endif

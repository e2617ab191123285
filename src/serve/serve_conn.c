/* serve_conn.c - one connection of rafale serve: reading (TLS too), the
 * HTTP/2 preface that hands it to serve_h2.c, writing with backpressure,
 * /delay answers, timeouts (a head that does not come, an idle connection,
 * a client that stops reading) and the lingering close. */
#include "serve_conn.h"
#include "serve_h2.h"
#include "buf.h"
#include "clock.h"
#include "http_req.h"
#include "loop.h"
#include "net.h"
#include "tls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void serve_conn_free(struct sconn *c)
{
    struct sthread *t = c->t;
    loop_timer_cancel(&t->loop, &c->timer);
    if (c->fd >= 0)
        c->ops->close(c->io_ctx, c->fd);
    c->fd = -1;
    c->io_ctx = NULL;
    serve_h2_free(c->h2);
    c->h2 = NULL;
    buf_free(&c->in);
    buf_free(&c->out);
    c->next_free = t->free;
    t->free = c;
}

static int sc_pending_out(const struct sconn *c)
{
    return c->out.len > c->out_off || c->gen != GEN_NONE;
}

/* The deadline of whatever the connection waits for now: the client to
 * read what it was sent, the rest of a request, or its next request. Not
 * while a /delay response or a lingering close owns the timer. */
void serve_conn_arm(struct sconn *c)
{
    const struct serve_config *cfg = &c->t->s->cfg;
    uint64_t d;
    if (c->waiting || c->draining)
        return;
    if (c->h2) {
        /* A client that stops reading, a request that does not arrive in
         * time (the slowloris of HTTP/2: streams opened, never finished),
         * an idle connection or one whose answers wait for windows the
         * client never opens; not while a /delay answer is due. */
        if (sc_pending_out(c))
            d = c->t_out + cfg->idle_timeout_ns;
        else if (serve_h2_deadline(c->h2) != UINT64_MAX)
            d = serve_h2_deadline(c->h2);
        else
            d = c->t_idle + (serve_h2_waiting(c->h2) ? cfg->header_timeout_ns : cfg->idle_timeout_ns);
        loop_timer_set(&c->t->loop, &c->timer, d);
        return;
    }
    if (sc_pending_out(c))
        d = c->t_out + cfg->idle_timeout_ns;
    else if (c->in.len || c->skip || c->handshaking)
        d = c->t_req + cfg->header_timeout_ns;
    else
        d = c->t_idle + (c->fresh ? cfg->header_timeout_ns : cfg->idle_timeout_ns);
    loop_timer_set(&c->t->loop, &c->timer, d);
}

static void sc_drain_start(struct sconn *c)
{
    /* Nothing unread: a plain close sends FIN, not RST; no need to linger. */
    if (c->in.len == 0 && c->skip == 0 && !c->ops->lingers) {
        serve_conn_free(c);
        return;
    }
    /* Lingering close: send our FIN, then wait for the client's, so unread
     * request bytes cannot turn our close into a reset that eats the response. */
    c->ops->shutdown(c->io_ctx, c->fd);
    c->draining = 1;
    loop_timer_set(&c->t->loop, &c->timer, clock_ns() + DRAIN_NS);
}

/* Writes what c->out holds, refilling it from the body generator, until the
 * socket refuses more. Returns 0 when everything is sent, 1 when the socket
 * is full (EPOLLOUT will call again), -1 when the connection failed. */
static int sc_pump(struct sconn *c)
{
    for (;;) {
        ssize_t w;
        if (c->out.len == c->out_off) {
            c->out.len = c->out_off = 0;
            if (c->gen == GEN_NONE) {
                buf_shrink(&c->out, KEEP_CAP);
                return 0;
            }
            if (c->gen == GEN_MEM) {
                /* A file: straight from memory, nothing copied. */
                w = c->ops->write(c->io_ctx, c->fd, c->gen_mem + c->gen_off, (size_t)c->gen_left);
                if (w > 0) {
                    c->gen_off += (uint64_t)w;
                    c->gen_left -= (uint64_t)w;
                    c->t_out = clock_ns();
                    if (c->gen_left == 0)
                        c->gen = GEN_NONE;
                    continue;
                }
                goto failed;
            }
            if (serve_h1_gen_fill(c, &c->out) != 0)
                return -1;
            continue;
        }
        w = c->ops->write(c->io_ctx, c->fd, c->out.p + c->out_off, c->out.len - c->out_off);
        if (w > 0) {
            c->out_off += (size_t)w;
            c->t_out = clock_ns();
            continue;
        }
    failed:
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN)
            return 1;
        return -1;
    }
}

/* Sends what the thread buffered for c (behind anything already waiting),
 * then the generated body if there is one. Returns as sc_pump. */
static int sc_send(struct sconn *c)
{
    struct sthread *t = c->t;
    int rc = 0;
    if (t->wb.len) {
        if (c->out.len > c->out_off) {
            rc = buf_put(&c->out, t->wb.p, t->wb.len);
        } else {
            const char *p = t->wb.p;
            size_t n = t->wb.len;
            while (n > 0) {
                ssize_t w = c->ops->write(c->io_ctx, c->fd, p, n);
                if (w > 0) {
                    p += w;
                    n -= (size_t)w;
                    c->t_out = clock_ns();
                    continue;
                }
                if (w < 0 && errno == EINTR)
                    continue;
                if (w < 0 && errno == EAGAIN) {
                    c->out.len = c->out_off = 0;
                    rc = buf_put(&c->out, p, n);
                    break;
                }
                rc = -1;
                break;
            }
        }
        t->wb.len = 0;
        buf_shrink(&t->wb, KEEP_CAP);
        if (rc != 0)
            return -1;
    }
    return sc_pump(c);
}

static void sc_read(struct sconn *c, int hup);

/* --- HTTP/2 connections (the session is serve_h2.c's) --- */

/* Sends what the session has, gathered in the thread's buffer, until the
 * socket is full. Returns as sc_pump. */
static int sc_h2_flush(struct sconn *c)
{
    struct sthread *t = c->t;
    int rc;
    if (c->out.len > c->out_off && (rc = sc_pump(c)) != 0)
        return rc;
    for (;;) {
        const uint8_t *p;
        ssize_t k;
        t->wb.len = 0;
        /* Bodies are produced as asked: stop gathering at OUT_HIGH, so a
         * client that does not read holds generation back. */
        while (t->wb.len < OUT_HIGH && (k = serve_h2_send(c->h2, &p)) != 0) {
            if (k < 0 || buf_put(&t->wb, p, (size_t)k) != 0) {
                t->wb.len = 0;
                return -1;
            }
        }
        if (t->wb.len == 0)
            return 0;
        if ((rc = sc_send(c)) != 0)
            return rc;
        c->t_idle = c->t_out;
    }
}

/* After the session took bytes or time passed: send, then close when the
 * session is over. Returns 0 when the connection goes on. */
static int sc_h2_settle(struct sconn *c)
{
    int rc = sc_h2_flush(c);
    if (rc < 0) {
        serve_conn_free(c);
        return -1;
    }
    if (rc == 0 && serve_h2_done(c->h2)) {
        sc_drain_start(c);
        return -1;
    }
    serve_conn_arm(c);
    return 0;
}

static void sc_h2_read(struct sconn *c, int hup)
{
    struct sthread *t = c->t;
    for (;;) {
        ssize_t n;
        /* Backpressure: nothing more is taken in while output waits. */
        if (sc_pending_out(c)) {
            serve_conn_arm(c);
            return;
        }
        n = c->ops->read(c->io_ctx, c->fd, t->rbuf, IO_RBUF_SIZE);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            serve_conn_free(c);
            return;
        }
        if (n < 0) {
            if (errno == EINTR)
                continue;
            serve_conn_arm(c);
            return;
        }
        c->t_idle = clock_ns();
        if (serve_h2_recv(c->h2, (const uint8_t *)t->rbuf, (size_t)n, c->t_idle) != 0) {
            serve_conn_free(c);
            return;
        }
        if (sc_h2_settle(c) != 0)
            return;
        if (n < IO_RBUF_SIZE && !hup)
            return;
    }
}

/* The connection speaks HTTP/2 from here on; first holds bytes already
 * read (the preface, perhaps more). */
static void sc_h2_start(struct sconn *c, const char *first, size_t n)
{
    struct sthread *t = c->t;
    struct sh2_env env = { t->s, t->date, &t->rng, &t->requests, t->s->log, c->peer, t->logdate };
    c->h2 = serve_h2_new(&env, t->s->cfg.h2_streams ? t->s->cfg.h2_streams : 128);
    c->fresh = 0;
    c->t_idle = clock_ns();
    if (c->h2 == NULL || (n && serve_h2_recv(c->h2, (const uint8_t *)first, n, c->t_idle) != 0)) {
        serve_conn_free(c);
        return;
    }
    c->in.len = 0;
    if (sc_h2_settle(c) == 0)
        sc_h2_read(c, 0);
}

/* Do the first bytes of a plain connection begin (or begin to begin) the
 * HTTP/2 preface? 1: all of it, 2: a part, so far; 0: no. */
static int h2_preface(const char *p, size_t n)
{
    size_t k = n < SH2_PREFACE_LEN ? n : SH2_PREFACE_LEN;
    if (memcmp(p, SH2_PREFACE, k) != 0)
        return 0;
    return n >= SH2_PREFACE_LEN ? 1 : 2;
}

/* Output drained or a delay ended: take up buffered requests, then read. */
static void sc_resume(struct sconn *c)
{
    int rc;
    if (c->in.len && serve_h1_may_take(c)) {
        size_t used = serve_h1_handle(c, c->in.p, c->in.len);
        memmove(c->in.p, c->in.p + used, c->in.len - used);
        c->in.len -= used;
        buf_shrink(&c->in, KEEP_CAP);
        if (used)
            c->t_idle = c->t_req = clock_ns();
    }
    rc = sc_send(c);
    if (rc < 0) {
        serve_conn_free(c);
        return;
    }
    if (rc > 0 || c->waiting) {
        serve_conn_arm(c);
        return;
    }
    if (c->closing) {
        sc_drain_start(c);
        return;
    }
    if (c->in.len && serve_h1_may_take(c)) {
        sc_resume(c); /* more requests were waiting behind the output */
        return;
    }
    sc_read(c, 0);
}

/* hup: the client closed its side; read on to the end of stream, since no
 * further edge will announce it. */
static void sc_read(struct sconn *c, int hup)
{
    struct sthread *t = c->t;
    for (;;) {
        ssize_t n;
        size_t used;
        uint64_t now;
        int rc, was_idle = c->in.len == 0 && c->skip == 0;
        if (!serve_h1_may_take(c) || sc_pending_out(c)) {
            serve_conn_arm(c);
            return;
        }
        n = c->ops->read(c->io_ctx, c->fd, t->rbuf, IO_RBUF_SIZE);
        if (n == 0) {
            serve_conn_free(c);
            return;
        }
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN) {
                serve_conn_free(c);
                return;
            }
            serve_conn_arm(c);
            return;
        }
        now = clock_ns();
        if (was_idle)
            c->t_req = now; /* a new request begins: its head has header-timeout to arrive */
        if (c->fresh && c->ops == &io_plain) {
            /* h2c with prior knowledge (RFC 9113 §3.3): the preface, not a request. */
            const char *d;
            int pre;
            if (c->in.len && buf_put(&c->in, t->rbuf, (size_t)n) != 0) {
                serve_conn_free(c);
                return;
            }
            d = c->in.len ? c->in.p : t->rbuf;
            pre = h2_preface(d, c->in.len ? c->in.len : (size_t)n);
            if (pre == 1) {
                sc_h2_start(c, d, c->in.len ? c->in.len : (size_t)n);
                return;
            }
            if (pre == 2) {
                if (c->in.len == 0 && buf_put(&c->in, t->rbuf, (size_t)n) != 0) {
                    serve_conn_free(c);
                    return;
                }
                serve_conn_arm(c);
                return;
            }
            if (c->in.len) {
                /* Not HTTP/2 after all: the buffered bytes are a request. */
                used = serve_h1_handle(c, c->in.p, c->in.len);
                memmove(c->in.p, c->in.p + used, c->in.len - used);
                c->in.len -= used;
                goto answered;
            }
        }
        if (c->in.len) {
            /* A split head: the parser refuses one over HR_MAX_HEAD, so the
             * buffer stays within a head and one read. */
            if (buf_put(&c->in, t->rbuf, (size_t)n) != 0) {
                serve_conn_free(c);
                return;
            }
            used = serve_h1_handle(c, c->in.p, c->in.len);
            memmove(c->in.p, c->in.p + used, c->in.len - used);
            c->in.len -= used;
            buf_shrink(&c->in, KEEP_CAP);
        } else {
            used = serve_h1_handle(c, t->rbuf, (size_t)n);
            if (used < (size_t)n && buf_put(&c->in, t->rbuf + used, (size_t)n - used) != 0) {
                serve_conn_free(c);
                return;
            }
        }
    answered:
        if (used && c->skip == 0) {
            /* Something was answered: what is left began now. */
            c->t_idle = now;
            c->t_req = now;
        }
        rc = sc_send(c);
        if (rc < 0) {
            serve_conn_free(c);
            return;
        }
        if (c->closing && rc == 0) {
            sc_drain_start(c);
            return;
        }
        if (rc == 0 && c->in.len && serve_h1_may_take(c)) {
            /* A generated body went out whole at once: the requests
             * pipelined behind it are already here, and no read will
             * announce them again. (Only whole ones: a head still
             * coming waits for its next read.) */
            used = serve_h1_handle(c, c->in.p, c->in.len);
            if (used) {
                memmove(c->in.p, c->in.p + used, c->in.len - used);
                c->in.len -= used;
                goto answered;
            }
        }
        if (n < IO_RBUF_SIZE && !hup) {
            serve_conn_arm(c);
            return;
        }
    }
}

/* A TLS port's first bytes: a record of the handshake (RFC 8446 section
 * 5.1: content type 22), or something else: plain HTTP sent to it. That is
 * answered with a TLS alert (unexpected_message, section 6), its bytes
 * read first so that the close is no reset: the client learns that this
 * port speaks TLS (OpenSSL alone would reset the connection). Returns 1
 * when c was ended so, 0 to go on, -1 to wait for bytes. */
static int plain_on_tls(struct sconn *c)
{
    static const unsigned char alert[] = { 0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x0a };
    unsigned char b[512];
    ssize_t n = recv(c->fd, b, 1, MSG_PEEK);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return -1;
    if (n <= 0 || b[0] == 0x16)
        return 0; /* the handshake (or its end) is OpenSSL's */
    while (recv(c->fd, b, sizeof(b), MSG_DONTWAIT) > 0)
        ;
    if (send(c->fd, alert, sizeof(alert), MSG_NOSIGNAL) < 0) {
        /* nothing more to say */
    }
    serve_conn_free(c);
    return 1;
}

void serve_conn_on_io(struct loop_io *io, uint32_t ev)
{
    struct sconn *c = container_of(io, struct sconn, io);
    if (c->handshaking == 2) {
        int p = plain_on_tls(c);
        if (p != 0)
            return;
        c->handshaking = 1;
    }
    if (c->handshaking) {
        int r = c->ops->handshake(c->io_ctx, c->fd);
        if (r == IO_ERROR) {
            serve_conn_free(c);
            return;
        }
        if (r != IO_OK)
            return;
        c->handshaking = 0;
        c->t_idle = clock_ns();
        if (c->ops->alpn(c->io_ctx) && strcmp(c->ops->alpn(c->io_ctx), "h2") == 0) {
            sc_h2_start(c, NULL, 0); /* RFC 9113 §3.2: h2 chosen by ALPN */
            return;
        }
        sc_read(c, (ev & LOOP_ERR) != 0);
        return;
    }
    if (c->draining) {
        char buf[4096];
        ssize_t n;
        while ((n = c->ops->read(c->io_ctx, c->fd, buf, sizeof(buf))) > 0)
            ;
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
            serve_conn_free(c);
        return;
    }
    if (c->h2) {
        if ((ev & LOOP_OUT) && sc_pending_out(c) && sc_h2_settle(c) != 0)
            return;
        if (!sc_pending_out(c) && (ev & (LOOP_IN | LOOP_OUT)))
            sc_h2_read(c, (ev & LOOP_ERR) != 0);
        return;
    }
    if ((ev & LOOP_OUT) && sc_pending_out(c)) {
        int rc = sc_pump(c);
        if (rc < 0) {
            serve_conn_free(c);
            return;
        }
        if (rc > 0) {
            serve_conn_arm(c);
            return;
        }
        sc_resume(c);
        return;
    }
    if (ev & LOOP_IN)
        sc_read(c, (ev & LOOP_ERR) != 0);
}

void serve_conn_on_timer(struct timer *tm, uint64_t now)
{
    struct sconn *c = container_of(tm, struct sconn, timer);
    struct sthread *t = c->t;
    const struct serve_config *cfg = &t->s->cfg;
    if (c->draining) {
        serve_conn_free(c);
        return;
    }
    if (c->h2) {
        if (serve_h2_deadline(c->h2) <= now) {
            serve_h2_tick(c->h2, now);
            sc_h2_settle(c);
            return;
        }
        if (sc_pending_out(c) ? now >= c->t_out + cfg->idle_timeout_ns
                              : serve_h2_deadline(c->h2) == UINT64_MAX &&
                                    now >= c->t_idle + (serve_h2_waiting(c->h2) ? cfg->header_timeout_ns
                                                                           : cfg->idle_timeout_ns)) {
            if (!sc_pending_out(c)) {
                serve_h2_goaway(c->h2); /* say so, then close */
                if (sc_h2_flush(c) == 0) {
                    sc_drain_start(c);
                    return;
                }
            }
            serve_conn_free(c);
            return;
        }
        serve_conn_arm(c);
        return;
    }
    if (c->waiting) {
        struct req r = { .minor = c->d_minor, .keep = c->d_keep, .head = c->d_head };
        struct reply rp;
        serve_reply_delayed(&rp, c->d_us);
        c->waiting = 0;
        if (serve_h1_emit(c, &r, &rp) != 0 || !r.keep)
            c->closing = 1;
        c->t_idle = now;
        sc_resume(c);
        return;
    }
    /* A timeout: a client that stopped reading, a request head (or body)
     * that did not come in time, or an idle connection. */
    if (sc_pending_out(c)) {
        if (now < c->t_out + cfg->idle_timeout_ns) {
            serve_conn_arm(c);
            return;
        }
        serve_conn_free(c);
        return;
    }
    if (c->in.len || c->skip || c->handshaking) {
        struct req r = { .minor = 1, .keep = 0, .head = 0 };
        if (now < c->t_req + cfg->header_timeout_ns) {
            serve_conn_arm(c);
            return;
        }
        if (c->handshaking) {
            serve_conn_free(c);
            return;
        }
        /* RFC 9110 §15.5.9: 408, then close. */
        if (serve_h1_respond(t, &r, 408, "text/plain", NULL, "request not received in time\n", 29) != 0) {
            serve_conn_free(c);
            return;
        }
        c->closing = 1;
        c->in.len = 0;
        c->skip = 0;
        if (sc_send(c) == 0)
            sc_drain_start(c);
        else
            serve_conn_free(c);
        return;
    }
    if (now < c->t_idle + (c->fresh ? cfg->header_timeout_ns : cfg->idle_timeout_ns)) {
        serve_conn_arm(c);
        return;
    }
    serve_conn_free(c);
}

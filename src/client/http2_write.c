/* http2_write.c - the HTTP/2 session's frames onto its connection's
 * transport: nghttp2's output is gathered into the worker's buffer (its
 * pointer lasts only until its next call), so a turn's frames go in one
 * write; what the socket does not take is kept, in order, and written
 * first when it can. */
#include "http2.h"
#include "clock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Keeps what the socket did not take, to be written when it can. */
static int keep_pending(struct h2 *h, const char *p, size_t n)
{
    if (n == 0)
        return 0;
    if (h->pend_off == h->pend_len)
        h->pend_off = h->pend_len = 0;
    if (h->pend_len + n > h->pend_cap) {
        size_t cap = (h->pend_len + n) * 2;
        char *q = realloc(h->pend, cap);
        if (q == NULL)
            return -1;
        h->pend = q;
        h->pend_cap = cap;
    }
    memcpy(h->pend + h->pend_len, p, n);
    h->pend_len += n;
    return 0;
}

/* Writes a, then b; keeps what the socket did not take. Returns 1 when all
 * was written, 0 when the socket is full, -1 when the connection failed. */
static int put(struct conn *c, const char *a, size_t na, const char *b, size_t nb)
{
    struct h2 *h = h2_of(c);
    struct iovec iov[2] = { { (void *)a, na }, { (void *)b, nb } };
    ssize_t r;
    size_t total = na + nb, done;
    do
        r = nb ? c->ops->writev(c->io_ctx, c->fd, iov, 2) : c->ops->write(c->io_ctx, c->fd, a, na);
    while (r < 0 && errno == EINTR);
    if (r < 0 && errno != EAGAIN) {
        conn_io_error(c, ERR_WRITE, clock_ns());
        return -1;
    }
    done = r < 0 ? 0 : (size_t)r;
    if (done)
        record_sent_conn(c->w, done, h->now);
    if (done == total)
        return 1;
    if ((done < na && keep_pending(h, a + done, na - done) != 0) ||
        keep_pending(h, b + (done > na ? done - na : 0), nb - (done > na ? done - na : 0)) != 0) {
        conn_fail(c, ERR_WRITE, ENOMEM, "out of memory for unsent frames", clock_ns());
        return -1;
    }
    return 0;
}

void http2_write(struct conn *c)
{
    struct worker *w = c->w;
    struct h2 *h = h2_of(c);

    if (h == NULL || h->ng == NULL)
        return;
    while (h->pend_len > h->pend_off) {
        ssize_t r = c->ops->write(c->io_ctx, c->fd, h->pend + h->pend_off, h->pend_len - h->pend_off);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN)
                return; /* EPOLLOUT calls us back */
            conn_io_error(c, ERR_WRITE, clock_ns());
            return;
        }
        record_sent_conn(w, (uint64_t)r, h->now);
        h->pend_off += (size_t)r;
    }
    for (;;) {
        /* Frames are gathered into one buffer (nghttp2's pointer lasts only
         * until its next call); one that does not fit goes in the same
         * writev. */
        size_t n = 0;
        const uint8_t *big = NULL;
        ssize_t k = 0;
        int r;
        for (;;) {
            const uint8_t *p;
            k = nghttp2_session_mem_send(h->ng, &p);
            if (k < 0) {
                conn_fail(c, ERR_H2_PROTOCOL, 0, nghttp2_strerror((int)k), clock_ns());
                return;
            }
            if (k == 0)
                break;
            if (n + (size_t)k > H2_WBUF) {
                big = p;
                break;
            }
            memcpy(w->wbuf + n, p, (size_t)k);
            n += (size_t)k;
            k = 0;
        }
        if (n == 0 && big == NULL)
            return;
        r = big ? (n ? put(c, w->wbuf, n, (const char *)big, (size_t)k) : put(c, (const char *)big, (size_t)k, NULL, 0))
                : put(c, w->wbuf, n, NULL, 0);
        if (r <= 0)
            return;
    }
}

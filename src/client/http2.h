/* http2.h - what the two files of the HTTP/2 client share, private to
 * src/client/: http2.c (the session: streams, nghttp2's callbacks) and
 * http2_write.c (its frames onto the socket). */
#ifndef RAFALE_HTTP2_H
#define RAFALE_HTTP2_H

#include "client.h"

#include <nghttp2/nghttp2.h>

#define H2_WBUF (64 * 1024) /* the worker's wbuf: a turn's frames, gathered for one write */

/* A connection's HTTP/2 state, kept across its reconnects. */
struct h2 {
    nghttp2_session *ng;
    uint64_t now;           /* when the bytes being processed arrived */
    char *pend;             /* frames the socket did not take yet */
    size_t pend_len, pend_off, pend_cap;
    int32_t goaway_last;    /* a GOAWAY's last-stream-id, -1 before one */
    uint32_t goaway_code;
    int done;               /* responses ended during this read */
    int lib_error;          /* nghttp2's reason for a connection error it found */
    uint32_t completed;     /* responses ended on this connection */
    uint8_t got_settings, got_bytes;
};

/* c's HTTP/2 state (conn.ctx). */
static inline struct h2 *h2_of(const struct conn *c)
{
    return c->ctx;
}

/* http2_write.c: what nghttp2 has to send (and what the socket did not
 * take before) onto c's transport, gathered into one write per turn; what
 * the socket does not take is kept for its next EPOLLOUT. */
void http2_write(struct conn *c);

#endif

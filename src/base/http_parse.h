/* http_parse.h - strict, incremental HTTP/1.x response parser.
 *
 * The parser never allocates and never buffers the response: it keeps a few
 * bytes of state and can be fed any split of the input, down to one byte at a
 * time, so one read buffer per thread serves every connection. When asked,
 * it says where the response's field lines and body data lie in what it is
 * fed (struct hp's span): the one reading of a response's framing that
 * whatever reads its head or body (checks, compare's alike) relies on. */
#ifndef RAFALE_HTTP_PARSE_H
#define RAFALE_HTTP_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HP_MAX_LINE 8192     /* longest status or header line */
#define HP_MAX_HEADERS 100   /* header fields per response (trailers included) */

/* What a span reported by the parser holds (struct hp's span). */
enum hp_span {
    HP_SPAN_HEAD,  /* field lines of the final response, each with its CRLF */
    HP_SPAN_BODY,  /* its body's data: chunk lines and trailers left out */
};

struct hp {
    uint8_t state;
    uint8_t hdr;         /* which header of interest is being read */
    uint8_t hdr_cand;    /* candidate headers while reading a name (bit mask) */
    uint8_t vlen;        /* bytes kept of a value of interest */
    uint8_t head_only;   /* the request was HEAD: no body follows */
    uint8_t minor;       /* HTTP/1.<minor> */
    uint16_t flags;      /* HP_F_* */
    uint16_t status;
    uint16_t nheaders;
    uint32_t linelen;
    uint32_t namelen;
    uint64_t clen;       /* Content-Length value */
    uint64_t remaining;  /* body or chunk bytes still to come */
    const char *error;   /* static text when http_parse_feed returned -1 */
    char val[64];
    /* --cookies: each Set-Cookie value goes here, '\n' after each, until
     * the caller empties it (sink_len = 0); one that does not fit is left
     * out. Kept across http_parse_reset. NULL: Set-Cookie is not looked at. */
    char *sink;
    uint16_t sink_len, sink_cap, sink_mark;
    /* --follow: the Location value goes here (NULL: not looked at);
     * loc_len is 0 when there was none or it did not fit. Kept across
     * http_parse_reset; the caller empties it. */
    char *loc;
    uint16_t loc_len, loc_cap;
    uint8_t loc_over;
    /* Who reads the head or body: when set, called with the spans of the
     * final response (interim 1xx ones left out) as they are parsed, in
     * order: its field lines (the status line and the empty line that ends
     * them left out), then its body's data, decoded from chunks. Each span
     * points into the bytes being fed, valid until http_parse_feed returns;
     * none is empty. NULL (the engine's ordinary reads): nothing reported,
     * nothing paid. Kept across http_parse_reset. */
    void (*span)(void *ctx, enum hp_span kind, const char *at, size_t n);
    void *span_ctx;
};

#define HP_F_CLOSE      0x01  /* Connection: close */
#define HP_F_KEEPALIVE  0x02  /* Connection: keep-alive */
#define HP_F_CHUNKED    0x04  /* Transfer-Encoding ends in chunked */
#define HP_F_HAS_CL     0x08  /* a Content-Length was seen */
#define HP_F_HAS_TE     0x10  /* a Transfer-Encoding was seen */
#define HP_F_BODY_EOF   0x20  /* body ends when the server closes */
#define HP_F_HEAD_DONE  0x40  /* the final status line and headers are complete */
#define HP_F_FRAMING    0x80  /* faulty framing: Transfer-Encoding with Content-Length, or in HTTP/1.0 */
#define HP_F_NO_BODY    0x100 /* none may follow: to a HEAD, a 204, a 304, a 101 (RFC 9112 §6.3 rule 1) */

/* Prepares p for a new response; head_only is set for a HEAD request. What
 * it keeps (sink, loc, span) is the caller's: a struct hp starts zeroed. */
void http_parse_reset(struct hp *p, int head_only);

/* Feeds len bytes. Returns the number of bytes that completed the response
 * (the rest belongs to whatever follows), -2 when all bytes were consumed and
 * the response is not complete yet, or -1 when the response is malformed
 * (p->error says why). */
ssize_t http_parse_feed(struct hp *p, const char *buf, size_t len);

/* The server closed the connection. Returns 1 when that completes the
 * response (a body delimited by close), 0 when it came too early. */
int http_parse_eof(const struct hp *p);

/* After a complete response: may the connection carry another request? */
int http_parse_keepalive(const struct hp *p);

/* Why it may not (RFC 9112 §9.3 and §6.3). */
enum hp_close {
    HP_KEEP,            /* it may */
    HP_CLOSE_HEADER,    /* "Connection: close" */
    HP_CLOSE_HTTP10,    /* an HTTP/1.0 response without "Connection: keep-alive" */
    HP_CLOSE_BODY_EOF,  /* no length: the body ended with the connection */
    HP_CLOSE_FRAMING,   /* Transfer-Encoding with Content-Length, or in HTTP/1.0 (RFC 9112 §6.1, §6.3) */
};
enum hp_close http_parse_close_reason(const struct hp *p);

#endif

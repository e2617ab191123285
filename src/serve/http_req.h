/* http_req.h - strict HTTP/1.x request head parser for `rafale serve`.
 *
 * It never allocates and points into the caller's buffer. It validates line
 * by line as bytes arrive, so a request that is wrong from its first line
 * (HTTP/0.9, a TLS ClientHello on the plain port, bare LF line ends) is
 * refused at once rather than waited on. The request-smuggling shapes of RFC
 * 9112 §6.3 are refused: conflicting Content-Length values, a
 * Transfer-Encoding beside a Content-Length, whitespace before a field's
 * colon (§5.1), obsolete line folding (§5.2). `rafale serve`'s, and the
 * metrics port's (src/cli/metrics.c): one reading of a request. */
#ifndef RAFALE_HTTP_REQ_H
#define RAFALE_HTTP_REQ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HR_MAX_HEAD 16384     /* request line and header fields */
#define HR_MAX_FIELDS 100

struct http_req {
    /* Once the head is complete: */
    const char *method;       /* into the buffer */
    size_t mlen;
    const char *path;         /* the path and query of the target (origin or absolute form) */
    size_t plen;
    int minor;                /* HTTP/1.<minor> */
    int keep;                 /* the connection may carry another request after this one */
    int head;                 /* HEAD: no body in the answer */
    uint64_t clen;            /* Content-Length of the request body, 0 without one */
    /* Parser state between calls while the head is incomplete (private):
     * offsets, not pointers, since the buffer may move as it grows. */
    size_t scanned;           /* bytes known valid: complete lines */
    size_t moff, poff;        /* method and path offsets */
    uint8_t line_done, has_cl, te, close, keepalive;
    uint32_t hosts, fields;
};

/* Prepares r for a new request. */
void http_req_reset(struct http_req *r);

/* Parses the request head at the start of data[0..len), resuming where the
 * previous call on the same (possibly moved, grown) bytes stopped. max_body
 * is the largest body accepted. Returns the length of the head when it is
 * complete (its body, r->clen bytes, follows; r is then ready for the next
 * request), -2 when more bytes are needed, or -1 when the request is
 * refused: *status is the status to answer (400, 413, 431, 501 or 505) and
 * *why says why. */
ssize_t http_req_parse(const char *data, size_t len, uint64_t max_body, struct http_req *r, int *status,
                       const char **why);

#endif

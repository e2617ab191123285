/* http_req.c - strict HTTP/1.x request head parser (RFC 9112), see
 * http_req.h. Lines end in CRLF only: a bare LF is refused rather than
 * accepted as §2.2 would permit, because two parsers disagreeing on where a
 * line ends is how requests get smuggled past a proxy. */
#include "http_req.h"
#include "http_lex.h"

#include <stdint.h>
#include <string.h>

void http_req_reset(struct http_req *r)
{
    memset(r, 0, sizeof(*r));
}

static ssize_t refuse(int *status, const char **why, int code, const char *text)
{
    *status = code;
    *why = text;
    return -1;
}

/* Checks what there is of a request line that has not ended yet, so a
 * request that cannot be HTTP/1.x is refused on its first bytes. */
static int partial_line_ok(const char *p, size_t n)
{
    static const char version[] = "HTTP/1.";
    const char *sp1 = memchr(p, ' ', n), *sp2;
    size_t i, vn;
    for (i = 0; i < (sp1 ? (size_t)(sp1 - p) : n); i++)
        if (!lex_tchar(p[i]))
            return 0;
    if (sp1 == NULL)
        return 1;
    sp2 = memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - p));
    for (i = (size_t)(sp1 + 1 - p); i < (sp2 ? (size_t)(sp2 - p) : n); i++)
        if (!lex_vchar(p[i]))
            return 0;
    if (sp2 == NULL)
        return 1;
    vn = n - (size_t)(sp2 + 1 - p);
    if (vn > sizeof(version) - 1)
        vn = sizeof(version) - 1;
    return memcmp(sp2 + 1, version, vn) == 0 || (vn >= 5 && memcmp(sp2 + 1, "HTTP/", 5) == 0);
}

/* What there is of a field line that has not ended yet: a byte no field
 * line may hold (a NUL, a control) refuses it at once; its CR last is the
 * start of its end. */
static int partial_field_ok(const char *p, size_t n)
{
    size_t i;
    if (n && p[n - 1] == '\r')
        n--;
    for (i = 0; i < n; i++)
        if (!lex_field_char(p[i]))
            return 0;
    return 1;
}

/* RFC 9112 §3: method SP request-target SP HTTP-version. The method and
 * path are kept as offsets from base. */
static ssize_t request_line(const char *base, const char *p, size_t n, struct http_req *r, int *status,
                            const char **why)
{
    const char *sp1 = memchr(p, ' ', n), *sp2, *t, *v;
    size_t tlen, i;

    if (sp1 == NULL || sp1 == p)
        return refuse(status, why, 400, "bad request line (HTTP/0.9 is not served)");
    sp2 = memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - p));
    if (sp2 == NULL)
        return refuse(status, why, 400, "bad request line: no HTTP version (HTTP/0.9 is not served)");
    r->moff = (size_t)(p - base);
    r->mlen = (size_t)(sp1 - p);
    if (r->mlen > 64)
        return refuse(status, why, 400, "method too long");
    for (i = 0; i < r->mlen; i++)
        if (!lex_tchar(p[i]))
            return refuse(status, why, 400, "bad method");
    t = sp1 + 1;
    tlen = (size_t)(sp2 - t);
    if (tlen == 0)
        return refuse(status, why, 400, "empty request target");
    for (i = 0; i < tlen; i++)
        if (!lex_vchar(t[i]))
            return refuse(status, why, 400, "bad character in the request target");
    v = sp2 + 1;
    if ((size_t)(p + n - v) != 8 || memcmp(v, "HTTP/", 5) != 0 || !lex_digit(v[5]) || v[6] != '.' ||
        !lex_digit(v[7]))
        return refuse(status, why, 400, "bad HTTP version");
    /* §2.5: a higher minor version of 1.x is handled as 1.1; another major is not served. */
    if (v[5] != '1')
        return refuse(status, why, 505, "only HTTP/1.x is served here");
    r->minor = v[7] == '0' ? 0 : 1;
    r->head = r->mlen == 4 && memcmp(p, "HEAD", 4) == 0;
    /* §3.2.2: a server MUST accept the absolute form; route on its path. */
    if (tlen > 7 && (lex_prefix_ci(t, tlen, "http://") || lex_prefix_ci(t, tlen, "https://"))) {
        const char *auth = memchr(t, ':', tlen) + 3, *slash = memchr(auth, '/', tlen - (size_t)(auth - t));
        const char *q = memchr(auth, '?', tlen - (size_t)(auth - t));
        if (slash == NULL || (q && q < slash)) {
            r->poff = SIZE_MAX; /* the root: "/" */
            r->plen = 1;
        } else {
            r->poff = (size_t)(slash - base);
            r->plen = tlen - (size_t)(slash - t);
        }
    } else {
        r->poff = (size_t)(t - base);
        r->plen = tlen;
    }
    r->line_done = 1;
    return 0;
}

/* RFC 9112 §5: field-name ":" OWS field-value OWS. */
static ssize_t field_line(const char *p, size_t n, struct http_req *r, int *status, const char **why)
{
    const char *colon = memchr(p, ':', n), *v, *ve;
    size_t i, nlen;

    if (n && (p[0] == ' ' || p[0] == '\t'))
        return refuse(status, why, 400, "obsolete line folding (RFC 9112 §5.2)");
    if (colon == NULL || colon == p)
        return refuse(status, why, 400, "bad header field");
    nlen = (size_t)(colon - p);
    for (i = 0; i < nlen; i++)
        if (!lex_tchar(p[i]))
            return refuse(status, why, 400,
                          p[i] == ' ' || p[i] == '\t' ? "whitespace before a header field's colon (RFC 9112 §5.1)"
                                                      : "bad header field name");
    if (++r->fields > HR_MAX_FIELDS)
        return refuse(status, why, 431, "too many header fields");
    v = colon + 1;
    ve = p + n;
    while (v < ve && lex_ows(*v))
        v++;
    while (ve > v && lex_ows(ve[-1]))
        ve--;
    for (i = 0; i < (size_t)(ve - v); i++)
        if (!lex_field_char(v[i]))
            return refuse(status, why, 400, "bad character in a header field value");

    if (lex_eq_ci(p, nlen, "content-length")) {
        uint64_t cl;
        if (lex_number(v, (size_t)(ve - v), 1000000000000000000ULL, &cl) != 0)
            return refuse(status, why, 400, "bad Content-Length (RFC 9112 §6.3)");
        if (r->has_cl && cl != r->clen)
            return refuse(status, why, 400, "conflicting Content-Length values (RFC 9112 §6.3)");
        r->has_cl = 1;
        r->clen = cl;
    } else if (lex_eq_ci(p, nlen, "transfer-encoding")) {
        r->te = 1;
    } else if (lex_eq_ci(p, nlen, "host")) {
        r->hosts++;
    } else if (lex_eq_ci(p, nlen, "connection")) {
        int close = 0, keep = 0;
        lex_connection(v, (size_t)(ve - v), &close, &keep);
        r->close |= (uint8_t)close;
        r->keepalive |= (uint8_t)keep;
    }
    return 0;
}

ssize_t http_req_parse(const char *data, size_t len, uint64_t max_body, struct http_req *r, int *status,
                       const char **why)
{
    size_t pos = r->scanned;

    if (!r->line_done) {
        const char *nl;
        size_t start = 0;
        /* A new request: nothing carries over from the last one. */
        memset(r, 0, sizeof(*r));
        /* §2.2: empty lines before a request are ignored. */
        while (start + 1 < len && data[start] == '\r' && data[start + 1] == '\n')
            start += 2;
        nl = memchr(data + start, '\n', len - start);
        if (nl == NULL) {
            size_t n = len - start;
            if (n && data[start + n - 1] == '\r')
                n--;
            if (!partial_line_ok(data + start, n))
                return refuse(status, why, 400, "not an HTTP/1.x request");
            if (len > HR_MAX_HEAD)
                return refuse(status, why, 431, "request line too long");
            return -2;
        }
        if (nl == data + start || nl[-1] != '\r')
            return refuse(status, why, 400, "bare LF line end (lines end in CRLF, RFC 9112 §2.2)");
        if (request_line(data, data + start, (size_t)(nl - 1 - (data + start)), r, status, why) < 0)
            return -1;
        pos = (size_t)(nl + 1 - data);
    }
    for (;;) {
        const char *nl = memchr(data + pos, '\n', len - pos);
        if (nl == NULL) {
            if (len > HR_MAX_HEAD)
                return refuse(status, why, 431, "request head too large");
            if (pos < len && (data[pos] == ' ' || data[pos] == '\t'))
                return refuse(status, why, 400, "obsolete line folding (RFC 9112 §5.2)");
            if (!partial_field_ok(data + pos, len - pos))
                return refuse(status, why, 400, "bad character in a header field");
            r->scanned = pos;
            return -2;
        }
        if (nl == data + pos || nl[-1] != '\r')
            return refuse(status, why, 400, "bare LF line end (lines end in CRLF, RFC 9112 §2.2)");
        if (nl - 1 == data + pos)
            break; /* the empty line: the head is complete */
        if (field_line(data + pos, (size_t)(nl - 1 - (data + pos)), r, status, why) < 0)
            return -1;
        pos = (size_t)(nl + 1 - data);
        if (pos > HR_MAX_HEAD)
            return refuse(status, why, 431, "request head too large");
    }
    pos += 2;
    /* §6.3: a message with both is a smuggling attempt; chunked request
     * bodies are not supported (§6.1 allows 501 for that). */
    if (r->te && r->has_cl)
        return refuse(status, why, 400, "Transfer-Encoding with Content-Length (RFC 9112 §6.3)");
    if (r->te)
        return refuse(status, why, 501, "request bodies in Transfer-Encoding are not supported");
    /* §3.2: exactly one Host in HTTP/1.1, at most one before. */
    if (r->hosts > 1 || (r->minor == 1 && r->hosts == 0))
        return refuse(status, why, 400, r->hosts ? "more than one Host header" : "no Host header (RFC 9112 §3.2)");
    if (r->clen > max_body)
        return refuse(status, why, 413, "request body too large");
    r->keep = r->close ? 0 : r->minor == 1 ? 1 : r->keepalive;
    r->method = data + r->moff;
    r->path = r->poff == SIZE_MAX ? "/" : data + r->poff;
    r->scanned = 0;
    r->line_done = 0;
    return (ssize_t)pos;
}

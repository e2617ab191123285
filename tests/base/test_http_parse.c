/* Response parser tests: every response is fed whole, split at every byte,
 * and one byte at a time, each piece placed right before a PROT_NONE page so
 * that any read past the end of the input crashes. */
#include "http_parse.h"
#include "http_lex.h"
#include "../t.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char *guard_base;
static size_t page;

/* Copies s to the end of a readable region that is followed by a guard page. */
static const char *guarded(const char *s, size_t n)
{
    char *end = guard_base + 16 * page;
    memcpy(end - n, s, n);
    return end - n;
}

struct expect {
    ssize_t consumed;  /* expected return when whole (-1 error, -2 partial) */
    int status;
    int keepalive;
    int eof_completes; /* for -2: would EOF complete it? */
};

/* Feeds s in two pieces split at k; returns what the final call returned and
 * the total consumed when complete. */
static ssize_t feed_split(struct hp *p, const char *s, size_t n, size_t k, int head)
{
    ssize_t r;
    http_parse_reset(p, head);
    if (k > 0) {
        r = http_parse_feed(p, guarded(s, k), k);
        if (r != -2)
            return r;
    }
    if (n - k == 0)
        return -2;
    r = http_parse_feed(p, guarded(s + k, n - k), n - k);
    return r >= 0 ? (ssize_t)k + r : r;
}

static ssize_t feed_bytes(struct hp *p, const char *s, size_t n, int head)
{
    size_t i;
    http_parse_reset(p, head);
    for (i = 0; i < n; i++) {
        ssize_t r = http_parse_feed(p, guarded(s + i, 1), 1);
        if (r == -1)
            return -1;
        if (r >= 0)
            return (ssize_t)i + r;
    }
    return -2;
}

static void check_resp(const char *name, const char *s, int head, struct expect e)
{
    size_t n = strlen(s), k;
    struct hp p = { 0 }; /* (sink, loc, span: none) */
    ssize_t r;

    for (k = 0; k <= n; k++) {
        r = feed_split(&p, s, n, k, head);
        CHECKF(r == e.consumed, "%s split at %zu: got %zd want %zd (%s)", name, k, r, e.consumed,
               p.error ? p.error : "");
        if (r >= 0 && e.consumed >= 0) {
            CHECKF(p.status == e.status, "%s split %zu: status %d", name, k, p.status);
            CHECKF(http_parse_keepalive(&p) == e.keepalive, "%s split %zu: keepalive", name, k);
        }
        if (r == -2)
            CHECKF(http_parse_eof(&p) == e.eof_completes, "%s split %zu: eof", name, k);
    }
    r = feed_bytes(&p, s, n, head);
    CHECKF(r == e.consumed, "%s bytewise: got %zd want %zd (%s)", name, r, e.consumed, p.error ? p.error : "");
}

#define OK(n, st, ka) ((struct expect){ (ssize_t)(n), st, ka, 0 })
#define BAD ((struct expect){ -1, 0, 0, 0 })

static void well_formed(void)
{
    const char *r;

    r = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
    check_resp("content-length", r, 0, OK(strlen(r), 200, 1));

    r = "HTTP/1.1 200 OK\r\ncontent-length:   0  \r\nServer: x\r\n\r\n";
    check_resp("zero length, OWS", r, 0, OK(strlen(r), 200, 1));

    r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n1A\r\n"
        "abcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: yes\r\n\r\n";
    check_resp("chunked with extension and trailer", r, 0, OK(strlen(r), 200, 1));

    r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n";
    check_resp("chunked after gzip", r, 0, OK(strlen(r), 200, 1));

    r = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n";
    check_resp("HEAD response", r, 1, OK(strlen(r), 200, 1));

    r = "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n";
    check_resp("204 has no body", r, 0, OK(strlen(r), 204, 1));

    r = "HTTP/1.1 304 Not Modified\r\nETag: x\r\n\r\n";
    check_resp("304 has no body", r, 0, OK(strlen(r), 304, 1));

    r = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
        "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok";
    check_resp("1xx interim then final", r, 0, OK(strlen(r), 201, 1));

    r = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok";
    check_resp("connection close", r, 0, OK(strlen(r), 200, 0));

    r = "HTTP/1.1 200 OK\r\nConnection: Keep-Alive, CLOSE\r\nContent-Length: 2\r\n\r\nok";
    check_resp("connection token list", r, 0, OK(strlen(r), 200, 0));

    r = "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok";
    check_resp("HTTP/1.0 closes by default", r, 0, OK(strlen(r), 200, 0));

    r = "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok";
    check_resp("HTTP/1.0 keep-alive", r, 0, OK(strlen(r), 200, 1));

    r = "HTTP/1.1 200\r\nContent-Length: 1\r\n\r\nx";
    check_resp("no reason phrase", r, 0, OK(strlen(r), 200, 1));

    r = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc";
    check_resp("repeated equal Content-Length", r, 0, OK(strlen(r), 200, 1));

    r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 99\r\n\r\n0\r\n\r\n";
    check_resp("TE overrides CL and forbids reuse", r, 0, OK(strlen(r), 200, 0));

    /* RFC 9112 §6.1: Transfer-Encoding in HTTP/1.0 is faulty framing, the
     * connection not reused even when the server asked to keep it. */
    r = "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n";
    check_resp("HTTP/1.0 with Transfer-Encoding forbids reuse", r, 0, OK(strlen(r), 200, 0));

    /* Those two close for their framing, not for a "Connection: close"
     * the server never sent; one that sent it is told as such. */
    {
        static const struct { const char *r; enum hp_close why; } c[] = {
            { "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 99\r\n\r\n0\r\n\r\n", HP_CLOSE_FRAMING },
            { "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", HP_CLOSE_FRAMING },
            { "HTTP/1.1 200 OK\r\nConnection: close\r\nTransfer-Encoding: chunked\r\nContent-Length: 9\r\n\r\n0\r\n\r\n",
              HP_CLOSE_HEADER },
            { "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", HP_KEEP },
        };
        size_t i;
        for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
            struct hp p = { 0 }; /* (sink, loc, span: none) */
            http_parse_reset(&p, 0);
            CHECKF(http_parse_feed(&p, c[i].r, strlen(c[i].r)) == (ssize_t)strlen(c[i].r), "close reason %zu: parsed", i);
            CHECKF(http_parse_close_reason(&p) == c[i].why, "close reason %zu: %d, not %d", i,
                   (int)http_parse_close_reason(&p), (int)c[i].why);
        }
    }
}

static void pipelined(void)
{
    /* Two pipelined responses: only the first is consumed. */
    {
        const char *two = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb";
        size_t first = strlen("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na");
        struct hp p = { 0 }; /* (sink, loc, span: none) */
        http_parse_reset(&p, 0);
        CHECK(http_parse_feed(&p, two, strlen(two)) == (ssize_t)first);
        http_parse_reset(&p, 0);
        CHECK(http_parse_feed(&p, two + first, strlen(two) - first) == (ssize_t)(strlen(two) - first));
        CHECK(http_parse_feed(&p, "x", 1) == -1); /* fed after completion */
    }

}

static void until_close(void)
{
    /* Body delimited by close: partial until EOF, which completes it. */
    struct expect e = { -2, 0, 0, 1 };
    check_resp("body until close", "HTTP/1.1 200 OK\r\nServer: x\r\n\r\nsome body", 0, e);
    check_resp("unknown TE means body until close", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nxx", 0, e);
}

static void truncated(void)
{
    /* Cut short, whole, split at every byte and byte by byte: partial, and
     * the server's close is premature. */
    struct expect e = { -2, 0, 0, 0 };
    check_resp("truncated body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", 0, e);
    check_resp("truncated head", "HTTP/1.1 200 OK\r\nServer: x\r\n", 0, e);
    check_resp("truncated status line", "HTTP/1.1 20", 0, e);
    check_resp("truncated chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", 0, e);
    check_resp("truncated trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: 1\r\n", 0, e);
}

static void malformed(void)
{
    check_resp("not HTTP", "<html>hello</html>\r\n\r\n", 0, BAD);
    check_resp("HTTP/2 text", "HTTP/2 200\r\n\r\n", 0, BAD);
    check_resp("bad version digit", "HTTP/1.x 200 OK\r\n\r\n", 0, BAD);
    check_resp("two-digit status", "HTTP/1.1 20 OK\r\n\r\n", 0, BAD);
    check_resp("status 600", "HTTP/1.1 600 Nope\r\n\r\n", 0, BAD);
    check_resp("letters in status", "HTTP/1.1 2x0 OK\r\n\r\n", 0, BAD);
    check_resp("bare LF in status line", "HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n", 0, BAD);
    check_resp("space before colon", "HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n", 0, BAD);
    check_resp("obs-fold", "HTTP/1.1 200 OK\r\nX: a\r\n b\r\nContent-Length: 0\r\n\r\n", 0, BAD);
    check_resp("empty header name", "HTTP/1.1 200 OK\r\n: x\r\n\r\n", 0, BAD);
    check_resp("NUL in value", "HTTP/1.1 200 OK\r\nX: a\001b\r\n\r\n", 0, BAD);
    check_resp("negative CL", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 0, BAD);
    check_resp("CL with letters", "HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n", 0, BAD);
    check_resp("conflicting CL", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 0, BAD);
    check_resp("huge CL", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", 0, BAD);
    check_resp("bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 0, BAD);
    check_resp("chunk longer than size",
               "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", 0, BAD);
    check_resp("chunk size overflow",
               "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n", 0, BAD);

}

static void limits(void)
{
    /* Limits: line length and header count. */
    {
        static char big[HP_MAX_LINE + 200];
        size_t n;
        int i;
        strcpy(big, "HTTP/1.1 200 OK\r\nX: ");
        n = strlen(big);
        memset(big + n, 'a', HP_MAX_LINE);
        strcpy(big + n + HP_MAX_LINE, "\r\n\r\n");
        {
            struct hp p = { 0 }; /* (sink, loc, span: none) */
            http_parse_reset(&p, 0);
            CHECK(http_parse_feed(&p, big, strlen(big)) == -1);
            CHECK(p.error && strcmp(p.error, "line too long") == 0);
        }
        strcpy(big, "HTTP/1.1 200 OK\r\n");
        for (i = 0; i < HP_MAX_HEADERS + 1; i++)
            strcat(big, "X-H: v\r\n");
        strcat(big, "\r\n");
        {
            struct hp p = { 0 }; /* (sink, loc, span: none) */
            http_parse_reset(&p, 0);
            CHECK(http_parse_feed(&p, big, strlen(big)) == -1);
            CHECK(p.error && strcmp(p.error, "too many header fields") == 0);
        }
    }

}

/* What the parser reported of a response (p->span): its field lines and
 * body, and whether a span was ever empty, outside the bytes fed, or a
 * head's after a body's. */
struct seen {
    char head[512], body[512];
    size_t hn, bn;
    const char *lo, *hi; /* the bytes being fed */
    int bad;
};

static void on_span(void *ctx, enum hp_span kind, const char *at, size_t n)
{
    struct seen *s = ctx;
    char *to = kind == HP_SPAN_HEAD ? s->head : s->body;
    size_t *len = kind == HP_SPAN_HEAD ? &s->hn : &s->bn;
    if (n == 0 || at < s->lo || at + n > s->hi || (kind == HP_SPAN_HEAD && s->bn) || *len + n >= sizeof(s->head)) {
        s->bad = 1;
        return;
    }
    memcpy(to + *len, at, n);
    *len += n;
    to[*len] = '\0';
}

/* Feeds n bytes of s, guarded, seen collecting the spans. */
static ssize_t feed_seen(struct hp *p, struct seen *sn, const char *s, size_t n)
{
    sn->lo = guarded(s, n);
    sn->hi = sn->lo + n;
    return http_parse_feed(p, sn->lo, n);
}

/* s whole, split at every byte and one byte at a time: the spans say head
 * and body, whatever the split, and the verdict is the one without spans
 * (consumed: the whole response, or -2 for one the close ends). */
static void check_spans(const char *name, const char *s, int head_only, ssize_t consumed, const char *head,
                        const char *body)
{
    size_t n = strlen(s), k, i;
    struct hp p = { 0 };
    struct seen sn;
    ssize_t r = -2;

    for (k = 0; k <= n + 1; k++) {
        memset(&sn, 0, sizeof(sn));
        http_parse_reset(&p, head_only);
        p.span = on_span;
        p.span_ctx = &sn;
        if (k <= n) {
            /* split at k (k = n: whole) */
            r = k ? feed_seen(&p, &sn, s, k) : -2;
            if (r == -2 && k < n)
                r = feed_seen(&p, &sn, s + k, n - k), r = r >= 0 ? r + (ssize_t)k : r;
        } else {
            for (i = 0, r = -2; i < n && r == -2; i++)
                r = feed_seen(&p, &sn, s + i, 1), r = r >= 0 ? r + (ssize_t)i : r;
        }
        CHECKF(r == consumed && !sn.bad && strcmp(sn.head, head) == 0 && strcmp(sn.body, body) == 0,
               "%s %s %zu: %zd (want %zd)%s, head [%s] body [%s]", name, k <= n ? "split at" : "byte by byte", k, r,
               consumed, sn.bad ? ", a bad span" : "", sn.head, sn.body);
    }
    CHECKF(consumed != -2 || http_parse_eof(&p), "%s: ends with the close", name);
}

static void spans(void)
{
    const char *r;

    r = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nServer: x\r\n\r\nhello";
    check_spans("content-length", r, 0, (ssize_t)strlen(r), "Content-Length: 5\r\nServer: x\r\n", "hello");

    r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n1A;a=\"b c\"\r\n"
        "abcdefghijklmnopqrstuvwxyz\r\n1\r\n\r\r\n0;last\r\nX-Trailer: yes\r\nX-Two: 2\r\n\r\n";
    check_spans("chunked, extensions and trailers", r, 0, (ssize_t)strlen(r), "Transfer-Encoding: chunked\r\n",
                "helloabcdefghijklmnopqrstuvwxyz\r");

    r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\n\r\n0\r\n0\r\n\r\n";
    check_spans("chunked after gzip, chunk data like chunk lines", r, 0, (ssize_t)strlen(r),
                "Transfer-Encoding: gzip, chunked\r\n", "\r\n0");

    r = "HTTP/1.1 200 OK\r\nServer: x\r\n\r\nsome body\r\n\r\n0\r\n";
    check_spans("until close", r, 0, -2, "Server: x\r\n", "some body\r\n\r\n0\r\n");

    r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n5\r\nhello\r\n";
    check_spans("chunked not last: until close", r, 0, -2, "Transfer-Encoding: chunked, gzip\r\n", "5\r\nhello\r\n");

    r = "HTTP/1.1 200 OK\r\n\r\nx";
    check_spans("no field lines", r, 0, -2, "", "x");

    r = "HTTP/1.1 100 Continue\r\nX-Interim: 1\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
        "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok";
    check_spans("interim heads left out", r, 0, (ssize_t)strlen(r), "Content-Length: 2\r\n", "ok");

    r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    check_spans("HEAD: no body, chunked or not", r, 1, (ssize_t)strlen(r), "Transfer-Encoding: chunked\r\n", "");

    r = "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n";
    check_spans("204: no body", r, 0, (ssize_t)strlen(r), "Content-Length: 10\r\n", "");

    r = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n";
    check_spans("101 is final", r, 0, (ssize_t)strlen(r), "Upgrade: x\r\n", "");

    r = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb";
    check_spans("pipelined: the first response's", r, 0, (ssize_t)strlen(r) / 2, "Content-Length: 1\r\n", "a");

    /* No body may follow (compare's framing "none"): to a HEAD, a 204, a
     * 304, a 101; a length of 0 is a body, empty. */
    {
        static const struct { const char *r; int head, none; } nb[] = {
            { "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 1, 1 },
            { "HTTP/1.1 204 No Content\r\n\r\n", 0, 1 },
            { "HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n", 0, 1 },
            { "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", 0, 1 },
            { "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 0, 0 },
        };
        size_t k;
        for (k = 0; k < sizeof(nb) / sizeof(nb[0]); k++) {
            struct hp p = { 0 };
            http_parse_reset(&p, nb[k].head);
            CHECKF(http_parse_feed(&p, nb[k].r, strlen(nb[k].r)) == (ssize_t)strlen(nb[k].r) &&
                   ((p.flags & HP_F_NO_BODY) != 0) == nb[k].none, "no body %zu: flags %x", k, p.flags);
        }
    }

    /* Malformed later: what came before was reported, nothing after. */
    {
        struct hp p = { 0 };
        struct seen sn;
        memset(&sn, 0, sizeof(sn));
        http_parse_reset(&p, 0);
        p.span = on_span;
        p.span_ctx = &sn;
        r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n";
        CHECK(feed_seen(&p, &sn, r, strlen(r)) == -1 && strcmp(sn.body, "ab") == 0 && !sn.bad);
    }
}

/* The word-at-a-time scans agree with the byte-at-a-time rules: every byte
 * value at every position of a run, and names in every mix of case. */
static void fast_scans(void)
{
    char b[24];
    int v, pos, ok = 1;
    size_t ref;
    for (v = 0; v < 256; v++)
        for (pos = 0; pos < 20; pos++) {
            memset(b, 'a', sizeof(b));
            b[pos] = (char)v;
            for (ref = 3; ref < 24 && lex_field_char(b[ref]); ref++)
                ;
            if (lex_field_run(b, 3, 24) != ref || lex_field_run(b, 3, 11) != (ref < 11 ? ref : 11))
                ok = 0;
        }
    CHECK(ok);
    CHECK(lex_eq_name8("Content-Length", "content-length", 14));
    CHECK(lex_eq_name8("CONTENT-LENGTH", "content-length", 14));
    CHECK(!lex_eq_name8("Content_Length", "content-length", 14));
    CHECK(!lex_eq_name8("Content-Lengtx", "content-length", 14));
    CHECK(!lex_eq_name8("xontent-length", "content-length", 14));
    CHECK(lex_eq_name8("cOnNeCtIoN", "connection", 10));
    CHECK(!lex_eq_name8("connectiom", "connection", 10));
    CHECK(lex_eq_name8("Transfer-Encoding", "transfer-encoding", 17));
    CHECK(!lex_eq_name8("Transfer-Encodinh", "transfer-encoding", 17));
    CHECK(lex_eq_name8("LOCATION", "location", 8));
    CHECK(!lex_eq_name8("LOCATIOM", "location", 8));
    /* Every tchar against each name position: only the letter itself, in either case, matches. */
    ok = 1;
    for (v = 33; v < 127; v++)
        for (pos = 0; pos < 10; pos++) {
            char n[11];
            memcpy(n, "set-cookie", 11);
            if (!lex_tchar((char)v))
                continue;
            n[pos] = (char)v;
            if (lex_eq_name8(n, "set-cookie", 10) != (lex_lower(v) == "set-cookie"[pos]))
                ok = 0;
        }
    CHECK(ok);
}

int main(void)
{
    page = (size_t)sysconf(_SC_PAGESIZE);
    guard_base = mmap(NULL, 17 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (guard_base == MAP_FAILED || mprotect(guard_base + 16 * page, page, PROT_NONE) != 0) {
        perror("mmap");
        return 1;
    }
    T_RUN(well_formed);
    T_RUN(pipelined);
    T_RUN(until_close);
    T_RUN(truncated);
    T_RUN(malformed);
    T_RUN(limits);
    T_RUN(spans);
    T_RUN(fast_scans);
    munmap(guard_base, 17 * page);
    T_END("test_http_parse");
}

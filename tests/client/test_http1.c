/* The HTTP/1.1 session (src/client/http1.c) under a real connection: the
 * request's bytes as the server reads them, and the responses' framing as
 * the session reads them back: Content-Length, chunked, a body that ends
 * with the connection, pipelined answers in one read, any split of the
 * bytes (every byte its own read too), and the answers that end the
 * connection (Connection: close, malformed, unsolicited, a 408). */
#include "fixture.h"

/* The session reads s, as it came in one read. */
static int answer(struct conn *c, const char *s)
{
    return c->sess->read(c, s, strlen(s), clock_ns());
}

static void request_bytes(void)
{
    struct fix f;
    struct conn *c;
    char buf[1024], want[128];
    c = fix_start(&f, "/x?y=1", &session_http1, 1, NULL);
    /* The request, whole and once: the plan's bytes, on the wire as built. */
    CHECK(fix_recv(f.sfd, buf, sizeof(buf), "\r\n\r\n", 1) == f.pl.targets[0].len);
    CHECK(memcmp(buf, f.pl.targets[0].req, f.pl.targets[0].len) == 0);
    snprintf(want, sizeof(want), "GET /x?y=1 HTTP/1.1\r\nHost: %s\r\n", f.url + 7);
    *strchr(strstr(want, "Host: ") + 6, '/') = '\0';
    strcat(want, "\r\n");
    CHECKF(strncmp(buf, want, strlen(want)) == 0, "%s", buf);
    CHECK(FIX_STARTED(&f) == 1 && f.w.st.bytes_sent == f.pl.targets[0].len && c->count == 1);
    CHECK(f.w.st.conns_opened == 1 && f.w.connected == 1);
    fix_free(&f);
}

static void content_length_and_chunked(void)
{
    static const char cl[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
    static const char ch[] = "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3;x=y\r\n!!!\r\n0\r\n"
                             "X-T: 1\r\n\r\n";
    struct fix f;
    struct conn *c;
    uint64_t now;
    c = fix_start(&f, "/", &session_http1, 2, NULL);
    CHECK(answer(c, cl) == 1);
    CHECK(FIX_DONE(&f) == 1 && f.w.st.status[200] == 1 && c->count == 0 && c->state == C_OPEN);
    CHECK(f.w.st.bytes_received == sizeof(cl) - 1);
    now = clock_ns();
    conn_take(c, now, now);
    CHECK(c->count == 1);
    CHECK(answer(c, ch) == 1);
    CHECK(FIX_DONE(&f) == 2 && f.w.st.status[201] == 1 && FIX_ERRORS(&f) == 0 && c->state == C_OPEN);
    /* Kept open: the server ended nothing. */
    CHECK(stats_server_closes(&f.w.st) == 0 && f.w.ended == 2);
    fix_free(&f);
}

/* Every split of an answer in two reads, and every byte a read of its own:
 * the answer ends once, at its last byte, never before. */
static void split_at_every_byte(void)
{
    static const char ch[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nwxyz\r\n0\r\n\r\n";
    const size_t n = sizeof(ch) - 1;
    struct fix f;
    struct conn *c;
    char drain[65536];
    size_t k, i;
    int early = 0, ends = 0;
    c = fix_start(&f, "/", &session_http1, 0, NULL);
    for (k = 1; k < n; k++) {
        uint64_t now = clock_ns();
        if (k > 1)
            conn_take(c, now, now);
        early += c->sess->read(c, ch, k, now) != 0;
        ends += c->sess->read(c, ch + k, n - k, now) == 1;
        if (k % 64 == 0)
            fix_recv(f.sfd, drain, sizeof(drain), "\r\n\r\n", 64);
    }
    CHECK(early == 0 && ends == (int)n - 1);
    for (i = 0; i < n; i++) {
        uint64_t now = clock_ns();
        if (i == 0)
            conn_take(c, now, now);
        ends += c->sess->read(c, ch + i, 1, now);
    }
    CHECK(ends == (int)n);
    CHECK(FIX_DONE(&f) == n && f.w.st.status[200] == n && FIX_ERRORS(&f) == 0 && c->state == C_OPEN);
    fix_free(&f);
}

static void depth3(struct config *cfg)
{
    cfg->pipeline = 3;
}

static void head_method(struct config *cfg)
{
    cfg->method = "HEAD";
    cfg->method_given = 1;
    cfg->pipeline = 2;
}

/* Answers without a body whatever their Content-Length says (a HEAD's, a
 * 204's, a 304's: RFC 9110 §6.4.1), and interim answers (100, 103) before
 * the final one, which alone counts: one answer each. */
static void bodiless_and_interim(void)
{
    struct fix f;
    struct conn *c;
    c = fix_start(&f, "/", &session_http1, 4, NULL);
    CHECK(answer(c, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n"
                    "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx") == 1);
    CHECK(FIX_DONE(&f) == 1 && f.w.st.status[200] == 1 && f.w.st.status[100] == 0 && f.w.st.status[103] == 0);
    conn_take(c, clock_ns(), clock_ns());
    CHECK(answer(c, "HTTP/1.1 204 No Content\r\nContent-Length: 50\r\n\r\n") == 1);
    conn_take(c, clock_ns(), clock_ns());
    CHECK(answer(c, "HTTP/1.1 304 Not Modified\r\nContent-Length: 50\r\n\r\n") == 1);
    CHECK(FIX_DONE(&f) == 3 && f.w.st.status[204] == 1 && f.w.st.status[304] == 1 && c->state == C_OPEN);
    fix_free(&f);

    /* Two HEADs pipelined: each answer's length is not followed by a body. */
    c = fix_start(&f, "/", &session_http1, 2, head_method);
    CHECK(c->count == 2 && c->slots[0].head && c->slots[1].head);
    CHECK(answer(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n") == 2);
    CHECK(FIX_DONE(&f) == 2 && FIX_ERRORS(&f) == 0 && c->count == 0 && c->state == C_OPEN);
    fix_free(&f);
}

static void cookies(struct config *cfg)
{
    cfg->cookies = 1;
    CHECK(config_add_header(cfg, "Cookie: mine=1") == 0);
}

/* --cookies: what an answer's Set-Cookie fields set goes back on the
 * connection's next requests, after the user's own Cookie field; one
 * that expires it (the same name and Path) takes it out. */
static void cookie_jar(void)
{
    struct fix f;
    struct conn *c;
    char buf[2048];
    c = fix_start(&f, "/app/x", &session_http1, 3, cookies);
    CHECK(fix_recv(f.sfd, buf, sizeof(buf), "\r\n\r\n", 1) > 0 && strstr(buf, "\r\nCookie: mine=1\r\n\r\n"));
    CHECK(answer(c, "HTTP/1.1 200 OK\r\nSet-Cookie: sid=abc; Path=/\r\nSet-Cookie: pref=x\r\n"
                    "Set-Cookie: other=1; Path=/elsewhere\r\nContent-Length: 0\r\n\r\n") == 1);
    conn_take(c, clock_ns(), clock_ns());
    CHECK(fix_recv(f.sfd, buf, sizeof(buf), "\r\n\r\n", 1) > 0);
    /* pref's default Path is /app (RFC 6265 §5.1.4); other's is not this one. */
    CHECKF(strstr(buf, "\r\nCookie: mine=1\r\nCookie: ") != NULL && strstr(buf, "sid=abc") && strstr(buf, "pref=x") &&
           !strstr(buf, "other=1") && c->slots[c->head].jar_line == 1, "%s", buf);
    CHECK(answer(c, "HTTP/1.1 200 OK\r\nSet-Cookie: sid=; Path=/; Max-Age=0\r\nContent-Length: 0\r\n\r\n") == 1);
    conn_take(c, clock_ns(), clock_ns());
    CHECK(fix_recv(f.sfd, buf, sizeof(buf), "\r\n\r\n", 1) > 0);
    CHECKF(strstr(buf, "sid=") == NULL && strstr(buf, "pref=x") != NULL, "%s", buf);
    fix_free(&f);
}

static void big_post(struct config *cfg)
{
    cfg->body_len = 8 << 20;
    cfg->body = malloc(cfg->body_len);
    memset(cfg->body, 'b', cfg->body_len);
    cfg->has_body = 1;
}

/* An answer before the request was written whole (a 413 to a body the
 * server will not read): it counts, and the connection, whose request
 * stream is cut, is closed rather than used again. */
static void answered_before_written(void)
{
    struct fix f;
    struct conn *c;
    c = fix_start(&f, "/upload", &session_http1, 2, big_post);
    CHECK(f.w.st.bytes_sent < f.pl.targets[0].len && c->count == 1);
    fix_send(f.sfd, "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\n\r\n");
    FIX_UNTIL(&f, FIX_DONE(&f) == 1);
    CHECK(FIX_DONE(&f) == 1 && f.w.st.status[413] == 1 && FIX_ERRORS(&f) == 0 && f.w.st.conns_opened >= 1);
    CHECK(FIX_STARTED(&f) <= 2 && f.w.ended == 1);
    {
        /* The server's end: what was written of the request, then its end. */
        static char sink[1 << 16];
        ssize_t r = 1;
        size_t got = 0;
        while (r > 0 && fix_readable(f.sfd))
            if ((r = read(f.sfd, sink, sizeof(sink))) > 0)
                got += (size_t)r;
        CHECK(r == 0 && got < f.pl.targets[0].len);
    }
    fix_free(&f);
}

/* Pipelined: three requests in one write, their answers in one read, each
 * to its own request in order; then one and a half answers, and the rest. */
static void pipelined_in_order(void)
{
    static const char three[] = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 404 Not Found\r\n"
                                "Content-Length: 0\r\n\r\nHTTP/1.1 500 Oops\r\nContent-Length: 2\r\n\r\nbc";
    static const char half[] = "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\nContent-";
    struct fix f;
    struct conn *c;
    char buf[4096];
    uint64_t now;
    c = fix_start(&f, "/p", &session_http1, 6, depth3);
    CHECK(c->cap == 3 && c->count == 3);
    fix_recv(f.sfd, buf, sizeof(buf), "\r\n\r\n", 3);
    CHECK(f.w.st.bytes_sent == 3 * f.pl.targets[0].len && strlen(buf) == 3 * f.pl.targets[0].len);
    CHECK(answer(c, three) == 3);
    CHECK(FIX_DONE(&f) == 3 && f.w.st.status[200] == 1 && f.w.st.status[404] == 1 && f.w.st.status[500] == 1);
    CHECK(c->count == 0 && c->state == C_OPEN);
    now = clock_ns();
    conn_fill(c, now);
    CHECK(c->count == 3);
    CHECK(answer(c, half) == 1 && c->count == 2);
    CHECK(answer(c, "Length: 3\r\n\r\nxyzHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") == 2);
    CHECK(FIX_DONE(&f) == 6 && f.w.st.status[204] == 1 && f.w.st.status[200] == 3 && FIX_ERRORS(&f) == 0);
    fix_free(&f);
}

/* Connection: close on an answer: it counts, the connection closes and
 * is said closed by the server's header; said with two pipelined requests
 * still unanswered, those two fail as closed early. */
static void connection_close(void)
{
    struct fix f;
    struct conn *c;
    c = fix_start(&f, "/", &session_http1, 1, NULL);
    CHECK(answer(c, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok") == -1);
    CHECK(FIX_DONE(&f) == 1 && f.w.st.closes[CLOSE_HEADER] == 1 && c->state == C_IDLE && c->queued == 1);
    CHECK(FIX_ERRORS(&f) == 0 && c->fd == -1);
    fix_free(&f);

    c = fix_start(&f, "/", &session_http1, 3, depth3);
    CHECK(c->count == 3);
    CHECK(answer(c, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n") == -1);
    CHECK(FIX_DONE(&f) == 1 && f.w.st.errors[ERR_CLOSED_EARLY] == 2 && FIX_ERRORS(&f) == 2);
    CHECK(c->state == C_IDLE && c->count == 0 && c->fd == -1 && f.w.ended == 3);
    fix_free(&f);
}

/* What the connection's end makes of the answer being read: a body
 * without a length ends with it (RFC 9112 §6.3); one that its length or
 * its chunks say is longer, or no answer at all, is closed early. */
static void ended_by_the_connection(void)
{
    static const struct {
        const char *bytes;
        int complete;
    } cases[] = {
        { "HTTP/1.1 200 OK\r\n\r\nbody until the end", 1 },
        { "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", 0 },
        { "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", 0 },
        { "HTTP/1.1 200 OK\r\nContent-Le", 0 },
        { "", 0 },
    };
    struct fix f;
    struct conn *c;
    uint64_t k;
    c = fix_start(&f, "/", &session_http1, 5, NULL);
    for (k = 0; k < 5; k++) {
        if (k > 0)
            fix_redial(&f);
        CHECK(c->count == 1 && f.w.st.conns_opened == k + 1);
        CHECK(c->sess->read(c, cases[k].bytes, strlen(cases[k].bytes), clock_ns()) == 0);
        c->sess->eof(c, clock_ns());
        CHECKF(c->state == C_IDLE && FIX_DONE(&f) + FIX_ERRORS(&f) == k + 1, "case %u", (unsigned)k);
    }
    CHECK(FIX_DONE(&f) == 1 && f.w.st.closes[CLOSE_BODY_EOF] == 1 && f.w.st.errors[ERR_CLOSED_EARLY] == 4);
    CHECK(FIX_STARTED(&f) == 5 && f.w.ended == 5);
    fix_free(&f);
}

/* Bytes nobody asked for go to no request: a 408 on an idle connection is
 * the server's idle close, anything else unsolicited; both close it. */
static void stray_answers(void)
{
    struct fix f;
    struct conn *c;
    c = fix_start(&f, "/", &session_http1, 3, NULL);
    CHECK(answer(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 408 Request Timeout\r\n"
                    "Connection: close\r\nContent-Length: 0\r\n\r\n") == -1);
    CHECK(FIX_DONE(&f) == 1 && f.w.st.closes[CLOSE_IDLE_408] == 1 && f.w.st.status[408] == 0 && c->state == C_IDLE);
    fix_redial(&f);
    CHECK(answer(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") == 1 && c->count == 0);
    CHECK(answer(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") == -1);
    CHECK(FIX_DONE(&f) == 2 && f.w.st.closes[CLOSE_UNSOLICITED] == 1 && f.w.st.status[200] == 2 && FIX_ERRORS(&f) == 0);
    fix_free(&f);
}

/* A status line the parser refuses: malformed. A TLS record for an
 * answer, before the address spoke: the run stops, saying use https://. */
static void malformed(void)
{
    struct fix f;
    struct conn *c;
    c = fix_start(&f, "/", &session_http1, 2, NULL);
    CHECK(answer(c, "HTTP/1.1 2x0 OK\r\n\r\n") == -1);
    CHECK(f.w.st.errors[ERR_MALFORMED] == 1 && FIX_DONE(&f) == 0 && c->state == C_IDLE && atomic_load(&f.failed) == 0);
    fix_redial(&f);
    CHECK(c->sess->read(c, "\x15\x03\x03\x00\x02\x02\x46", 7, clock_ns()) == -1);
    CHECK(f.w.st.errors[ERR_MALFORMED] == 2 && atomic_load(&f.failed) == 1);
    CHECKF(strstr(f.w.err, "speaks TLS, not plain HTTP: it answered with a TLS record; use https://") != NULL, "%s",
           f.w.err);
    fix_free(&f);
}

int main(void)
{
    T_RUN(request_bytes);
    T_RUN(content_length_and_chunked);
    T_RUN(split_at_every_byte);
    T_RUN(bodiless_and_interim);
    T_RUN(cookie_jar);
    T_RUN(answered_before_written);
    T_RUN(pipelined_in_order);
    T_RUN(connection_close);
    T_RUN(ended_by_the_connection);
    T_RUN(stray_answers);
    T_RUN(malformed);
    T_END("test_http1");
}

/* --follow in the HTTP/1.1 session (src/client/http1.c): a redirect on the
 * same origin is followed on the same connection, the chain one request
 * (its answer the last one's); a 303, and a POST's 301 or 302, become a GET
 * without the body or its fields; another origin's Location ends the
 * request there; --follow N stops after N; a Location that is no
 * request-target sends nothing. */
#include "fixture.h"

static void follow2(struct config *cfg)
{
    cfg->follow = 2;
}

static void post_follow(struct config *cfg)
{
    cfg->follow = 2;
    cfg->method = "POST";
    cfg->method_given = 1;
    cfg->body = strdup("a=1&b=2");
    cfg->body_len = 7;
    cfg->has_body = 1;
    cfg->content_type = "application/x-www-form-urlencoded";
}

static int answer(struct conn *c, const char *s)
{
    return c->sess->read(c, s, strlen(s), clock_ns());
}

/* The next request the server reads, into buf (REQ_MAX bytes). */
#define REQ_MAX 2048
static const char *next_request(struct fix *f, char *buf)
{
    CHECK(fix_recv(f->sfd, buf, REQ_MAX, "\r\n\r\n", 1) > 0);
    return buf;
}

/* The redirect a (it ends no request) and the request it makes, into buf. */
static const char *hop(struct fix *f, const char *a, char *buf)
{
    CHECK(answer(&f->w.conns[0], a) >= 0 && f->w.conns[0].count == 1);
    return next_request(f, buf);
}

static void same_origin_chain(void)
{
    struct fix f;
    struct conn *c;
    char buf[REQ_MAX];
    c = fix_start(&f, "/a/b?q", &session_http1, 1, follow2);
    CHECK(strncmp(next_request(&f, buf), "GET /a/b?q HTTP/1.1\r\n", 21) == 0);
    /* Relative to /a/b: /a/c, the fragment dropped; the same fields. */
    CHECKF(strncmp(hop(&f, "HTTP/1.1 302 Found\r\nLocation: c?x=1#frag\r\nContent-Length: 3\r\n\r\nmov", buf),
                   "GET /a/c?x=1 HTTP/1.1\r\nHost: 127.0.0.1:", 38) == 0, "%s", buf);
    CHECK(c->count == 1 && FIX_DONE(&f) == 0 && f.w.st.redirects == 1);
    CHECK(answer(c, "HTTP/1.1 301 Moved\r\nLocation: http://127.0.0.1:1/elsewhere\r\nContent-Length: 0\r\n\r\n") == 1);
    /* Another origin (another port): followed no further, the answer is the 301. */
    CHECK(FIX_DONE(&f) == 1 && f.w.st.status[301] == 1 && f.w.st.redirects == 1 && f.w.st.redirects_away == 1);
    CHECK(FIX_STARTED(&f) == 1 && FIX_ERRORS(&f) == 0 && c->count == 0 && c->state == C_OPEN);
    fix_free(&f);
}

/* --follow 2: the third redirect of a chain is its answer. */
static void follow_limit(void)
{
    struct fix f;
    struct conn *c;
    char buf[REQ_MAX];
    c = fix_start(&f, "/0", &session_http1, 1, follow2);
    next_request(&f, buf);
    CHECK(strncmp(hop(&f, "HTTP/1.1 307 T\r\nLocation: /1\r\nContent-Length: 0\r\n\r\n", buf), "GET /1 ", 7) == 0);
    CHECK(strncmp(hop(&f, "HTTP/1.1 308 P\r\nLocation: /2\r\nContent-Length: 0\r\n\r\n", buf), "GET /2 ", 7) == 0 &&
          c->slots[0].hops == 2);
    CHECK(answer(c, "HTTP/1.1 302 F\r\nLocation: /3\r\nContent-Length: 0\r\n\r\n") == 1);
    CHECK(FIX_DONE(&f) == 1 && f.w.st.status[302] == 1 && f.w.st.redirects == 2 && c->count == 0);
    fix_free(&f);
}

/* A POST answered 302: a GET to the Location, without its body nor the
 * fields that described it; answered 307: a POST again, its body again. */
static void post_becomes_get(void)
{
    struct fix f;
    struct conn *c;
    char buf[REQ_MAX];
    c = fix_start(&f, "/form", &session_http1, 2, post_follow);
    next_request(&f, buf);
    CHECK(strncmp(buf, "POST /form HTTP/1.1\r\n", 21) == 0 && strstr(buf, "Content-Length: 7\r\n") != NULL);
    /* 307: the method and body kept (the body follows the head). */
    CHECK(answer(c, "HTTP/1.1 307 T\r\nLocation: /again\r\nContent-Length: 0\r\n\r\n") >= 0);
    CHECK(fix_recv(f.sfd, buf, sizeof(buf), "a=1&b=2", 1) > 0);
    CHECKF(strncmp(buf, "POST /again HTTP/1.1\r\n", 22) == 0 && strstr(buf, "Content-Type: application/x-www-form") &&
           strstr(buf, "\r\n\r\na=1&b=2") != NULL, "%s", buf);
    hop(&f, "HTTP/1.1 302 F\r\nLocation: /done\r\nContent-Length: 0\r\n\r\n", buf);
    CHECKF(strncmp(buf, "GET /done HTTP/1.1\r\n", 20) == 0 && strstr(buf, "Content-Length") == NULL &&
           strstr(buf, "Content-Type") == NULL, "%s", buf);
    /* Nothing after its head: no body went. */
    CHECK(strlen(buf) == (size_t)(strstr(buf, "\r\n\r\n") + 4 - buf) && !fix_readable_now(f.sfd));
    CHECK(answer(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") == 1);
    CHECK(FIX_DONE(&f) == 1 && f.w.st.status[200] == 1 && f.w.st.redirects == 2);
    fix_free(&f);
}

/* A Location with a space would rewrite the request line: nothing is
 * sent, the request ends as bad_value, the connection goes on. */
static void bad_location(void)
{
    struct fix f;
    struct conn *c;
    char buf[REQ_MAX];
    c = fix_start(&f, "/", &session_http1, 2, follow2);
    next_request(&f, buf);
    CHECK(answer(c, "HTTP/1.1 302 F\r\nLocation: /x HTTP/1.0\r\nContent-Length: 0\r\n\r\n") >= 0);
    CHECK(f.w.st.errors[ERR_BAD_VALUE] == 1 && FIX_DONE(&f) == 0 && f.w.st.redirects == 0);
    CHECK(c->state == C_OPEN && c->count == 0 && !fix_readable_now(f.sfd));
    fix_free(&f);
}

int main(void)
{
    T_RUN(same_origin_chain);
    T_RUN(follow_limit);
    T_RUN(post_becomes_get);
    T_RUN(bad_location);
    T_END("test_http1_follow");
}

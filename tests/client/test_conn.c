/* The client connection (src/client/conn.c): its connects, closes and
 * reconnects counted, --requests-per-conn's share per connection, an idle
 * connection the server closed, a request past --timeout, a lost
 * connection's outstanding requests each ended once, and a protocol
 * mismatch that stops the run before the address spoke, counted after.
 * Every test ends with started = completed + errors. */
#include "fixture.h"

/* One answer on the server's end sfd, to the request read there first. */
static void serve_one(struct fix *f, int sfd, const char *answer)
{
    char buf[2048];
    uint64_t done = FIX_DONE(f);
    CHECK(fix_recv(sfd, buf, sizeof(buf), "\r\n\r\n", 1) > 0);
    fix_send(sfd, answer);
    FIX_UNTIL(f, FIX_DONE(f) > done);
}

/* The server's end saw the client close: after what it had not read, its
 * read says end of stream. */
static int closed_by_client(int sfd)
{
    char b[4096];
    ssize_t r = 1;
    while (r > 0 && fix_readable(sfd))
        r = read(sfd, b, sizeof(b));
    return r == 0;
}

#define OK "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

static void two_per_conn(struct config *cfg)
{
    cfg->requests_per_conn = 2;
}

/* -n 5 with --requests-per-conn 2: connections of 2, 2 and 1 requests,
 * each closed by the client after its share. */
static void requests_per_connection(void)
{
    struct fix f;
    struct conn *c;
    int k;
    c = fix_start(&f, "/", &session_http1, 5, two_per_conn);
    for (k = 0; k < 5; k++) {
        if (k == 2 || k == 4) {
            CHECK(closed_by_client(f.sfd));
            fix_hangup(&f);
            FIX_UNTIL(&f, c->state != C_IDLE);
            f.sfd = fix_accept(&f);
            CHECK(f.sfd >= 0);
            FIX_UNTIL(&f, c->state == C_OPEN);
        }
        serve_one(&f, f.sfd, OK);
    }
    CHECK(FIX_DONE(&f) == 5 && FIX_STARTED(&f) == 5 && FIX_ERRORS(&f) == 0 && f.w.st.status[200] == 5);
    CHECK(f.w.st.conns_opened == 3 && f.w.connected == 1 && c->nreq == 1);
    /* Closed by the client, not by the server: no server close counted. */
    CHECK(stats_server_closes(&f.w.st) == 0);
    CHECK(f.w.open == 1 && c->state == C_OPEN);
    fix_free(&f);
    CHECK(f.w.open == 0);
}

/* The server closes a keep-alive connection with no request on it:
 * counted as its idle close, and the next request opens another. */
static void idle_close_reconnects(void)
{
    struct fix f;
    struct conn *c;
    c = fix_start(&f, "/", &session_http1, 1, NULL);
    serve_one(&f, f.sfd, OK);
    fix_hangup(&f);
    FIX_UNTIL(&f, c->state == C_IDLE);
    CHECK(FIX_DONE(&f) == 1 && f.w.st.closes[CLOSE_IDLE] == 1 && FIX_ERRORS(&f) == 0 && f.w.open == 0);
    /* A second request (the budget grown by one, the connection queued
     * again: the last turn found nothing to give it), on a second
     * connection. */
    f.w.budget = 2;
    workq_enqueue(c);
    FIX_UNTIL(&f, c->state != C_IDLE);
    f.sfd = fix_accept(&f);
    FIX_UNTIL(&f, c->state == C_OPEN);
    serve_one(&f, f.sfd, OK);
    CHECK(FIX_DONE(&f) == 2 && FIX_ERRORS(&f) == 0 && f.w.st.conns_opened == 2 && FIX_STARTED(&f) == 2);
    fix_free(&f);
}

static void depth4(struct config *cfg)
{
    cfg->pipeline = 4;
}

/* Four pipelined requests when the connection is reset: each ends once,
 * as a reset, and the connection is idle, its socket closed. */
static void lost_connection_ends_each_once(void)
{
    struct fix f;
    struct conn *c;
    struct linger lg = { 1, 0 };
    c = fix_start(&f, "/", &session_http1, 4, depth4);
    CHECK(c->count == 4 && f.w.open == 1);
    CHECK(fix_recv(f.sfd, (char[4096]){ 0 }, 4096, "\r\n\r\n", 4) > 0);
    fix_send(f.sfd, OK); /* the first answered */
    CHECK(setsockopt(f.sfd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) == 0);
    fix_hangup(&f); /* an RST: the others lost */
    FIX_UNTIL(&f, c->state == C_IDLE);
    CHECK(FIX_DONE(&f) == 1 && FIX_ERRORS(&f) == 3 && f.w.st.errors[ERR_RESET] + f.w.st.errors[ERR_CLOSED_EARLY] == 3);
    CHECK(FIX_STARTED(&f) == 4 && f.w.ended == 4 && c->count == 0 && c->fd == -1 && f.w.open == 0);
    fix_free(&f);
}

/* --timeout: the request's timer fires (called here at its deadline, no
 * waiting): it ends as a timeout of the answer, the connection closed. */
static void answer_timeout(void)
{
    struct fix f;
    struct conn *c;
    c = fix_start(&f, "/", &session_http1, 1, NULL);
    /* Before its deadline: re-armed, nothing ends. */
    c->timer.fn(&c->timer, c->slots[0].t_sent + f.cfg.timeout_ns - 1);
    CHECK(c->count == 1 && FIX_ERRORS(&f) == 0 && c->state == C_OPEN);
    c->timer.fn(&c->timer, c->slots[0].t_sent + f.cfg.timeout_ns);
    CHECK(f.w.st.errors[ERR_TIMEOUT_ANSWER] == 1 && FIX_ERRORS(&f) == 1 && c->state == C_IDLE && c->count == 0);
    CHECK(closed_by_client(f.sfd));
    fix_free(&f);
}

/* A protocol mismatch before any connection to the address was answered
 * stops the run, ADDRESS and the reason in one line; after one was, it is
 * that connection's error, counted. */
static void mismatch_before_and_after(void)
{
    struct fix f;
    struct conn *c;
    c = fix_start(&f, "/", &session_http1, 2, NULL);
    serve_one(&f, f.sfd, OK);
    CHECK(atomic_load(&f.pl.endpoints[0].spoke) == 1);
    conn_take(c, clock_ns(), clock_ns());
    conn_mismatch(c, ERR_MALFORMED, "a detail", "a line %d", 1);
    CHECK(atomic_load(&f.failed) == 0 && f.w.err[0] == '\0' && f.w.st.errors[ERR_MALFORMED] == 1 && c->state == C_IDLE);
    fix_free(&f);

    c = fix_start(&f, "/", &session_http1, 1, NULL);
    conn_mismatch(c, ERR_MALFORMED, "a detail", "a line %d", 2);
    CHECK(atomic_load(&f.failed) == 1 && f.w.stopping == 1 && f.w.st.errors[ERR_MALFORMED] == 1);
    CHECKF(strncmp(f.w.err, "127.0.0.1:", 10) == 0 && strstr(f.w.err, " a line 2") != NULL, "%s", f.w.err);
    fix_free(&f);
}

int main(void)
{
    T_RUN(requests_per_connection);
    T_RUN(idle_close_reconnects);
    T_RUN(lost_connection_ends_each_once);
    T_RUN(answer_timeout);
    T_RUN(mismatch_before_and_after);
    T_END("test_conn");
}

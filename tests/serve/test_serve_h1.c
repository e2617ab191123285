/* rafale serve's HTTP/1.1 over a socketpair: a connection of a thread set
 * up as serve.c sets it up, its requests written by the test and read by
 * serve_conn_on_io, its answers read back whole: the ready-made GET /,
 * pipelined requests answered in order, a head split across reads, a
 * request body skipped, HEAD, HTTP/1.0 and Connection: close, a malformed
 * request refused and the connection closed, chunked and generated bodies
 * as the socket takes them, the access log's line. */
#include "serve_conn.h"
#include "clock.h"
#include "../t.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define DATE "Thu, 01 Jan 2026 00:00:00 GMT"

static struct serve srv;
static struct sthread th;
static struct sconn conn;
static int peer = -1;
static char *logtext;
static size_t loglen;

/* A new connection on the thread: its other end in peer. */
static void connect_one(void)
{
    int sv[2];
    uint64_t now = clock_ns();
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) == 0);
    memset(&conn, 0, sizeof(conn));
    conn.t = &th;
    conn.fd = sv[0];
    conn.io.fn = serve_conn_on_io;
    conn.timer.fn = serve_conn_on_timer;
    conn.ops = &io_plain;
    conn.fresh = 1;
    conn.t_idle = conn.t_req = conn.t_out = now;
    snprintf(conn.peer, sizeof(conn.peer), "127.0.0.1:4321");
    peer = sv[1];
}

static void setup(void)
{
    memset(&srv, 0, sizeof(srv));
    srv.cfg.header_timeout_ns = srv.cfg.idle_timeout_ns = 60 * NS_PER_S;
    srv.cfg.redirect_to = "http://example.com";
    srv.log = open_memstream(&logtext, &loglen);
    memset(&th, 0, sizeof(th));
    th.s = &srv;
    th.rng = 1;
    CHECK(loop_init(&th.loop, 16) == 0 && (th.rbuf = malloc(IO_RBUF_SIZE)) != NULL);
    snprintf(th.date, sizeof(th.date), DATE);
    snprintf(th.logdate, sizeof(th.logdate), "01/Jan/2026:00:00:00 +0000");
    serve_h1_hello(&th);
    connect_one();
}

static int is_open(void)
{
    return conn.fd >= 0;
}

static void hang_up(void)
{
    if (is_open())
        serve_conn_free(&conn);
    if (peer >= 0)
        close(peer);
    peer = -1;
}

static void teardown(void)
{
    hang_up();
    buf_free(&th.wb);
    buf_free(&th.hello);
    free(th.rbuf);
    loop_fini(&th.loop);
    fclose(srv.log);
    free(logtext);
}

/* Writes req to the server's side and lets it read; returns what it
 * answered (all of it: a body it generates is pumped as the socket takes
 * it), *eof when it closed. The text is kept until the next call. */
static const char *exchange(const char *req, size_t *len, int *eof)
{
    static char out[1 << 20];
    size_t n = 0, k;
    int tries;
    *eof = 0;
    if (req[0])
        CHECK(write(peer, req, strlen(req)) == (ssize_t)strlen(req));
    if (is_open())
        serve_conn_on_io(&conn.io, LOOP_IN);
    for (tries = 0; tries < 10000; tries++) {
        ssize_t r = read(peer, out + n, sizeof(out) - 1 - n);
        if (r > 0) {
            n += (size_t)r;
            continue;
        }
        if (r == 0) {
            *eof = 1;
            break;
        }
        /* Nothing more now: more to come only if the server has output
         * waiting for room. */
        if (!is_open() || (conn.out.len == conn.out_off && conn.gen == GEN_NONE))
            break;
        serve_conn_on_io(&conn.io, LOOP_OUT);
    }
    out[n] = '\0';
    k = n;
    if (len)
        *len = k;
    return out;
}

static void ready_made_hello(void)
{
    int eof;
    const char *a;
    setup();
    a = exchange("GET / HTTP/1.1\r\nHost: x\r\n\r\n", NULL, &eof);
    CHECKF(strcmp(a, "HTTP/1.1 200 OK\r\nServer: rafale\r\nDate: " DATE "\r\nContent-Type: text/plain\r\n"
                     "Content-Length: 13\r\n\r\nHello, world\n") == 0,
           "%s", a);
    CHECK(!eof && is_open() && th.requests == 1);
    /* The ready-made answer is logged as the others are. */
    fflush(srv.log);
    CHECKF(strstr(logtext, "127.0.0.1:4321 - - [01/Jan/2026:00:00:00 +0000] \"GET / HTTP/1.1\" 200 ") == logtext, "%s",
           logtext);
    teardown();
}

static void pipelined_in_order(void)
{
    int eof;
    const char *a, *second, *third;
    setup();
    a = exchange("GET /status/404 HTTP/1.1\r\nHost: x\r\n\r\n"
                 "HEAD /bytes/10 HTTP/1.1\r\nHost: x\r\n\r\n"
                 "GET /json HTTP/1.1\r\nHost: x\r\n\r\n",
                 NULL, &eof);
    CHECK(th.requests == 3 && !eof && is_open());
    CHECKF(strncmp(a, "HTTP/1.1 404 Not Found\r\n", 24) == 0 && strstr(a, "\r\n\r\n404 Not Found\n"), "%s", a);
    second = strstr(a, "HTTP/1.1 200 OK\r\n");
    third = second ? strstr(second + 1, "HTTP/1.1 200 OK\r\n") : NULL;
    /* HEAD: the length the GET would have, no body. */
    CHECK(second && third && strstr(second, "Content-Length: 10\r\n\r\nHTTP/1.1 200 OK") != NULL);
    CHECK(third && strstr(third, "Content-Type: application/json\r\n") &&
          strstr(third, "\r\n\r\n{\"message\":\"Hello, world\""));
    fflush(srv.log);
    CHECKF(strstr(logtext, "\"HEAD /bytes/10 HTTP/1.1\" 200 ") != NULL &&
               strstr(logtext, "\"GET /status/404 HTTP/1.1\" 404 ") != NULL,
           "%s", logtext);
    teardown();
}

static void split_head_and_skipped_body(void)
{
    int eof;
    const char *a;
    setup();
    /* Half a head: nothing yet. */
    a = exchange("GET /bytes/5 HT", NULL, &eof);
    CHECK(a[0] == '\0' && th.requests == 0 && is_open());
    a = exchange("TP/1.1\r\nHost: x\r\n\r\n", NULL, &eof);
    CHECKF(strstr(a, "Content-Type: application/octet-stream\r\nContent-Length: 5\r\n\r\nabcde") != NULL &&
               a[strlen(a) - 1] == 'e',
           "%s", a);
    /* A body (in two reads) is read and dropped, never taken for a request. */
    a = exchange("POST /status/201 HTTP/1.1\r\nHost: x\r\nContent-Length: 20\r\n\r\nGET /x HTTP", NULL, &eof);
    CHECKF(strncmp(a, "HTTP/1.1 201 Created\r\n", 22) == 0, "%s", a);
    a = exchange("/1.1\r\n\r\nGET /status/202 HTTP/1.1\r\nHost: x\r\n\r\n", NULL, &eof);
    CHECKF(strncmp(a, "HTTP/1.1 202 Accepted\r\n", 23) == 0 && th.requests == 3, "%s", a);
    teardown();
}

static void http10_and_close(void)
{
    int eof;
    const char *a;
    setup();
    /* HTTP/1.0 asking keep-alive: said back; chunked is not HTTP/1.0's. */
    a = exchange("GET /chunked/3 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", NULL, &eof);
    CHECKF(strstr(a, "HTTP/1.1 200 OK\r\n") == a && strstr(a, "Connection: keep-alive\r\n") &&
               strstr(a, "Content-Length: 3\r\n\r\nabc") && !strstr(a, "chunked") && !eof,
           "%s", a);
    /* HTTP/1.0 without it: answered, then closed. */
    a = exchange("GET /json HTTP/1.0\r\n\r\n", NULL, &eof);
    CHECK(strstr(a, "Connection: close\r\n") != NULL && eof && !is_open());
    hang_up();
    /* /close and Connection: close end it after the answer. With a request
     * unread behind it, a lingering close: the write side shut (the client
     * reads the end), the rest read until the client closes, so that no
     * reset eats the answer. */
    connect_one();
    a = exchange("GET /close HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\n\r\n", NULL, &eof);
    CHECKF(strstr(a, "Connection: close\r\n") && strstr(a, "Hello, world\n") && eof &&
               strstr(a + 1, "HTTP/1.1") == NULL,
           "%s", a);
    CHECK(is_open() && conn.draining && th.requests == 3);
    close(peer);
    peer = -1;
    serve_conn_on_io(&conn.io, LOOP_IN);
    CHECK(!is_open());
    hang_up();
    connect_one();
    a = exchange("GET /status/200 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", NULL, &eof);
    CHECK(strstr(a, "Connection: close\r\n") && strstr(a, "\r\n\r\n200 OK\n") && eof);
    teardown();
}

static void malformed_refused(void)
{
    int eof;
    const char *a;
    setup();
    a = exchange("GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\nGET / HTTP/1.1\r\n\r\n", NULL, &eof);
    CHECKF(strncmp(a, "HTTP/1.1 400 Bad Request\r\n", 26) == 0 && strstr(a, "Connection: close\r\n") && eof &&
               !is_open(),
           "%s", a);
    /* One line saying why, and nothing after it answered. */
    CHECK(strstr(a, "\r\n\r\n") && strchr(strstr(a, "\r\n\r\n") + 4, '\n') == a + strlen(a) - 1 && th.requests == 0);
    teardown();
}

static void bodies_as_the_socket_takes_them(void)
{
    int eof, ok = 1;
    size_t len, i, n = 0;
    const char *a, *p;
    setup();
    /* 2500 bytes in chunks of at most 1000. */
    a = exchange("GET /chunked/2500 HTTP/1.1\r\nHost: x\r\n\r\n", &len, &eof);
    CHECK(strstr(a, "Transfer-Encoding: chunked\r\n\r\n3e8\r\n") != NULL);
    for (p = strstr(a, "\r\n\r\n") + 4; p && strncmp(p, "0\r\n\r\n", 5) != 0;) {
        unsigned long k = strtoul(p, NULL, 16);
        p = strstr(p, "\r\n") + 2;
        for (i = 0; i < k; i++)
            ok &= p[i] == SERVE_PATTERN[i % SERVE_PATTERN_LEN];
        n += k;
        p += k + 2;
    }
    CHECKF(n == 2500 && ok && p && strcmp(p, "0\r\n\r\n") == 0, "%zu bytes", n);
    /* 300 000 bytes: more than the socket holds, generated as it drains. */
    a = exchange("GET /bytes/300000 HTTP/1.1\r\nHost: x\r\n\r\n", &len, &eof);
    p = strstr(a, "Content-Length: 300000\r\n\r\n");
    CHECK(p != NULL);
    if (p) {
        p += strlen("Content-Length: 300000\r\n\r\n");
        CHECKF((size_t)(a + len - p) == 300000, "%zu body bytes", (size_t)(a + len - p));
        for (i = 0, ok = 1; i < 300000 && p + i < a + len; i++)
            ok &= p[i] == SERVE_PATTERN[i % SERVE_PATTERN_LEN];
        CHECK(ok);
    }
    /* The connection goes on after it. */
    a = exchange("GET /status/204 HTTP/1.1\r\nHost: x\r\n\r\n", &len, &eof);
    CHECKF(strncmp(a, "HTTP/1.1 204 No Content\r\n", 25) == 0 && strstr(a, "Content-Length") == NULL &&
               strcmp(a + len - 4, "\r\n\r\n") == 0,
           "%s", a);
    teardown();
}

int main(void)
{
    T_RUN(ready_made_hello);
    T_RUN(pipelined_in_order);
    T_RUN(split_head_and_skipped_body);
    T_RUN(http10_and_close);
    T_RUN(malformed_refused);
    T_RUN(bodies_as_the_socket_takes_them);
    T_END("serve_h1");
}

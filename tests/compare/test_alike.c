/* Do two servers answer alike: one request each (HTTP/1.1, Connection:
 * close) to a canned server on 127.0.0.1, the answer reduced to status,
 * Location, Content-Type, framing, body length and hash (of the decoded
 * body: chunked and by-length bodies of the same bytes hash alike), and
 * two answers compared on the fields asked. Answers cut short, refused by
 * the parser, or never sent are none; one not whole in time is cut. */
#include "alike.h"
#include "compare_settings.h"
#include "../t.h"

#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define HELLO_HASH 0xa430d84680aabd0bULL /* FNV-1a 64 of "hello" */

/* A server of one connection: it reads the request's head, sends resp,
 * and closes at once, or after the client when hold. */
struct canned {
    int lfd, port;
    const char *resp;
    int hold;
    char req[1024];
    pthread_t th;
};

static void *serve_one(void *arg)
{
    struct canned *c = arg;
    struct pollfd p = { -1, POLLIN, 0 };
    size_t got = 0;
    char b[256];
    int fd = accept(c->lfd, NULL, NULL);
    if (fd < 0)
        return NULL;
    p.fd = fd;
    while (got < sizeof(c->req) - 1 && !strstr(c->req, "\r\n\r\n") && poll(&p, 1, 2000) == 1) {
        ssize_t n = recv(fd, c->req + got, sizeof(c->req) - 1 - got, 0);
        if (n <= 0)
            break;
        got += (size_t)n;
        c->req[got] = '\0';
    }
    if (c->resp[0] && send(fd, c->resp, strlen(c->resp), MSG_NOSIGNAL) < 0)
        c->hold = 0;
    /* Held open until the client is done (its close), 2 s at most. */
    while (c->hold && poll(&p, 1, 2000) == 1 && recv(fd, b, sizeof(b), 0) > 0)
        ;
    close(fd);
    return NULL;
}

/* Fetches path from a server answering resp; fields and timeout as
 * alike_fetch's. Returns its return, the answer in a, the request the
 * server read in req (NULL: not wanted). */
static int fetch(const char *resp, int hold, unsigned fields, uint64_t timeout_ns, struct alike_answer *a, char *req)
{
    struct canned c;
    struct sockaddr_in sa;
    socklen_t len = sizeof(sa);
    struct config wl;
    struct url u;
    char text[64], err[256];
    int rc = -2;
    memset(&c, 0, sizeof(c));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    c.resp = resp;
    c.hold = hold;
    if ((c.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 || bind(c.lfd, (struct sockaddr *)&sa, len) != 0 ||
        listen(c.lfd, 1) != 0 || getsockname(c.lfd, (struct sockaddr *)&sa, &len) != 0 ||
        pthread_create(&c.th, NULL, serve_one, &c) != 0) {
        CHECK(!"a listener on 127.0.0.1");
        return rc;
    }
    snprintf(text, sizeof(text), "http://127.0.0.1:%d/p?q=1", ntohs(sa.sin_port));
    config_defaults(&wl);
    if (url_parse(text, &u, err, sizeof(err)) == 0) {
        rc = alike_fetch(&wl, &u, fields, timeout_ns, a);
        url_free(&u);
    }
    pthread_join(c.th, NULL);
    close(c.lfd);
    config_free(&wl);
    if (req)
        snprintf(req, sizeof(c.req), "%s", c.req);
    return rc;
}

#define ALL (ALIKE_STATUS | ALIKE_LOCATION | ALIKE_TYPE | ALIKE_BODY)
#define SEC 2000000000ULL

static void one_body_three_framings(void)
{
    struct alike_answer len, chunked, eof;
    char req[1024], what[32];
    CHECK(fetch("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello", 0, ALL, SEC, &len,
                req) == 0);
    /* One request, not kept alive. */
    CHECKF(strncmp(req, "GET /p?q=1 HTTP/1.1\r\n", 21) == 0 && strstr(req, "\r\nConnection: close\r\n"), "%s", req);
    CHECK(len.ok && !len.cut && len.status == 200 && strcmp(len.type, "text/plain") == 0 && len.location[0] == '\0');
    CHECK(strcmp(len.framing, "length") == 0 && len.body_len == 5 && len.body_hash == HELLO_HASH);
    CHECK(fetch("HTTP/1.1 200 OK\r\nContent-Type: Text/Plain\r\nTransfer-Encoding: chunked\r\n\r\n"
                "2\r\nhe\r\n3\r\nllo\r\n0\r\n\r\n",
                0, ALL, SEC, &chunked, NULL) == 0);
    CHECK(chunked.ok && strcmp(chunked.framing, "chunked") == 0 && chunked.body_len == 5 &&
          chunked.body_hash == HELLO_HASH);
    CHECK(fetch("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello", 0, ALL, SEC, &eof, NULL) == 0);
    CHECK(eof.ok && strcmp(eof.framing, "close") == 0 && eof.body_len == 5 && eof.body_hash == HELLO_HASH);

    /* Head fields alike (the type's case aside); with the body asked, the
     * framing differs first. */
    CHECK(alike_same(&len, &chunked, ALIKE_STATUS | ALIKE_LOCATION | ALIKE_TYPE, what, sizeof(what)) == 1);
    CHECK(alike_same(&len, &chunked, ALL, what, sizeof(what)) == 0 && strcmp(what, "framing") == 0);
    CHECK(alike_same(&chunked, &eof, ALL, what, sizeof(what)) == 0 && strcmp(what, "framing") == 0);
    CHECK(alike_same(&len, &len, ALL, what, sizeof(what)) == 1);
}

static void differences_named_first_first(void)
{
    struct alike_answer found, moved, other, bigger, interim;
    char what[32];
    CHECK(fetch("HTTP/1.1 302 Found\r\nLocation: /login\r\nContent-Length: 0\r\n\r\n", 0, ALL, SEC, &found, NULL) == 0);
    CHECK(
        fetch("HTTP/1.1 303 See Other\r\nLocation: /login\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nhello",
              0, ALL, SEC, &moved, NULL) == 0);
    CHECK(fetch("HTTP/1.1 302 Found\r\nLocation:   /signin  \r\nContent-Length: 0\r\n\r\n", 0, ALL, SEC, &other,
                NULL) == 0);
    CHECK(found.status == 302 && strcmp(found.location, "/login") == 0 && strcmp(other.location, "/signin") == 0);
    CHECK(alike_same(&found, &moved, ALL, what, sizeof(what)) == 0 && strcmp(what, "status") == 0);
    CHECK(alike_same(&found, &other, ALL, what, sizeof(what)) == 0 && strcmp(what, "location") == 0);
    /* Fields not asked are not compared. */
    CHECK(alike_same(&found, &other, ALIKE_STATUS, what, sizeof(what)) == 1);
    CHECK(fetch("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n\r\nhello!", 0, ALL, SEC, &bigger,
                NULL) == 0);
    CHECK(fetch("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 6\r\n\r\nhello!", 0, ALL, SEC, &other,
                NULL) == 0);
    CHECK(alike_same(&bigger, &other, ALL, what, sizeof(what)) == 0 && strcmp(what, "type") == 0);
    moved.status = 200;
    snprintf(moved.type, sizeof(moved.type), "text/plain");
    moved.location[0] = '\0';
    bigger.body_hash = moved.body_hash;
    CHECK(alike_same(&moved, &bigger, ALL, what, sizeof(what)) == 0 && strcmp(what, "body") == 0);
    /* An interim answer is skipped; a 204 has no body whatever follows. */
    CHECK(fetch("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n", 0, ALL, SEC, &interim, NULL) == 0);
    CHECK(interim.ok && interim.status == 204 && strcmp(interim.framing, "none") == 0 && interim.body_len == 0);
}

static void no_answer_is_said(void)
{
    struct alike_answer a;
    CHECK(fetch("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhel", 0, ALL, SEC, &a, NULL) == -1);
    CHECKF(!a.ok && !a.cut && strcmp(a.why, "the answer was cut short: the connection closed before its end") == 0,
           "%s", a.why);
    CHECK(fetch("", 0, ALL, SEC, &a, NULL) == -1);
    CHECKF(!a.ok && strcmp(a.why, "no answer") == 0, "%s", a.why);
    CHECK(fetch("SMTP ready\r\n\r\n", 0, ALL, SEC, &a, NULL) == -1);
    CHECKF(!a.ok && !a.cut && strncmp(a.why, "a malformed answer: ", 20) == 0, "%s", a.why);
}

static void an_endless_answer_is_cut(void)
{
    struct alike_answer a;
    /* The body never ends: neither alike nor not, said as cut. */
    CHECK(fetch("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nab", 1, ALL, 200000000ULL, &a, NULL) == -1);
    CHECKF(!a.ok && a.cut && strcmp(a.why, "answer not read whole in 0.2 s") == 0, "%s", a.why);
    /* The head alone is read when no body field is asked: then it is whole. */
    CHECK(fetch("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nab", 1, ALIKE_STATUS, SEC, &a, NULL) == 0);
    CHECK(a.ok && !a.cut && a.status == 200 && strcmp(a.framing, "length") == 0);
}

static void values_for_the_table(void)
{
    struct alike_answer a;
    char out[128];
    memset(&a, 0, sizeof(a));
    snprintf(a.why, sizeof(a.why), "Connection refused");
    alike_value(&a, "status", out, sizeof(out));
    CHECK(strcmp(out, "(Connection refused)") == 0);
    a.ok = 1;
    a.status = 302;
    a.body_len = 5;
    a.body_hash = HELLO_HASH;
    snprintf(a.framing, sizeof(a.framing), "chunked");
    snprintf(a.location, sizeof(a.location), "/x\x1b[2J");
    alike_value(&a, "status", out, sizeof(out));
    CHECK(strcmp(out, "302") == 0);
    alike_value(&a, "type", out, sizeof(out));
    CHECK(strcmp(out, "(none)") == 0);
    alike_value(&a, "framing", out, sizeof(out));
    CHECK(strcmp(out, "chunked") == 0);
    alike_value(&a, "body", out, sizeof(out));
    CHECK(strcmp(out, "5 bytes, hash a430d84680aabd0b") == 0);
    /* A server's bytes, made safe for a terminal. */
    alike_value(&a, "location", out, sizeof(out));
    CHECK(strcmp(out, "/x?[2J") == 0);
}

int main(void)
{
    T_RUN(one_body_three_framings);
    T_RUN(differences_named_first_first);
    T_RUN(no_answer_is_said);
    T_RUN(an_endless_answer_is_cut);
    T_RUN(values_for_the_table);
    T_END("alike");
}

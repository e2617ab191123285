/* The HTTP/2 session (src/client/http2.c, http2_write.c) on a real
 * connection, the server's end played by nghttp2's own server session:
 * streams answered out of order each to its own request, a stream refused
 * unprocessed sent again (RST_STREAM REFUSED_STREAM, a GOAWAY's streams
 * above its last-stream-id, on a new connection), a stream reset counted,
 * and an HTTP/1 answer to the preface ending the run in one line. */
#include "fixture.h"

#include <nghttp2/nghttp2.h>

/* The test's server: an nghttp2 server session on the accepted socket. */
struct srv {
    nghttp2_session *ng;
    int fd;
    int32_t ids[16];     /* the streams whose request is whole, in order */
    int nids;
    char path[64];       /* the first request's :path */
    int32_t rst_id;      /* the client's last RST_STREAM: its stream and code */
    uint32_t rst_code;
    int goaway;          /* the client sent a GOAWAY */
};

static ssize_t srv_out(nghttp2_session *ng, const uint8_t *data, size_t len, int flags, void *ud)
{
    struct srv *s = ud;
    (void)ng;
    (void)flags;
    return write(s->fd, data, len);
}

static int srv_frame(nghttp2_session *ng, const nghttp2_frame *f, void *ud)
{
    struct srv *s = ud;
    (void)ng;
    if ((f->hd.type == NGHTTP2_HEADERS || f->hd.type == NGHTTP2_DATA) && (f->hd.flags & NGHTTP2_FLAG_END_STREAM) &&
        s->nids < 16)
        s->ids[s->nids++] = f->hd.stream_id;
    if (f->hd.type == NGHTTP2_RST_STREAM) {
        s->rst_id = f->hd.stream_id;
        s->rst_code = f->rst_stream.error_code;
    }
    s->goaway |= f->hd.type == NGHTTP2_GOAWAY;
    return 0;
}

static int srv_header(nghttp2_session *ng, const nghttp2_frame *f, const uint8_t *name, size_t namelen,
                      const uint8_t *value, size_t valuelen, uint8_t flags, void *ud)
{
    struct srv *s = ud;
    (void)ng;
    (void)f;
    (void)flags;
    if (namelen == 5 && memcmp(name, ":path", 5) == 0 && s->path[0] == '\0' && valuelen < sizeof(s->path))
        memcpy(s->path, value, valuelen);
    return 0;
}

static void srv_init(struct srv *s, int fd)
{
    nghttp2_session_callbacks *cb;
    nghttp2_settings_entry iv = { NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100 };
    memset(s, 0, sizeof(*s));
    s->fd = fd;
    CHECK(fd >= 0 && nghttp2_session_callbacks_new(&cb) == 0);
    nghttp2_session_callbacks_set_send_callback(cb, srv_out);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, srv_frame);
    nghttp2_session_callbacks_set_on_header_callback(cb, srv_header);
    CHECK(nghttp2_session_server_new(&s->ng, cb, s) == 0);
    nghttp2_session_callbacks_del(cb);
    CHECK(nghttp2_submit_settings(s->ng, NGHTTP2_FLAG_NONE, &iv, 1) == 0 && nghttp2_session_send(s->ng) == 0);
}

static void srv_free(struct srv *s)
{
    nghttp2_session_del(s->ng);
    close(s->fd);
}

/* One read of what the client sent (waited for, FIX_WAIT_MS), taken in.
 * Returns 0 at its end (or none came). */
static int srv_pump(struct srv *s)
{
    uint8_t buf[16384];
    ssize_t r = fix_readable(s->fd) ? read(s->fd, buf, sizeof(buf)) : 0;
    if (r > 0)
        CHECK(nghttp2_session_mem_recv(s->ng, buf, (size_t)r) == r && nghttp2_session_send(s->ng) == 0);
    return r > 0;
}

/* Reads until n requests are whole. */
static void srv_until(struct srv *s, int n)
{
    while (s->nids < n && srv_pump(s))
        ;
    CHECK(s->nids >= n);
}

static ssize_t srv_body(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                        nghttp2_data_source *src, void *ud)
{
    size_t n = strlen(src->ptr);
    (void)ng;
    (void)id;
    (void)ud;
    CHECK(n <= len);
    memcpy(buf, src->ptr, n);
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

/* Answers stream id with status (3 digits) and body (NULL: none). */
static void srv_reply(struct srv *s, int32_t id, const char *status, const char *body)
{
    nghttp2_nv nv[] = { { (uint8_t *)":status", (uint8_t *)status, 7, 3, NGHTTP2_NV_FLAG_NONE },
                        { (uint8_t *)"content-type", (uint8_t *)"text/plain", 12, 10, NGHTTP2_NV_FLAG_NONE } };
    nghttp2_data_provider prd;
    prd.source.ptr = (void *)body;
    prd.read_callback = srv_body;
    CHECK(nghttp2_submit_response(s->ng, id, nv, 2, body ? &prd : NULL) == 0 && nghttp2_session_send(s->ng) == 0);
}

static void srv_reset(struct srv *s, int32_t id, uint32_t code)
{
    CHECK(nghttp2_submit_rst_stream(s->ng, NGHTTP2_FLAG_NONE, id, code) == 0 && nghttp2_session_send(s->ng) == 0);
}

static uint32_t streams;

static void h2(struct config *cfg)
{
    cfg->proto_asked[PROTO_HTTP2] = 1;
    cfg->streams = streams;
}

/* -n budget over one connection of nstreams streams, up, its requests
 * (all of them) whole at the server: its connection. */
static struct conn *setup(struct fix *f, struct srv *s, uint32_t nstreams, uint64_t budget)
{
    streams = nstreams;
    fix_init(f, "/h2?q=1", &session_http2, 1, budget, h2);
    srv_init(s, fix_connect(f, &f->w.conns[0]));
    srv_until(s, (int)budget);
    return &f->w.conns[0];
}

static void answers_out_of_order(void)
{
    struct fix f;
    struct srv s;
    struct conn *c;
    c = setup(&f, &s, 4, 4);
    CHECK(c->cap == 4 && c->count == 4);
    CHECK(strcmp(s.path, "/h2?q=1") == 0);
    CHECK(s.ids[0] == 1 && s.ids[3] == 7);
    srv_reply(&s, s.ids[3], "503", NULL);
    srv_reply(&s, s.ids[2], "404", "no");
    srv_reply(&s, s.ids[1], "201", NULL);
    srv_reply(&s, s.ids[0], "200", "hello");
    FIX_UNTIL(&f, FIX_DONE(&f) == 4);
    CHECK(FIX_DONE(&f) == 4 && FIX_STARTED(&f) == 4 && FIX_ERRORS(&f) == 0);
    CHECK(f.w.st.status[200] == 1 && f.w.st.status[201] == 1 && f.w.st.status[404] == 1 && f.w.st.status[503] == 1);
    CHECK(c->count == 0 && c->state == C_OPEN && f.w.ended == 4);
    /* HPACK: the header blocks' bytes on the wire and decoded. */
    CHECK(f.w.st.h2_hdr_wire > 0 && f.w.st.h2_hdr_decoded > f.w.st.h2_hdr_wire);
    srv_free(&s);
    fix_free(&f);
}

/* RFC 9113 §8.7: a stream refused unprocessed goes again, once counted as
 * a retry, not as a new request nor an error. */
static void refused_sent_again(void)
{
    struct fix f;
    struct srv s;
    setup(&f, &s, 2, 2);
    srv_reply(&s, s.ids[0], "200", "ok");
    srv_reset(&s, s.ids[1], NGHTTP2_REFUSED_STREAM);
    FIX_UNTIL(&f, f.w.st.h2_retried == 1 && f.w.conns[0].count == 1);
    CHECK(f.w.st.h2_retried == 1 && FIX_DONE(&f) == 1 && f.w.rlen == 0);
    srv_until(&s, 3);
    CHECK(s.ids[2] == 5);
    srv_reply(&s, s.ids[2], "200", NULL);
    FIX_UNTIL(&f, FIX_DONE(&f) == 2);
    CHECK(FIX_DONE(&f) == 2 && FIX_STARTED(&f) == 2 && FIX_ERRORS(&f) == 0 && f.w.st.status[200] == 2);
    srv_free(&s);
    fix_free(&f);
}

/* The run's last n requests (of 3) on its second connection, answered:
 * all 3 done, none an error. */
static void on_a_second_connection(struct fix *f, int n)
{
    struct srv s2;
    int k;
    srv_init(&s2, fix_accept(f));
    FIX_UNTIL(f, f->w.conns[0].state == C_OPEN && f->w.conns[0].count == n);
    srv_until(&s2, n);
    for (k = 0; k < n; k++)
        srv_reply(&s2, s2.ids[k], "200", NULL);
    FIX_UNTIL(f, FIX_DONE(f) == 3);
    CHECK(FIX_DONE(f) == 3 && FIX_STARTED(f) == 3 && FIX_ERRORS(f) == 0 && f->w.st.conns_opened == 2);
    srv_free(&s2);
}

/* A GOAWAY with last-stream-id 1 and streams 3 and 5 open: 1 is answered,
 * 3 and 5 go again on a new connection. */
static void goaway_sent_again(void)
{
    struct fix f;
    struct srv s;
    struct conn *c;
    c = setup(&f, &s, 3, 3);
    CHECK(nghttp2_submit_goaway(s.ng, NGHTTP2_FLAG_NONE, 1, NGHTTP2_NO_ERROR, NULL, 0) == 0);
    srv_reply(&s, 1, "200", NULL);
    FIX_UNTIL(&f, f.w.st.h2_retried == 2 && c->state != C_OPEN);
    CHECK(FIX_DONE(&f) == 1 && f.w.st.h2_retried == 2 && FIX_ERRORS(&f) == 0);
    on_a_second_connection(&f, 2);
    srv_free(&s);
    fix_free(&f);
}

static void reset_counted(void)
{
    struct fix f;
    struct srv s;
    setup(&f, &s, 1, 1);
    srv_reset(&s, s.ids[0], NGHTTP2_INTERNAL_ERROR);
    FIX_UNTIL(&f, f.w.ended == 1);
    CHECK(f.w.st.errors[ERR_H2_RST_STREAM] == 1 && FIX_ERRORS(&f) == 1 && FIX_DONE(&f) == 0 && f.w.st.h2_retried == 0);
    srv_free(&s);
    fix_free(&f);
}

/* A server that processes nothing (GOAWAY, last-stream-id 0, on every
 * connection): the request goes again three times, then ends as its
 * h2_goaway error; one request started, one ended, four connections. */
static void refused_for_good(void)
{
    struct fix f;
    struct srv s;
    struct conn *c;
    int k;
    streams = 1;
    fix_init(&f, "/", &session_http2, 1, 1, h2);
    c = &f.w.conns[0];
    conn_take(c, clock_ns(), clock_ns());
    for (k = 0; k < 4; k++) {
        /* (After the first: the worker's turn sends it again, connecting.) */
        srv_init(&s, fix_accept(&f));
        FIX_UNTIL(&f, c->state == C_OPEN);
        srv_until(&s, 1);
        CHECK(nghttp2_submit_goaway(s.ng, NGHTTP2_FLAG_NONE, 0, NGHTTP2_NO_ERROR, NULL, 0) == 0 &&
              nghttp2_session_send(s.ng) == 0);
        FIX_UNTIL(&f, f.w.st.h2_retried == (uint64_t)k + 1 || f.w.ended == 1);
        srv_free(&s);
        CHECKF(f.w.st.h2_retried == (uint64_t)(k < 3 ? k + 1 : 3), "round %d", k);
    }
    CHECK(f.w.st.errors[ERR_H2_GOAWAY] == 1 && FIX_ERRORS(&f) == 1 && FIX_DONE(&f) == 0);
    CHECK(FIX_STARTED(&f) == 1 && f.w.ended == 1 && f.w.st.conns_opened == 4);
    fix_free(&f);
}

/* --timeout on a stream: reset with CANCEL (RFC 9113 §8.7), counted as a
 * timeout, the connection kept with its other stream; with no SETTINGS from
 * the server by then, the connection fails (§3.4). */
static void stream_timeout(void)
{
    struct fix f;
    struct srv s;
    struct conn *c;
    uint64_t t;
    c = setup(&f, &s, 2, 2);
    /* The first answered; the second left to time out. */
    srv_reply(&s, s.ids[0], "200", NULL);
    FIX_UNTIL(&f, FIX_DONE(&f) == 1);
    t = mux_oldest(c)->t_sent;
    c->timer.fn(&c->timer, t + f.cfg.timeout_ns);
    CHECK(f.w.st.errors[ERR_TIMEOUT_ANSWER] == 1 && FIX_ERRORS(&f) == 1 && c->count == 0 && c->state == C_OPEN);
    while (s.rst_id == 0 && srv_pump(&s))
        ;
    CHECK(s.rst_id == s.ids[1] && s.rst_code == NGHTTP2_CANCEL);
    srv_free(&s);
    fix_free(&f);

    streams = 1;
    c = fix_start(&f, "/", &session_http2, 1, h2); /* the server says nothing */
    CHECK(c->count == 1);
    c->timer.fn(&c->timer, c->slots[0].t_sent + f.cfg.timeout_ns);
    CHECK(f.w.st.errors[ERR_H2_PROTOCOL] == 1 && c->state == C_IDLE);
    fix_free(&f);
}

static void two_per_conn(struct config *cfg)
{
    h2(cfg);
    cfg->requests_per_conn = 2;
}

/* --requests-per-conn 2 with -n 3 over two streams: the first connection
 * ends with a GOAWAY after its two (RFC 9113 §5.4.1), the third request on
 * a second. */
static void requests_per_connection(void)
{
    struct fix f;
    struct srv s;
    struct conn *c;
    streams = 2;
    fix_init(&f, "/", &session_http2, 1, 3, two_per_conn);
    c = &f.w.conns[0];
    srv_init(&s, fix_connect(&f, c));
    srv_until(&s, 2);
    CHECK(c->count == 2 && c->nreq == 2);
    srv_reply(&s, s.ids[0], "200", NULL);
    srv_reply(&s, s.ids[1], "200", NULL);
    FIX_UNTIL(&f, FIX_DONE(&f) == 2 && c->state != C_OPEN);
    while (!s.goaway && srv_pump(&s))
        ;
    CHECK(s.goaway && s.nids == 2 && FIX_DONE(&f) == 2);
    on_a_second_connection(&f, 1);
    srv_free(&s);
    fix_free(&f);
}

static void h2_checked(struct config *cfg)
{
    h2(cfg);
    CHECK(config_add_check(cfg, "body contains \"hello\"") == 0);
    CHECK(config_add_check(cfg, "header content-type == text/plain") == 0);
    CHECK(config_add_check(cfg, "status == 200") == 0);
}

/* Checks on HTTP/2 answers: the fields as the session kept them, the body
 * from its DATA frames; each stream's own. */
static void checked(void)
{
    struct fix f;
    struct srv s;
    streams = 2;
    fix_init(&f, "/", &session_http2, 1, 2, h2_checked);
    srv_init(&s, fix_connect(&f, &f.w.conns[0]));
    srv_until(&s, 2);
    srv_reply(&s, s.ids[1], "404", "nope");
    srv_reply(&s, s.ids[0], "200", "well hello there");
    FIX_UNTIL(&f, FIX_DONE(&f) == 2);
    CHECK(f.w.chk_pass[0] == 1 && f.w.chk_fail[0] == 1 && strstr(f.w.chk_seen[0], "nope") != NULL);
    CHECK(f.w.chk_pass[1] == 2 && f.w.chk_fail[1] == 0);
    CHECK(f.w.chk_pass[2] == 1 && f.w.chk_fail[2] == 1 && strcmp(f.w.chk_seen[2], "status 404") == 0);
    CHECK(f.w.st.checked == 2 && f.w.st.checks_failed == 1 && FIX_DONE(&f) == 2);
    srv_free(&s);
    fix_free(&f);
}

/* An HTTP/1.1 server answers the preface: the whole run stops, saying so
 * in one line; its request ends as an h2 protocol error. */
static void http1_answer_ends_the_run(void)
{
    struct fix f;
    struct conn *c;
    char buf[4096];
    streams = 1;
    c = fix_start(&f, "/", &session_http2, 1, h2);
    fix_recv(f.sfd, buf, sizeof(buf), "PRI * HTTP/2.0", 1);
    fix_send(f.sfd, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
    FIX_UNTIL(&f, c->state == C_IDLE);
    CHECK(atomic_load(&f.failed) == 1 && f.w.stopping == 1);
    CHECKF(strstr(f.w.err, "does not speak HTTP/2 without TLS (h2c): it answered in HTTP/1.1") != NULL, "%s", f.w.err);
    CHECK(f.w.st.errors[ERR_H2_PROTOCOL] == 1 && FIX_ERRORS(&f) == 1 && FIX_DONE(&f) == 0);
    fix_free(&f);
}

int main(void)
{
    T_RUN(answers_out_of_order);
    T_RUN(refused_sent_again);
    T_RUN(goaway_sent_again);
    T_RUN(reset_counted);
    T_RUN(refused_for_good);
    T_RUN(stream_timeout);
    T_RUN(requests_per_connection);
    T_RUN(checked);
    T_RUN(http1_answer_ends_the_run);
    T_END("test_http2");
}

/* What the multiplexed sessions share (src/client/mux.c): the slot pool
 * (a free slot found from the hint, the oldest busy one), a refused request
 * kept to be sent again (its retries counted, a templated one's bytes
 * kept), the requests past --timeout ended and dropped while the others
 * stay, and a response's life on its slot: fields kept for its checks
 * (not the pseudo-fields), checked and counted at its end. */
#include "fixture.h"

static void h2_streams4(struct config *cfg)
{
    cfg->proto_asked[PROTO_HTTP2] = 1;
    cfg->streams = 4;
    CHECK(config_add_check(cfg, "header x-a == b") == 0);
}

/* A request on slot s of c, sent at t. */
static void busy(struct conn *c, struct slot *s, uint64_t t)
{
    s->busy = 1;
    s->measured = 1;
    s->t_due = s->t_sent = t;
    s->target = 0;
    c->count++;
}

static void pool(void)
{
    struct fix f;
    struct conn *c;
    struct slot *s0, *s1, *s2, *s3;
    uint64_t t = clock_ns();
    fix_init(&f, "/", &session_http2, 1, 0, h2_streams4);
    c = &f.w.conns[0];
    CHECK(c->cap == 4 && c->slots != &c->one);
    /* None busy: the oldest is the first slot (never read then). */
    CHECK(mux_oldest(c) == &c->slots[0]);
    busy(c, s0 = mux_slot_new(c), t + 30);
    busy(c, s1 = mux_slot_new(c), t + 10);
    busy(c, s2 = mux_slot_new(c), t + 20);
    CHECK(s0 == &c->slots[0] && s1 == &c->slots[1] && s2 == &c->slots[2] && c->hint == 3);
    CHECK(mux_oldest(c) == s1);
    conn_release(c, s1);
    CHECK(mux_oldest(c) == s2 && c->count == 2);
    /* From the hint on: the last slot, then round to the freed one. */
    busy(c, s3 = mux_slot_new(c), t + 40);
    CHECK(s3 == &c->slots[3] && c->hint == 0);
    CHECK(mux_slot_new(c) == &c->slots[1] && c->hint == 2);
    conn_release(c, s0);
    conn_release(c, s2);
    conn_release(c, s3);
    c->count = 0;
    fix_free(&f);
}

/* A refused request goes to the worker's requests to send again; one the
 * server processed nothing around gets three chances. */
static void retry_kept(void)
{
    struct fix f;
    struct conn *c;
    struct slot *s;
    int k;
    fix_init(&f, "/", &session_http2, 1, 0, h2_streams4);
    c = &f.w.conns[0];
    s = mux_slot_new(c);
    busy(c, s, clock_ns());
    s->stream = 7;
    s->retries = 0;
    CHECK(mux_retry(c, s, 1) == 1 && f.w.rlen == 1);
    CHECK(f.w.retry[0].retries == 0 && f.w.retry[0].stream == 0 && f.w.retry[0].busy == 0 &&
          f.w.retry[0].t_sent == s->t_sent && f.w.retry[0].kept == NULL);
    for (k = 0; k < 3; k++) {
        CHECK(mux_retry(c, s, 0) == 1);
        s->retries = f.w.retry[f.w.rlen - 1].retries;
    }
    CHECK(s->retries == 3 && f.w.rlen == 4);
    /* No progress and its chances used: its own error (the caller's). */
    CHECK(mux_retry(c, s, 0) == 0 && f.w.rlen == 4);
    /* With progress it goes on. */
    CHECK(mux_retry(c, s, 1) == 1 && f.w.rlen == 5 && f.w.retry[4].retries == 3);
    /* Taken oldest first, into a slot that keeps its own capture. */
    s->capt = (struct capture *)&f; /* a marker, never read */
    workq_retry_take(&f.w, s);
    CHECK(f.w.rlen == 4 && s->retries == 0 && s->capt == (struct capture *)&f);
    s->capt = NULL;
    c->count = 0;
    fix_free(&f);
}

static void templated_h2(struct config *cfg)
{
    cfg->proto_asked[PROTO_HTTP2] = 1;
    cfg->streams = 2;
    cfg->body = strdup("{\"n\": {{seq}}}");
    cfg->body_len = strlen(cfg->body);
    cfg->has_body = 1;
}

/* A templated request goes again as it was: its bytes kept, {{seq}} once. */
static void retry_templated(void)
{
    struct fix f;
    struct conn *c;
    struct slot *s;
    fix_init(&f, "/", &session_http2, 1, 0, templated_h2);
    c = &f.w.conns[0];
    CHECK(f.pl.templated && f.pl.targets[0].req == NULL);
    s = mux_slot_new(c);
    busy(c, s, clock_ns());
    s->req = c->tbuf + (size_t)(s - c->slots) * f.pl.max_len;
    memset((char *)s->req, 'q', f.pl.max_len);
    CHECK(mux_retry(c, s, 1) == 1 && f.w.rlen == 1 && f.w.retry[0].kept != NULL);
    CHECK(f.w.retry[0].kept && f.w.retry[0].kept[0] == 'q' && f.w.retry[0].kept[f.pl.max_len - 1] == 'q');
    c->count = 0;
    fix_free(&f); /* frees the kept bytes (worker_free) */
}

static int dropped;

static void drop(struct conn *c, struct slot *s)
{
    dropped++;
    conn_release(c, s);
}

static void timeouts(void)
{
    struct fix f;
    struct conn *c;
    uint64_t t = clock_ns(), limit;
    fix_init(&f, "/", &session_http2, 1, 3, h2_streams4);
    c = &f.w.conns[0];
    limit = f.cfg.timeout_ns;
    busy(c, mux_slot_new(c), t);
    busy(c, mux_slot_new(c), t + 5);
    busy(c, mux_slot_new(c), t + 10);
    f.w.st.started = 3;
    dropped = 0;
    /* At t + limit + 5: the two sent by t + 5 are past it, exactly. */
    mux_timeouts(c, t + limit + 5, drop);
    CHECK(dropped == 2 && c->count == 1 && c->slots[2].busy == 1);
    CHECK(f.w.st.errors[ERR_TIMEOUT_ANSWER] == 2 && f.w.ended == 2);
    mux_timeouts(c, t + limit + 9, drop);
    CHECK(dropped == 2 && c->count == 1);
    mux_timeouts(c, t + limit + 10, drop);
    CHECK(dropped == 3 && c->count == 0 && f.w.st.errors[ERR_TIMEOUT_ANSWER] == 3);
    fix_free(&f);
}

/* A response's fields kept for its check: "name: value" lines, not the
 * pseudo-fields; checked at its end, its figures recorded. */
static void response_checked(void)
{
    struct fix f;
    struct conn *c;
    struct slot *s;
    uint64_t t = clock_ns();
    fix_init(&f, "/", &session_http2, 1, 0, h2_streams4);
    c = &f.w.conns[0];
    CHECK(f.pl.targets[0].capture == CAPTURE_HEAD && f.w.capturing);
    s = mux_slot_new(c);
    busy(c, s, t);
    mux_first(c, s, t + 100);
    CHECK(s->got_first && s->t_first == t + 100 && s->capt != NULL);
    mux_first(c, s, t + 200); /* the trailers' section: not its first */
    CHECK(s->t_first == t + 100);
    mux_field(c, s, ":status", 7, "200", 3);
    mux_field(c, s, "x-a", 3, "b", 1);
    mux_field(c, s, "server", 6, "t", 1);
    CHECK(s->capt->len == 19 && s->capt->head_len == 19 && memcmp(s->capt->p, "x-a: b\r\nserver: t\r\n", 19) == 0);
    s->status = 200;
    mux_ended(c, s, t + 300);
    CHECK(s->ended && f.w.chk_pass[0] == 1 && f.w.st.checked == 1 && f.w.st.checks_failed == 0);
    CHECK(FIX_DONE(&f) == 1 && f.w.st.status[200] == 1 && s->capt->len == 0);
    conn_release(c, s);
    /* The next stream on the slot: its capture reused, a missing field failed. */
    busy(c, s, t);
    s->got_first = 0;
    mux_first(c, s, t + 1);
    mux_field(c, s, "x-a", 3, "c", 1);
    s->status = 204;
    mux_ended(c, s, t + 2);
    CHECK(f.w.chk_fail[0] == 1 && strstr(f.w.chk_seen[0], "c") != NULL && f.w.st.checks_failed == 1);
    CHECK(FIX_DONE(&f) == 2 && f.w.st.status[204] == 1);
    conn_release(c, s);
    fix_free(&f);
}

int main(void)
{
    T_RUN(pool);
    T_RUN(retry_kept);
    T_RUN(retry_templated);
    T_RUN(timeouts);
    T_RUN(response_checked);
    T_END("test_mux");
}

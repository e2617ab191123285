/* The request streams of serve's HTTP/2 and HTTP/3: streams made active
 * and ended onto a free list that the next reuses (nothing of the old
 * request left); a request's fields counted against the limits (431), its
 * :method and :path kept (414 past 8 KiB, 400 without); its answer chosen,
 * a /delay answer due at its time, waiting and handed on by the tick. */
#include "serve_stream.h"
#include "http_req.h"
#include "../t.h"

#include <string.h>

static int field(struct serve_stream *st, const char *name, const char *value)
{
    return serve_stream_field(st, (const uint8_t *)name, strlen(name), (const uint8_t *)value, strlen(value));
}

static void streams_reused(void)
{
    struct serve_streams l;
    struct serve_stream *a, *b, *c, *d;
    memset(&l, 0, sizeof(l));
    a = serve_stream_new(&l, 1);
    b = serve_stream_new(&l, 3);
    c = serve_stream_new(&l, 5);
    CHECK(a && b && c && l.n == 3 && l.active == c && c->next == b && b->next == a && a->prev == b);
    CHECK(field(b, ":method", "HEAD") == 0 && field(b, ":path", "/x") == 0 && field(b, "accept", "*/*") == 0);
    CHECK(b->head && strcmp(b->method, "HEAD") == 0 && b->fields == 1);
    b->answered = 1;
    serve_stream_end(&l, b);
    CHECK(l.n == 2 && c->next == a && a->prev == c && l.free == b);
    /* The next stream is the one ended, with nothing of its request. */
    d = serve_stream_new(&l, 7);
    CHECK(d == b && d->id == 7 && l.free == NULL && l.n == 3 && l.active == d);
    CHECK(!d->head && !d->answered && d->method[0] == '\0' && d->path.len == 0 && d->fields == 0 && d->list_size == 0);
    serve_stream_end(&l, a); /* the last of the list */
    CHECK(l.n == 2 && c->next == NULL);
    serve_stream_free_all(&l);
    CHECK(l.active == NULL && l.free == NULL && l.n == 0);
}

static void limits_and_answers(void)
{
    static char long_path[9000];
    struct serve s;
    struct serve_streams l;
    struct serve_stream *st;
    uint32_t rng = 1, i;
    char name[32];
    memset(&s, 0, sizeof(s));
    s.cfg.redirect_to = "http://example.com";
    memset(&l, 0, sizeof(l));
    st = serve_stream_new(&l, 1);
    field(st, ":method", "GET");
    field(st, ":path", "/status/201");
    CHECK(serve_stream_reply(st, &s, &rng, 0) == 0 && st->rp.status == 201 &&
          strcmp(st->rp.text, "201 Created\n") == 0);
    /* A method too long for its room: cut, never overrun. */
    field(st, ":method", "VERYLONGMETHODNAMEINDEED");
    CHECK(strlen(st->method) == sizeof(st->method) - 1 && strncmp(st->method, "VERYLONGMETHODN", 15) == 0);
    serve_stream_end(&l, st);

    st = serve_stream_new(&l, 3);
    for (i = 0; i <= HR_MAX_FIELDS; i++) {
        snprintf(name, sizeof(name), "x-field-%u", i);
        field(st, name, "v");
    }
    field(st, ":path", "/");
    CHECK(st->too_large && serve_stream_reply(st, &s, &rng, 0) == 0 && st->rp.status == 431);
    serve_stream_end(&l, st);
    /* One field as large as a whole head: 431 too. */
    st = serve_stream_new(&l, 5);
    memset(long_path, 'a', sizeof(long_path) - 1);
    long_path[0] = '/';
    for (i = 0; i * 8000 <= HR_MAX_HEAD; i++)
        field(st, "cookie", long_path + 1000);
    CHECK(st->too_large && serve_stream_reply(st, &s, &rng, 0) == 0 && st->rp.status == 431);
    serve_stream_end(&l, st);
    st = serve_stream_new(&l, 7);
    field(st, ":path", long_path);
    CHECK(st->path_too_long && serve_stream_reply(st, &s, &rng, 0) == 0 && st->rp.status == 414 &&
          strcmp(st->rp.text, "path too long\n") == 0);
    serve_stream_end(&l, st);
    st = serve_stream_new(&l, 9);
    field(st, ":method", "GET");
    CHECK(serve_stream_reply(st, &s, &rng, 0) == 0 && st->rp.status == 400 && strcmp(st->rp.text, "no :path\n") == 0);
    serve_stream_free_all(&l);
}

static struct serve_stream *handed[4];
static int nhanded;

static void submit(void *ctx, struct serve_stream *st)
{
    (void)ctx;
    if (nhanded < 4)
        handed[nhanded++] = st;
    st->answered = 1;
}

static void delayed_answers(void)
{
    struct serve s;
    struct serve_streams l;
    struct serve_stream *slow, *fast, *open;
    uint32_t rng = 1;
    memset(&s, 0, sizeof(s));
    memset(&l, 0, sizeof(l));
    slow = serve_stream_new(&l, 1);
    field(slow, ":path", "/delay/50");
    fast = serve_stream_new(&l, 3);
    field(fast, ":path", "/delay/20");
    open = serve_stream_new(&l, 5); /* its request still coming */
    CHECK(serve_stream_deadline(&l) == UINT64_MAX && serve_stream_waiting(&l) == 3);
    CHECK(serve_stream_reply(slow, &s, &rng, 1000) == 1 && slow->delayed && slow->due == 1000 + 50000000ULL);
    CHECK(serve_stream_reply(fast, &s, &rng, 2000) == 1 && fast->due == 2000 + 20000000ULL);
    CHECK(serve_stream_waiting(&l) == 1 && serve_stream_deadline(&l) == fast->due);
    /* Not yet due: nothing handed on. */
    serve_stream_tick(&l, fast->due - 1, submit, NULL);
    CHECK(nhanded == 0);
    serve_stream_tick(&l, fast->due, submit, NULL);
    CHECK(nhanded == 1 && handed[0] == fast && !fast->delayed && fast->rp.status == 200 &&
          strcmp(fast->rp.text, "delayed 20 ms\n") == 0);
    CHECK(serve_stream_deadline(&l) == slow->due);
    serve_stream_tick(&l, UINT64_MAX - 1, submit, NULL);
    CHECK(nhanded == 2 && handed[1] == slow && strcmp(slow->rp.text, "delayed 50 ms\n") == 0);
    CHECK(serve_stream_deadline(&l) == UINT64_MAX && serve_stream_waiting(&l) == 1);
    (void)open;
    serve_stream_free_all(&l);
}

int main(void)
{
    T_RUN(streams_reused);
    T_RUN(limits_and_answers);
    T_RUN(delayed_answers);
    T_END("serve_stream");
}

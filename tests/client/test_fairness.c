/* Each connection's share of the answers (src/client/fairness.c): the
 * answer counts' min, median and max over the connections used; a
 * connection starved only when it waited past the limit while another was
 * answered, in a closed loop, longer than any answer took; and how many
 * answers the connections the server ended had carried. */
#include "client.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

#define S 1000000000ULL

struct two {
    struct worker w[2];
    struct conn c[2][3];
    uint64_t ka[2][KA_MAX + 1];
};

static void setup(struct two *t)
{
    int i;
    memset(t, 0, sizeof(*t));
    for (i = 0; i < 2; i++) {
        t->w[i].conns = t->c[i];
        t->w[i].nconns = 3;
        t->w[i].ka_ended = t->ka[i];
    }
}

/* A used connection: answered n, first and last answer at a and b, its
 * longest wait wait ending at end. */
static void used(struct conn *c, uint64_t n, uint64_t a, uint64_t b, uint64_t wait, uint64_t end)
{
    c->used = 1;
    c->answered = n;
    c->t_ans_first = a;
    c->t_ans_last = b;
    c->wait_max = wait;
    c->wait_end = end;
}

static void shares(void)
{
    struct two t;
    struct fairness_conns out;
    setup(&t);
    used(&t.c[0][0], 10, S, 20 * S, S / 100, 2 * S);
    used(&t.c[0][2], 40, S, 20 * S, S / 100, 2 * S);
    used(&t.c[1][1], 20, S, 20 * S, S / 10, 3 * S);
    used(&t.c[1][2], 0, 0, 0, 0, 0); /* used, never answered */
    /* t.c[0][1], t.c[1][0]: never used, not counted */
    t.ka[0][5] = 3;
    t.ka[1][5] = 2;
    t.ka[1][KA_MAX] = 4;
    memset(&out, 0, sizeof(out));
    CHECK(fairness_collect(t.w, 2, 1e6, 5e6, 1, &out) == 0);
    CHECK(out.clients == 4 && out.req_min == 0 && out.req_median == 20 && out.req_max == 40);
    CHECK(out.starved == 0 && out.longest_wait_s == 0.1 && out.wait_limit_s == 1.0);
    CHECK(out.server_ended == 9 && out.ended_mode == 5 && out.ended_mode_count == 5);
}

static void starved(void)
{
    struct two t;
    struct fairness_conns out;
    setup(&t);
    /* One waited 5 s, to 10 s, while another was answered all along. */
    used(&t.c[0][0], 3, S, 12 * S, 5 * S, 10 * S);
    used(&t.c[1][0], 900, S, 12 * S, S / 100, 2 * S);
    memset(&out, 0, sizeof(out));
    CHECK(fairness_collect(t.w, 2, 1e6, 5e6, 1, &out) == 0);
    CHECK(out.starved == 1 && out.starved_wait_s == 5.0 && out.longest_wait_s == 5.0);
    /* Rate mode: a connection between requests is idle, nothing said. */
    memset(&out, 0, sizeof(out));
    CHECK(fairness_collect(t.w, 2, 1e6, 5e6, 0, &out) == 0 && out.starved == 0 && out.longest_wait_s == 5.0);
    /* An answer took as long: a slow request, not a starved connection. */
    memset(&out, 0, sizeof(out));
    CHECK(fairness_collect(t.w, 2, 1e6, 5e9, 1, &out) == 0 && out.starved == 0);
    /* Within 10 x p99 (p99 600 ms: the limit 6 s): not starved. */
    memset(&out, 0, sizeof(out));
    CHECK(fairness_collect(t.w, 2, 6e8, 5e6, 1, &out) == 0 && out.starved == 0 && out.wait_limit_s == 6.0);
    /* The other stalled too (it went the limit without an answer): the
     * server stalled for everyone, nobody starved. */
    t.c[1][0].wait_max = 2 * S;
    memset(&out, 0, sizeof(out));
    CHECK(fairness_collect(t.w, 2, 1e6, 5e6, 1, &out) == 0 && out.starved == 0);
    /* The other answered only before the wait began: not within it. */
    used(&t.c[1][0], 900, S, 4 * S, S / 100, 2 * S);
    memset(&out, 0, sizeof(out));
    CHECK(fairness_collect(t.w, 2, 1e6, 5e6, 1, &out) == 0 && out.starved == 0);
}

int main(void)
{
    T_RUN(shares);
    T_RUN(starved);
    T_END("test_fairness");
}

/* test_serve_h3_cid.c - the routes from QUIC connection IDs to connections
 * (serve_h3_cid.c): every ID added is found until deleted, none after, through
 * the table's growth and the backward shifts of deletions, against a plain
 * list kept beside it. */
#include "../t.h"
#include "serve_h3_int.h"

#include <string.h>

#define N 3000

static uint32_t rng = 12345;

static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void routes_match_a_list(void)
{
    static uint8_t ids[N][20];
    static size_t lens[N];
    static int live[N];
    struct sh3_conn conns[7];
    struct sh3_ep ep;
    int i, k, wrong = 0;

    memset(&ep, 0, sizeof(ep));
    memset(conns, 0, sizeof(conns));
    CHECK(serve_h3_cid_find(&ep, (const uint8_t *)"nothing", 7) == NULL); /* an empty table */
    for (i = 0; i < N; i++) {
        /* Lengths 2 to 20, each its own: i in its last two bytes. */
        lens[i] = 2 + next() % 19;
        for (k = 0; k < (int)lens[i] - 2; k++)
            ids[i][k] = (uint8_t)next();
        ids[i][lens[i] - 2] = (uint8_t)i;
        ids[i][lens[i] - 1] = (uint8_t)(i >> 8);
        CHECK(serve_h3_cid_add(&ep, ids[i], lens[i], &conns[i % 7]) == 0);
        live[i] = 1;
    }
    CHECK(ep.nroutes == N && ep.caproutes >= 2 * N);
    CHECK(conns[0].nroutes == (N + 6) / 7 && conns[6].nroutes == N / 7); /* each connection knows its count */
    /* Delete two in three, in a scattered order, checking all as it goes. */
    for (i = 0; i < N; i++) {
        int j = (int)(((uint64_t)i * 7919) % N);
        if (j % 3 != 0) {
            serve_h3_cid_del(&ep, ids[j], lens[j]);
            live[j] = 0;
        }
        if (i % 500 == 0 || i == N - 1)
            for (k = 0; k < N; k++)
                wrong += serve_h3_cid_find(&ep, ids[k], lens[k]) != (live[k] ? &conns[k % 7] : NULL);
    }
    CHECKF(wrong == 0, "%d lookups wrong", wrong);
    CHECK(ep.nroutes == (N + 2) / 3);
    for (i = 0, k = 0; i < 7; i++)
        k += (int)conns[i].nroutes;
    CHECK(k == (N + 2) / 3);
    /* Deleting what is not there changes nothing; adding again re-routes. */
    serve_h3_cid_del(&ep, ids[1], lens[1]);
    CHECK(ep.nroutes == (N + 2) / 3);
    k = (int)conns[0].nroutes;
    CHECK(serve_h3_cid_add(&ep, ids[0], lens[0], &conns[6]) == 0 && ep.nroutes == (N + 2) / 3 &&
          serve_h3_cid_find(&ep, ids[0], lens[0]) == &conns[6] && (int)conns[0].nroutes == k - 1);
    CHECK(serve_h3_cid_add(&ep, ids[0], 21, &conns[0]) == -1); /* longer than QUIC allows */
    free(ep.routes);
}

int main(void)
{
    T_RUN(routes_match_a_list);
    T_END("serve_h3_cid");
}

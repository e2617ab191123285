/* serve_h3_cid.c - a thread's routes from QUIC connection IDs to its
 * connections: every datagram names its connection by the Destination CID
 * (RFC 9000 section 5.2), ours (SH3_CIDLEN random bytes, several a
 * connection) or, before the client learnt one, its own first choice. An
 * open-addressing table with linear probing, at most half full; a deleted
 * entry's followers are shifted back, so no tombstones pile up. It grows by
 * doubling, never per datagram. */
#include "serve_h3_int.h"

#include <stdlib.h>
#include <string.h>

static uint32_t hash(const uint8_t *cid, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a: a client may choose CIDs that are not random */
    size_t i;
    for (i = 0; i < len; i++)
        h = (h ^ cid[i]) * 16777619u;
    return h;
}

static int same(const struct sh3_route *r, const uint8_t *cid, size_t len)
{
    return r->conn && r->len == len && memcmp(r->id, cid, len) == 0;
}

static int grow(struct sh3_ep *ep)
{
    uint32_t cap = ep->caproutes ? ep->caproutes * 2 : 256, i;
    struct sh3_route *old = ep->routes, *nr = calloc(cap, sizeof(*nr));
    if (nr == NULL)
        return -1;
    for (i = 0; i < ep->caproutes; i++)
        if (old[i].conn) {
            uint32_t k = hash(old[i].id, old[i].len) & (cap - 1);
            while (nr[k].conn)
                k = (k + 1) & (cap - 1);
            nr[k] = old[i];
        }
    free(old);
    ep->routes = nr;
    ep->caproutes = cap;
    return 0;
}

int serve_h3_cid_add(struct sh3_ep *ep, const uint8_t *cid, size_t len, struct sh3_conn *c)
{
    uint32_t k;
    if (len > NGTCP2_MAX_CIDLEN)
        return -1;
    if ((ep->nroutes + 1) * 2 > ep->caproutes && grow(ep) != 0)
        return -1;
    k = hash(cid, len) & (ep->caproutes - 1);
    while (ep->routes[k].conn && !same(&ep->routes[k], cid, len))
        k = (k + 1) & (ep->caproutes - 1);
    if (ep->routes[k].conn == NULL)
        ep->nroutes++;
    else
        ep->routes[k].conn->nroutes--;
    c->nroutes++;
    ep->routes[k].len = (uint8_t)len;
    memcpy(ep->routes[k].id, cid, len);
    ep->routes[k].conn = c;
    return 0;
}

static int64_t slot_of(const struct sh3_ep *ep, const uint8_t *cid, size_t len)
{
    uint32_t k;
    if (ep->caproutes == 0 || len > NGTCP2_MAX_CIDLEN)
        return -1;
    for (k = hash(cid, len) & (ep->caproutes - 1); ep->routes[k].conn; k = (k + 1) & (ep->caproutes - 1))
        if (same(&ep->routes[k], cid, len))
            return k;
    return -1;
}

struct sh3_conn *serve_h3_cid_find(const struct sh3_ep *ep, const uint8_t *cid, size_t len)
{
    int64_t k = slot_of(ep, cid, len);
    return k < 0 ? NULL : ep->routes[k].conn;
}

void serve_h3_cid_del(struct sh3_ep *ep, const uint8_t *cid, size_t len)
{
    int64_t at = slot_of(ep, cid, len);
    uint32_t hole, k, mask = ep->caproutes - 1;
    if (at < 0)
        return;
    hole = (uint32_t)at;
    ep->routes[hole].conn->nroutes--;
    ep->routes[hole].conn = NULL;
    ep->nroutes--;
    /* Backward shift: an entry after the hole moves into it unless its
     * home lies cyclically in (hole, k]. */
    for (k = (hole + 1) & mask; ep->routes[k].conn; k = (k + 1) & mask) {
        uint32_t home = hash(ep->routes[k].id, ep->routes[k].len) & mask;
        if (((k - home) & mask) >= ((k - hole) & mask)) {
            ep->routes[hole] = ep->routes[k];
            ep->routes[k].conn = NULL;
            hole = k;
        }
    }
}

/* plan.c - the read-only plan of a run: each URL's target resolved once
 * (URLs on the same address and scheme share connections), each URL's
 * request built once, so the hot path only ever writes a ready buffer. */
#include "engine_int.h"
#include "request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void plan_free(struct plan *pl)
{
    uint32_t i;
    h2_plan_free(pl);
    for (i = 0; i < pl->nurls; i++)
        free(pl->urls[i].req);
    for (i = 0; i < pl->ntargets; i++)
        free(pl->targets[i].urls);
    free(pl->urls);
    free(pl->targets);
    tls_client_free(pl->tls);
}

int plan_build(const struct config *cfg, struct plan *pl, char *err, size_t errlen)
{
    uint32_t i, j;

    memset(pl, 0, sizeof(*pl));
    pl->cfg = cfg;
    pl->urls = calloc(cfg->nurls, sizeof(*pl->urls));
    pl->targets = calloc(cfg->nurls, sizeof(*pl->targets));
    if (pl->urls == NULL || pl->targets == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    pl->nurls = cfg->nurls;
    for (i = 0; i < cfg->nurls; i++) {
        struct net_addr a;
        const struct url *u = &cfg->urls[i];
        if (request_build(cfg, u, &pl->urls[i].req, &pl->urls[i].len, err, errlen) != 0)
            return -1;
        pl->urls[i].head = strcmp(cfg->method, "HEAD") == 0;
        if (net_resolve(u->host, u->port, &a, err, errlen) != 0)
            return -1;
        /* URLs on the same address (and scheme) share connections. */
        for (j = 0; j < pl->ntargets; j++)
            if (pl->targets[j].addr.len == a.len && memcmp(&pl->targets[j].addr.ss, &a.ss, a.len) == 0 &&
                pl->targets[j].tls == u->tls && strcmp(pl->targets[j].host, u->host) == 0)
                break;
        if (u->tls && pl->tls == NULL && tls_client_new(&cfg->tls, &pl->tls, err, errlen) != 0)
            return -1;
        if (j == pl->ntargets) {
            pl->targets[j].addr = a;
            pl->targets[j].tls = u->tls;
            snprintf(pl->targets[j].host, sizeof(pl->targets[j].host), "%s", u->host);
            pl->targets[j].urls = calloc(cfg->nurls, sizeof(uint32_t));
            if (pl->targets[j].urls == NULL) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            pl->ntargets++;
        }
        pl->targets[j].urls[pl->targets[j].nurls++] = i;
        pl->urls[i].target = j;
    }
    if (cfg->http2 && h2_plan(pl, err, errlen) != 0)
        return -1;
    return 0;
}

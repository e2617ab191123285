/* result.c - a run's result made empty, freed, moved. */
#include "result.h"

#include <stdlib.h>
#include <string.h>

void result_init(struct run_result *r)
{
    memset(r, 0, sizeof(*r));
    r->server_output_bytes = -1;
}

void result_free(struct run_result *r)
{
    figures_free(&r->fig);
    monitor_result_free(&r->server);
    if (r->own_cfg) {
        config_free(r->own_cfg);
        free(r->own_cfg);
    }
    result_init(r);
}

void result_move(struct run_result *dst, struct run_result *src)
{
    *dst = *src;
    result_init(src);
}

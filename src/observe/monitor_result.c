/* monitor_result.c - a monitor's result once the run is over: freed,
 * copied, and its processes grouped by command (and their parent's) for
 * the process table. */
#include "monitor.h"

#include <stdlib.h>
#include <string.h>

void monitor_result_free(struct monitor_result *r)
{
    free(r->procs);
    free(r->series);
    memset(r, 0, sizeof(*r));
}

int monitor_result_copy(struct monitor_result *dst, const struct monitor_result *src)
{
    *dst = *src;
    dst->procs = NULL;
    dst->series = NULL;
    if (src->nprocs && (dst->procs = malloc(src->nprocs * sizeof(*src->procs))) == NULL)
        return -1;
    if (src->npoints && (dst->series = malloc(src->npoints * sizeof(*src->series))) == NULL) {
        free(dst->procs);
        dst->procs = NULL;
        return -1;
    }
    if (src->nprocs)
        memcpy(dst->procs, src->procs, src->nprocs * sizeof(*src->procs));
    if (src->npoints)
        memcpy(dst->series, src->series, src->npoints * sizeof(*src->series));
    return 0;
}

static const char *parent_command(const struct monitor_result *r, uint32_t i)
{
    uint32_t k;
    for (k = 0; k < r->nprocs; k++)
        if (r->procs[k].pid == r->procs[i].ppid && k != i)
            return r->procs[k].command;
    return "";
}

uint32_t monitor_groups(const struct monitor_result *r, struct monitor_group *out, uint32_t max)
{
    uint32_t n = 0, i, g, *of = calloc(r->nprocs ? r->nprocs : 1, sizeof(uint32_t));
    if (of == NULL)
        return 0;
    for (i = 0; i < r->nprocs; i++) {
        const struct monitor_proc *p = &r->procs[i];
        const char *pc = parent_command(r, i);
        for (g = 0; g < n; g++) {
            uint32_t k = of[g];
            if (strcmp(r->procs[k].command, p->command) == 0 && strcmp(parent_command(r, k), pc) == 0)
                break;
        }
        if (g == n) {
            const char *sp = strchr(p->command, ' '), *sl;
            if (n == max)
                continue;
            memset(&out[n], 0, sizeof(out[n]));
            /* "/usr/sbin/nginx -g ..." reads "nginx -g ...": the program's
             * directory says little and takes the room of its arguments. */
            for (out[n].command = p->command, sl = p->command; *sl && (sp == NULL || sl < sp); sl++)
                if (*sl == '/')
                    out[n].command = sl + 1;
            of[n++] = i;
        }
        out[g].count++;
        out[g].exited += p->exited != 0;
        out[g].cpu_s += p->cpu_s;
        /* Sums for now; divided into means below. */
        out[g].alone_each += p->alone_peak_bytes;
        out[g].pss_each += p->pss_peak_bytes;
        out[g].uss_each += p->uss_peak_bytes;
        out[g].rss_each += p->rss_peak_bytes;
    }
    for (g = 0; g < n; g++) {
        out[g].alone_each /= out[g].count;
        out[g].pss_each /= out[g].count;
        out[g].uss_each /= out[g].count;
        out[g].rss_each /= out[g].count;
    }
    free(of);
    return n;
}

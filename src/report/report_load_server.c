/* report_load_server.c - a saved result's "server" object (--monitor's
 * figures: CPU, memory, the process tree, the memory timeline) read back,
 * each value checked as report_load.c does. */
#include "report_load.h"
#include "jread.h"
#include "report_keys.h"

#include <stdlib.h>
#include <string.h>

/* A result saved before the two measures had names of their own, with
 * pss_own: its pss_* figures (per process and over time too) were the
 * server's memory as if alone, the kernel's PSS peak in
 * pss_sys_peak_bytes; each goes under its name (the kernel's mean, per
 * process and over time were not kept). */
static void from_pss_own(struct jc *c, struct monitor_result *m, json_t *sv)
{
    uint32_t i;
    m->has_alone = 1;
    m->alone_peak_bytes = m->pss_peak_bytes;
    m->alone_mean_bytes = m->pss_mean_bytes;
    m->pss_peak_bytes = jread_count(c, sv, "pss_sys_peak_bytes", 0);
    m->pss_mean_bytes = 0;
    for (i = 0; i < m->nprocs; i++) {
        m->procs[i].alone_peak_bytes = m->procs[i].pss_peak_bytes;
        m->procs[i].pss_peak_bytes = 0;
    }
    for (i = 0; i < m->npoints; i++) {
        m->series[i].alone_bytes = m->series[i].pss_bytes;
        m->series[i].pss_bytes = 0;
    }
}

/* When the monitor read /proc/PID/io: four times, or none (older results). */
static void io_reads(struct jc *c, struct monitor_result *m, json_t *a)
{
    size_t i;
    if (a == NULL)
        return;
    if (json_array_size(a) != 4) {
        jread_fail(c, "io_read_unix_s", "not four times");
        return;
    }
    for (i = 0; i < 4; i++) {
        json_t *v = json_array_get(a, i);
        double t = json_is_number(v) ? json_number_value(v) : -1;
        if (!(t >= 0 && t <= 1e11)) {
            jread_fail(c, "io_read_unix_s", "not a time");
            return;
        }
        *(i < 2 ? &m->io_begin_s[i] : &m->io_end_s[i - 2]) = t;
    }
}

void report_load_server(struct jc *c, struct monitor_result *m, json_t *sv)
{
    json_t *tree = jread_arr(c, sv, report_keys_proc.name, 0), *mt = jread_arr(c, sv, report_keys_point.name, 0), *e;
    size_t i, at = jread_enter(c, "%s", report_keys_server.name);

    report_keys_read(c, sv, &report_keys_server, m);
    if (m->pss_note[0] == '\0')
        jread_copy(m->pss_note, sizeof(m->pss_note), "PSS not recorded");
    io_reads(c, m, jread_arr(c, sv, "io_read_unix_s", 0));
    if (!c->failed && tree && json_array_size(tree) &&
        (m->procs = calloc(json_array_size(tree), sizeof(*m->procs))) != NULL) {
        json_array_foreach(tree, i, e) {
            size_t a2 = jread_enter(c, "%s[%zu]", report_keys_proc.name, i);
            if (!json_is_object(e)) {
                jread_fail(c, "", "not an object");
                break;
            }
            report_keys_read(c, e, &report_keys_proc, &m->procs[m->nprocs++]);
            jread_leave(c, a2);
        }
    }
    if (!c->failed && mt && json_array_size(mt) &&
        (m->series = calloc(json_array_size(mt), sizeof(*m->series))) != NULL) {
        json_array_foreach(mt, i, e) {
            size_t a2 = jread_enter(c, "%s[%zu]", report_keys_point.name, i);
            report_keys_read(c, e, &report_keys_point, &m->series[m->npoints++]);
            jread_leave(c, a2);
        }
    }
    if (!json_object_get(sv, "has_alone") && jread_bool(c, sv, "pss_own"))
        from_pss_own(c, m, sv);
    jread_leave(c, at);
}

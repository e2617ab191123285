/* report_load_server.c - a saved result's "server" object (--monitor's
 * figures: CPU, memory, the process tree, the memory timeline) read back,
 * each value checked as report_load.c does. */
#include "report_load.h"
#include "jread.h"

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
    json_t *tree = jread_arr(c, sv, "tree", 0), *mt = jread_arr(c, sv, "memory_timeline", 0), *e;
    size_t i, at = jread_enter(c, "server");

    m->pid = (int)jread_num(c, sv, "pid", 0, 2147483647.0, 0);
    jread_copy(m->cgroup, sizeof(m->cgroup), jread_str(c, sv, "cgroup", 0));
    jread_copy(m->pss_note, sizeof(m->pss_note), jread_str(c, sv, "pss_note", 0));
    if (m->pss_note[0] == '\0')
        jread_copy(m->pss_note, sizeof(m->pss_note), "PSS not recorded");
    m->cpu_s = jread_num(c, sv, "cpu_s", 0, MAX_SECONDS, 1);
    m->cpus = jread_num(c, sv, "cpus", 0, 1e6, 0);
    m->write_bytes = jread_count(c, sv, "write_bytes", 0);
    m->has_io = json_object_get(sv, "write_bytes") != NULL;
    m->wchar = jread_count(c, sv, "wchar_bytes", 0);
    m->has_wchar = json_object_get(sv, "wchar_bytes") != NULL;
    m->syscw = jread_count(c, sv, "syscw", 0);
    m->has_syscw = json_object_get(sv, "syscw") != NULL;
    io_reads(c, m, jread_arr(c, sv, "io_read_unix_s", 0));
    m->cpu_exact = jread_bool(c, sv, "cpu_exact");
    m->has_pss = jread_bool(c, sv, "has_pss");
    m->pss_peak_bytes = jread_count(c, sv, "pss_peak_bytes", 0);
    m->pss_mean_bytes = jread_count(c, sv, "pss_mean_bytes", 0);
    m->has_alone = jread_bool(c, sv, "has_alone");
    m->alone_peak_bytes = jread_count(c, sv, "alone_peak_bytes", 0);
    m->alone_mean_bytes = jread_count(c, sv, "alone_mean_bytes", 0);
    m->uss_peak_bytes = jread_count(c, sv, "uss_peak_bytes", 0);
    m->rss_peak_bytes = jread_count(c, sv, "rss_peak_bytes", 0);
    m->rss_mean_bytes = jread_count(c, sv, "rss_mean_bytes", 0);
    m->cg_memory_peak_bytes = jread_count(c, sv, "cgroup_memory_peak_bytes", 0);
    m->processes = (uint32_t)jread_num(c, sv, "processes", 0, 4294967295.0, 0);
    m->threads = (uint32_t)jread_num(c, sv, "threads", 0, 4294967295.0, 0);
    m->samples = (uint32_t)jread_num(c, sv, "samples", 0, 4294967295.0, 0);
    m->gone = jread_bool(c, sv, "exited");
    if (!c->failed && tree && json_array_size(tree) &&
        (m->procs = calloc(json_array_size(tree), sizeof(*m->procs))) != NULL) {
        json_array_foreach(tree, i, e) {
            struct monitor_proc *p = &m->procs[m->nprocs++];
            size_t a2 = jread_enter(c, "tree[%zu]", i);
            if (!json_is_object(e)) {
                jread_fail(c, "", "not an object");
                break;
            }
            p->pid = (int)jread_num(c, e, "pid", 0, 2147483647.0, 0);
            p->ppid = (int)jread_num(c, e, "ppid", 0, 2147483647.0, 0);
            jread_copy(p->command, sizeof(p->command), jread_str(c, e, "command", 0));
            p->cpu_s = jread_num(c, e, "cpu_s", 0, MAX_SECONDS, 0);
            p->rss_peak_bytes = jread_count(c, e, "rss_peak_bytes", 0);
            p->pss_peak_bytes = jread_count(c, e, "pss_peak_bytes", 0);
            p->alone_peak_bytes = jread_count(c, e, "alone_peak_bytes", 0);
            p->uss_peak_bytes = jread_count(c, e, "uss_peak_bytes", 0);
            p->first_seen_s = jread_num(c, e, "first_seen_s", 0, MAX_SECONDS, 0);
            p->exited = jread_bool(c, e, "exited");
            jread_leave(c, a2);
        }
    }
    if (!c->failed && mt && json_array_size(mt) &&
        (m->series = calloc(json_array_size(mt), sizeof(*m->series))) != NULL) {
        json_array_foreach(mt, i, e) {
            struct monitor_point *p = &m->series[m->npoints++];
            size_t a2 = jread_enter(c, "memory_timeline[%zu]", i);
            p->t_s = jread_num(c, e, "t_s", 0, MAX_SECONDS, 1);
            p->pss_bytes = jread_count(c, e, "pss_bytes", 0);
            p->alone_bytes = jread_count(c, e, "alone_bytes", 0);
            p->rss_bytes = jread_count(c, e, "rss_bytes", 0);
            p->processes = (uint32_t)jread_num(c, e, "processes", 0, 4294967295.0, 0);
            p->threads = (uint32_t)jread_num(c, e, "threads", 0, 4294967295.0, 0);
            jread_leave(c, a2);
        }
    }
    if (!json_object_get(sv, "has_alone") && jread_bool(c, sv, "pss_own"))
        from_pss_own(c, m, sv);
    jread_leave(c, at);
}

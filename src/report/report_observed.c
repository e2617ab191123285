/* report_observed.c - what was observed around a run's figures, in words:
 * the server (--monitor: its CPU, memory and processes), this machine's
 * reference (rafale calibrate), the findings. The text report, compare's
 * and rafale report's side by side all say them so. */
#include "report.h"
#include "units.h"

#include <math.h>
#include <string.h>
#include <time.h>

uint64_t report_server_memory(const struct monitor_result *m, const char **label)
{
    *label = m->has_alone ? "alone" : m->has_pss ? "PSS" : "RSS";
    return m->has_alone ? m->alone_peak_bytes : m->has_pss ? m->pss_peak_bytes : m->rss_peak_bytes;
}

const char *report_memory_meaning(const char *label)
{
    if (strcmp(label, "alone") == 0)
        return "alone: its resident pages each counted once, shared libraries whole, as if it ran by itself";
    if (strcmp(label, "PSS") == 0)
        return "PSS: the kernel's, a shared page divided among every process of the machine that maps it";
    return "";
}

void report_server_text(FILE *f, const struct run_result *res, const char *in)
{
    const struct monitor_result *m = &res->server;
    uint64_t completed = res->fig.total.completed;
    struct monitor_group g[32];
    uint32_t ng = monitor_groups(m, g, 32), i;
    char a[32], b[32], c[32], d[32], e[32];

    fprintf(f, "%sServer        ", in);
    if (m->cgroup[0])
        fprintf(f, "cgroup %s", m->cgroup);
    else
        fprintf(f, "pid %d and its children", m->pid);
    fprintf(f, ": %u process%s, %u thread%s at most%s\n", m->processes, m->processes == 1 ? "" : "es", m->threads,
            m->threads == 1 ? "" : "s", m->gone ? " (nothing was left of it before the end)" : "");
    fprintf(f, "%s  CPU         %.2fs", in, m->cpu_s);
    if (completed && (m->cpu_s > 0 || m->cpu_exact))
        fprintf(f, ", %s per request", units_fmt_ns(a, sizeof(a), m->cpu_s * 1e9 / (double)completed));
    else if (!m->cpu_exact)
        fprintf(f, " (the run was shorter than what /proc counts, 10ms ticks)");
    fprintf(f, "%s\n", m->cpu_exact ? " (the cgroup's own count, exited processes included)" : "");
    if (m->has_alone)
        fprintf(f, "%s  memory      alone %s peak (mean %s), PSS %s, USS %s; RSS summed %s (shared pages counted in "
                   "each process)\n%s              %s;\n%s              %s\n",
                in, units_fmt_bytes(a, sizeof(a), (double)m->alone_peak_bytes),
                units_fmt_bytes(b, sizeof(b), (double)m->alone_mean_bytes),
                units_fmt_bytes(c, sizeof(c), (double)m->pss_peak_bytes),
                units_fmt_bytes(d, sizeof(d), (double)m->uss_peak_bytes),
                units_fmt_bytes(e, sizeof(e), (double)m->rss_peak_bytes), in, report_memory_meaning("alone"), in,
                report_memory_meaning("PSS"));
    else if (m->has_pss)
        fprintf(f, "%s  memory      PSS %s peak (mean %s), USS %s; RSS summed %s (shared pages counted in each process)\n"
                   "%s              %s; %s\n",
                in, units_fmt_bytes(a, sizeof(a), (double)m->pss_peak_bytes),
                units_fmt_bytes(b, sizeof(b), (double)m->pss_mean_bytes),
                units_fmt_bytes(c, sizeof(c), (double)m->uss_peak_bytes),
                units_fmt_bytes(d, sizeof(d), (double)m->rss_peak_bytes), in, report_memory_meaning("PSS"),
                m->pss_note);
    else
        fprintf(f, "%s  memory      RSS summed %s peak (mean %s): shared pages counted in each process; %s\n", in,
                units_fmt_bytes(a, sizeof(a), (double)m->rss_peak_bytes),
                units_fmt_bytes(b, sizeof(b), (double)m->rss_mean_bytes), m->pss_note);
    if (m->cg_memory_peak_bytes)
        fprintf(f, "%s              the cgroup's own memory peak: %s\n", in,
                units_fmt_bytes(a, sizeof(a), (double)m->cg_memory_peak_bytes));
    if (ng == 0)
        return;
    fprintf(f, "%s  processes   %5s %10s %10s %10s %9s  command\n", in, "count",
            m->has_alone ? "alone each" : m->has_pss ? "PSS each" : "",
            m->has_pss ? "USS each" : "", "RSS each", "CPU");
    for (i = 0; i < ng; i++) {
        char cnt[16];
        snprintf(cnt, sizeof(cnt), "%u", g[i].count);
        fprintf(f, "%s              %5s %10s %10s %10s %8.2fs  %.60s%s\n", in, cnt,
                m->has_pss ? units_fmt_bytes(a, sizeof(a), (double)(m->has_alone ? g[i].alone_each : g[i].pss_each))
                           : "",
                m->has_pss ? units_fmt_bytes(b, sizeof(b), (double)g[i].uss_each) : "",
                units_fmt_bytes(c, sizeof(c), (double)g[i].rss_each), g[i].cpu_s, g[i].command,
                g[i].exited == g[i].count ? "  (exited)" : g[i].exited ? "  (some exited)" : "");
    }
}

void report_ref_text(FILE *f, const struct machine_ref *ref, const char *in)
{
    char when[32] = "?", p50[32], p99[32];
    time_t t = (time_t)ref->when_unix_s;
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
    fprintf(f, "%sReference     this machine's: rafale serve at %.0f req/s", in, ref->rps);
    if (!isnan(ref->rps_ci[0]) && !isnan(ref->rps_ci[1]))
        fprintf(f, " (%.0f\xe2\x80\x93%.0f)", ref->rps_ci[0], ref->rps_ci[1]);
    fprintf(f, ", p50 %s, p99 %s (rafale calibrate, %s)\n", units_fmt_ns(p50, sizeof(p50), ref->p50_us * 1e3),
            units_fmt_ns(p99, sizeof(p99), ref->p99_us * 1e3), when);
    fprintf(f, "%s              %s; %s; %s, %d CPU%s, %s\n", in, ref->workload, ref->pin,
            ref->m.cpu_model[0] ? ref->m.cpu_model : "CPU unknown", ref->m.cpus_online,
            ref->m.cpus_online == 1 ? "" : "s", ref->m.kernel);
    fprintf(f, "%s              a reference, not a conversion: a server's figures do not scale with it\n", in);
}

void report_findings_text(FILE *f, const struct findings *fs, const char *in)
{
    int i;
    if (fs == NULL || fs->n == 0)
        return;
    fprintf(f, "%sFindings\n", in);
    for (i = 0; i < fs->n; i++) {
        const struct finding *x = &fs->f[i];
        fprintf(f, "%s  %s %s: %s\n%s      -> %s\n", in, x->warning ? "[!]" : "[i]", x->id, x->summary, in, x->advice);
    }
}

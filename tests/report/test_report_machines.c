/* report_machines: results reported together from different machines:
 * nothing when they share one; else how many, and each result's machine
 * with its reference: its own (the req/s of rafale serve there), one from
 * another machine (left out), or none. */
#include "report.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

static void machine(struct machine *m, const char *cpu, int cpus, const char *kernel)
{
    memset(m, 0, sizeof(*m));
    snprintf(m->cpu_model, sizeof(m->cpu_model), "%s", cpu);
    m->cpus_online = cpus;
    snprintf(m->kernel, sizeof(m->kernel), "%s", kernel);
}

static char *said(const struct run_result *const *res, const char *const *names, int n)
{
    char *t = NULL;
    size_t len;
    FILE *f = open_memstream(&t, &len);
    report_machines(f, res, names, n);
    fclose(f);
    return t;
}

static void machines(void)
{
    static struct run_result a, b, c, d;
    const struct run_result *res[4] = { &a, &b, &c, &d };
    const char *names[4] = { "a.json", "b.json", "c.json", "d.json" };
    char *t;
    result_init(&a), result_init(&b), result_init(&c), result_init(&d);
    machine(&a.env, "Xeon E5", 8, "Linux 6.1.0 x86_64");
    b.env = a.env;
    /* One machine: nothing said. */
    t = said(res, names, 2);
    CHECK(t && t[0] == '\0');
    free(t);
    machine(&c.env, "", 1, "");
    machine(&d.env, "EPYC 7302", 16, "Linux 6.8.0 x86_64");
    /* a: its own reference; b: one from another machine; c, d: none. */
    a.ref.known = 1;
    a.ref.m = a.env;
    a.ref.rps = 41234.6;
    b.ref.known = 1;
    machine(&b.ref.m, "EPYC 7302", 16, "Linux 6.8.0 x86_64");
    t = said(res, names, 4);
    CHECKF(strcmp(t, "These results come from 3 machines. Each one's reference, rafale calibrate's same work on each, "
                     "stands beside its figures:\na reference, not a conversion (a server's figures do not scale with "
                     "it).\n"
                     "  a.json: Xeon E5, 8 CPUs, Linux 6.1.0 x86_64: rafale serve at 41235 req/s\n"
                     "  b.json: Xeon E5, 8 CPUs, Linux 6.1.0 x86_64: a reference from another machine (EPYC 7302, 16 "
                     "CPUs): left out\n"
                     "  c.json: CPU unknown, 1 CPU, kernel unknown: no reference (run it with --calibrate yes)\n"
                     "  d.json: EPYC 7302, 16 CPUs, Linux 6.8.0 x86_64: no reference (run it with --calibrate yes)\n\n") == 0,
           "\n%s", t);
    free(t);
    /* The same CPU and kernel with another count of CPUs: another machine. */
    b.env.cpus_online = 4;
    t = said(res, names, 2);
    CHECK(strncmp(t, "These results come from 2 machines.", 35) == 0 && strstr(t, "  b.json: Xeon E5, 4 CPUs, "));
    free(t);
}

int main(void)
{
    T_RUN(machines);
    T_END("test_report_machines");
}

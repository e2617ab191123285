/* report_machines.c - results from different machines, reported together:
 * each machine with its reference (rafale calibrate), said to be no
 * conversion. */
#include "report.h"
#include "machine.h"

void report_machines(FILE *f, const struct run_result *const *res, const char *const *names, int n)
{
    int i, j, machines = 0;
    for (i = 0; i < n; i++) {
        for (j = 0; j < i && !machine_same(&res[i]->env, &res[j]->env); j++)
            ;
        machines += j == i;
    }
    if (machines < 2)
        return;
    fprintf(f, "These results come from %d machines. Each one's reference, rafale calibrate's same work on each, "
               "stands beside its figures:\na reference, not a conversion (a server's figures do not scale with it).\n",
            machines);
    for (i = 0; i < n; i++) {
        const struct machine *m = &res[i]->env;
        const struct machine_ref *ref = &res[i]->ref;
        fprintf(f, "  %s: %s, %d CPU%s, %s: ", names[i], m->cpu_model[0] ? m->cpu_model : "CPU unknown",
                m->cpus_online, m->cpus_online == 1 ? "" : "s", m->kernel[0] ? m->kernel : "kernel unknown");
        if (ref->known && machine_same(&ref->m, m))
            fprintf(f, "rafale serve at %.0f req/s\n", ref->rps);
        else if (ref->known)
            fprintf(f, "a reference from another machine (%s, %d CPUs): left out\n", ref->m.cpu_model,
                    ref->m.cpus_online);
        else
            fprintf(f, "no reference (run it with --calibrate yes)\n");
    }
    fprintf(f, "\n");
}

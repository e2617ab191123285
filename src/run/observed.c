/* observed.c - one observed run: monitor and host counters around the
 * engine, the machine after, the findings. See observed.h. */
#include "observed.h"
#include "findings.h"
#include "machine.h"
#include "report.h"
#include "version.h"

#include <string.h>
#include <sys/stat.h>

/* The size of path, or -1. */
static int64_t file_size(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

int observed_run(const struct observed_in *in, struct run_result *out, char *err, size_t errlen)
{
    struct monitor *mon = NULL;
    int64_t out0;
    int rc;

    result_init(out);
    out->cfg = in->cfg;
    /* The idle probe first, alone: before the monitor and the host's
     * counters, so that none of them holds its requests. */
    if (probe_wanted(in->cfg))
        probe_run(in->share ? in->share : in->cfg, in->stop, &out->probe);
    if ((in->monitor_pid > 0 || in->monitor_cgroup) &&
        monitor_start(in->monitor_pid, in->monitor_cgroup, in->cfg->warmup_ns, &mon, err, errlen) != 0) {
        mon = NULL;
        if (in->monitor_required)
            return ENGINE_EPLAN;
    }
    if (in->watching)
        *in->watching = mon;
    if (!in->no_netstat)
        netstat_begin(&out->net, in->cfg);
    out0 = file_size(in->server_log);
    rc = engine_run(in->share ? in->share : in->cfg, in->stop, in->progress, in->arg, &out->fig, err, errlen);
    if (!in->no_netstat)
        netstat_end(&out->net);
    if (rc == 0) {
        machine_read(&out->env, RAFALE_VERSION);
        report_ci(&out->fig);
    }
    if (out0 >= 0 && file_size(in->server_log) >= out0)
        out->server_output_bytes = file_size(in->server_log) - out0; /* its stdout and stderr during the run */
    if (in->watching)
        *in->watching = NULL;
    if (mon) {
        monitor_stop(mon, &out->server);
        out->has_server = 1;
    }
    if (rc != 0) {
        result_free(out);
        return rc;
    }
    out->has_net = !in->no_netstat;
    if (out->has_net && !in->no_noise)
        netstat_noise(&out->net, out->fig.client_cpu_s, out->fig.elapsed_s, out->has_server ? &out->server : NULL,
                      &out->noise);
    if (in->findings) {
        findings_eval(out, &out->found);
        out->has_findings = 1;
    }
    return 0;
}

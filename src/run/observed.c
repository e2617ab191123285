/* observed.c - one observed run: monitor and host counters around the
 * engine, the machine after, the findings. See observed.h. */
#include "observed.h"
#include "cli.h"
#include "machine.h"
#include "report.h"

#include <string.h>
#include <sys/stat.h>

/* The size of path, or -1. */
static int64_t file_size(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

int observed_run(const struct observed_in *in, struct observed *out, char *err, size_t errlen)
{
    int64_t out0;
    int rc;

    memset(out, 0, sizeof(*out));
    out->output_bytes = -1;
    if ((in->monitor_pid > 0 || in->monitor_cgroup) &&
        monitor_start(in->monitor_pid, in->monitor_cgroup, in->cfg->warmup_ns, &out->mon, err, errlen) != 0) {
        out->mon = NULL;
        if (in->monitor_required)
            return ENGINE_EPLAN;
    }
    if (!in->no_netstat)
        netstat_begin(&out->net, in->cfg);
    out0 = file_size(in->server_log);
    rc = engine_run(in->share ? in->share : in->cfg, in->stop, in->progress, in->arg, &out->res, err, errlen);
    if (!in->no_netstat)
        netstat_end(&out->net);
    if (rc == 0) {
        machine_read(&out->res.env, RAFALE_VERSION);
        report_ci(&out->res);
    }
    if (out0 >= 0 && file_size(in->server_log) >= out0)
        out->output_bytes = file_size(in->server_log) - out0; /* its stdout and stderr during the run */
    if (out->mon) {
        monitor_stop(out->mon, &out->server);
        out->has_server = 1;
        out->mon = NULL;
    }
    if (rc != 0) {
        monitor_result_free(&out->server);
        out->has_server = 0;
        return rc;
    }
    out->has_net = !in->no_netstat;
    if (out->has_net && !in->no_noise)
        netstat_noise(&out->net, out->res.client_cpu_s, out->res.elapsed_s, out->has_server ? &out->server : NULL,
                      &out->res.noise);
    if (in->found) {
        const struct findings_in fin = { in->cfg, &out->res, out->has_server ? &out->server : NULL,
                                         out->has_net ? &out->net : NULL, out->output_bytes };
        findings_eval(&fin, in->found);
    }
    return 0;
}

void observed_free(struct observed *o)
{
    engine_result_free(&o->res);
    monitor_result_free(&o->server);
    o->has_server = 0;
}

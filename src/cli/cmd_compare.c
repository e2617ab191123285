/* cmd_compare.c - `rafale compare FILE`: the compare file read, the CPUs said,
 * the reference measured when asked, the rounds run, the report and files
 * written. */
#include "cmd.h"
#include "calibrate.h"
#include "cli.h"
#include "compare.h"
#include "net.h"
#include "outputs.h"
#include "report_compare.h"
#include "stop.h"

#include <stdio.h>
#include <string.h>

/* "0-2,5": a CPU list as people write it. */
static void cpu_text(const int *cpus, int n, char *buf, size_t len)
{
    size_t at = 0;
    int i = 0;
    buf[0] = '\0';
    while (i < n && at + 24 < len) {
        int j = i;
        while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
            j++;
        at += (size_t)snprintf(buf + at, len - at, "%s%d", at ? "," : "", cpus[i]);
        if (j > i)
            at += (size_t)snprintf(buf + at, len - at, "-%d", cpus[j]);
        i = j + 1;
    }
}

int cmd_compare(const struct cmd *self, const struct cmd *all, int argc, char **argv)
{
    (void)self;
    (void)all;
    struct compare_args a;
    struct compare_file cf;
    struct compare_result res;
    char err[512];
    FILE *tf;
    int rc = 0;

    switch (cli_parse_compare(argc, argv, &a, err, sizeof(err))) {
    case CLI_EXIT:
    case CLI_HELP:
        return 0;
    case CLI_ERROR:
        fprintf(stderr, "rafale compare: %s\n", err);
        return 2;
    case CLI_OK:
        break;
    }
    if (compare_file_parse(a.file, &a.set, &cf, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale compare: %s\n", err);
        compare_file_free(&cf);
        return 2;
    }
    if (outputs_ready(cf.set.out, 0, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale compare: %s\n", err);
        compare_file_free(&cf);
        return 2;
    }
    tf = outputs_text(cf.set.out);
    if (compare_ports_free(&cf, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale compare: %s\n", err);
        compare_file_free(&cf);
        return 2;
    }
    if (cf.set.pin == PIN_CHOSE) {
        char sv[200], cl[200];
        cpu_text(cf.set.server_cpus, cf.set.nserver_cpus, sv, sizeof(sv));
        cpu_text(cf.set.client_cpus, cf.set.nclient_cpus, cl, sizeof(cl));
        fprintf(tf, "rafale compare: pin = auto: servers on CPU%s %s, rafale on CPU%s %s (server-cpus and client-cpus "
               "choose, pin = no pins nothing)\n", cf.set.nserver_cpus > 1 ? "s" : "", sv,
               cf.set.nclient_cpus > 1 ? "s" : "", cl);
    } else if (cf.set.nserver_cpus == 0 || cf.set.nclient_cpus == 0) {
        fprintf(stderr, "rafale compare: warning: servers and rafale are not pinned apart (%s): they compete for the "
                        "same cores\n", cf.set.pin == PIN_NO ? "pin = no" : "server-cpus, client-cpus");
    } else {
        int i, j;
        for (i = 0; i < cf.set.nserver_cpus; i++)
            for (j = 0; j < cf.set.nclient_cpus; j++)
                if (cf.set.server_cpus[i] == cf.set.client_cpus[j]) {
                    fprintf(stderr, "rafale compare: warning: CPU %d is given to both the servers and rafale\n",
                            cf.set.server_cpus[i]);
                    i = cf.set.nserver_cpus;
                    break;
                }
    }
    net_raise_nofile(1 << 20);
    stop_catch(0);
    if (cf.set.repeat_auto)
        fprintf(tf, "rafale compare: %s, %d server%s, %d workload%s, repeat = auto (%d to %d rounds, until every verdict "
               "is decided)\n", a.file, cf.nservers, cf.nservers == 1 ? "" : "s", cf.nworkloads,
               cf.nworkloads == 1 ? "" : "s", cf.set.repeat < cf.set.max_repeat ? cf.set.repeat
               : cf.set.max_repeat, cf.set.max_repeat);
    else
        fprintf(tf, "rafale compare: %s, %d server%s, %d workload%s, %d repetition%s\n", a.file, cf.nservers,
               cf.nservers == 1 ? "" : "s", cf.nworkloads, cf.nworkloads == 1 ? "" : "s", cf.set.repeat,
               cf.set.repeat == 1 ? "" : "s");
    fflush(tf);
    {
        /* calibrate = yes (a workload default): the reference once, first. */
        struct machine_ref ref;
        int i, want = 0;
        memset(&ref, 0, sizeof(ref));
        for (i = 0; i < cf.nworkloads; i++)
            want |= cf.workloads[i].cfg.calibrate;
        if (want && calibrate_get(stop_flag(), cmd_log_line, tf, &ref, err, sizeof(err)) != 0) {
            fprintf(stderr, "rafale compare: calibrate: %s\n", err);
            compare_file_free(&cf);
            return 1;
        }
        rc = compare_rounds(&cf, stop_flag(), cmd_log_line, tf, &res, err, sizeof(err));
        res.ref = ref;
    }
    if (rc != 0) {
        fprintf(stderr, "rafale compare: %s\n", err);
        rc = 1;
    } else {
        report_compare_print(tf, &cf, &res);
        if (cf.set.out[OUT_JSON]) {
            FILE *f = outputs_open(cf.set.out, OUT_JSON, "rafale compare");
            if (f == NULL || outputs_close(cf.set.out, OUT_JSON, f, report_compare_json(f, &cf, &res),
                                           "rafale compare") != 0)
                rc = 1;
        }
        if (cf.set.out[OUT_HTML] && cmd_compare_html("rafale compare", cf.set.out, &cf, &res) != 0)
            rc = 1;
        /* The report is written whole in every case; the status says
         * whether it measured what was asked. */
        if (rc == 0)
            rc = compare_exit_status(&res);
    }
    compare_result_free(&res);
    compare_file_free(&cf);
    return rc;
}


/* outputs.c - a run's result written: the text report, the SLO checks,
 * its files, the live page's last state. */
#include "outputs.h"
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int out_json(FILE *f, const struct run_out *o)
{
    return report_json(f, o->cfg, o->r, o->server, o->slo, o->fs);
}

static int out_csv(FILE *f, const struct run_out *o)
{
    return report_csv(f, o->r);
}

static int out_html(FILE *f, const struct run_out *o)
{
    return report_html(f, o->cfg, o->r, o->server, o->fs);
}

static int out_hdr(FILE *f, const struct run_out *o)
{
    return hist_print_hdr(f, &o->r->total.h[H_LATENCY]);
}

/* The files a run writes: what each is, and its writer. */
static const struct {
    const char *what;
    int (*write)(FILE *f, const struct run_out *o);
} writers[] = {
    [OUT_JSON] = { "JSON", out_json },
    [OUT_CSV] = { "CSV", out_csv },
    [OUT_HTML] = { "HTML", out_html },
    [OUT_HDR] = { "HdrHistogram percentiles", out_hdr },
};

int outputs_write(const char *path, enum out_kind k, const struct run_out *o)
{
    FILE *f;
    int rc;
    if (strcmp(path, "-") == 0) {
        f = stdout;
    } else if ((f = fopen(path, "w")) == NULL) {
        fprintf(stderr, "rafale: cannot write %s to '%s': %s\n", writers[k].what, path, strerror(errno));
        return -1;
    }
    rc = writers[k].write(f, o);
    if (f != stdout)
        rc |= fclose(f);
    else
        fflush(f);
    if (rc != 0)
        fprintf(stderr, "rafale: writing %s to '%s' failed\n", writers[k].what, path);
    return rc;
}

int outputs_finish(struct config *opts, const struct config *cfg, const struct engine_result *r,
                   const struct monitor_result *server, const struct findings *fs, struct metrics *live)
{
    const struct run_out o = { cfg, r, server, opts->slo.n ? &opts->slo : NULL, fs };
    const char *const paths[] = { [OUT_JSON] = opts->json_path, [OUT_CSV] = opts->csv_path,
                                  [OUT_HTML] = opts->html_path, [OUT_HDR] = opts->hdr_path };
    /* An output on standard output has it alone: the text report goes to stderr. */
    FILE *text = config_stdout_owner(opts) ? stderr : stdout;
    int rc = 0, i;
    unsigned k;

    report_text(text, cfg, r, server, o.fs);
    if (opts->slo.n) {
        slo_eval(&opts->slo, &r->total, r->elapsed_s);
        slo_print(text, &opts->slo);
    }
    if (fflush(text) != 0 || ferror(text)) {
        /* The report is what the run was for: its loss is said, never silent. */
        fprintf(stderr, "rafale: writing the report to standard %s failed: %s\n", text == stdout ? "output" : "error",
                strerror(errno));
        rc = 1;
    }
    for (k = 0; k < sizeof(paths) / sizeof(paths[0]); k++)
        if (paths[k] && outputs_write(paths[k], (enum out_kind)k, &o) != 0)
            rc = 1;
    if (live) {
        /* The live page shows the final report in its place. */
        char *html = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&html, &n);
        if (f) {
            report_html(f, cfg, r, server, o.fs);
            fclose(f);
            metrics_final(live, html, n);
        }
        free(html);
    }
    if (rc == 0 && r->interrupted)
        rc = 130;
    /* Requests sent and none answered, or -n's run gave up on a server it
     * could no longer reach: a result of no service, whatever the SLO says
     * of it. (None sent, every one skipped for a variable never set: the
     * report says why, the server was not asked.) */
    if (rc == 0 && ((r->total.started > 0 && r->total.completed == 0) || r->gave_up_s > 0))
        rc = 4;
    for (i = 0; rc == 0 && i < opts->slo.n; i++)
        if (!opts->slo.c[i].pass)
            rc = 3;
    if (rc == 0 && r->aborted)
        rc = 3; /* lost on the way, whatever the end's figures say */
    return rc;
}


/* outputs.c - a run's result written: the text report, the SLO checks,
 * its files, the live page's last state. */
#include "outputs.h"
#include "err.h"
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int out_hdr(FILE *f, const struct run_result *res)
{
    return hist_print_hdr(f, &res->fig.total.h[H_LATENCY]);
}

/* The files a run writes: what each is, and its writer. */
static const struct {
    const char *what;
    int (*write)(FILE *f, const struct run_result *res);
} writers[] = {
    [OUT_JSON] = { "JSON", report_json },
    [OUT_CSV] = { "CSV", report_csv },
    [OUT_HTML] = { "HTML", report_html },
    [OUT_HDR] = { "HdrHistogram percentiles", out_hdr },
};

int outputs_check(const char *path, const char *opt, int dirs_made, char *err, size_t errlen)
{
    struct stat st;
    int fd;
    if (strcmp(path, "-") == 0)
        return 0;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return err_set(err, errlen, NULL, "%s: '%s' is a directory", opt, path);
        /* A regular file opened for writing, not truncated, is not
         * changed; a FIFO or a device is not opened (a FIFO's reader would
         * see its end), only its permission checked. */
        if (S_ISREG(st.st_mode) ? (fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)) < 0 || close(fd) != 0
                                : access(path, W_OK) != 0)
            return err_set(err, errlen, NULL, "%s: cannot write '%s': %s", opt, path, strerror(errno));
        return 0;
    }
    if (errno == ENOENT) {
        /* The file made and removed at once: its directory takes it (it
         * exists, is writable, is on a file system that is not
         * read-only). A dangling link (EEXIST) is left to the writer. */
        if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0644)) >= 0) {
            close(fd);
            unlink(path);
            return 0;
        }
        if (errno == EEXIST || (errno == ENOENT && dirs_made))
            return 0;
    }
    return err_set(err, errlen, NULL, "%s: cannot write '%s': %s", opt, path, strerror(errno));
}

int outputs_check_run(const struct config *cfg, char *err, size_t errlen)
{
    const char *const paths[] = { cfg->out[OUT_JSON], cfg->out[OUT_CSV], cfg->out[OUT_HTML], cfg->out[OUT_HDR] };
    const char *const opts[] = { "--json", "--csv", "--html", "--hdr" };
    size_t i;
    for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
        if (paths[i] && outputs_check(paths[i], opts[i], 0, err, errlen) != 0)
            return -1;
    return 0;
}

int outputs_write(const char *path, enum out_kind k, const struct run_result *res)
{
    FILE *f;
    int rc;
    if (strcmp(path, "-") == 0) {
        f = stdout;
    } else if ((f = fopen(path, "w")) == NULL) {
        fprintf(stderr, "rafale: cannot write %s to '%s': %s\n", writers[k].what, path, strerror(errno));
        return -1;
    }
    rc = writers[k].write(f, res);
    if (f != stdout)
        rc |= fclose(f);
    else
        fflush(f);
    if (rc != 0)
        fprintf(stderr, "rafale: writing %s to '%s' failed\n", writers[k].what, path);
    return rc;
}

int outputs_finish(struct config *opts, struct run_result *res, struct metrics *live)
{
    const struct run_figures *r = &res->fig;
    const char *const paths[] = { [OUT_JSON] = opts->out[OUT_JSON], [OUT_CSV] = opts->out[OUT_CSV],
                                  [OUT_HTML] = opts->out[OUT_HTML], [OUT_HDR] = opts->out[OUT_HDR] };
    /* An output on standard output has it alone: the text report goes to stderr. */
    FILE *text = config_stdout_owner(opts) ? stderr : stdout;
    int rc = 0, i;
    unsigned k;

    report_text(text, res);
    if (opts->slo.n) {
        slo_eval(&opts->slo, &r->total, r->elapsed_s);
        slo_print(text, &opts->slo);
        res->slo = &opts->slo;
    }
    if (fflush(text) != 0 || ferror(text)) {
        /* The report is what the run was for: its loss is said, never silent. */
        fprintf(stderr, "rafale: writing the report to standard %s failed: %s\n", text == stdout ? "output" : "error",
                strerror(errno));
        rc = 1;
    }
    for (k = 0; k < sizeof(paths) / sizeof(paths[0]); k++)
        if (paths[k] && outputs_write(paths[k], (enum out_kind)k, res) != 0)
            rc = 1;
    if (live) {
        /* The live page shows the final report in its place. */
        char *html = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&html, &n);
        if (f) {
            report_html(f, res);
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


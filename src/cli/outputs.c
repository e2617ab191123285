/* outputs.c - the files a command writes, in one table; the rule on "-";
 * an output opened, checked, closed; a run's result written: the text
 * report, the SLO goals, its files, the live page's last state. */
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

/* The outputs, a row each (enum out_kind): its option, what it is, and
 * the writer of a run's result as it (--log's lines are the engine's). */
static const struct {
    const char *opt;
    const char *what;
    int (*write)(FILE *f, const struct run_result *res);
} outputs[OUT__COUNT] = {
    [OUT_LOG] = { "--log", "the log", NULL },
    [OUT_JSON] = { "--json", "JSON", report_json },
    [OUT_CSV] = { "--csv", "CSV", report_csv },
    [OUT_HDR] = { "--hdr", "HdrHistogram percentiles", out_hdr },
    [OUT_HTML] = { "--html", "HTML", report_html },
};

static int on_stdout(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

int outputs_stdout(const char *const out[OUT__COUNT], char *err, size_t errlen)
{
    int k, first = -1;
    for (k = 0; k < OUT__COUNT; k++)
        if (on_stdout(out[k])) {
            if (first >= 0)
                return err_set(err, errlen, NULL, "%s - and %s - both want standard output: give one of them a file",
                               outputs[first].opt, outputs[k].opt);
            first = k;
        }
    return 0;
}

FILE *outputs_text(const char *const out[OUT__COUNT])
{
    int k;
    for (k = 0; k < OUT__COUNT; k++)
        if (k != OUT_LOG && on_stdout(out[k]))
            return stderr;
    return stdout;
}

/* Whether path (of option opt) can be written, checked before the work. */
static int writable(const char *path, const char *opt, int dirs_made, char *err, size_t errlen)
{
    struct stat st;
    int fd;
    if (on_stdout(path))
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

/* Whether two paths of files not there yet name one place: the same last
 * name in the same directory ("r.json", "./r.json", "d/../r.json"). */
static int same_place(const char *a, const char *b)
{
    const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
    char da[4096], db[4096];
    struct stat xa, xb;
    if (strcmp(sa ? sa + 1 : a, sb ? sb + 1 : b) != 0)
        return 0;
    snprintf(da, sizeof(da), "%.*s", sa ? (int)(sa - a) + 1 : 1, sa ? a : ".");
    snprintf(db, sizeof(db), "%.*s", sb ? (int)(sb - b) + 1 : 1, sb ? b : ".");
    return stat(da, &xa) == 0 && stat(db, &xb) == 0 && xa.st_dev == xb.st_dev && xa.st_ino == xb.st_ino;
}

int outputs_same(const char *a, const char *b)
{
    struct stat sa, sb;
    int ha = stat(a, &sa) == 0, hb = stat(b, &sb) == 0;
    /* Standard output is outputs_stdout's to say; a device or a FIFO may
     * take both (/dev/null). */
    if (on_stdout(a) || on_stdout(b) || (ha && !S_ISREG(sa.st_mode)))
        return 0;
    return strcmp(a, b) == 0 || (ha && hb && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino) ||
           (!ha && !hb && same_place(a, b));
}

int outputs_ready(const char *const out[OUT__COUNT], int dirs_made, char *err, size_t errlen)
{
    int k, j;
    if (outputs_stdout(out, err, errlen) != 0)
        return -1;
    for (k = 0; k < OUT__COUNT; k++)
        if (k != OUT_LOG && out[k] && writable(out[k], outputs[k].opt, dirs_made, err, errlen) != 0)
            return -1;
    /* Two outputs on one file: the last written would replace the other. */
    for (k = 0; k < OUT__COUNT; k++)
        for (j = k + 1; out[k] && j < OUT__COUNT; j++)
            if (out[j] && outputs_same(out[k], out[j]))
                return err_set(err, errlen, NULL, "%s and %s name the same file '%s': one would replace the other",
                               outputs[k].opt, outputs[j].opt, out[k]);
    return 0;
}

const char *outputs_opt(enum out_kind k)
{
    return outputs[k].opt;
}

FILE *outputs_open(const char *const out[OUT__COUNT], enum out_kind k, const char *who)
{
    FILE *f = on_stdout(out[k]) ? stdout : fopen(out[k], "w");
    if (f == NULL)
        fprintf(stderr, "%s: cannot write %s to '%s': %s\n", who, outputs[k].what, out[k], strerror(errno));
    return f;
}

int outputs_close(const char *const out[OUT__COUNT], enum out_kind k, FILE *f, int rc, const char *who)
{
    if (f == stdout)
        rc |= fflush(f);
    else
        rc |= fclose(f);
    if (rc != 0)
        fprintf(stderr, "%s: writing %s to '%s' failed\n", who, outputs[k].what, out[k]);
    return rc ? -1 : 0;
}

int outputs_write(const char *const out[OUT__COUNT], enum out_kind k, const struct run_result *res, const char *who)
{
    FILE *f = outputs_open(out, k, who);
    return f ? outputs_close(out, k, f, outputs[k].write(f, res), who) : -1;
}

int outputs_finish(struct config *opts, struct run_result *res, struct metrics *live)
{
    const struct run_figures *r = &res->fig;
    /* An output on standard output has it alone: the text report goes to stderr. */
    FILE *text = outputs_text(opts->out);
    int rc = 0, i, k;

    if (opts->brief)
        report_brief(text, res);
    else
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
    for (k = 0; k < OUT__COUNT; k++)
        if (opts->out[k] && outputs[k].write && outputs_write(opts->out, (enum out_kind)k, res, "rafale") != 0)
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
        if (!opts->slo.goal[i].pass)
            rc = 3;
    if (rc == 0 && r->aborted)
        rc = 3; /* lost on the way, whatever the end's figures say */
    return rc;
}


/* The files a command writes: one output at most on standard output (then
 * the text report goes to stderr), every file checked writable before the
 * work and none truncated by the check, two outputs on one file refused
 * however they are spelled, an output opened, written and closed, and its
 * failures said in one line. */
#include "outputs.h"
#include "../t.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64], err[600];

/* A path in the test's folder. */
static const char *in_dir(char *buf, const char *name)
{
    snprintf(buf, 160, "%s/%s", dir, name);
    return buf;
}

static void the_dash_rule(void)
{
    const char *out[OUT__COUNT] = { 0 };
    CHECK(outputs_stdout(out, err, sizeof(err)) == 0 && outputs_text(out) == stdout);
    out[OUT_JSON] = "-";
    CHECK(outputs_stdout(out, err, sizeof(err)) == 0);
    /* The JSON owns standard output: the report goes to stderr. */
    CHECK(outputs_text(out) == stderr);
    out[OUT_HTML] = "-";
    CHECK(outputs_stdout(out, err, sizeof(err)) == -1);
    CHECKF(strcmp(err, "--json - and --html - both want standard output: give one of them a file") == 0, "%s", err);
    CHECK(outputs_ready(out, 0, err, sizeof(err)) == -1 && strstr(err, "both want standard output") != NULL);
    out[OUT_JSON] = out[OUT_HTML] = NULL;
    out[OUT_LOG] = "-";
    /* --log's lines come as requests end, the report after them. */
    CHECK(outputs_stdout(out, err, sizeof(err)) == 0 && outputs_text(out) == stdout);
    out[OUT_CSV] = "-";
    CHECK(outputs_stdout(out, err, sizeof(err)) == -1 &&
          strcmp(err, "--log - and --csv - both want standard output: give one of them a file") == 0);
    CHECK(strcmp(outputs_opt(OUT_HDR), "--hdr") == 0 && strcmp(outputs_opt(OUT_LOG), "--log") == 0);
}

static void writable_before_the_work(void)
{
    const char *out[OUT__COUNT] = { 0 };
    char a[160], b[160];
    struct stat st;
    int fd;
    /* A new file: checked, and not left behind. */
    out[OUT_JSON] = in_dir(a, "new.json");
    CHECKF(outputs_ready(out, 0, err, sizeof(err)) == 0, "%s", err);
    CHECK(access(a, F_OK) != 0);
    /* An old file: kept whole until the result replaces it. */
    fd = open(a, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0 && write(fd, "old result", 10) == 10);
    close(fd);
    CHECKF(outputs_ready(out, 0, err, sizeof(err)) == 0, "%s", err);
    CHECK(stat(a, &st) == 0 && st.st_size == 10);
    unlink(a);
    out[OUT_JSON] = dir;
    CHECK(outputs_ready(out, 0, err, sizeof(err)) == -1);
    CHECKF(strncmp(err, "--json: '", 9) == 0 && strstr(err, "' is a directory") != NULL, "%s", err);
    /* A missing folder: an error, unless the writer makes it. */
    out[OUT_JSON] = NULL;
    out[OUT_HTML] = in_dir(b, "nope/r.html");
    CHECK(outputs_ready(out, 0, err, sizeof(err)) == -1);
    CHECKF(strncmp(err, "--html: cannot write '", 22) == 0 && strstr(err, "No such file or directory") != NULL, "%s",
           err);
    CHECK(outputs_ready(out, 1, err, sizeof(err)) == 0);
    /* A device is checked for permission alone, never opened. */
    out[OUT_HTML] = "/dev/null";
    CHECK(outputs_ready(out, 0, err, sizeof(err)) == 0);
    /* --log is its writer's to check. */
    out[OUT_HTML] = NULL;
    out[OUT_LOG] = in_dir(b, "nope/log");
    CHECK(outputs_ready(out, 0, err, sizeof(err)) == 0);
}

static void one_file_two_outputs_refused(void)
{
    const char *out[OUT__COUNT] = { 0 };
    char a[160], b[160], c[160];
    int fd;
    out[OUT_JSON] = in_dir(a, "r.out");
    out[OUT_HTML] = in_dir(b, "r.out");
    CHECK(outputs_ready(out, 0, err, sizeof(err)) == -1);
    CHECKF(strstr(err, "--json and --html name the same file '") == err &&
               strstr(err, "r.out': one would replace the other") != NULL,
           "%s", err);
    /* Spelled two ways, the file not there yet. */
    out[OUT_HTML] = in_dir(b, "./r.out");
    CHECK(outputs_same(a, b));
    CHECK(outputs_ready(out, 0, err, sizeof(err)) == -1 && strstr(err, "name the same file") != NULL);
    snprintf(c, sizeof(c), "%s/../%s/r.out", dir, strrchr(dir, '/') + 1);
    CHECK(outputs_same(a, c) && !outputs_same(a, in_dir(c, "s.out")));
    /* The same file by two names once it is there (a link). */
    fd = open(a, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    close(fd);
    CHECK(symlink(a, in_dir(c, "link.out")) == 0);
    out[OUT_CSV] = c;
    out[OUT_HTML] = NULL;
    CHECK(outputs_ready(out, 0, err, sizeof(err)) == -1 && strstr(err, "--json and --csv name the same file") == err);
    unlink(c);
    unlink(a);
    /* Standard output and devices take two outputs. */
    CHECK(!outputs_same("-", "-") && !outputs_same("/dev/null", "/dev/null") && !outputs_same(a, "-"));
    CHECK(!outputs_same(a, in_dir(c, "r.out.json")));
}

static const char **hdr_out;
static struct run_result *hdr_res;

static int write_hdr(void *arg)
{
    (void)arg;
    return outputs_write(hdr_out, OUT_HDR, hdr_res, "rafale");
}

static void written_and_said(void)
{
    const char *out[OUT__COUNT] = { 0 };
    struct run_result res;
    char a[160], text[4096], said[600];
    FILE *f;
    size_t n;
    memset(&res, 0, sizeof(res));
    CHECK(stats_init(&res.fig.total) == 0);
    hist_record_n(&res.fig.total.h[H_LATENCY], 1000000, 10);
    out[OUT_HDR] = in_dir(a, "lat.hdr");
    hdr_out = out;
    hdr_res = &res;
    CHECK(t_stderr(write_hdr, NULL, said, sizeof(said)) == 0 && said[0] == '\0');
    f = fopen(a, "r");
    CHECK(f != NULL);
    n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
    text[n] = '\0';
    if (f)
        fclose(f);
    CHECKF(strstr(text, "Value") != NULL && strstr(text, "TotalCount") != NULL, "%s", text);
    unlink(a);
    /* A file that cannot be opened: said, in one line, with who. */
    out[OUT_HDR] = in_dir(a, "nope/lat.hdr");
    CHECK(t_stderr(write_hdr, NULL, said, sizeof(said)) == -1);
    CHECKF(strstr(said, "rafale: cannot write HdrHistogram percentiles to '") == said &&
               strstr(said, "': No such file or directory\n") != NULL && strchr(said, '\n') == said + strlen(said) - 1,
           "%s", said);
    stats_fini(&res.fig.total);
}

int main(void)
{
    if (t_mkdir(dir, "outputs") != 0)
        return 1;
    T_RUN(the_dash_rule);
    T_RUN(writable_before_the_work);
    T_RUN(one_file_two_outputs_refused);
    T_RUN(written_and_said);
    t_rmdir(dir);
    T_END("outputs");
}

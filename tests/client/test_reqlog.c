/* --log (src/client/reqlog.c): a line per ended request, as the HTTP/1.1
 * session ends them, through the worker's buffers and the writer thread:
 * JSON Lines (each line valid JSON, its figures the request's) or CSV
 * (.csv: a header, then the columns), --log-sample N one in N, every line
 * counted written; a FIFO nobody reads refused in one line. */
#include "fixture.h"

#include <jansson.h>
#include <sys/stat.h>

static char path[64];

static void log_to(struct config *cfg)
{
    cfg->out[OUT_LOG] = path;
}

static void log_sampled(struct config *cfg)
{
    cfg->out[OUT_LOG] = path;
    cfg->log_sample = 2;
}

static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
static const char missing[] = "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n";

/* Four requests on one connection: answered 200, 404, 200, then failed as
 * reset; the log closed. Returns the lines written. */
static uint64_t four(struct fix *f, void (*tweak)(struct config *))
{
    struct conn *c;
    uint64_t written = 0, dropped = 1;
    int failed = 1, k;
    c = fix_start(f, "/logged", &session_http1, 4, tweak);
    CHECK(f->w.logging && f->pl.log_line_max > 400);
    reqlog_header(&f->lg, 1700000000.25);
    for (k = 0; k < 3; k++) {
        const char *a = k == 1 ? missing : ok;
        if (k)
            conn_take(c, clock_ns(), clock_ns());
        CHECK(c->sess->read(c, a, strlen(a), clock_ns()) == 1);
    }
    conn_take(c, clock_ns(), clock_ns());
    conn_fail(c, ERR_RESET, ECONNRESET, NULL, clock_ns());
    CHECK(FIX_DONE(f) == 3 && FIX_ERRORS(f) == 1);
    reqlog_flush(&f->w);
    reqlog_close(&f->lg, &written, &dropped, &failed);
    CHECK(dropped == 0 && failed == 0);
    return written;
}

/* The file's lines, into buf (n bytes); how many. */
static int lines(char *buf, size_t n)
{
    FILE *fp = fopen(path, "r");
    size_t r = fp ? fread(buf, 1, n - 1, fp) : 0;
    int k = 0;
    size_t i;
    if (fp)
        fclose(fp);
    buf[r] = '\0';
    for (i = 0; i < r; i++)
        k += buf[i] == '\n';
    return k;
}

static void json_lines(void)
{
    struct fix f;
    char buf[8192], *line, *save = NULL;
    int k = 0;
    size_t req_len;
    snprintf(path, sizeof(path), "/tmp/rafale_test_reqlog_%d.jsonl", (int)getpid());
    CHECK(four(&f, log_to) == 4);
    req_len = f.pl.targets[0].len;
    CHECK(lines(buf, sizeof(buf)) == 5);
    CHECK(strncmp(buf, "{\"rafale_log\": 1, \"start_unix_s\": 1700000000.250000}\n", 53) == 0);
    for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), k++) {
        json_error_t e;
        json_t *j = json_loads(line, 0, &e);
        CHECKF(j != NULL, "line %d: %s", k, e.text);
        if (j == NULL || k == 0) {
            json_decref(j);
            continue;
        }
        CHECK(strstr(json_string_value(json_object_get(j, "target")), "/logged") != NULL);
        CHECK(strcmp(json_string_value(json_object_get(j, "method")), "GET") == 0);
        CHECK(json_integer_value(json_object_get(j, "bytes_out")) == (json_int_t)req_len);
        CHECK(json_integer_value(json_object_get(j, "conn")) == 0 && json_is_null(json_object_get(j, "due_us")));
        if (k == 4) { /* the reset */
            CHECK(json_is_null(json_object_get(j, "status")) && json_is_null(json_object_get(j, "ttfb_us")));
            CHECK(strcmp(json_string_value(json_object_get(j, "error")), "reset") == 0);
        } else {
            CHECK(json_integer_value(json_object_get(j, "status")) == (k == 2 ? 404 : 200));
            CHECK(json_is_null(json_object_get(j, "error")));
            CHECK(json_integer_value(json_object_get(j, "bytes_in")) ==
                  (json_int_t)(k == 2 ? sizeof(missing) : sizeof(ok)) - 1);
        }
        json_decref(j);
    }
    CHECK(k == 5);
    fix_free(&f);
    unlink(path);
}

static void csv_sampled(void)
{
    struct fix f;
    char buf[8192];
    snprintf(path, sizeof(path), "/tmp/rafale_test_reqlog_%d.csv", (int)getpid());
    /* One in two: the first and the third. */
    CHECK(four(&f, log_sampled) == 2);
    CHECK(lines(buf, sizeof(buf)) == 4);
    CHECKF(strncmp(buf, "# rafale request log, start_unix_s=1700000000.250000\nt_us,target,method,status,error,", 84) == 0,
           "%s", buf);
    CHECK(strstr(buf, "\",GET,200,,") != NULL && strstr(buf, ",404,") == NULL && strstr(buf, "reset") == NULL);
    fix_free(&f);
    unlink(path);
}

static void fifo_without_reader(void)
{
    struct config cfg;
    struct reqlog lg;
    char err[256], want[160];
    snprintf(path, sizeof(path), "/tmp/rafale_test_reqlog_%d.fifo", (int)getpid());
    CHECK(mkfifo(path, 0600) == 0);
    config_defaults(&cfg);
    cfg.out[OUT_LOG] = path;
    CHECK(reqlog_open(&lg, &cfg, 1, err, sizeof(err)) == -1);
    snprintf(want, sizeof(want), "--log: cannot write '%s': a pipe with no reader", path);
    CHECKF(strcmp(err, want) == 0, "%s", err);
    config_free(&cfg);
    unlink(path);
}

int main(void)
{
    T_RUN(json_lines);
    T_RUN(csv_sampled);
    T_RUN(fifo_without_reader);
    T_END("test_reqlog");
}

/* report_load_server: a saved "server" object read back: as written by
 * report_json_server (its figures, the process tree, the memory timeline,
 * when /proc/PID/io was read); an older result's pss_own figures each put
 * under its own name (alone, the kernel's PSS); a note when none was
 * recorded; and each mistake refused in one line naming the field. */
#include "report.h"
#include "report_load.h"
#include "jread.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

static json_t *written(const struct monitor_result *m)
{
    char *text = NULL;
    size_t len;
    json_t *j;
    FILE *f = open_memstream(&text, &len);
    report_json_server(f, m, 1000);
    fclose(f);
    j = json_loads(text, 0, NULL);
    CHECKF(j != NULL, "%s", text);
    free(text);
    return j;
}

static int load(json_t *o, struct monitor_result *m, char *err, size_t n)
{
    struct jc c = { "s.json", err, n, 0, "" };
    err[0] = '\0';
    memset(m, 0, sizeof(*m));
    report_load_server(&c, m, o);
    return c.failed ? -1 : 0;
}

static void as_written(void)
{
    struct monitor_result m, back;
    struct monitor_proc procs[2];
    struct monitor_point pts[3];
    char err[512];
    json_t *o;
    uint32_t i;
    memset(&m, 0, sizeof(m));
    memset(procs, 0, sizeof(procs));
    memset(pts, 0, sizeof(pts));
    m.pid = 77;
    m.cpu_s = 3.5;
    m.has_pss = 1;
    m.pss_peak_bytes = 30 << 20;
    m.rss_peak_bytes = 50 << 20;
    m.processes = 2;
    m.threads = 5;
    m.has_syscw = m.has_wchar = m.has_io = 1;
    m.syscw = 12;
    m.wchar = 3456;
    m.write_bytes = 4096;
    m.io_begin_s[0] = 1700000000.25;
    m.io_begin_s[1] = 1700000000.5;
    m.io_end_s[0] = 1700000010.25;
    m.io_end_s[1] = 1700000010.5;
    snprintf(m.pss_note, sizeof(m.pss_note), "not measured as if alone: not root");
    procs[0].pid = 77, procs[0].ppid = 1;
    procs[1].pid = 78, procs[1].ppid = 77, procs[1].exited = 1, procs[1].cpu_s = 1.25;
    snprintf(procs[0].command, sizeof(procs[0].command), "nginx: master");
    snprintf(procs[1].command, sizeof(procs[1].command), "nginx: worker \"1\"");
    for (i = 0; i < 3; i++)
        pts[i].t_s = i, pts[i].rss_bytes = (uint64_t)(i + 1) << 20, pts[i].processes = 2;
    m.procs = procs, m.nprocs = 2, m.series = pts, m.npoints = 3;
    o = written(&m);
    CHECKF(load(o, &back, err, sizeof(err)) == 0, "%s", err);
    CHECK(back.pid == 77 && back.cpu_s == 3.5 && back.has_pss && back.pss_peak_bytes == 30 << 20);
    CHECK(back.processes == 2 && back.threads == 5 && back.syscw == 12 && back.wchar == 3456 && back.write_bytes == 4096);
    CHECK(back.io_begin_s[0] == 1700000000.25 && back.io_end_s[1] == 1700000010.5);
    CHECK(strcmp(back.pss_note, "not measured as if alone: not root") == 0 && back.has_alone == 0);
    CHECK(back.nprocs == 2 && back.procs[1].pid == 78 && back.procs[1].ppid == 77 && back.procs[1].exited &&
          back.procs[1].cpu_s == 1.25 && strcmp(back.procs[1].command, "nginx: worker \"1\"") == 0);
    CHECK(back.npoints == 3 && back.series[2].rss_bytes == 3 << 20 && back.series[2].t_s == 2 &&
          back.series[1].processes == 2);
    monitor_result_free(&back);
    json_decref(o);
}

/* Before the two measures had names of their own: pss_own. */
static void older_pss_own(void)
{
    struct monitor_result back;
    char err[512];
    json_t *o = json_pack("{s:f, s:b, s:b, s:i, s:i, s:i, s:[{s:i, s:i}], s:[{s:f, s:i}]}", "cpu_s", 1.0, "has_pss", 1,
                          "pss_own", 1, "pss_peak_bytes", 9000, "pss_mean_bytes", 8000, "pss_sys_peak_bytes", 7000,
                          "tree", "pid", 5, "pss_peak_bytes", 600, "memory_timeline", "t_s", 0.0, "pss_bytes", 500);
    CHECKF(load(o, &back, err, sizeof(err)) == 0, "%s", err);
    CHECK(back.has_alone == 1 && back.alone_peak_bytes == 9000 && back.alone_mean_bytes == 8000);
    CHECK(back.pss_peak_bytes == 7000 && back.pss_mean_bytes == 0);
    CHECK(back.nprocs == 1 && back.procs[0].alone_peak_bytes == 600 && back.procs[0].pss_peak_bytes == 0);
    CHECK(back.npoints == 1 && back.series[0].alone_bytes == 500 && back.series[0].pss_bytes == 0);
    /* No note was saved: one says so. */
    CHECK(strcmp(back.pss_note, "PSS not recorded") == 0);
    monitor_result_free(&back);
    /* has_alone given: pss_own is not read as the older meaning. */
    json_object_set_new(o, "has_alone", json_false());
    CHECKF(load(o, &back, err, sizeof(err)) == 0, "%s", err);
    CHECK(back.has_alone == 0 && back.pss_peak_bytes == 9000 && back.procs[0].pss_peak_bytes == 600);
    monitor_result_free(&back);
    json_decref(o);
}

static const char *refusal(json_t *o)
{
    static char err[512];
    struct monitor_result back;
    if (load(o, &back, err, sizeof(err)) == 0)
        snprintf(err, sizeof(err), "(read)");
    monitor_result_free(&back);
    json_decref(o);
    return err;
}

#define REFUSED(o, want)                                                                                               \
    do {                                                                                                               \
        const char *e_ = refusal(o);                                                                                   \
        CHECKF(strcmp(e_, want) == 0, "'%s'", e_);                                                                     \
    } while (0)

static void mistakes_refused(void)
{
    REFUSED(json_pack("{}"), "s.json: server.cpu_s: missing");
    REFUSED(json_pack("{s:f}", "cpu_s", -1.0), "s.json: server.cpu_s: -1 is out of range (0 to 1e+09)");
    REFUSED(json_pack("{s:f, s:[f,f,f]}", "cpu_s", 1.0, "io_read_unix_s", 1.0, 2.0, 3.0),
            "s.json: server.io_read_unix_s: not four times");
    REFUSED(json_pack("{s:f, s:[f,f,f,s]}", "cpu_s", 1.0, "io_read_unix_s", 1.0, 2.0, 3.0, "x"),
            "s.json: server.io_read_unix_s: not a time");
    REFUSED(json_pack("{s:f, s:[{s:i}, i]}", "cpu_s", 1.0, "tree", "pid", 1, 7), "s.json: server.tree[1]: not an object");
    REFUSED(json_pack("{s:f, s:[{s:i}]}", "cpu_s", 1.0, "tree", "pid", -3),
            "s.json: server.tree[0].pid: -3 is out of range (0 to 2.14748e+09)");
    REFUSED(json_pack("{s:f, s:[{s:i}]}", "cpu_s", 1.0, "memory_timeline", "rss_bytes", 5),
            "s.json: server.memory_timeline[0].t_s: missing");
    REFUSED(json_pack("{s:f, s:i}", "cpu_s", 1.0, "processes", 2), "(read)");
}

int main(void)
{
    T_RUN(as_written);
    T_RUN(older_pss_own);
    T_RUN(mistakes_refused);
    T_END("test_report_load_server");
}

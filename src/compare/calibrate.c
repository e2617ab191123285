/* calibrate.c - this machine's reference: rafale serve measured by rafale,
 * through compare (the same start, pinning, rounds and intervals), with a
 * compare file written here, always the same. */
#include "calibrate.h"
#include "err.h"
#include "jread.h"
#include "proc.h"
#include "report.h"
#include "report_load.h"
#include "version.h"

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int calibrate_path(char *buf, size_t len)
{
    const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
    int n;
    if (x && x[0] == '/')
        n = snprintf(buf, len, "%s/rafale/calibration.json", x);
    else if (h && h[0] == '/')
        n = snprintf(buf, len, "%s/.cache/rafale/calibration.json", h);
    else
        return -1;
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* A port free on 127.0.0.1 now (the kernel's pick). */
static int free_port(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;
    if (fd < 0)
        return -1;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

static void cpus_text(const int *cpus, int n, char *buf, size_t len)
{
    size_t at = 0;
    int i;
    buf[0] = '\0';
    for (i = 0; i < n && at + 12 < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%d", i ? "," : "", cpus[i]);
}

static int write_compare_file(const char *path, const char *self, int port, int threads, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        err_set(err, errlen, NULL, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    /* The workload of CALIBRATE_WORKLOAD. */
    fprintf(f, "[settings]\nrepeat = 3\nwarmup = 500ms\nduration = 2s\nconnections = 16\nsame = no\nfindings = no\n\n"
               "[server rafale-serve]\nstart = exec '%s' serve --listen 127.0.0.1:%d --threads %d\n"
               "url = http://127.0.0.1:%d\n\n[workload reference]\npath = /\n",
            self, port, threads, port);
    if (fclose(f) != 0) {
        err_set(err, errlen, NULL, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int calibrate_run(const atomic_int *stop, compare_log_fn log, void *arg, struct machine_ref *out, char *err,
                  size_t errlen)
{
    struct compare_settings set;
    struct compare_file cf;
    struct compare_result res;
    char self[4096], path[64], sv[160], cl[160];
    int cpus[CMP_MAX_CPUS], ncpus = proc_cpus_allowed(cpus, CMP_MAX_CPUS), port, fd, rc = -1;
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    const struct compare_cell *c;

    memset(out, 0, sizeof(*out));
    memset(&cf, 0, sizeof(cf));
    memset(&res, 0, sizeof(res));
    if (n <= 0 || (size_t)n >= sizeof(self) - 1) {
        err_set(err, errlen, NULL, "cannot find rafale's own program (/proc/self/exe)");
        return -1;
    }
    self[n] = '\0';
    if (strchr(self, '\'')) {
        err_set(err, errlen, NULL, "rafale's path has a quote in it (%s): run it from another place", self);
        return -1;
    }
    if ((port = free_port()) < 0) {
        err_set(err, errlen, NULL, "no free port on 127.0.0.1: %s", strerror(errno));
        return -1;
    }
    /* As the compare will pin (pin = auto), to give rafale serve a thread
     * per CPU it gets. */
    compare_settings_defaults(&set);
    compare_file_pin_auto(&set);
    snprintf(path, sizeof(path), "/tmp/rafale-calibrate-XXXXXX");
    if ((fd = mkstemp(path)) < 0) {
        err_set(err, errlen, NULL, "cannot make a file in /tmp: %s", strerror(errno));
        return -1;
    }
    close(fd);
    if (write_compare_file(path, self, port, set.nserver_cpus ? set.nserver_cpus : 1, err, errlen) != 0 ||
        compare_file_parse(path, NULL, &cf, err, errlen) != 0) {
        unlink(path);
        goto out;
    }
    unlink(path);
    free(cf.file);
    cf.file = strdup("rafale calibrate");
    if (compare_rounds(&cf, stop, log, arg, &res, err, errlen) != 0)
        goto out;
    c = compare_cell_at(&res, 0, 0);
    if (res.interrupted) {
        err_set(err, errlen, NULL, "interrupted");
        goto out;
    }
    if (res.failed[0] || c->nruns == 0 || c->invalid) {
        err_set(err, errlen, NULL, "rafale serve did not give a result: %s",
                res.failed[0] ? res.failure[0] : "no valid run");
        goto out;
    }
    out->known = 1;
    out->when_unix_s = (double)time(NULL);
    machine_read(&out->m, RAFALE_VERSION);
    snprintf(out->workload, sizeof(out->workload), "%s", CALIBRATE_WORKLOAD);
    if (cf.set.nserver_cpus && cf.set.nclient_cpus) {
        cpus_text(cf.set.server_cpus, cf.set.nserver_cpus, sv, sizeof(sv));
        cpus_text(cf.set.client_cpus, cf.set.nclient_cpus, cl, sizeof(cl));
        snprintf(out->pin, sizeof(out->pin), "rafale serve on CPU %.40s, rafale on CPU %.40s", sv, cl);
    } else {
        snprintf(out->pin, sizeof(out->pin), "not pinned (one CPU)");
    }
    out->rps = c->rps_median;
    out->rps_ci[0] = c->rps_ci[0];
    out->rps_ci[1] = c->rps_ci[1];
    out->p50_us = hist_percentile(&c->total.h[H_LATENCY], 50) / 1e3;
    out->p99_us = hist_percentile(&c->total.h[H_LATENCY], 99) / 1e3;
    rc = 0;
out:
    /* compare pinned this process to its client CPUs: the caller's run
     * gets back the CPUs it had. */
    if (ncpus > 0)
        proc_pin_self(cpus, ncpus);
    compare_result_free(&res);
    compare_file_free(&cf);
    return rc;
}

static int mkdirs(char *dir)
{
    char *p;
    for (p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
                *p = '/';
                return -1;
            }
            *p = '/';
        }
    return mkdir(dir, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int calibrate_save(const char *path, const struct machine_ref *ref, char *err, size_t errlen)
{
    char dir[4096], tmp[4200], *slash;
    FILE *f;
    snprintf(dir, sizeof(dir), "%s", path);
    if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
        *slash = '\0';
        if (mkdirs(dir) != 0) {
            err_set(err, errlen, NULL, "cannot make %s: %s", dir, strerror(errno));
            return -1;
        }
    }
    snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
    if ((f = fopen(tmp, "w")) == NULL) {
        err_set(err, errlen, NULL, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    fprintf(f, "{\"tool\": \"rafale\", \"calibration\": ");
    report_json_ref(f, ref);
    fprintf(f, "}\n");
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        err_set(err, errlen, NULL, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int calibrate_load(const char *path, struct machine_ref *ref, char *err, size_t errlen)
{
    struct jc c;
    json_t *root = report_load_json(path, err, errlen), *o;
    memset(ref, 0, sizeof(*ref));
    if (root == NULL)
        return -1;
    memset(&c, 0, sizeof(c));
    c.path = path;
    c.err = err;
    c.errlen = errlen;
    if ((o = jread_obj(&c, root, "calibration", 1)) != NULL)
        report_load_ref(&c, o, ref);
    json_decref(root);
    return c.failed || !ref->known ? -1 : 0;
}

int calibrate_get(const atomic_int *stop, compare_log_fn log, void *arg, struct machine_ref *out, char *err,
                  size_t errlen)
{
    struct machine now;
    char path[4096], why[600], line[4400];
    int have = calibrate_path(path, sizeof(path)) == 0;

    machine_read(&now, RAFALE_VERSION);
    if (have && calibrate_load(path, out, why, sizeof(why)) == 0 && machine_same(&out->m, &now)) {
        snprintf(line, sizeof(line), "calibrate: this machine's reference from %s (rafale calibrate measures it again)",
                 path);
        if (log)
            log(line, arg);
        return 0;
    }
    if (log)
        log("calibrate: measuring this machine's reference first (rafale serve, about 8 s)", arg);
    if (calibrate_run(stop, log, arg, out, err, errlen) != 0)
        return -1;
    if (have && calibrate_save(path, out, why, sizeof(why)) != 0 && log) {
        snprintf(line, sizeof(line), "calibrate: warning: not kept: %s", why);
        log(line, arg);
    }
    return 0;
}

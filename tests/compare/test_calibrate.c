/* rafale calibrate's reference kept in the user's cache: where it goes,
 * written (its folders made) and read back whole, a bad file refused in
 * one line, and the stored one used as it is on the machine it was
 * measured on (nothing run again). */
#include "calibrate.h"
#include "version.h"
#include "../t.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

static void where_it_is_kept(void)
{
    char p[128], tiny[8];
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    setenv("HOME", "/home/ada", 1);
    CHECK(calibrate_path(p, sizeof(p)) == 0 && strcmp(p, "/x/cache/rafale/calibration.json") == 0);
    /* A relative XDG_CACHE_HOME is ignored (the XDG rule): HOME's. */
    setenv("XDG_CACHE_HOME", "cache", 1);
    CHECK(calibrate_path(p, sizeof(p)) == 0 && strcmp(p, "/home/ada/.cache/rafale/calibration.json") == 0);
    unsetenv("XDG_CACHE_HOME");
    CHECK(calibrate_path(p, sizeof(p)) == 0 && strcmp(p, "/home/ada/.cache/rafale/calibration.json") == 0);
    CHECK(calibrate_path(tiny, sizeof(tiny)) == -1);
    unsetenv("HOME");
    CHECK(calibrate_path(p, sizeof(p)) == -1);
}

static void reference(struct machine_ref *r)
{
    memset(r, 0, sizeof(*r));
    r->known = 1;
    r->when_unix_s = 1700000000;
    machine_read(&r->m, RAFALE_VERSION);
    snprintf(r->workload, sizeof(r->workload), "%s", CALIBRATE_WORKLOAD);
    snprintf(r->pin, sizeof(r->pin), "rafale serve on CPU 0, rafale on CPU 1");
    r->rps = 123456.5;
    r->rps_ci[0] = 120000;
    r->rps_ci[1] = 125000;
    r->p50_us = 110.25;
    r->p99_us = 480.5;
}

static void saved_and_read_back(void)
{
    struct machine_ref r, back;
    char path[160], err[600];
    reference(&r);
    /* Two folders that do not exist yet. */
    snprintf(path, sizeof(path), "%s/a/b/calibration.json", dir);
    CHECKF(calibrate_save(path, &r, err, sizeof(err)) == 0, "%s", err);
    CHECKF(calibrate_load(path, &back, err, sizeof(err)) == 0, "%s", err);
    CHECK(back.known && back.when_unix_s == 1700000000 && back.rps == 123456.5 && back.rps_ci[0] == 120000 &&
          back.rps_ci[1] == 125000 && back.p50_us == 110.25 && back.p99_us == 480.5);
    CHECK(strcmp(back.workload, CALIBRATE_WORKLOAD) == 0 && strcmp(back.pin, r.pin) == 0);
    CHECK(machine_same(&back.m, &r.m) && strcmp(back.m.kernel, r.m.kernel) == 0);
    /* Written again in place: replaced whole, no temporary file left. */
    r.rps = 2;
    CHECKF(calibrate_save(path, &r, err, sizeof(err)) == 0, "%s", err);
    CHECK(calibrate_load(path, &back, err, sizeof(err)) == 0 && back.rps == 2);
    snprintf(path, sizeof(path), "%s/a/b/calibration.json.%d", dir, (int)getpid());
    CHECK(access(path, F_OK) != 0);
    /* A file where a folder should be: said. */
    snprintf(path, sizeof(path), "%s/a/b/calibration.json/x.json", dir);
    CHECK(calibrate_save(path, &r, err, sizeof(err)) == -1);
    CHECKF(strstr(err, "cannot write ") == err && strstr(err, "Not a directory") != NULL, "%s", err);
}

static void bad_files_refused(void)
{
    struct machine_ref back;
    char path[160], err[600];
    FILE *f;
    snprintf(path, sizeof(path), "%s/bad.json", dir);
    f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("{\"tool\": \"rafale\"}\n", f);
    fclose(f);
    CHECK(calibrate_load(path, &back, err, sizeof(err)) == -1 && !back.known);
    CHECKF(strstr(err, "bad.json: calibration: missing") != NULL && strchr(err, '\n') == NULL, "%s", err);
    f = fopen(path, "w");
    fputs("{\"calibration\": {\"rps\": \"fast\"}}\n", f);
    fclose(f);
    CHECK(calibrate_load(path, &back, err, sizeof(err)) == -1 && !back.known);
    CHECKF(strstr(err, "bad.json: calibration.") != NULL && strchr(err, '\n') == NULL, "%s", err);
    unlink(path);
    CHECK(calibrate_load(path, &back, err, sizeof(err)) == -1 && strstr(err, "bad.json") != NULL);
}

static void log_line(const char *line, void *arg)
{
    snprintf(arg, 600, "%s", line);
}

static void the_stored_reference_used(void)
{
    struct machine_ref r, got;
    char path[160], err[600], said[600] = "";
    /* Stopped at once: should it measure again, it would not run long. */
    atomic_int stop = 1;
    reference(&r);
    setenv("XDG_CACHE_HOME", dir, 1);
    CHECK(calibrate_path(path, sizeof(path)) == 0);
    CHECKF(calibrate_save(path, &r, err, sizeof(err)) == 0, "%s", err);
    CHECKF(calibrate_get(&stop, log_line, said, &got, err, sizeof(err)) == 0, "%s", err);
    CHECK(got.known && got.rps == 123456.5 && got.p99_us == 480.5);
    CHECKF(strstr(said, "calibrate: this machine's reference from ") == said && strstr(said, path) != NULL, "%s", said);
    unlink(path);
    unsetenv("XDG_CACHE_HOME");
}

int main(void)
{
    if (t_mkdir(dir, "calibrate") != 0)
        return 1;
    T_RUN(where_it_is_kept);
    T_RUN(saved_and_read_back);
    T_RUN(bad_files_refused);
    T_RUN(the_stored_reference_used);
    t_rmdir(dir);
    T_END("calibrate");
}

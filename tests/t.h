/* t.h - the smallest test harness that does the job: tests are named
 * functions run with T_RUN, CHECK counts and names the failing case, T_END
 * prints "<name>: N passed, N failed" and exits non-zero on any failure. */
#ifndef RAFALE_T_H
#define RAFALE_T_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int t_pass, t_fail;
static const char *t_case = "main";

#define CHECK(cond) do { \
        if (cond) t_pass++; \
        else { t_fail++; fprintf(stderr, "%s:%d: %s: CHECK(%s) failed\n", __FILE__, __LINE__, t_case, #cond); } \
    } while (0)

#define CHECKF(cond, ...) do { \
        if (cond) t_pass++; \
        else { t_fail++; fprintf(stderr, "%s:%d: %s: CHECK(%s) failed: ", __FILE__, __LINE__, t_case, #cond); \
               fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } \
    } while (0)

/* Runs one named test function. */
#define T_RUN(fn) do { t_case = #fn; fn(); t_case = "main"; } while (0)

/* A fresh folder for a test's files, /tmp/rafale-test-NAME-XXXXXX, into
 * dir; t_rmdir removes it with all it holds. Returns 0 or -1. */
static inline int t_mkdir(char dir[64], const char *name)
{
    snprintf(dir, 64, "/tmp/rafale-test-%s-XXXXXX", name);
    return mkdtemp(dir) ? 0 : -1;
}

static inline void t_rmdir(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

/* Runs fn(arg) with stderr going to a temporary file; what it wrote there
 * into said (n bytes, NUL-terminated). Returns fn's return. */
static inline int t_stderr(int (*fn)(void *), void *arg, char *said, size_t n)
{
    FILE *tmp = tmpfile();
    int keep = dup(2), rc;
    size_t k = 0;
    fflush(stderr);
    if (tmp)
        dup2(fileno(tmp), 2);
    rc = fn(arg);
    fflush(stderr);
    dup2(keep, 2);
    close(keep);
    if (tmp) {
        rewind(tmp);
        k = fread(said, 1, n - 1, tmp);
        fclose(tmp);
    }
    said[k] = '\0';
    return rc;
}

#define T_END(name) do { \
        printf("%s: %d passed, %d failed\n", name, t_pass, t_fail); \
        return t_fail ? 1 : 0; \
    } while (0)

#endif

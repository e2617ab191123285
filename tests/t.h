/* t.h - the smallest test harness that does the job: tests are named
 * functions run with T_RUN, CHECK counts and names the failing case, T_END
 * prints "<name>: N passed, N failed" and exits non-zero on any failure. */
#ifndef RAFALE_T_H
#define RAFALE_T_H

#include <stdio.h>
#include <stdlib.h>

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

#define T_END(name) do { \
        printf("%s: %d passed, %d failed\n", name, t_pass, t_fail); \
        return t_fail ? 1 : 0; \
    } while (0)

#endif

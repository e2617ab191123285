/* t.h - the smallest test harness that does the job: CHECK counts, T_END
 * prints "<name>: N passed, N failed" and exits non-zero on any failure. */
#ifndef RAFALE_T_H
#define RAFALE_T_H

#include <stdio.h>
#include <stdlib.h>

static int t_pass, t_fail;

#define CHECK(cond) do { \
        if (cond) t_pass++; \
        else { t_fail++; fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); } \
    } while (0)

#define CHECKF(cond, ...) do { \
        if (cond) t_pass++; \
        else { t_fail++; fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
               fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } \
    } while (0)

#define T_END(name) do { \
        printf("%s: %d passed, %d failed\n", name, t_pass, t_fail); \
        return t_fail ? 1 : 0; \
    } while (0)

#endif

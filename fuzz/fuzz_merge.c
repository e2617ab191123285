/* fuzz/fuzz_merge.c - libFuzzer entry point for `rafale merge` (`make fuzz`,
 * clang): the input is one to four shard results, JSON documents separated
 * by a NUL byte, read and merged as rafale merge does, and a merge that
 * succeeds is written out as JSON. Saved results are untrusted: nothing may
 * crash, leak, hang or take memory out of proportion to the input (a start
 * time far off, a wrapped offset), and a refusal is one line. */
#include "merge.h"
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    json_t *roots[4];
    const char *names[4] = { "a.json", "b.json", "c.json", "d.json" };
    const char *p = (const char *)data, *end = p + size;
    static struct run_result out; /* 20 KiB of findings: off the stack */
    char err[1024];
    int n = 0, k;

    while (p < end && n < 4) {
        const char *z = memchr(p, '\0', (size_t)(end - p));
        size_t len = z ? (size_t)(z - p) : (size_t)(end - p);
        json_error_t je;
        if ((roots[n] = json_loadb(p, len, 0, &je)) == NULL)
            break;
        n++;
        p += len + 1;
    }
    if (n > 0) {
        err[0] = '\0';
        if (merge_shards(roots, names, n, &out, err, sizeof(err)) == 0) {
            FILE *f = fopen("/dev/null", "w");
            if (f) {
                report_json(f, &out);
                fclose(f);
            }
            result_free(&out);
        } else if (err[0] == '\0' || strchr(err, '\n') != NULL) {
            abort();
        }
    }
    for (k = 0; k < n; k++)
        json_decref(roots[k]);
    return 0;
}

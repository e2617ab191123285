/* pageshare.c - each process's share of the pages a set of processes maps,
 * counted among the set only (see pageshare.h). For each process, its
 * mappings (/proc/PID/maps) and, for each, the pagemap entry of every page
 * (8 bytes: bit 63 present, bits 0-54 the frame number); then a hash of
 * frame -> how many of the set map it, and a second pass adds 1/k of a
 * page per mapping. Linear in the pages mapped; the walk reads the address
 * space, resident or not, so it is bounded (PAGESHARE_MAX_VIRT). */
#include "pageshare.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 64 GiB of address space in all: 128 MiB of pagemap read per sample at
 * most (tens of ms); a JVM reserving more is left to the kernel's PSS. */
#define PAGESHARE_MAX_VIRT (64ull << 30)
#define PM_PRESENT (1ull << 63)
#define PM_PFN ((1ull << 55) - 1)
#define CHUNK 512                /* pagemap entries read at once: 4 KiB */

struct frames {
    uint64_t *pfn;               /* frames of every process, one after another */
    size_t n, cap;
    uint64_t virt_pages;         /* address space walked so far */
    uint64_t present, zero;      /* present pages seen, of which with frame 0 (not readable) */
};

static int push(struct frames *f, uint64_t pfn)
{
    if (f->n == f->cap) {
        size_t c = f->cap ? f->cap * 2 : 65536;
        uint64_t *p = realloc(f->pfn, c * sizeof(*p));
        if (p == NULL)
            return -1;
        f->pfn = p;
        f->cap = c;
    }
    f->pfn[f->n++] = pfn;
    return 0;
}

/* Appends the frames of pid's resident pages. Returns 0 (a process gone
 * adds nothing), -1 out of memory, -2 past the address-space bound. */
static int walk(int pid, struct frames *f, uint64_t page)
{
    char path[64], *line = NULL;
    size_t len = 0;
    uint64_t buf[CHUNK];
    FILE *maps;
    int pm, rc = 0;

    snprintf(path, sizeof(path), "/proc/%d/maps", pid);
    if ((maps = fopen(path, "re")) == NULL)
        return 0;
    snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
    if ((pm = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        fclose(maps);
        return 0;
    }
    while (rc == 0 && getline(&line, &len, maps) > 0) {
        uint64_t lo, hi, at;
        /* The kernel's own pages (vsyscall, vvar) are no process's memory;
         * RSS and PSS leave them out too. */
        if (sscanf(line, "%" SCNx64 "-%" SCNx64, &lo, &hi) != 2 || hi <= lo || strstr(line, "[vsyscall]") ||
            strstr(line, "[vvar"))
            continue;
        f->virt_pages += (hi - lo) / page;
        if (f->virt_pages * page > PAGESHARE_MAX_VIRT) {
            rc = -2;
            break;
        }
        for (at = lo / page; at < hi / page && rc == 0;) {
            size_t want = (size_t)(hi / page - at < CHUNK ? hi / page - at : CHUNK), i;
            ssize_t got = pread(pm, buf, want * sizeof(uint64_t), (off_t)(at * sizeof(uint64_t)));
            if (got <= 0)
                break; /* the process left, or the mapping with it */
            for (i = 0; i < (size_t)got / sizeof(uint64_t); i++)
                if (buf[i] & PM_PRESENT) {
                    f->present++;
                    if ((buf[i] & PM_PFN) == 0)
                        f->zero++;
                    else if (push(f, buf[i] & PM_PFN) != 0)
                        rc = -1;
                }
            at += (uint64_t)got / sizeof(uint64_t);
        }
    }
    free(line);
    close(pm);
    fclose(maps);
    return rc;
}

static size_t slot(const uint64_t *keys, size_t mask, uint64_t pfn)
{
    size_t h = (size_t)((pfn * 0x9E3779B97F4A7C15ull) >> 17) & mask;
    while (keys[h] != 0 && keys[h] != pfn)
        h = (h + 1) & mask;
    return h;
}

int pageshare_measure(const int *pids, uint32_t n, uint64_t *share, char *err, size_t errlen)
{
    struct frames f = { 0 };
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), *keys = NULL;
    uint32_t *count = NULL;
    size_t *start = calloc((size_t)n + 1, sizeof(size_t)), cap = 1, mask, k;
    uint32_t i;
    int rc = -1;

    if (start == NULL) {
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    for (i = 0; i < n; i++) {
        int r;
        start[i] = f.n;
        if ((r = walk(pids[i], &f, page)) != 0) {
            err_set(err, errlen, NULL, r == -2 ? "more than 64 GiB of address space to walk" : "out of memory");
            goto out;
        }
    }
    start[n] = f.n;
    if (f.present > 0 && f.zero == f.present) {
        err_set(err, errlen, NULL, "/proc/PID/pagemap gives no frame numbers without root");
        goto out;
    }
    while (cap < 2 * f.n + 2)
        cap *= 2;
    mask = cap - 1;
    keys = calloc(cap, sizeof(*keys));
    count = calloc(cap, sizeof(*count));
    if (keys == NULL || count == NULL) {
        err_set(err, errlen, NULL, "out of memory");
        goto out;
    }
    for (k = 0; k < f.n; k++) {
        size_t h = slot(keys, mask, f.pfn[k]);
        keys[h] = f.pfn[k];
        count[h]++;
    }
    for (i = 0; i < n; i++) {
        double sum = 0;
        for (k = start[i]; k < start[i + 1]; k++)
            sum += 1.0 / (double)count[slot(keys, mask, f.pfn[k])];
        share[i] = (uint64_t)(sum * (double)page + 0.5);
    }
    rc = 0;
out:
    free(keys);
    free(count);
    free(start);
    free(f.pfn);
    return rc;
}

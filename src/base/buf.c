/* buf.c - the growable byte buffer; see buf.h. */
#include "buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int buf_reserve(struct buf *b, size_t more)
{
    if (more > ((size_t)1 << 40) - b->len)
        return -1;
    if (b->len + more > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        char *p;
        while (cap < b->len + more)
            cap *= 2;
        p = realloc(b->p, cap);
        if (p == NULL)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    return 0;
}

int buf_put(struct buf *b, const void *s, size_t n)
{
    if (buf_reserve(b, n) != 0)
        return -1;
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    return 0;
}

int buf_puts(struct buf *b, const char *s)
{
    return buf_put(b, s, strlen(s));
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (buf_reserve(b, 256) != 0)
        return -1;
    va_start(ap, fmt);
    n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    if ((size_t)n >= b->cap - b->len) {
        if (buf_reserve(b, (size_t)n + 1) != 0)
            return -1;
        va_start(ap, fmt);
        vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
    return 0;
}

void buf_shrink(struct buf *b, size_t keep)
{
    if (b->len == 0 && b->cap > keep)
        buf_free(b);
}

void buf_free(struct buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

int buf_read_stream(struct buf *b, FILE *f, size_t max)
{
    size_t start = b->len;
    errno = 0;
    for (;;) {
        size_t got;
        if (buf_reserve(b, 65536) != 0) {
            errno = ENOMEM;
            return -1;
        }
        got = fread(b->p + b->len, 1, b->cap - b->len, f);
        b->len += got;
        if (b->len - start > max) {
            b->len = start;
            errno = EFBIG;
            return -1;
        }
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        /* The read's own reason (EISDIR for a directory), when it gave one. */
        if (errno == 0)
            errno = EIO;
        b->len = start;
        return -1;
    }
    return 0;
}

int buf_read_file(struct buf *b, const char *path, size_t max)
{
    FILE *f = fopen(path, "rb");
    int rc, e;
    if (f == NULL)
        return -1;
    rc = buf_read_stream(b, f, max);
    e = errno;
    fclose(f);
    errno = e;
    return rc;
}

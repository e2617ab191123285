/* The growable byte buffer: appends keep every byte in order, printf
 * appends, shrink gives memory back only when empty, a file is read whole
 * or refused past its cap (EFBIG). */
#include "buf.h"
#include "../t.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void appends_in_order(void)
{
    struct buf b = { 0 };
    int i;
    CHECK(buf_put(&b, "ab", 2) == 0 && buf_puts(&b, "cd") == 0 && buf_printf(&b, "-%d-%s", 42, "x") == 0);
    CHECK(b.len == 9 && memcmp(b.p, "abcd-42-x", 9) == 0);
    /* Past any first capacity: 10 000 appends, every byte where it belongs. */
    for (i = 0; i < 10000; i++)
        CHECK(buf_printf(&b, "%d,", i % 10) == 0);
    CHECK(b.len == 9 + 20000 && b.cap >= b.len && b.p[9] == '0' && b.p[9 + 2 * 9999] == '9' && b.p[b.len - 1] == ',');
    buf_free(&b);
    CHECK(b.p == NULL && b.len == 0 && b.cap == 0);
    /* Usable again after a free. */
    CHECK(buf_puts(&b, "again") == 0 && b.len == 5 && memcmp(b.p, "again", 5) == 0);
    buf_free(&b);
}

static void shrink_only_when_empty(void)
{
    struct buf b = { 0 };
    char big[4096];
    memset(big, 'z', sizeof(big));
    CHECK(buf_put(&b, big, sizeof(big)) == 0);
    size_t cap = b.cap;
    buf_shrink(&b, 64); /* not empty: kept as it is */
    CHECK(b.cap == cap && b.len == sizeof(big) && b.p[4095] == 'z');
    b.len = 0;
    buf_shrink(&b, 64); /* empty and grown past 64: given back */
    CHECK(b.cap <= 64);
    CHECK(buf_puts(&b, "ok") == 0 && b.len == 2 && memcmp(b.p, "ok", 2) == 0);
    buf_free(&b);
}

static void file_whole_or_refused(void)
{
    char path[] = "/tmp/rafale-test-buf-XXXXXX";
    int fd = mkstemp(path);
    struct buf b = { 0 };
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK(write(fd, "0123456789", 10) == 10);
    close(fd);
    CHECK(buf_puts(&b, ">") == 0 && buf_read_file(&b, path, 10) == 0);
    CHECK(b.len == 11 && memcmp(b.p, ">0123456789", 11) == 0); /* appended after what was there */
    buf_free(&b);
    errno = 0;
    CHECK(buf_read_file(&b, path, 9) == -1 && errno == EFBIG);
    buf_free(&b);
    unlink(path);
    errno = 0;
    CHECK(buf_read_file(&b, path, 100) == -1 && errno == ENOENT);
    buf_free(&b);
}

int main(void)
{
    T_RUN(appends_in_order);
    T_RUN(shrink_only_when_empty);
    T_RUN(file_whole_or_refused);
    T_END("test_buf");
}

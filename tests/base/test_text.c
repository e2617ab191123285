/* UTF-8 checking and terminal scrubbing of bytes from outside. */
#include "text.h"
#include "../t.h"

#include <string.h>

static void utf8(void)
{
    CHECK(text_utf8_len("a", 1) == 1);
    CHECK(text_utf8_len("\xc3\xa9", 2) == 2);
    CHECK(text_utf8_len("\xe2\x82\xac", 3) == 3);
    CHECK(text_utf8_len("\xf0\x9f\x98\x80", 4) == 4);
    CHECK(text_utf8_len("\xff\x80\x80", 3) == 0);     /* not a start byte */
    CHECK(text_utf8_len("\x80", 1) == 0);             /* a continuation alone */
    CHECK(text_utf8_len("\xed\xa0\x80", 3) == 0);     /* a surrogate */
    CHECK(text_utf8_len("\xe0\x80\xaf", 3) == 0);     /* overlong '/' */
    CHECK(text_utf8_len("\xc0\xaf", 2) == 0);         /* overlong '/' */
    CHECK(text_utf8_len("\xf4\x90\x80\x80", 4) == 0); /* past U+10FFFF */
    CHECK(text_utf8_len("\xc3\xa9", 1) == 0);         /* cut: the second byte is not there */
    CHECK(text_utf8_len("\xe2\x82", 2) == 0);
}

static void cut(void)
{
    CHECK(text_cut("abc", 3, 10) == 3);
    CHECK(text_cut("ab\xc3\xa9", 4, 3) == 2); /* not inside the é */
    CHECK(text_cut("ab\xc3\xa9x", 5, 4) == 4);
    CHECK(text_cut("\xe2\x82\xac", 3, 2) == 0);
}

static void scrub(void)
{
    char s[64];
    size_t n;
    strcpy(s, "a\x1b]0;pwned\x07z");
    n = text_scrub(s, strlen(s), 0);
    CHECK(n == 12 && strcmp(s, "a?]0;pwned?z") == 0);
    strcpy(s, "l1\nl2\tx\r");
    CHECK(text_scrub(s, strlen(s), 0) == 8 && strcmp(s, "l1\nl2\tx?") == 0);
    strcpy(s, "l1\nl2\tx\r");
    CHECK(text_scrub(s, strlen(s), 1) == 8 && strcmp(s, "l1?l2?x?") == 0);
    /* A C1 CSI as UTF-8, a stray CSI byte, bytes that are not UTF-8; é kept. */
    strcpy(s, "a\xc2\x9b" "b\x9b" "c\xff\xed\xa0\x80\xc3\xa9\x7f");
    n = text_scrub(s, strlen(s), 1);
    CHECKF(n == 12 && strcmp(s, "a?b?c????\xc3\xa9?") == 0, "%zu '%s'", n, s);
    memcpy(s, "a\0b", 3);
    CHECK(text_scrub(s, 3, 1) == 3 && strcmp(s, "a?b") == 0);
}

/* Where the first byte text_scrub would change stands. */
static void safe_len(void)
{
    CHECK(text_safe_len("plain", 5) == 5);
    CHECK(text_safe_len("caf\xc3\xa9 \xe2\x86\x92", 9) == 9);
    CHECK(text_safe_len("pre\x1b[31m", 8) == 3);
    CHECK(text_safe_len("a\tb", 3) == 1);
    CHECK(text_safe_len("a\xc2\x9b", 3) == 1);  /* C1 CSI */
    CHECK(text_safe_len("ab\xff", 3) == 2);
    CHECK(text_safe_len("a\x7f", 2) == 1);
    CHECK(text_safe_len("a\0b", 3) == 1);
}

int main(void)
{
    T_RUN(utf8);
    T_RUN(cut);
    T_RUN(scrub);
    T_RUN(safe_len);
    T_END("text");
}

/* report_json_str.c - a JSON value as every writer of the result prints
 * it: a string (UTF-8, escaped) and a number (null when not finite). Apart
 * from report_json.c so that the writers it calls (report_replay.c) may
 * use them without a circle. */
#include "report.h"
#include "text.h"

#include <math.h>
#include <string.h>

void report_json_str(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t left = strlen(s);
    fputc('"', f);
    while (*p) {
        size_t n;
        if (*p == '"' || *p == '\\') {
            fprintf(f, "\\%c", *p);
            n = 1;
        } else if (*p < 0x20 || *p == 0x7f) {
            fprintf(f, "\\u%04x", *p);
            n = 1;
        } else if ((n = text_utf8_len((const char *)p, left)) == 0) {
            /* JSON is UTF-8 (RFC 8259 §8.1): a byte that is not (a Latin-1
             * name, a server's bytes) becomes U+FFFD. */
            fputs(TEXT_REPLACEMENT, f);
            n = 1;
        } else {
            fwrite(p, 1, n, f);
        }
        p += n;
        left -= n;
    }
    fputc('"', f);
}

const char *report_json_num(char *buf, const char *fmt, double v)
{
    if (!isfinite(v))
        return "null";
    snprintf(buf, REPORT_JNUM_MAX, fmt, v);
    return buf;
}

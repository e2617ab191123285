/* html.c - escaped HTML output; see html.h. */
#include "html.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

/* At most n bytes of s, escaped. */
static void text_n(FILE *f, const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n && s[i]; i++) {
        switch (s[i]) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(s[i], f);
        }
    }
}

void html_text(FILE *f, const char *s)
{
    text_n(f, s ? s : "", SIZE_MAX);
}

void html_printf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    const char *p = fmt;

    va_start(ap, fmt);
    while (*p) {
        const char *start = p, *q;
        char spec[32], out[128];
        int star_w = 0, star_p = 0, w = 0, prec = -1, longs = 0;
        size_t sl;
        if (*p != '%') {
            const char *pct = strchr(p, '%');
            size_t n = pct ? (size_t)(pct - p) : strlen(p);
            fwrite(p, 1, n, f); /* the format is the markup */
            p += n;
            continue;
        }
        q = p + 1;
        if (*q == '%') {
            fputc('%', f);
            p = q + 1;
            continue;
        }
        while (*q && strchr("-+ #0", *q))
            q++;
        if (*q == '*') {
            star_w = 1;
            q++;
        }
        while (*q >= '0' && *q <= '9')
            q++;
        if (*q == '.') {
            q++;
            if (*q == '*') {
                star_p = 1;
                q++;
            } else {
                prec = 0;
                while (*q >= '0' && *q <= '9')
                    prec = prec * 10 + (*q++ - '0');
            }
        }
        while (*q && strchr("hlzjtL", *q)) {
            if (*q == 'l')
                longs++;
            q++;
        }
        sl = (size_t)(q - start) + 1;
        if (sl >= sizeof(spec) || *q == '\0')
            break; /* not a conversion: the compiler's format check says so first */
        memcpy(spec, start, sl);
        spec[sl] = '\0';
        if (star_w)
            w = va_arg(ap, int);
        if (star_p)
            prec = va_arg(ap, int);
        switch (*q) {
        case 's':
            text_n(f, va_arg(ap, const char *), prec >= 0 ? (size_t)prec : SIZE_MAX);
            break;
        case 'c': {
            char c = (char)va_arg(ap, int);
            text_n(f, &c, 1);
            break;
        }
        case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
#define NUM(T) (star_w && star_p ? snprintf(out, sizeof(out), spec, w, prec, va_arg(ap, T)) \
              : star_w ? snprintf(out, sizeof(out), spec, w, va_arg(ap, T)) \
              : star_p ? snprintf(out, sizeof(out), spec, prec, va_arg(ap, T)) \
              : snprintf(out, sizeof(out), spec, va_arg(ap, T)))
            if (strchr(spec, 'z'))
                NUM(size_t);
            else if (longs >= 2)
                NUM(long long);
            else if (longs == 1)
                NUM(long);
            else
                NUM(int);
            fputs(out, f);
            break;
        case 'f': case 'F': case 'e': case 'E': case 'g': case 'G':
            if (strchr(spec, 'L'))
                NUM(long double);
            else
                NUM(double);
#undef NUM
            fputs(out, f);
            break;
        default:
            va_end(ap);
            return; /* %p, %n: never used in markup */
        }
        p = q + 1;
    }
    va_end(ap);
}

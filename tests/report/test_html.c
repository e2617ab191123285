/* html: the one way HTML is written: html_text escapes & < > " ' and
 * nothing else; html_printf writes its format as markup and every %s and
 * %c argument as escaped text (cut by a precision before escaping, so an
 * entity is never split), and its numbers exactly as printf would. */
#include "html.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

/* What html_printf or html_text wrote, in a static buffer. */
static char out[1024];
static FILE *open_out(void)
{
    return fmemopen(out, sizeof(out), "w");
}

static void text_escaped(void)
{
    FILE *f = open_out();
    html_text(f, "a&b<c>d\"e'f/g\\h\xc3\xa9");
    html_text(f, NULL); /* nothing */
    html_text(f, "");
    fclose(f);
    CHECKF(strcmp(out, "a&amp;b&lt;c&gt;d&quot;e&#39;f/g\\h\xc3\xa9") == 0, "'%s'", out);
}

static void printf_escapes_text_only(void)
{
    FILE *f = open_out();
    html_printf(f, "<td class=\"%s\">%s</td>%c", "x\"onmouseover=\"y", "<script>&", '<');
    fclose(f);
    CHECKF(strcmp(out, "<td class=\"x&quot;onmouseover=&quot;y\">&lt;script&gt;&amp;</td>&lt;") == 0, "'%s'", out);
}

static void printf_numbers_as_printf(void)
{
    char want[256];
    FILE *f = open_out();
    long long big = -1234567890123LL;
    size_t z = 42;
    html_printf(f, "%d|%5u|%-4d|%x|%ld|%lld|%llu|%zu|%.2f|%8.3f|%e|%g|%*d|%.*f|100%%", -7, 12u, 3, 255u, -9L, big,
                18446744073709551615ULL, z, 3.14159, 2.5, 12345.678, 0.0001, 6, 42, 1, 9.96);
    fclose(f);
    snprintf(want, sizeof(want), "%d|%5u|%-4d|%x|%ld|%lld|%llu|%zu|%.2f|%8.3f|%e|%g|%*d|%.*f|100%%", -7, 12u, 3, 255u,
             -9L, big, 18446744073709551615ULL, z, 3.14159, 2.5, 12345.678, 0.0001, 6, 42, 1, 9.96);
    CHECKF(strcmp(out, want) == 0, "'%s' for '%s'", out, want);
}

/* A precision cuts the text, then it is escaped: "a<b" cut to 2 is "a&lt;",
 * never half an entity. */
static void precision_cuts_before_escaping(void)
{
    FILE *f = open_out();
    html_printf(f, "[%.2s][%.*s][%.0s][%.9s]", "a<bc", 3, "&&&&", "<gone>", "short");
    fclose(f);
    CHECKF(strcmp(out, "[a&lt;][&amp;&amp;&amp;][][short]") == 0, "'%s'", out);
}

/* The shared CSS is a format: its %% is one percent sign. */
static void css_through_printf(void)
{
    FILE *f = open_out();
    html_printf(f, HTML_CSS);
    fclose(f);
    CHECK(strstr(out, "max-width:100%;") != NULL && strstr(out, "%%") == NULL && strstr(out, "&") == NULL);
}

int main(void)
{
    T_RUN(text_escaped);
    T_RUN(printf_escapes_text_only);
    T_RUN(printf_numbers_as_printf);
    T_RUN(precision_cuts_before_escaping);
    T_RUN(css_through_printf);
    T_END("test_html");
}

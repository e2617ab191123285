/* html.h - the only way HTML is written: every string that reaches a page
 * goes through here and is escaped, so no field read from a server, a compare
 * file or a saved result can inject markup. The files that write HTML
 * (report_html.c, report_compare_html.c, svg.c) call nothing else to write
 * (tests/integration.py checks it). */
#ifndef RAFALE_HTML_H
#define RAFALE_HTML_H

#include <stdio.h>

/* printf whose format is the markup (a literal) and whose every %s (and %c)
 * argument is text, escaped (& < > " '). Numbers are written as printf
 * would. */
void html_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes s as escaped text. */
void html_text(FILE *f, const char *s);

/* The CSS both report pages share (a format string for html_printf: %%
 * for a percent sign); each adds its own few rules after it. */
#define HTML_CSS \
    "body{font-family:sans-serif;margin:24px auto;color:#222}" \
    "h1{font-size:22px}h2{font-size:17px;margin-top:28px}" \
    "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}" \
    "th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}" \
    "svg{display:block;margin:12px 0;max-width:100%%;height:auto}" \
    ".findings{border:2px solid #d80;background:#fff8e8;padding:4px 14px;margin:12px 0}" \
    ".findings li{margin:6px 0}.findings .adv{color:#555}"

#endif

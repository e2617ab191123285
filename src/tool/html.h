/* html.h - the only way HTML is written: every string that reaches a page
 * goes through here and is escaped, so no field read from a server, a plan
 * or a saved result can inject markup. The files that write HTML
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

#endif

/* manpage.c - the man page's option lists, generated from the option table
 * so that rafale.1 names every option, with the table's short name and
 * placeholder, and no option the table does not have. make man
 * (scripts/man.py) puts each list in its place in rafale.1, keeping the
 * text written there under each heading; an option new to the page gets
 * its help line from the table. */
#include "manpage.h"
#include "cmd.h"
#include "opt.h"

#include <ctype.h>
#include <string.h>

/* n bytes of s as roff text: a backslash escaped, and the dashes of a word
 * that begins with one (an option, -n or --max-repeat; - for stdout) as
 * minus signs, which copy as typed; a hyphen within a word (keep-alive)
 * stays one. */
static void roff(FILE *f, const char *s, size_t n)
{
    size_t i;
    int option = 0;
    for (i = 0; i < n; i++) {
        if (s[i] == '-' && (i == 0 || !isalnum((unsigned char)s[i - 1])))
            option = 1;
        else if (isspace((unsigned char)s[i]))
            option = 0;
        if (s[i] == '\\')
            fputs("\\e", f);
        else if (s[i] == '-' && option)
            fputs("\\-", f);
        else
            fputc(s[i], f);
    }
}

/* A value's placeholder: words in capitals (and single letters) in italics,
 * what to fill in; lower-case words in bold, what to type (yes|no, auto);
 * the rest as it is. */
static void placeholder(FILE *f, const char *a)
{
    while (*a) {
        size_t w = 0, k;
        int typed;
        while (isalnum((unsigned char)a[w]) || a[w] == '_')
            w++;
        if (w == 0) {
            roff(f, a++, 1);
            continue;
        }
        typed = w > 1;
        for (k = 0; k < w; k++)
            typed &= !isupper((unsigned char)a[k]);
        fputs(typed ? "\\fB" : "\\fI", f);
        roff(f, a, w);
        fputs("\\fR", f);
        a += w;
    }
}

/* .TP, the heading (-n, --requests N), and the help as a sentence. */
static void entry(FILE *f, const struct opt_info *o)
{
    const char *h, *nl;
    char name[64];
    fputs(".TP\n", f);
    if (o->short_name)
        fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
    snprintf(name, sizeof(name), "--%s", o->name);
    fputs("\\fB", f);
    roff(f, name, strlen(name));
    fputs("\\fR", f);
    if (o->arg) {
        fputc(' ', f);
        placeholder(f, o->arg);
    }
    fputc('\n', f);
    for (h = o->help; h; h = nl ? nl + 1 : NULL) {
        size_t n;
        nl = strchr(h, '\n');
        n = nl ? (size_t)(nl - h) : strlen(h);
        if (*h == '.' || *h == '\'')
            fputs("\\&", f); /* not a request */
        if (h == o->help && islower((unsigned char)*h)) {
            fputc(toupper((unsigned char)*h), f);
            roff(f, h + 1, n - 1);
        } else {
            roff(f, h, n);
        }
        fputs(nl == NULL && n && h[n - 1] != '.' ? ".\n" : "\n", f);
    }
}

/* The list called key: the shown options of where the run has not (none:
 * 0) in section (any: "*"; none: NULL). Nothing when it is empty. */
static void list(FILE *f, const char *key, unsigned where, unsigned not, const char *section)
{
    size_t i;
    struct opt_info o;
    int any = 0;
    for (i = 0; opt_each(i, &o); i++) {
        if (o.help == NULL || !(o.where & where) || (o.where & not))
            continue;
        if (!section ? o.section != NULL : strcmp(section, "*") && (!o.section || strcmp(o.section, section)))
            continue;
        if (!any)
            fprintf(f, ".\\\" options: %s\n", key);
        any = 1;
        entry(f, &o);
    }
    if (any)
        fputs(".\\\" end of options\n", f);
}

int manpage_options(FILE *f, const struct cmd *all)
{
    size_t i, j, k;
    struct opt_info o, e;
    char key[120];

    /* The run's options by --help's groups, in the table's order; -h and -V. */
    for (i = 0; opt_each(i, &o); i++) {
        int seen = 0;
        if (!(o.where & all[0].where) || o.section == NULL)
            continue;
        for (j = 0; j < i && opt_each(j, &e); j++)
            seen |= (e.where & all[0].where) && e.section && strcmp(e.section, o.section) == 0;
        if (seen)
            continue;
        snprintf(key, sizeof(key), "rafale, %s", o.section);
        list(f, key, all[0].where, 0, o.section);
    }
    list(f, "rafale", all[0].where, 0, NULL);
    /* Each subcommand's own: those of the run (sweep's, --help) are said with the run. */
    for (k = 1; all[k].name; k++) {
        snprintf(key, sizeof(key), "rafale %s", all[k].name);
        list(f, key, all[k].where, all[0].where, "*");
    }
    return ferror(f) ? -1 : 0;
}

/* The man page's option lists from the option table: each shown option of
 * the run once, in its --help group's list, each subcommand's own in its
 * list (the run's options not again), every list closed; headings in roff
 * (option dashes as minus signs, placeholders in italics, words to type
 * in bold), the help a sentence. */
#include "cmd.h"
#include "manpage.h"
#include "opt.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

static const struct cmd rows[] = {
    { "", NULL, "[options] URL...", "load-test", 1, OPT_RUN, "URL", NULL },
    { "sweep", NULL, "sweep [options] URL", "the highest rate", 0, OPT_SWEEP, "URL", NULL },
    { "diff", NULL, "diff BASE NEW", "a regression gate", 0, OPT_DIFF, "JSON file", NULL },
    { NULL, NULL, NULL, NULL, 0, 0, NULL, NULL },
};

/* How many times s stands in text before end. */
static int count_before(const char *text, const char *s, const char *end)
{
    int n = 0;
    for (; (text = strstr(text, s)) != NULL && text < end; text++)
        n++;
    return n;
}

static int count(const char *text, const char *s)
{
    return count_before(text, s, text + strlen(text));
}

static void lists_from_the_table(void)
{
    char *text = NULL, heading[128];
    size_t n = 0, i;
    struct opt_info o;
    FILE *f = open_memstream(&text, &n);
    const char *sweep, *diff;
    CHECK(manpage_options(f, rows) == 0);
    fclose(f);
    CHECK(strstr(text, ".\\\" options: rafale, Load\n.TP\n\\fB\\-n\\fR, \\fB\\-\\-requests\\fR \\fIN\\fR\n"
                       "Stop after N requests ended (completed or failed).\n") == text);
    /* Every list closed, and as many as opened. */
    CHECK(count(text, ".\\\" options: ") == count(text, ".\\\" end of options\n") &&
          count(text, ".\\\" options: ") > 8);
    sweep = strstr(text, ".\\\" options: rafale sweep\n");
    diff = strstr(text, ".\\\" options: rafale diff\n");
    CHECK(sweep && diff && sweep < diff);
    /* Each shown option of the run once in the run's lists (before the
     * subcommands'), every dash of its name a minus sign. */
    for (i = 0; sweep && opt_each(i, &o); i++) {
        size_t k = 0, j;
        if (!o.help || !(o.where & OPT_RUN))
            continue;
        k += (size_t)snprintf(heading, sizeof(heading), "\\fB\\-\\-");
        for (j = 0; o.name[j] && k < sizeof(heading) - 8; j++)
            k += (size_t)snprintf(heading + k, sizeof(heading) - k, o.name[j] == '-' ? "\\-" : "%c", o.name[j]);
        snprintf(heading + k, sizeof(heading) - k, "\\fR");
        CHECKF(count_before(text, heading, sweep) == 1, "--%s", o.name);
    }
    /* A hyphen within a name is an option's dash too; a placeholder of
     * words to type in bold. */
    CHECK(count(text, "\\fB\\-\\-max\\-repeat\\fR") == 0); /* compare's, not in these rows */
    CHECK(strstr(text, "\\fB\\-\\-requests\\-per\\-connection\\fR \\fIN\\fR\n") != NULL);
    CHECK(strstr(text, "\\fB\\-\\-findings\\fR \\fByes\\fR|\\fBno\\fR\n") != NULL);
    /* sweep's own options in its list; the run's it shares, not again. */
    CHECK(strstr(sweep, ".TP\n\\fB\\-\\-start\\fR \\fIR\\fR\n") == sweep + strlen(".\\\" options: rafale sweep\n"));
    CHECK(count(sweep, "\\fB\\-\\-duration\\fR") == 0);
    CHECK(strstr(diff, "\\fB\\-\\-threshold\\fR") != NULL);
    /* Nothing but roff: no raw dash starting an option in a heading. */
    CHECK(strstr(text, "\\fB--") == NULL);
    free(text);
}

int main(void)
{
    T_RUN(lists_from_the_table);
    T_END("manpage");
}

/* Shell completion made from the option table and the subcommands' table:
 * each subcommand's options and no other's, the words of an option that
 * takes one of a few ("a|b", "x, y or z", "1.2 or 1.3"), files where an
 * option takes one, the operand words of a subcommand; quotes that cannot
 * break the zsh and fish scripts; another shell refused. */
#include "cmd.h"
#include "completion.h"
#include "opt.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

/* A table of a few rows, as main.c's: the run, serve, diff, completion. */
static const struct cmd all[] = {
    { "", NULL, "[options] URL...", "load-test", 1, OPT_RUN, "URL", NULL },
    { "serve", NULL, "serve [options]", "serve", 0, OPT_SERVE, NULL, NULL },
    { "diff", NULL, "diff BASE NEW", "diff", 0, OPT_DIFF, "JSON file", NULL },
    { "completion", NULL, "completion bash|zsh|fish", "completion", 0, OPT_COMPLETION, "shell", "bash zsh fish" },
    { NULL, NULL, NULL, NULL, 0, 0, NULL, NULL },
};

static char *script(const char *shell, int *rc)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    *rc = completion_write(f, shell, all);
    fclose(f);
    return text;
}

/* The line of text that starts with start (after spaces), or NULL. */
static const char *line_of(const char *text, const char *start, char *out, size_t n)
{
    const char *p = text;
    while (p && *p) {
        const char *s = p + strspn(p, " "), *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (strncmp(s, start, strlen(start)) == 0) {
            snprintf(out, n, "%.*s", (int)len, p);
            return out;
        }
        p = e ? e + 1 : NULL;
    }
    return NULL;
}

static void bash(void)
{
    char l[4096];
    int rc;
    char *t = script("bash", &rc);
    struct opt_info o;
    size_t i;
    CHECK(rc == 0 && strstr(t, "# rafale completion for bash") == t);
    CHECK(strstr(t, "complete -F _rafale rafale rafale-mpi\n") != NULL);
    /* The subcommands are the table's, and only they. */
    CHECK(strstr(t, "            serve|diff|completion) sub=${COMP_WORDS[i]}; break ;;\n") != NULL);
    CHECK(strstr(t, "compgen -W \"serve diff completion\"") != NULL && strstr(t, "compare") == NULL);
    /* Each row's options: every one of the run's in its line, none of
     * serve's; serve's own there. */
    CHECK(line_of(t, "'') opts=\"", l, sizeof(l)) != NULL);
    for (i = 0; opt_each(i, &o); i++) {
        char w[80];
        snprintf(w, sizeof(w), "--%s ", o.name);
        if (o.help && (o.where & OPT_RUN))
            CHECKF(strstr(l, w) != NULL, "--%s", o.name);
    }
    CHECK(strstr(l, "--listen ") == NULL && strstr(l, "--threshold ") == NULL);
    CHECK(line_of(t, "serve) opts=\"", l, sizeof(l)) && strstr(l, "--listen ") && !strstr(l, "--connections "));
    CHECK(line_of(t, "diff) opts=\"", l, sizeof(l)) && strstr(l, "--threshold ") && !strstr(l, "--listen "));
    /* Values: a placeholder's lower-case words, a sentence's words, a
     * version's dots kept; files; nothing for a number or a duration. */
    CHECK(strstr(t, "--arrival) COMPREPLY=( $(compgen -W \"uniform poisson\" -- \"$cur\") ); return ;;") != NULL);
    CHECK(strstr(t, "--order) COMPREPLY=( $(compgen -W \"sequential random session\"") != NULL);
    CHECK(strstr(t, "--tls-version) COMPREPLY=( $(compgen -W \"1.2 1.3\"") != NULL);
    CHECK(strstr(t, "--json) COMPREPLY=( $(compgen -f -- \"$cur\") ); return ;;") != NULL);
    CHECK(strstr(t, "--connections|-c) return ;;") != NULL && strstr(t, "--think) return ;;") != NULL);
    /* The operand words of completion. */
    CHECK(strstr(t, "        completion) opts=\"--help bash zsh fish\" ;;\n") != NULL);
    CHECK(strstr(t, "if [[ $cur == -* || $sub == completion ]]; then") != NULL);
    free(t);
}

/* Every line of text but comments has an even number of single quotes
 * (none inside a quoted word ends it early). */
static int quotes_paired(const char *text)
{
    int bad = 0;
    while (*text) {
        size_t len = strcspn(text, "\n"), i;
        int n = 0;
        for (i = 0; i < len; i++)
            n += text[i] == '\'';
        if (text[strspn(text, " ")] != '#' && n % 2)
            bad = 1;
        text += len + (text[len] == '\n');
    }
    return !bad;
}

static void zsh(void)
{
    char l[4096];
    int rc;
    char *t = script("zsh", &rc);
    CHECK(rc == 0 && strstr(t, "#compdef rafale rafale-mpi\n") == t && quotes_paired(t));
    CHECK(strstr(t, "_alternative 'subcommands:subcommand:(serve diff completion)' 'urls:URL:_urls'") != NULL);
    /* A repeatable option may come again ('*'); a short name too; a value's
     * words in parentheses; a file's action. */
    CHECK(line_of(t, "'*--header=[", l, sizeof(l)) != NULL);
    CHECK(line_of(t, "'--arrival=[", l, sizeof(l)) && strstr(l, ":(uniform poisson)'"));
    CHECK(line_of(t, "'--json=[", l, sizeof(l)) && strstr(l, ":FILE:_files'"));
    CHECK(line_of(t, "'-c+[", l, sizeof(l)) != NULL);
    /* The help's brackets and colons would end a spec: none left inside. */
    CHECK(line_of(t, "'*--check=[", l, sizeof(l)) && strchr(strchr(l, '[') + 1, '[') == NULL);
    CHECK(strstr(t, "'1:shell:(bash zsh fish)'") != NULL && strstr(t, "'*:JSON file:_files'") != NULL);
    free(t);
}

static void fish(void)
{
    char l[4096];
    int rc;
    char *t = script("fish", &rc);
    CHECK(rc == 0 && strstr(t, "# rafale completion for fish") == t && quotes_paired(t));
    CHECK(strstr(t, "complete -c rafale -f -n '__fish_use_subcommand' -a 'serve diff completion'\n") != NULL);
    CHECK(strstr(t, "complete -c rafale -f -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n") != NULL);
    /* The run's options outside every subcommand; a file, words, a value. */
    CHECK(line_of(
              t, "complete -c rafale -n 'not __fish_seen_subcommand_from serve diff completion' -l connections -s c -x",
              l, sizeof(l)) != NULL);
    CHECK(line_of(t, "complete -c rafale -n 'not __fish_seen_subcommand_from serve diff completion' -l json -r -F", l,
                  sizeof(l)) != NULL);
    CHECK(line_of(t, "complete -c rafale -n '__fish_seen_subcommand_from serve' -l listen", l, sizeof(l)) != NULL);
    CHECK(line_of(t,
                  "complete -c rafale -n 'not __fish_seen_subcommand_from serve diff completion' -l arrival -x -a "
                  "'uniform poisson'",
                  l, sizeof(l)) != NULL);
    free(t);
}

static void another_shell_refused(void)
{
    int rc;
    char *t = script("tcsh", &rc);
    CHECK(rc == -1 && t && t[0] == '\0');
    free(t);
    t = script("", &rc);
    CHECK(rc == -1);
    free(t);
}

int main(void)
{
    T_RUN(bash);
    T_RUN(zsh);
    T_RUN(fish);
    T_RUN(another_shell_refused);
    T_END("completion");
}

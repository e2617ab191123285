/* completion.c - `rafale completion bash|zsh|fish`: a completion script
 * generated from the option table, so it names every option of each
 * subcommand, the values of those that take one of a few words, and files
 * where an option takes a file. */
#include "completion.h"
#include "cli.h"
#include "cmd.h"
#include "opt.h"

#include <ctype.h>
#include <string.h>

/* The subcommands are src/cli's table (all, main.c's): row 0 is the run
 * itself, its name "". */
#define SUB(k) (all[k].name ? &all[k] : NULL)

/* Repeatable options (-H, --check, --connect-to ...) say so in their help. */
static int repeatable(const struct opt_info *o)
{
    return o->help && strstr(o->help, "repeatable") != NULL;
}

/* The subcommands' names, sep between them. */
static void sub_names(FILE *f, const char *sep, const struct cmd *all)
{
    size_t k;
    for (k = 1; SUB(k); k++)
        fprintf(f, "%s%s", k > 1 ? sep : "", SUB(k)->name);
}

static int takes_file(const char *arg)
{
    return arg && (strcmp(arg, "FILE") == 0 || strcmp(arg, "PATH") == 0 || strcmp(arg, "DIR") == 0);
}

/* The words an option's value is one of, space-separated into out: the
 * lower-case words of an "a|b|N" placeholder, or a "yes or no", "a, b or c"
 * sentence of single words; "" when it is free text or a number. */
static void values(const struct opt_info *o, char *out, size_t len)
{
    const char *s;
    size_t n = 0;
    out[0] = '\0';
    if (o->arg == NULL)
        return;
    if (strchr(o->arg, '|')) {
        for (s = o->arg; *s && n + 2 < len;) {
            const char *b = s;
            size_t w = strcspn(s, "|");
            int lower = w > 0;
            for (size_t k = 0; k < w; k++)
                lower &= islower((unsigned char)b[k]) || b[k] == '-';
            if (lower)
                n += (size_t)snprintf(out + n, len - n, "%s%.*s", n ? " " : "", (int)w, b);
            s += w + (s[w] == '|');
        }
        return;
    }
    if ((s = o->wants) == NULL)
        return;
    while (*s) {
        const char *b = s;
        /* Words of lower-case letters, digits and '-', or a version such as 1.2. */
        while (islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-' ||
               (*s == '.' && s > b && isdigit((unsigned char)s[-1]) && isdigit((unsigned char)s[1])))
            s++;
        if (s == b || n + (size_t)(s - b) + 2 >= len) {
            out[0] = '\0';
            return;
        }
        n += (size_t)snprintf(out + n, len - n, "%s%.*s", n ? " " : "", (int)(s - b), b);
        if (*s == '\0')
            break;
        if (!strncmp(s, ", ", 2))
            s += 2;
        else if (!strncmp(s, " or ", 4))
            s += 4;
        else {
            out[0] = '\0';
            return;
        }
    }
}

static void bash(FILE *f, const struct cmd *all)
{
    size_t i, k;
    struct opt_info o;
    fprintf(f, "# rafale completion for bash: eval \"$(rafale completion bash)\", or put it in\n"
               "# /usr/share/bash-completion/completions/rafale. Generated from rafale's option table.\n"
               "_rafale() {\n"
               "    local cur prev sub i opts\n"
               "    cur=${COMP_WORDS[COMP_CWORD]}\n"
               "    prev=${COMP_WORDS[COMP_CWORD-1]}\n"
               "    # --opt=value: bash breaks the word at '=' (COMP_WORDBREAKS).\n"
               "    if [[ $cur == = ]]; then\n"
               "        cur=\n"
               "    elif [[ $prev == = && COMP_CWORD -ge 2 ]]; then\n"
               "        prev=${COMP_WORDS[COMP_CWORD-2]}\n"
               "    fi\n"
               "    sub=\n"
               "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
               "        case ${COMP_WORDS[i]} in\n"
               "            -*) ;;\n");
    fprintf(f, "            ");
    sub_names(f, "|", all);
    fprintf(f, ") sub=${COMP_WORDS[i]}; break ;;\n"
               "        esac\n"
               "    done\n"
               "    case $prev in\n");
    /* Values: files, and the words of the options that take one of a few
     * (an option of two subcommands once: the first is the one bash sees). */
    for (i = 0; opt_each(i, &o); i++) {
        char v[256];
        struct opt_info e;
        size_t k2;
        int seen = 0;
        if (o.help == NULL || o.arg == NULL)
            continue;
        for (k2 = 0; k2 < i && opt_each(k2, &e); k2++)
            seen |= e.help && e.arg && strcmp(e.name, o.name) == 0;
        if (seen)
            continue;
        values(&o, v, sizeof(v));
        fprintf(f, "        --%s", o.name);
        if (o.short_name)
            fprintf(f, "|-%c", o.short_name);
        if (takes_file(o.arg))
            fprintf(f, ") COMPREPLY=( $(compgen -f -- \"$cur\") ); return ;;\n");
        else if (v[0])
            fprintf(f, ") COMPREPLY=( $(compgen -W \"%s\" -- \"$cur\") ); return ;;\n", v);
        else
            fprintf(f, ") return ;;\n"); /* a number, a duration, a header: nothing to offer */
    }
    fprintf(f, "    esac\n"
               "    case $sub in\n");
    for (k = 0; SUB(k); k++) {
        fprintf(f, "        %s) opts=\"", SUB(k)->name[0] ? SUB(k)->name : "''");
        for (i = 0; opt_each(i, &o); i++)
            if (o.help && (o.where & SUB(k)->where))
                fprintf(f, "--%s ", o.name);
        fprintf(f, "%s\" ;;\n", SUB(k)->words ? SUB(k)->words : "");
    }
    fprintf(f, "    esac\n"
               "    if [[ -z $sub && $cur != -* ]]; then\n"
               "        COMPREPLY=( $(compgen -W \"");
    sub_names(f, " ", all);
    fprintf(f, "\" -- \"$cur\") )\n"
               "        return\n"
               "    fi\n"
               "    if [[ $cur == -*");
    /* Subcommands whose operand is one of a few words: those words. */
    for (k = 1; SUB(k); k++)
        if (SUB(k)->words)
            fprintf(f, " || $sub == %s", SUB(k)->name);
    fprintf(f, " ]]; then\n"
               "        COMPREPLY=( $(compgen -W \"$opts\" -- \"$cur\") )\n"
               "    else\n"
               "        COMPREPLY=( $(compgen -f -- \"$cur\") )\n"
               "    fi\n"
               "}\n"
               "complete -F _rafale rafale rafale-mpi\n");
}

static void fish(FILE *f, const struct cmd *all)
{
    size_t i, k;
    struct opt_info o;
    fprintf(f, "# rafale completion for fish: rafale completion fish > ~/.config/fish/completions/rafale.fish\n"
               "# Generated from rafale's option table.\n");
    char none[256];
    size_t n = 0;
    fprintf(f, "complete -c rafale-mpi --wraps rafale\n");
    fprintf(f, "complete -c rafale -f -n '__fish_use_subcommand' -a '");
    sub_names(f, " ", all);
    for (k = 1; SUB(k); k++)
        n += (size_t)snprintf(none + n, sizeof(none) - n, "%s%s", k > 1 ? " " : "", SUB(k)->name);
    fprintf(f, "'\n");
    /* Operands that are one of a few words. */
    for (k = 1; SUB(k); k++)
        if (SUB(k)->words)
            fprintf(f, "complete -c rafale -f -n '__fish_seen_subcommand_from %s' -a '%s'\n", SUB(k)->name,
                    SUB(k)->words);
    for (k = 0; SUB(k); k++) {
        for (i = 0; opt_each(i, &o); i++) {
            char v[256], d[80];
            size_t j;
            if (o.help == NULL || !(o.where & SUB(k)->where))
                continue;
            values(&o, v, sizeof(v));
            /* The help's first line, without quotes that would end fish's. */
            snprintf(d, sizeof(d), "%.*s", (int)strcspn(o.help, "\n"), o.help);
            for (j = 0; d[j]; j++)
                if (d[j] == '\'')
                    d[j] = ' ';
            if (SUB(k)->name[0])
                fprintf(f, "complete -c rafale -n '__fish_seen_subcommand_from %s' -l %s", SUB(k)->name, o.name);
            else
                fprintf(f, "complete -c rafale -n 'not __fish_seen_subcommand_from %s' -l %s", none, o.name);
            if (o.short_name)
                fprintf(f, " -s %c", o.short_name);
            if (o.arg)
                fprintf(f, takes_file(o.arg) ? " -r -F" : " -x"); /* -x: its value, not a file */
            if (v[0])
                fprintf(f, " -a '%s'", v);
            fprintf(f, " -d '%s'\n", d);
        }
    }
}

/* n bytes of s as text of an _arguments spec: no quote (the spec is in
 * single quotes), no bracket, colon or backslash (its own syntax);
 * brackets become parentheses, the rest spaces. */
static void zclean(char *d, size_t len, const char *s, size_t n)
{
    size_t j;
    snprintf(d, len, "%.*s", (int)n, s);
    for (j = 0; d[j]; j++)
        if (strchr("'[]:\\`$", d[j]))
            d[j] = d[j] == '[' ? '(' : d[j] == ']' ? ')' : ' ';
}

/* One option's _arguments specs: --name=[help]:ARG:action, and -x+ for its
 * short name. */
static void zspec(FILE *f, const struct opt_info *o)
{
    char d[120], v[256], msg[64], a[400];
    int k;
    zclean(d, sizeof(d), o->help, strcspn(o->help, "\n")); /* the help's first line */
    values(o, v, sizeof(v));
    /* The value's message: a ':' in it (ADDR:PORT) would end it. */
    zclean(msg, sizeof(msg), o->arg ? o->arg : "", o->arg ? strlen(o->arg) : 0);
    if (o->arg == NULL)
        a[0] = '\0';
    else
        snprintf(a, sizeof(a), ":%s:%s%s%s", msg, takes_file(o->arg) ? "_files" : v[0] ? "(" : " ", v,
                 !takes_file(o->arg) && v[0] ? ")" : "");
    for (k = 0; k < (o->short_name ? 2 : 1); k++) {
        /* '*': may be given again (it was not offered a second time). */
        if (k)
            fprintf(f, " \\\n        '%s-%c%s[%s]%s'", repeatable(o) ? "*" : "", o->short_name, o->arg ? "+" : "", d, a);
        else
            fprintf(f, " \\\n        '%s--%s%s[%s]%s'", repeatable(o) ? "*" : "", o->name, o->arg ? "=" : "", d, a);
    }
}

static void zsh(FILE *f, const struct cmd *all)
{
    size_t i, k;
    struct opt_info o;
    fprintf(f, "#compdef rafale rafale-mpi\n"
               "# rafale completion for zsh: put it in a directory of $fpath as _rafale, or\n"
               "# eval \"$(rafale completion zsh)\" after compinit. Generated from rafale's option table.\n"
               "_rafale_operand() {\n"
               "    _alternative 'subcommands:subcommand:(");
    sub_names(f, " ", all);
    fprintf(f, ")' 'urls:URL:_urls'\n}\n\n"
               "_rafale() {\n"
               "    local sub= i\n"
               "    for ((i = 2; i < CURRENT; i++)); do\n"
               "        case ${words[i]} in\n"
               "            ");
    sub_names(f, "|", all);
    fprintf(f, ") sub=${words[i]}; break ;;\n"
               "        esac\n"
               "    done\n"
               "    # A subcommand's options follow it: _arguments sees it as the command.\n"
               "    if [[ -n $sub ]]; then\n"
               "        words=(\"rafale $sub\" \"${(@)words[i+1,-1]}\")\n"
               "        (( CURRENT -= i - 1 ))\n"
               "    fi\n"
               "    case $sub in\n");
    for (k = 0; SUB(k); k++) {
        const struct cmd *c = SUB(k);
        fprintf(f, "        %s)\n            _arguments -s -S", c->name[0] ? c->name : "''");
        for (i = 0; opt_each(i, &o); i++)
            if (o.help && (o.where & c->where))
                zspec(f, &o);
        if (k == 0)
            fprintf(f, " \\\n        '*:URL or subcommand:_rafale_operand'");
        else if (c->words)
            fprintf(f, " \\\n        '1:%s:(%s)'", c->operand, c->words);
        else if (c->operand && strcmp(c->operand, "URL") == 0)
            fprintf(f, " \\\n        '*:URL:_urls'");
        else if (c->operand)
            fprintf(f, " \\\n        '*:%s:_files'", c->operand);
        fprintf(f, " ;;\n");
    }
    fprintf(f, "    esac\n"
               "}\n\n"
               "# Autoloaded from $fpath, this file is the function's body; evaluated, it registers it.\n"
               "if [[ $funcstack[1] == _rafale ]]; then\n"
               "    _rafale \"$@\"\n"
               "else\n"
               "    compdef _rafale rafale rafale-mpi\n"
               "fi\n");
}

int completion_write(FILE *f, const char *shell, const struct cmd *all)
{
    if (strcmp(shell, "bash") == 0) {
        bash(f, all);
    } else if (strcmp(shell, "zsh") == 0) {
        zsh(f, all);
    } else if (strcmp(shell, "fish") == 0) {
        fish(f, all);
    } else {
        return -1;
    }
    return ferror(f) ? -1 : 0;
}

int completion_main(const struct cmd *self, const struct cmd *all, int argc, char **argv)
{
    const struct cmd *c = self;
    struct result_args a = { 0 };
    int first, st;

    if ((st = cmd_args(c, argc, argv, 1, &a, &first)) >= 0)
        return st;
    if (argc - first != 1 || completion_write(stdout, argv[first], all) != 0) {
        fprintf(stderr, "rafale completion: give bash, zsh or fish (rafale completion bash)\n");
        return 2;
    }
    return 0;
}

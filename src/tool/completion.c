/* completion.c - `rafale completion bash|zsh|fish`: a completion script
 * generated from the option table, so it names every option of each
 * subcommand, the values of those that take one of a few words, and files
 * where an option takes a file. */
#include "completion.h"
#include "opt.h"

#include <ctype.h>
#include <string.h>

/* Subcommands whose options are the table's, and those with a few flags of
 * their own. */
static const struct {
    const char *name;
    unsigned where;
    const char *own;
} subs[] = {
    { "", OPT_RUN, "" },
    { "sweep", OPT_SWEEP, "" },
    { "serve", OPT_SERVE, "" },
    { "compare", OPT_COMPARE, "" },
    { "report", 0, "--html" },
    { "merge", 0, "--json --html" },
    { "diff", 0, "--threshold --json --html" },
    { "calibrate", 0, "--json --help" },
    { "completion", 0, "bash zsh fish" },
};
#define NSUBS (sizeof(subs) / sizeof(subs[0]))

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
        while (islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-')
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

static void bash(FILE *f)
{
    size_t i, k;
    struct opt_info o;
    fprintf(f, "# rafale completion for bash: eval \"$(rafale completion bash)\", or put it in\n"
               "# /usr/share/bash-completion/completions/rafale. Generated from rafale's option table.\n"
               "_rafale() {\n"
               "    local cur prev sub i opts\n"
               "    cur=${COMP_WORDS[COMP_CWORD]}\n"
               "    prev=${COMP_WORDS[COMP_CWORD-1]}\n"
               "    sub=\n"
               "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
               "        case ${COMP_WORDS[i]} in\n"
               "            -*) ;;\n");
    fprintf(f, "            ");
    for (k = 1; k < NSUBS; k++)
        fprintf(f, "%s%s", k > 1 ? "|" : "", subs[k].name);
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
        if (takes_file(o.arg))
            fprintf(f, "        --%s) COMPREPLY=( $(compgen -f -- \"$cur\") ); return ;;\n", o.name);
        else if (v[0])
            fprintf(f, "        --%s) COMPREPLY=( $(compgen -W \"%s\" -- \"$cur\") ); return ;;\n", o.name, v);
    }
    fprintf(f, "        --threshold) return ;;\n"
               "    esac\n"
               "    case $sub in\n");
    for (k = 0; k < NSUBS; k++) {
        fprintf(f, "        %s) opts=\"", subs[k].name[0] ? subs[k].name : "''");
        if (subs[k].where)
            for (i = 0; opt_each(i, &o); i++)
                if (o.help && (o.where & subs[k].where))
                    fprintf(f, "--%s ", o.name);
        fprintf(f, "%s\" ;;\n", subs[k].own);
    }
    fprintf(f, "    esac\n"
               "    if [[ -z $sub && $cur != -* ]]; then\n"
               "        COMPREPLY=( $(compgen -W \"");
    for (k = 1; k < NSUBS; k++)
        fprintf(f, "%s%s", k > 1 ? " " : "", subs[k].name);
    fprintf(f, "\" -- \"$cur\") )\n"
               "        return\n"
               "    fi\n"
               "    if [[ $cur == -* || $sub == completion ]]; then\n"
               "        COMPREPLY=( $(compgen -W \"$opts\" -- \"$cur\") )\n"
               "    else\n"
               "        COMPREPLY=( $(compgen -f -- \"$cur\") )\n"
               "    fi\n"
               "}\n"
               "complete -F _rafale rafale rafale-mpi\n");
}

static void fish(FILE *f)
{
    size_t i, k;
    struct opt_info o;
    fprintf(f, "# rafale completion for fish: rafale completion fish > ~/.config/fish/completions/rafale.fish\n"
               "# Generated from rafale's option table.\n");
    fprintf(f, "complete -c rafale -f -n '__fish_use_subcommand' -a '");
    for (k = 1; k < NSUBS; k++)
        fprintf(f, "%s%s", k > 1 ? " " : "", subs[k].name);
    fprintf(f, "'\n");
    for (k = 0; k < NSUBS; k++) {
        if (!subs[k].where)
            continue;
        for (i = 0; opt_each(i, &o); i++) {
            char v[256], d[80];
            size_t j;
            if (o.help == NULL || !(o.where & subs[k].where))
                continue;
            values(&o, v, sizeof(v));
            /* The help's first line, without quotes that would end fish's. */
            snprintf(d, sizeof(d), "%.*s", (int)strcspn(o.help, "\n"), o.help);
            for (j = 0; d[j]; j++)
                if (d[j] == '\'')
                    d[j] = ' ';
            if (subs[k].name[0])
                fprintf(f, "complete -c rafale -n '__fish_seen_subcommand_from %s' -l %s", subs[k].name, o.name);
            else
                fprintf(f, "complete -c rafale -n '__fish_use_subcommand' -l %s", o.name);
            if (o.short_name)
                fprintf(f, " -s %c", o.short_name);
            if (o.arg)
                fprintf(f, takes_file(o.arg) ? " -r -F" : " -r");
            if (v[0])
                fprintf(f, " -a '%s'", v);
            fprintf(f, " -d '%s'\n", d);
        }
    }
}

int completion_write(FILE *f, const char *shell)
{
    if (strcmp(shell, "bash") == 0) {
        bash(f);
    } else if (strcmp(shell, "zsh") == 0) {
        /* zsh runs bash's completions through its bashcompinit. */
        fprintf(f, "# rafale completion for zsh: eval \"$(rafale completion zsh)\"\n"
                   "autoload -U +X compinit && compinit\n"
                   "autoload -U +X bashcompinit && bashcompinit\n");
        bash(f);
    } else if (strcmp(shell, "fish") == 0) {
        fish(f);
    } else {
        return -1;
    }
    return ferror(f) ? -1 : 0;
}

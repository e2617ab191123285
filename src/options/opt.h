/* opt.h - every option in one table: its long name (also its key in a
 * compare file), short flag, type, range, help line and where it applies.
 * The command line, `--help` and the compare file are all driven from it, so
 * a value is checked the same way and refused with the same words wherever
 * it is written. */
#ifndef RAFALE_OPT_H
#define RAFALE_OPT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "config.h"

/* Where an option applies (a bit mask). */
enum {
    OPT_RUN = 1 << 0,      /* rafale [options] URL... */
    OPT_SWEEP = 1 << 1,    /* rafale sweep [options] URL */
    OPT_WORKLOAD = 1 << 2, /* a key of a compare file's [workload], or its default in [settings] */
    OPT_SETTINGS = 1 << 3, /* a key of a compare file's [settings] only */
    OPT_COMPARE = 1 << 4,  /* rafale compare [options] FILE */
    OPT_SERVE = 1 << 5,    /* rafale serve [options] */
    OPT_REPORT = 1 << 6,   /* rafale report [options] RESULT.json... */
    OPT_MERGE = 1 << 7,    /* rafale merge [options] SHARD.json... */
    OPT_DIFF = 1 << 8,     /* rafale diff [options] BASE.json NEW.json */
    OPT_CALIBRATE = 1 << 9, /* rafale calibrate [options] */
    OPT_COMPLETION = 1 << 10, /* rafale completion SHELL */
    OPT_REPLAY = 1 << 11,  /* rafale replay [options] ACCESS_LOG URL */
};

/* What report, merge, diff and calibrate take besides their files. */
struct result_args {
    const char *out[OUT__COUNT]; /* --json FILE, --html FILE (enum out_kind) */
    double threshold;      /* diff's --threshold, a fraction (0.05 for 5%) */
};

/* What the options write into; only the member for the command at hand
 * needs to be set. */
struct opt_dst {
    struct config *run;
    struct serve_config *serve;
    struct compare_settings *cmp;
    struct result_args *res;
};

struct opt_def;

/* The option called name (its long name) among those of `where`, or NULL. */
const struct opt_def *opt_find(const char *name, unsigned where);
/* Its long name. */
const char *opt_name(const struct opt_def *o);

/* The table, for shell completion and the man page: option i (0, 1, ...)
 * into out. Returns 0 past the last one. */
struct opt_info {
    const char *name;
    char short_name;        /* 0: none */
    unsigned where;
    const char *arg;        /* its value's placeholder ("N", "FILE", "yes|no"), NULL for a switch */
    const char *wants;      /* what its value must be, in words ("sequential, random or session") */
    const char *help;       /* NULL: hidden */
    const char *section;    /* its group's title in --help ("Load"), NULL for none */
};
int opt_each(size_t i, struct opt_info *out);
/* 1 when it is a yes/no switch (a flag on the command line). */
int opt_is_flag(const struct opt_def *o);

/* Applies one option. value is NULL for a flag given on the command line,
 * "yes"/"no" for a flag written in a compare file. shown is how the user named it
 * ("-c", "--connections", "connections"), for the error. Returns 0, or -1
 * with "SHOWN wants WHAT, not 'VALUE'" (or a like sentence) in err. */
int opt_set(const struct opt_def *o, const struct opt_dst *d, const char *value, const char *shown, char *err,
            size_t errlen);

enum opt_result { OPT_OK, OPT_HELP, OPT_VERSION, OPT_ERROR };

/* Parses argv[1..] with getopt_long against the options of `where`, applying
 * each. *first_arg receives the index of the first operand; on OPT_ERROR,
 * the index of the word of an option `where` does not have (said in err),
 * or -1 for another mistake. */
enum opt_result opt_parse_argv(int argc, char **argv, unsigned where, const struct opt_dst *d, int *first_arg,
                               char *err, size_t errlen);

/* Offers the long name of every option of `where` to s (suggest.h): the
 * one a mistyped option or compare file key was meant to be. */
struct suggest;
void opt_suggest(struct suggest *s, unsigned where);
/* The option of `where` an unknown "--name" or "--name=value" may be a
 * typo of (its long name), or NULL when none is near. */
const char *opt_nearest(const char *arg, unsigned where);

/* Writes the help lines of the options of `where`, grouped in sections. */
void opt_help(FILE *f, unsigned where);

/* The compare file keys of `where`, comma-separated, for an error message. */
void opt_keys(unsigned where, char *buf, size_t len);

/* A result's "config" object holds the run's options the table gives a
 * JSON key (", \"key\": value" each; durations in seconds): written and read
 * back from the table, so a new option is one row. Reading checks each
 * value (its type, the option's range) and leaves an absent key at its
 * default. Returns 0, or -1 with what is wrong in c. */
struct jc;
void opt_json_write(FILE *f, const struct config *cfg);
int opt_json_read(struct jc *c, json_t *o, struct config *cfg);

#endif

/* report_replay.c - rafale replay in a result: its settings in "config"
 * ("replay": the log, --speed, --format, --limit, --methods), read back
 * from a saved result, and what it read of its log (the "replay" object,
 * report_keys.c's table) said in the text and HTML reports: the lines
 * replayed, and those skipped by reason, the first of each at FILE:LINE. */
#include "report.h"
#include "accesslog.h"
#include "html.h"
#include "jread.h"
#include "report_load.h"

#include <stdlib.h>
#include <string.h>

void report_replay_config_json(FILE *f, const struct config *cfg)
{
    const struct replay_tally *t = cfg->replay_tally;
    /* The format the log was read in: named, or told from its first line. */
    const char *fmt = t && t->format[0] ? t->format : cfg->replay_format ? cfg->replay_format : "auto";
    fprintf(f, ", \"replay\": {\"log\": ");
    report_json_str(f, cfg->replay_path);
    fprintf(f, ", \"speed\": %s, \"format\": ", REPORT_JNUM("%.6g", cfg->replay_speed > 0 ? cfg->replay_speed : 1));
    report_json_str(f, fmt);
    if (cfg->replay_limit)
        fprintf(f, ", \"limit\": %llu", (unsigned long long)cfg->replay_limit);
    else
        fprintf(f, ", \"limit\": null");
    fprintf(f, ", \"methods\": ");
    report_json_str(f, cfg->replay_methods ? cfg->replay_methods : ALOG_METHODS_DEFAULT);
    /* Connections open as the log's concurrency needs them, up to this. */
    fprintf(f, ", \"loop\": %s, \"max_connections\": %u}", cfg->replay_loop ? "true" : "false", cfg->max_connections);
}

int report_replay_load_config(struct jc *c, json_t *o, struct config *cfg)
{
    json_t *r = jread_obj(c, o, "replay", 0);
    const char *log, *fmt, *m;
    enum alog_format af;
    size_t at;
    if (r == NULL)
        return 0; /* not a replay */
    at = jread_enter(c, "replay");
    log = jread_str(c, r, "log", 1);
    fmt = jread_str(c, r, "format", 0);
    m = jread_str(c, r, "methods", 0);
    cfg->replay_speed = jread_num(c, r, "speed", 0.001, 1e8, 0);
    cfg->replay_limit = jread_count(c, r, "limit", 0);
    cfg->replay_loop = jread_bool(c, r, "loop");
    cfg->max_connections = (uint32_t)jread_num(c, r, "max_connections", 0, 10000000, 0);
    if (!c->failed && fmt && accesslog_format_parse(fmt, &af) != 0)
        jread_fail(c, "format", "'%.40s' is not auto, combined, common or json", fmt);
    if (!c->failed && m && (m[0] == '\0' || m[strspn(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_,")]))
        jread_fail(c, "methods", "not methods separated by commas");
    jread_leave(c, at);
    if (c->failed)
        return -1;
    cfg->replay_tally = config_own(cfg, calloc(1, sizeof(*cfg->replay_tally)));
    if ((cfg->replay_path = config_keep(cfg, log)) == NULL || cfg->replay_tally == NULL ||
        (fmt && (cfg->replay_format = config_keep(cfg, fmt)) == NULL) ||
        (m && (cfg->replay_methods = config_keep(cfg, m)) == NULL))
        return jread_fail(c, "", "out of memory");
    if (fmt)
        snprintf(cfg->replay_tally->format, sizeof(cfg->replay_tally->format), "%s", fmt);
    return 0;
}

void report_replay_lines(const struct config *cfg, void (*out)(FILE *f, const char *line), FILE *f)
{
    const struct replay_tally *t = cfg->replay_tally;
    const char *log = cfg->replay_path;
    double speed = cfg->replay_speed > 0 ? cfg->replay_speed : 1;
    char b[5000];
    size_t o;
    uint32_t i;
    snprintf(b, sizeof(b), "%llu requests of %llu lines replayed, %.3f s of the log in %.3f s (--speed %g)",
             (unsigned long long)t->replayed, (unsigned long long)t->lines, t->span_s, t->span_s / speed, speed);
    out(f, b);
    if (t->passes > 1) {
        snprintf(b, sizeof(b), "--loop: %u passes over the log begun", t->passes);
        out(f, b);
    }
    if (t->before) {
        snprintf(b, sizeof(b), "%llu requests before --from dropped", (unsigned long long)t->before);
        out(f, b);
    }
    if (t->nskip || t->skip_other) {
        o = (size_t)snprintf(b, sizeof(b), "skipped for their method (not in --methods):");
        for (i = 0; i < t->nskip && o < sizeof(b); i++)
            o += (size_t)snprintf(b + o, sizeof(b) - o, "%s %llu %s", i ? "," : "", (unsigned long long)t->skip_count[i],
                                  t->skip_method[i]);
        if (t->skip_other && o < sizeof(b))
            snprintf(b + o, sizeof(b) - o, ", %llu others", (unsigned long long)t->skip_other);
        out(f, b);
    }
    if (t->bad) {
        snprintf(b, sizeof(b), "%llu unparseable lines skipped, the first at %s:%llu", (unsigned long long)t->bad, log,
                 (unsigned long long)t->bad_line);
        out(f, b);
    }
    if (t->control) {
        snprintf(b, sizeof(b), "%llu lines skipped whose path holds a control byte or a space, the first at %s:%llu",
                 (unsigned long long)t->control, log, (unsigned long long)t->control_line);
        out(f, b);
    }
    if (t->too_long) {
        snprintf(b, sizeof(b), "%llu lines skipped whose path is longer than %d bytes, the first at %s:%llu",
                 (unsigned long long)t->too_long, ALOG_TARGET_MAX, log, (unsigned long long)t->long_line);
        out(f, b);
    }
    if (t->late) {
        snprintf(b, sizeof(b), "%llu lines more than 2 s out of order, sent at once", (unsigned long long)t->late);
        out(f, b);
    }
    if (t->read_error) {
        snprintf(b, sizeof(b), "%s: %s: the log was read up to there", log, strerror(t->read_error));
        out(f, b);
    }
}

static void text_line(FILE *f, const char *line)
{
    fprintf(f, "  %s\n", line);
}

static void html_line(FILE *f, const char *line)
{
    html_text(f, line);
    html_printf(f, "<br/>\n");
}

/* The log's name and format, then its lines. */
void report_replay_text(FILE *f, const struct config *cfg)
{
    const struct replay_tally *t = cfg->replay_tally;
    if (!cfg->replay_path || t == NULL)
        return;
    fprintf(f, "Replay of %s (%s):\n", cfg->replay_path, t->format[0] ? t->format : "no line read");
    report_replay_lines(cfg, text_line, f);
}

void report_replay_html(FILE *f, const struct config *cfg)
{
    const struct replay_tally *t = cfg->replay_tally;
    if (!cfg->replay_path || t == NULL)
        return;
    html_printf(f, "<p>Replay of ");
    html_text(f, cfg->replay_path);
    html_printf(f, " (%s):<br/>\n", t->format[0] ? t->format : "no line read");
    report_replay_lines(cfg, html_line, f);
    html_printf(f, "</p>\n");
}

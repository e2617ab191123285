/* report_probe.c - the idle probe's sentence (client/probe.c measured it:
 * a few of the run's requests alone before the load), said alike by the
 * text report's setup block and the HTML page. */
#include "report.h"
#include "units.h"

#include <stdio.h>

/* The idle probe's sentence: what an answer takes alone, apart from the run
 * (the text's setup block and the HTML say it alike). "" when no probe. */
const char *report_probe_text(const struct run_probe *p, char *buf, size_t n)
{
    char b1[32], b2[32];
    size_t at = 0;
    uint32_t i;
#define PUT(...) (at < n ? (at += (size_t)snprintf(buf + at, n - at, __VA_ARGS__)) : at)
    if (n)
        buf[0] = '\0';
    if (p->ntargets == 0)
        return buf;
    PUT("Alone, before the load: %llu request%s one at a time on one connection, not counted",
        (unsigned long long)p->sent, p->sent == 1 ? "" : "s");
    if (p->answered)
        PUT(": p50 %s (min %s)", units_fmt_ns(b1, sizeof(b1), p->p50_ns), units_fmt_ns(b2, sizeof(b2), p->min_ns));
    else
        PUT(": none answered within %.0fms", p->elapsed_s * 1e3);
    for (i = 0; p->answered && p->ntargets > 1 && i < p->ntargets; i++)
        PUT("%s%s", i ? ", " : "; by target ", p->target[i].answered ? units_fmt_ns(b1, sizeof(b1), p->target[i].p50_ns) : "none");
    if (p->failed)
        PUT("; %llu failed", (unsigned long long)p->failed);
    if (p->bad)
        PUT("; %llu bad answer%s", (unsigned long long)p->bad, p->bad == 1 ? "" : "s");
    PUT(".");
#undef PUT
    return buf;
}

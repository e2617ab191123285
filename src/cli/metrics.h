/* metrics.h - --metrics-listen ADDR:PORT: the run's figures, scraped while it
 * runs (OpenMetrics at /metrics, a JSON snapshot at /snapshot.json).
 * Private to src/cli/. */
#ifndef RAFALE_METRICS_H
#define RAFALE_METRICS_H

#include <stdatomic.h>
#include <stddef.h>

#include "config.h"
#include "engine.h"
#include "monitor.h"

struct metrics;

/* The descriptors it may hold at once: its listener and a client a slot. */
#define METRICS_PENDING 16
#define METRICS_FILES (1 + METRICS_PENDING)

/* Binds cfg->metrics_listen (loopback unless cfg->metrics_public) and starts
 * its thread. Returns 0, or -1 with one line in err (a port in use, an
 * address not loopback). */
int metrics_start(const struct config *cfg, struct metrics **out, char *err, size_t errlen);
/* Where it listens ("127.0.0.1:41234", "[::1]:41234") when the port was 0
 * and the kernel picked it, else NULL: the user is told, or none could
 * scrape it. */
const char *metrics_picked(const struct metrics *m);
/* The engine's latest figures (from its progress callback), and the
 * server's with --monitor (NULL without). */
void metrics_publish(struct metrics *m, const struct engine_live *live, const struct monitor_live *server);
/* The run's final HTML report: the live page shows it in its place. */
void metrics_final(struct metrics *m, const char *html, size_t len);
/* Stops serving, at once or after the run's --metrics-linger (a Ctrl-C,
 * which sets stop, ends the linger; stop may be NULL). */
void metrics_stop(struct metrics *m, const atomic_int *stop);

#endif

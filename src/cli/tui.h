/* tui.h - --tui, the full-screen live view (tui.c). Private to src/cli/. */
#ifndef RAFALE_TUI_H
#define RAFALE_TUI_H

#include <stdio.h>
#include <termios.h>

#include "config.h"
#include "engine.h"

#define TUI_SECONDS 120 /* the sparkline's memory */

struct tui {
    FILE *f;
    const struct config *cfg;
    int on;                    /* on the alternate screen */
    int keys;                  /* stdin is the terminal, read a key at a time (saved: as it was) */
    struct termios saved;
    double last_s;
    unsigned long long last_done, sec_done;
    uint32_t nsec;             /* whole seconds gone */
    double rps[TUI_SECONDS];
};

/* Enters the alternate screen on f when it is a terminal (0), else -1:
 * nothing is drawn, not a byte. */
int tui_start(struct tui *t, FILE *f, const struct config *cfg);
/* Draws a frame (and reads q); does nothing once done or when not started. */
void tui_update(struct tui *t, const struct engine_progress *e);
/* Leaves the alternate screen and puts the terminal back as it was. */
void tui_done(struct tui *t);

#endif

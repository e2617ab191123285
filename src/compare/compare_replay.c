/* compare_replay.c - a compare workload that replays an access log
 * (replay = FILE, with speed, limit, methods, format, from, to, loop,
 * pattern): each server meets the same requests at the same times. Each
 * round replays the whole log (its window, its limit) on each server in
 * turn, so every round's runs are alike and the verdicts pair them as any
 * workload's; a slice per round would give the rounds different traffic,
 * and its variance would read as the servers'. */
#include "compare_replay.h"
#include "cli.h"
#include "err.h"
#include "opt.h"

#include <string.h>

const char *compare_replay_misfit(const char *key, int replay)
{
    if (strcmp(key, "replay") == 0)
        return NULL;
    if (replay && (strcmp(key, "path") == 0 || (opt_find(key, OPT_WORKLOAD) && !opt_find(key, OPT_REPLAY))))
        return "does not go with replay = FILE: the log gives the requests and their times";
    if (!replay && opt_find(key, OPT_REPLAY) && !opt_find(key, OPT_RUN))
        return "goes with replay = FILE alone";
    return NULL;
}

int compare_replay_check(struct config *cfg, int duration_auto, char *why, size_t whylen)
{
    struct config check;
    int rc;
    if (duration_auto)
        return err_set(why, whylen, NULL, "duration = auto lengthens the rounds, and a replay's round is its log: "
                       "give a duration, or none (the log's end)");
    if (cfg->rate > 0 || cfg->requests || cfg->nstages)
        return err_set(why, whylen, NULL, "rate, requests and stages (here or in [settings]) do not go with "
                       "replay = FILE: the log gives the requests and their times");
    /* The log is the traffic: all of it measured, none of it warm-up. */
    cfg->warmup_ns = 0;
    if (config_copy(&check, cfg) != 0)
        return err_set(why, whylen, NULL, "out of memory");
    rc = cli_replay_setup(&check, "http://127.0.0.1:1", why, whylen);
    config_free(&check);
    return rc;
}

int compare_replay_config(const struct config *cfg, const char *url, struct config *own, char *why, size_t whylen)
{
    if (config_copy(own, cfg) != 0)
        return err_set(why, whylen, NULL, "out of memory");
    return cli_replay_setup(own, url, why, whylen);
}

/* The idle probe (src/client/probe.c): wanted only when sending a few
 * more of the run's own requests changes nothing (a run bounded by time,
 * a closed loop, safe methods, no template nor cookie jar, a few targets);
 * and, run against a server thread of the test's, each target's requests
 * one at a time on one connection, every one accounted for. */
#include "engine.h"
#include "fixture.h"

/* A run of -d 10s to two targets (path a, path b) of url's server. */
static void two_targets(struct config *cfg, const char *url)
{
    char err[256], u[80];
    config_defaults(cfg);
    snprintf(u, sizeof(u), "%sa", url);
    CHECKF(targets_add_url(cfg, u, err, sizeof(err)) == 0, "%s", err);
    snprintf(u, sizeof(u), "%sb", url);
    CHECKF(targets_add_url(cfg, u, err, sizeof(err)) == 0, "%s", err);
    cfg->duration_ns = 10 * NS_PER_S;
}

static void wanted(void)
{
    struct config cfg;
    char err[256];
    two_targets(&cfg, "http://127.0.0.1:1/");
    CHECK(probe_wanted(&cfg) == 1);
    cfg.requests = 100; /* -n: the server gets that many, no more */
    CHECK(probe_wanted(&cfg) == 0);
    cfg.requests = 0;
    cfg.rate = 100;
    CHECK(probe_wanted(&cfg) == 0);
    cfg.rate = 0;
    cfg.cookies = 1;
    CHECK(probe_wanted(&cfg) == 0);
    cfg.cookies = 0;
    cfg.no_probe = 1;
    CHECK(probe_wanted(&cfg) == 0);
    cfg.no_probe = 0;
    cfg.method = "POST"; /* not safe to send again */
    CHECK(probe_wanted(&cfg) == 0);
    cfg.method = "HEAD";
    CHECK(probe_wanted(&cfg) == 1);
    CHECK(config_add_header(&cfg, "X-Id: {{seq}}") == 0); /* the run would take its values again */
    CHECK(probe_wanted(&cfg) == 0);
    config_free(&cfg);
    /* More than PROBE_TARGETS targets. */
    two_targets(&cfg, "http://127.0.0.1:1/");
    CHECKF(targets_add_url(&cfg, "http://127.0.0.1:1/c", err, sizeof(err)) == 0 &&
           targets_add_url(&cfg, "http://127.0.0.1:1/d", err, sizeof(err)) == 0, "%s", err);
    CHECK(probe_wanted(&cfg) == 1);
    CHECK(targets_add_url(&cfg, "http://127.0.0.1:1/e", err, sizeof(err)) == 0 && probe_wanted(&cfg) == 0);
    config_free(&cfg);
}

static void probed(void)
{
    struct fix f;
    struct fix_srv s;
    struct config cfg;
    struct run_probe out;
    atomic_int stop = 0;
    char err[256], notes[256];
    memset(&s, 0, sizeof(s));
    fix_listen(&f, "/");
    s.lfd = f.lfd;
    two_targets(&cfg, f.url);
    cfg.connections = 8; /* the probe's own: one */
    CHECKF(config_finish(&cfg, err, sizeof(err), notes, sizeof(notes)) == 0, "%s", err);
    fix_srv_start(&s);
    probe_run(&cfg, &stop, &out);
    fix_srv_stop(&s);
    /* Eight a target, one connection; every third answer the server's 500. */
    CHECK(out.ntargets == 2 && out.sent == 16 && out.answered == 16 && out.failed == 0 && s.requests == 16);
    CHECK(s.accepted == 1 && out.bad == s.s500 && s.s500 == 5);
    CHECK(out.target[0].answered == 8 && out.target[1].answered == 8);
    CHECK(out.p50_ns > 0 && out.min_ns > 0 && out.min_ns <= out.p50_ns && out.target[1].min_ns > 0);
    CHECK(out.elapsed_s > 0);
    config_free(&cfg);
    close(f.lfd);
}

/* Nothing answers: no figure (ntargets 0), the run says why. */
static void not_reached(void)
{
    struct fix f;
    struct config cfg;
    struct run_probe out;
    atomic_int stop = 0;
    char err[256], notes[256];
    fix_listen(&f, "/");
    close(f.lfd);
    two_targets(&cfg, f.url);
    CHECKF(config_finish(&cfg, err, sizeof(err), notes, sizeof(notes)) == 0, "%s", err);
    probe_run(&cfg, &stop, &out);
    CHECK(out.ntargets == 0 && out.sent == 0 && out.answered == 0);
    config_free(&cfg);
}

int main(void)
{
    T_RUN(wanted);
    T_RUN(probed);
    T_RUN(not_reached);
    T_END("test_probe");
}

/* Whether the run reaches its servers (src/client/reach.c): the first
 * contact said in one line once every address failed and no first
 * connect is under way (not before); the wait before a connection connects
 * again, 4 ms doubling to 1 s, none for this host's own shortage nor after
 * a connect that took its whole --connect-timeout; a TLS handshake cut
 * short once is a hiccup, twice a failure; -n alone given up after
 * --timeout with no connection up anywhere. */
#include "fixture.h"

#define MS NS_PER_MS

static void refused(struct conn *c, uint64_t now)
{
    reach_failed(c, C_CONNECTING, ERR_CONNECT_REFUSED, ECONNREFUSED, NULL, MS, 0, now);
}

static void first_contact(void)
{
    struct fix f;
    struct conn *a, *b;
    struct reach *r;
    uint64_t now;
    char want[160];
    fix_init(&f, "/", &session_http1, 2, 0, NULL);
    now = clock_ns(); /* in the measured window */
    a = &f.w.conns[0];
    b = &f.w.conns[1];
    r = f.pl.reach;
    CHECK(atomic_load(&r->failed[0]) == 2);
    reach_try(a);
    reach_try(b);
    CHECK(atomic_load(&r->trying[0]) == 2 && a->first == 1);
    /* One failed, the other's first connect under way: not said yet. */
    refused(a, now);
    CHECK(atomic_load(&r->said) == 0 && atomic_load(&f.failed) == 0 && atomic_load(&r->trying[0]) == 1);
    CHECK(a->waiting == 1 && f.w.nwaiting == 1 && a->backoff_ns == 4 * MS && f.w.st.reconnects_delayed == 1);
    CHECK(f.w.t_down == now && f.w.down_kind == ERR_CONNECT_REFUSED);
    /* A's second connect is not waited for: b's failure says it. */
    reach_try(a);
    CHECK(atomic_load(&r->trying[0]) == 1);
    refused(b, now + 1);
    CHECK(atomic_load(&r->said) == 1 && atomic_load(&f.failed) == 1 && f.w.stopping == 1);
    snprintf(want, sizeof(want), "%s: connection refused: nothing listens there (is the server running? is the port right?)",
             f.url + 7);
    *strchr(want, '/') = '\0';
    CHECKF(strncmp(r->msg, want, strlen(want)) == 0 && strstr(r->msg, "(is the server running? is the port right?)"),
           "%s", r->msg);
    /* Stopping: b does not wait. */
    CHECK(b->waiting == 0 && f.w.nwaiting == 1);
    fix_free(&f);
}

static void backoff(void)
{
    struct fix f;
    struct conn *a;
    uint64_t now, want = 4 * MS;
    int k, ok = 1;
    fix_init(&f, "/", &session_http1, 1, 0, NULL);
    now = clock_ns();
    a = &f.w.conns[0];
    reach_try(a);
    reach_up(a);
    CHECK(atomic_load(&f.pl.reach->up) == 1 && atomic_load(&f.pl.reach->nup) == 1 && a->counted_up && f.w.up);
    reach_closed(a);
    CHECK(atomic_load(&f.pl.reach->nup) == 0 && !a->counted_up);
    /* Up once: failures after it are waited out, never said. */
    for (k = 0; k < 12; k++) {
        refused(a, now);
        ok &= a->waiting == 1 && a->backoff_ns == want;
        reach_resume(a);
        ok &= a->waiting == 0 && f.w.nwaiting == 0 && a->queued;
        workq_dequeue(&f.w);
        want = want * 2 < NS_PER_S ? want * 2 : NS_PER_S;
    }
    CHECK(ok && a->backoff_ns == NS_PER_S && atomic_load(&f.pl.reach->said) == 0 && f.w.st.reconnects_delayed == 12);
    /* Up again: from the start. */
    reach_up(a);
    CHECK(a->backoff_ns == 0 && f.w.t_down == 0);
    /* A connect that took its whole --connect-timeout waited already. */
    reach_failed(a, C_CONNECTING, ERR_TIMEOUT_CONNECT, ETIMEDOUT, NULL, f.cfg.connect_timeout_ns, 0, now);
    CHECK(a->waiting == 0 && f.w.t_down == now);
    /* This host's shortage (no descriptor): no wait, nor a down time. */
    f.w.t_down = 0;
    reach_failed(a, C_CONNECTING, ERR_CONNECT_OTHER, EMFILE, NULL, MS, 0, now);
    reach_failed(a, C_CONNECTING, ERR_ADDR_UNAVAILABLE, EADDRNOTAVAIL, NULL, MS, 0, now);
    CHECK(a->waiting == 0 && f.w.t_down == 0 && f.w.st.reconnects_delayed == 12);
    reach_closed(a);
    fix_free(&f);
}

/* A TLS handshake cut short without a word: once a hiccup, twice in a row
 * a failure that marks the address; a certificate's fault at once, with
 * what to do. */
static void tls_failures(void)
{
    struct fix f;
    struct conn *a;
    uint64_t now = clock_ns();
    fix_init(&f, "/", &session_http1, 1, 0, NULL);
    a = &f.w.conns[0];
    reach_try(a);
    reach_failed(a, C_HANDSHAKE, ERR_TLS, 0, "unexpected eof while reading", MS, 0, now);
    CHECK(a->cut == 1 && a->first == 1 && atomic_load(&f.pl.reach->said) == 0);
    reach_failed(a, C_HANDSHAKE, ERR_TLS, 0, "unexpected eof while reading", MS, 0, now);
    CHECK(atomic_load(&f.pl.reach->said) == 1 && strstr(f.pl.reach->msg, "TLS handshake failed: unexpected eof") != NULL);
    fix_free(&f);

    fix_init(&f, "/", &session_http1, 1, 0, NULL);
    a = &f.w.conns[0];
    reach_try(a);
    reach_failed(a, C_HANDSHAKE, ERR_TLS, 0, "certificate verify failed: self-signed certificate", MS, 0, now);
    CHECKF(atomic_load(&f.pl.reach->said) == 1 && strstr(f.pl.reach->msg, "--cacert FILE gives its CA") != NULL, "%s",
           f.pl.reach->msg);
    fix_free(&f);
}

static void gave_up(void)
{
    struct fix f;
    uint64_t t, limit;
    char why[200];
    fix_init(&f, "/", &session_http1, 1, 0, NULL);
    t = clock_ns();
    limit = f.cfg.timeout_ns;
    /* Up once, then down: its connects fail from t on. */
    reach_try(&f.w.conns[0]);
    reach_up(&f.w.conns[0]);
    reach_closed(&f.w.conns[0]);
    refused(&f.w.conns[0], t);
    CHECK(f.w.t_down == t);
    CHECK(reach_gave_up(&f.w, t + limit - 1) == 0 && f.w.gave_up == 0);
    /* A connection up elsewhere in the run: the clock starts again. */
    atomic_store(&f.pl.reach->nup, 1);
    CHECK(reach_gave_up(&f.w, t + limit) == 0 && f.w.t_down == t + limit);
    atomic_store(&f.pl.reach->nup, 0);
    CHECK(reach_gave_up(&f.w, t + 2 * limit) == 1 && f.w.gave_up == 1);
    reach_why(&f.w, why, sizeof(why));
    CHECKF(strstr(why, ": connection refused") != NULL && strstr(why, "nothing listens") == NULL, "%s", why);
    /* A run with a deadline (-d) never gives up: its deadline ends it. */
    f.w.gave_up = 0;
    f.pl.t_deadline = t + 100 * limit;
    CHECK(reach_gave_up(&f.w, t + 10 * limit) == 0 && f.w.gave_up == 0);
    fix_free(&f);
}

int main(void)
{
    T_RUN(first_contact);
    T_RUN(backoff);
    T_RUN(tls_failures);
    T_RUN(gave_up);
    T_END("test_reach");
}

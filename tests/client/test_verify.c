/* A response's checks and extractions (src/client/verify.c), on answers
 * read by the HTTP/1.1 session: each check counted passed or failed with
 * what was seen at its first failure, a body over --max-body not checked
 * (said so) while its size still is, an extraction setting its connection's
 * variable and unsetting it when the next answer lacks it; and the capture's
 * bounds (verify_keep). */
#include "fixture.h"

static const char *const checks[] = {
    "status == 200", "header Content-Type ~ json", "body contains \"welcome\"",
    "json $.ok == true", "size < 100", "duration < 60s", "duration > 60s",
};
#define NCHECKS (sizeof(checks) / sizeof(checks[0]))

static void six_checks(struct config *cfg)
{
    size_t i;
    for (i = 0; i < NCHECKS; i++)
        CHECK(config_add_check(cfg, checks[i]) == 0);
}

static int answer(struct conn *c, const char *s)
{
    uint64_t now = clock_ns();
    if (c->count == 0)
        conn_take(c, now, now);
    return c->sess->read(c, s, strlen(s), now);
}

static void checks_counted(void)
{
    struct fix f;
    struct conn *c;
    struct worker *w;
    uint32_t k;
    c = fix_start(&f, "/", &session_http1, 0, six_checks);
    w = &f.w;
    CHECK(f.pl.nchecks == NCHECKS && f.pl.targets[0].capture == (CAPTURE_HEAD | CAPTURE_BODY) && w->capturing);
    CHECK(answer(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 31\r\n\r\n"
                    "{\"ok\": true, \"msg\": \"welcome\"}\n") == 1);
    /* Every check but the one that must fail passed. */
    for (k = 0; k + 1 < NCHECKS; k++)
        CHECKF(w->chk_pass[k] == 1 && w->chk_fail[k] == 0, "%s", checks[k]);
    CHECK(w->chk_pass[NCHECKS - 1] == 0 && w->chk_fail[NCHECKS - 1] == 1);
    CHECK(w->st.checked == 1 && w->st.checks_failed == 1 && FIX_DONE(&f) == 1);
    CHECK(strncmp(w->chk_seen[NCHECKS - 1], "duration ", 9) == 0);
    /* A chunked answer: its body checked as the parser undid it. */
    CHECK(answer(c, "HTTP/1.1 500 Oops\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
                    "2\r\nno\r\n3\r\npe!\r\n0\r\n\r\n") == 1);
    CHECK(w->chk_fail[0] == 1 && strcmp(w->chk_seen[0], "status 500") == 0);
    CHECK(w->chk_fail[1] == 1 && strstr(w->chk_seen[1], "text/plain") != NULL);
    CHECK(w->chk_fail[2] == 1 && strstr(w->chk_seen[2], "nope!") != NULL);
    CHECK(w->chk_fail[3] == 1);
    CHECK(w->chk_pass[4] == 2 && w->chk_pass[5] == 2 && w->chk_fail[6] == 2);
    CHECK(w->st.checked == 2 && w->st.checks_failed == 2 && FIX_DONE(&f) == 2);
    /* The first failure's seen stays: a third answer of another status
     * adds a count, not a new text. */
    CHECK(answer(c, "HTTP/1.1 503 No\r\nContent-Length: 0\r\n\r\n") == 1);
    CHECK(w->chk_fail[0] == 2 && strcmp(w->chk_seen[0], "status 500") == 0);
    CHECK(w->chk_fail[4] == 0 && w->chk_pass[4] == 3); /* an empty body's size is 0 */
    fix_free(&f);
}

static void small_max_body(struct config *cfg)
{
    CHECK(config_add_check(cfg, "body contains \"tail\"") == 0);
    CHECK(config_add_check(cfg, "size == 40") == 0);
    CHECK(config_add_check(cfg, "json $.a exists") == 0);
    cfg->max_body = 16;
}

/* A body longer than --max-body: its checks of the body are not made (said
 * so), its size still is, whole; a body within it, checked. */
static void body_over_max_body(void)
{
    char resp[256];
    struct fix f;
    struct conn *c;
    struct worker *w;
    c = fix_start(&f, "/", &session_http1, 0, small_max_body);
    w = &f.w;
    /* 40 bytes of body */
    snprintf(resp, sizeof(resp), "HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n%s", "{\"a\": 1, \"pad\": \"xxxxxxxxxxxxxxxx\"} tail");
    CHECK(strlen(resp) == 39 + 40);
    CHECK(answer(c, resp) == 1);
    CHECK(w->chk_fail[0] == 1 && strstr(w->chk_seen[0], "longer than --max-body (16 bytes)") != NULL);
    CHECK(w->chk_pass[1] == 1 && w->chk_fail[1] == 0);
    CHECK(w->chk_fail[2] == 1 && strstr(w->chk_seen[2], "longer than --max-body") != NULL);
    CHECK(answer(c, "HTTP/1.1 200 OK\r\nContent-Length: 14\r\n\r\n{\"a\": \"tail\"}\n") == 1);
    CHECK(w->chk_pass[0] == 1 && w->chk_fail[1] == 1 && w->chk_pass[2] == 1);
    CHECK(w->st.checked == 2 && w->st.checks_failed == 2);
    fix_free(&f);
}

static void extract_token(struct config *cfg)
{
    static const char *ex[] = { "token = json $.token", "sid = header X-Sid" };
    cfg->targets[0].extracts = ex;
    cfg->targets[0].nextracts = 2;
}

static void extractions(void)
{
    struct fix f;
    struct conn *c;
    c = fix_start(&f, "/", &session_http1, 0, extract_token);
    CHECK(f.pl.nextracts == 2 && f.pl.tset->nvars == 2 && f.pl.targets[0].after == AFTER_VERIFY);
    CHECK(answer(c, "HTTP/1.1 200 OK\r\nX-Sid:  s-9 \r\nContent-Length: 17\r\n\r\n{\"token\": \"abc\"}\n") == 1);
    CHECK(c->vars && c->vars->set == 3 && c->vars->len[f.pl.extract_var[0]] == 3 && c->vars->len[f.pl.extract_var[1]] == 3);
    CHECK(c->vars && memcmp(c->vars->val + (size_t)f.pl.extract_var[0] * TPL_VAR_MAX, "abc", 3) == 0 &&
          memcmp(c->vars->val + (size_t)f.pl.extract_var[1] * TPL_VAR_MAX, "s-9", 3) == 0);
    /* The next answer has no token: it is unset, not left stale. */
    CHECK(answer(c, "HTTP/1.1 200 OK\r\nX-Sid: t\r\nContent-Length: 2\r\n\r\n{}") == 1);
    CHECK(c->vars->set == 1ULL << f.pl.extract_var[1] && c->vars->len[f.pl.extract_var[1]] == 1);
    CHECK(f.w.st.checked == 0 && FIX_DONE(&f) == 2);
    fix_free(&f);
}

/* verify_keep: what is kept stops at the plan's limit (64 KiB of head,
 * --max-body and half again, 4 KiB), the rest counted and said over. */
static void keep_bounded(void)
{
    struct config cfg;
    struct plan pl;
    struct capture cp = { 0 };
    static char chunk[4096];
    size_t limit;
    int i;
    memset(&pl, 0, sizeof(pl));
    config_defaults(&cfg);
    cfg.max_body = 1000;
    pl.cfg = &cfg;
    limit = ((size_t)64 << 10) + 1500 + 4096;
    memset(chunk, 'z', sizeof(chunk));
    verify_span(&cp, &pl, HP_SPAN_HEAD, "A: b\r\n", 6);
    CHECK(cp.head_len == 6 && cp.len == 6 && cp.over == 0);
    for (i = 0; i < 20; i++)
        verify_keep(&cp, &pl, chunk, sizeof(chunk));
    CHECK(cp.len == limit && cp.total == 6 + 20 * sizeof(chunk) && cp.over == 1 && cp.cap == limit + 1);
    verify_reset(&cp);
    CHECK(cp.len == 0 && cp.total == 0 && cp.over == 0 && cp.cap == limit + 1);
    /* A head longer than what is kept: said apart (neither part checked). */
    for (i = 0; i < 20; i++)
        verify_span(&cp, &pl, HP_SPAN_HEAD, chunk, sizeof(chunk));
    CHECK(cp.over == (1 | CAPTURE_HEAD_CUT) && cp.head_len == limit);
    free(cp.p);
}

int main(void)
{
    T_RUN(checks_counted);
    T_RUN(body_over_max_body);
    T_RUN(extractions);
    T_RUN(keep_bounded);
    T_END("test_verify");
}

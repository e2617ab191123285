/* -v (src/client/show.c), on stderr as the HTTP/1.1 session ends its
 * answers: each target's first exchange once, Authorization and cookies as
 * their length (their values with -vv), the body's first KiB and how much
 * there was, control bytes escaped; the first bad status and the first
 * error of each kind, once. */
#include "fixture.h"

#include <sys/mman.h>

static int saved = -1, capt = -1;

/* stderr into a file of its own until show_end (no CHECK meanwhile: it
 * would be caught too). */
static void show_begin(void)
{
    fflush(stderr);
    saved = dup(2);
    capt = memfd_create("show", 0);
    dup2(capt, 2);
}

/* What was written, into buf (n bytes, NUL-ended). */
static void show_end(char *buf, size_t n)
{
    ssize_t r;
    dup2(saved, 2);
    close(saved);
    lseek(capt, 0, SEEK_SET);
    r = read(capt, buf, n - 1);
    buf[r > 0 ? r : 0] = '\0';
    close(capt);
}

static int vlevel;

static void verbose(struct config *cfg)
{
    cfg->verbose = vlevel;
    CHECK(config_add_header(cfg, "Authorization: Bearer secret123") == 0);
    CHECK(config_add_header(cfg, "X-Plain: seen") == 0);
}

/* The first exchange of a run at -v level v, its answer's body body_len
 * bytes of 'a' (then ESC [2J), into out. */
static void first_exchange(int v, size_t body_len, char *out, size_t n)
{
    struct fix f;
    struct conn *c;
    char *resp = malloc(body_len + 256);
    int k, r;
    vlevel = v;
    c = fix_start(&f, "/shown", &session_http1, 2, verbose);
    CHECK(f.pl.show != NULL && f.w.showing && f.w.capturing);
    k = sprintf(resp, "HTTP/1.1 200 OK\r\nSet-Cookie: s=abc\r\nContent-Length: %zu\r\n\r\n", body_len + 5);
    memset(resp + k, 'a', body_len);
    memcpy(resp + k + body_len, "\x1b[2Jb", 5);
    show_begin();
    r = c->sess->read(c, resp, (size_t)k + body_len + 5, clock_ns());
    /* The second answer: its target was shown, nothing more. */
    conn_take(c, clock_ns(), clock_ns());
    r += c->sess->read(c, resp, (size_t)k + body_len + 5, clock_ns());
    show_end(out, n);
    CHECK(r == 2 && FIX_DONE(&f) == 2);
    CHECK(!f.w.showing && !f.w.capturing); /* every target shown: no capture any more */
    free(resp);
    fix_free(&f);
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    while ((s = strstr(s, what)) != NULL) {
        n++;
        s += strlen(what);
    }
    return n;
}

static void secrets_masked(void)
{
    static char out[16384];
    char a1024[1100];
    first_exchange(1, 3000, out, sizeof(out));
    CHECK(count(out, "rafale: -v: the first exchange of ") == 1);
    CHECK(strstr(out, "> GET /shown HTTP/1.1\n") != NULL);
    CHECKF(strstr(out, "> Authorization: <16 bytes>\n") != NULL && strstr(out, "secret123") == NULL, "%s", out);
    CHECK(strstr(out, "> X-Plain: seen\n") != NULL);
    CHECK(strstr(out, "< HTTP/1.1 200\n") != NULL && strstr(out, "< Set-Cookie: <5 bytes>\n") != NULL);
    CHECK(strstr(out, "s=abc") == NULL);
    /* The body's first KiB, and how much there was. */
    a1024[0] = '<';
    a1024[1] = ' ';
    memset(a1024 + 2, 'a', 1024);
    memcpy(a1024 + 2 + 1024, "\n", 2);
    CHECK(strstr(out, a1024) != NULL);
    CHECK(strstr(out, "< (3005 bytes in all, the first 1024 shown)\n") != NULL);
}

static void vv_shows_values(void)
{
    static char out[16384];
    first_exchange(2, 10, out, sizeof(out));
    CHECK(strstr(out, "> Authorization: Bearer secret123\n") != NULL && strstr(out, "< Set-Cookie: s=abc\n") != NULL);
    /* A short body whole, its control byte escaped. */
    CHECKF(strstr(out, "< aaaaaaaaaa\\x1b[2Jb\n") != NULL && strstr(out, "bytes in all") == NULL, "%s", out);
}

/* The first answer of a bad status, the first error of a kind: a line
 * each, once. */
static void firsts_once(void)
{
    static char out[4096];
    struct fix f;
    struct slot s = { 0 };
    vlevel = 1;
    fix_init(&f, "/", &session_http1, 1, 0, verbose);
    show_begin();
    show_status(&f.w, &s, 503);
    show_status(&f.w, &s, 503);
    show_status(&f.w, &s, 404);
    show_error(&f.w, &s, ERR_RESET, "a detail");
    show_error(&f.w, &s, ERR_RESET, "again");
    show_end(out, sizeof(out));
    CHECK(count(out, "\n") == 3);
    /* Counted as a status, not as digits: the listener's port may hold 503 (55503). */
    CHECKF(strstr(out, "rafale: -v: the first 503 (outside --expect ") != NULL && count(out, " 503 ") == 1, "%s", out);
    CHECK(strstr(out, "rafale: -v: the first 404 ") != NULL);
    CHECK(strstr(out, "rafale: -v: the first reset error, of ") != NULL && strstr(out, ": a detail\n") != NULL &&
          strstr(out, "again") == NULL);
    fix_free(&f);
}

int main(void)
{
    T_RUN(secrets_masked);
    T_RUN(vv_shows_values);
    T_RUN(firsts_once);
    T_END("test_show");
}

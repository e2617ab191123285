/* The bytes of a request, built once per URL: the request line, Host as
 * RFC 9112 §3.2 wants it, the defaults, and the user's headers and body
 * winning over them. */
#include "config.h"
#include "request.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

static char *build(struct config *cfg, const char *url)
{
    struct url u;
    char err[256], *out = NULL;
    size_t len = 0;
    if (url_parse(url, &u, err, sizeof(err)) != 0)
        return NULL;
    struct req_spec rs;
    config_request(cfg, 0, &rs);
    if (request_build(&rs, &u, &out, &len, err, sizeof(err)) != 0) {
        out = NULL;
    } else {
        /* The bytes are not a string: one more for the NUL. */
        char *s = malloc(len + 1);
        memcpy(s, out, len);
        s[len] = '\0';
        free(out);
        out = s;
    }
    url_free(&u);
    return out;
}

static void get_with_defaults(void)
{
    struct config cfg;
    char *r;
    config_defaults(&cfg);
    r = build(&cfg, "http://127.0.0.1:8080/a?b=c");
    CHECKF(r && strcmp(r, "GET /a?b=c HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: rafale\r\nAccept: */*\r\n\r\n") == 0,
           "%s", r ? r : "(null)");
    free(r);
    /* The port only when the URL has one; IPv6 in brackets. */
    r = build(&cfg, "http://example.test/");
    CHECK(r && strstr(r, "\r\nHost: example.test\r\n") != NULL);
    free(r);
    r = build(&cfg, "http://[::1]:81/");
    CHECK(r && strstr(r, "\r\nHost: [::1]:81\r\n") != NULL);
    free(r);
    config_free(&cfg);
}

static void close_and_user_headers(void)
{
    struct config cfg;
    char *r;
    config_defaults(&cfg);
    cfg.keepalive = 0;
    config_add_header(&cfg, "Host: other.test");
    config_add_header(&cfg, "user-agent: mine");
    config_add_header(&cfg, "X-Test: 1");
    r = build(&cfg, "http://127.0.0.1:8080/");
    CHECKF(r && strcmp(r, "GET / HTTP/1.1\r\nAccept: */*\r\nConnection: close\r\nHost: other.test\r\n"
                          "user-agent: mine\r\nX-Test: 1\r\n\r\n") == 0,
           "%s", r ? r : "(null)");
    free(r);
    config_free(&cfg);
}

static void body_with_length_and_type(void)
{
    struct config cfg;
    char err[64], notes[64], *r;
    config_defaults(&cfg);
    cfg.body = strdup("a=1&b=2");
    cfg.body_len = 7;
    cfg.has_body = 1;
    cfg.content_type = "application/x-www-form-urlencoded";
    CHECK(config_finish(&cfg, err, sizeof(err), notes, sizeof(notes)) == 0 && strcmp(cfg.method, "POST") == 0);
    r = build(&cfg, "http://127.0.0.1/f");
    CHECKF(r && strcmp(r, "POST /f HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: rafale\r\nAccept: */*\r\n"
                          "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 7\r\n\r\na=1&b=2") == 0,
           "%s", r ? r : "(null)");
    free(r);
    /* The user's Content-Length is not doubled. */
    config_add_header(&cfg, "Content-Length: 7");
    r = build(&cfg, "http://127.0.0.1/f");
    CHECK(r && strstr(r, "Content-Length: 7\r\n") && strstr(strstr(r, "Content-Length") + 1, "Content-Length") == NULL);
    free(r);
    config_free(&cfg);
}

/* RFC 9112 §6.2: a user's Transfer-Encoding gets no Content-Length beside it. */
static void transfer_encoding_alone(void)
{
    struct config cfg;
    char err[64], notes[64], *r;
    config_defaults(&cfg);
    cfg.body = strdup("3\r\nabc\r\n0\r\n\r\n");
    cfg.body_len = strlen(cfg.body);
    cfg.has_body = 1;
    config_add_header(&cfg, "Transfer-Encoding: chunked");
    CHECK(config_finish(&cfg, err, sizeof(err), notes, sizeof(notes)) == 0);
    r = build(&cfg, "http://127.0.0.1/f");
    CHECKF(r && strstr(r, "Transfer-Encoding: chunked\r\n") && !strstr(r, "Content-Length"), "%s", r ? r : "(null)");
    free(r);
    config_free(&cfg);
}

int main(void)
{
    T_RUN(get_with_defaults);
    T_RUN(close_and_user_headers);
    T_RUN(body_with_length_and_type);
    T_RUN(transfer_encoding_alone);
    T_END("test_request");
}

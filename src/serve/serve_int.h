/* serve_int.h - what `rafale serve`'s files share: the server, and the
 * answer to a request decided once (serve_reply) and then written as
 * HTTP/1.1 (serve.c) or HTTP/2 (serve_h2.c). Private to src/serve/. */
#ifndef RAFALE_SERVE_INT_H
#define RAFALE_SERVE_INT_H

#include <stdint.h>
#include <stdio.h>

#include "serve_config.h"
#include "net.h"
#include "tls.h"

#define SERVE_MAX_BODY (64u << 20)  /* largest /bytes/N */
#define SERVE_MAX_DELAY_MS 600000

/* Generated bodies: byte i is SERVE_PATTERN[i % SERVE_PATTERN_LEN]. */
static const char SERVE_PATTERN[] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ\n";
#define SERVE_PATTERN_LEN (sizeof(SERVE_PATTERN) - 1)
static const char SERVE_HELLO[] = "Hello, world\n";

struct file_ent {
    char *name;
    char *data;
    size_t len;
    const char *ctype;
};

struct sthread;
struct sh3_tls;

struct serve {
    struct serve_config cfg;
    struct net_addr addr;
    char addr_str[96];
    struct sthread *threads;
    uint32_t nthreads;
    struct file_ent *files;
    uint32_t nfiles;
    FILE *log;
    int log_owned;
    struct tls_server *tls;
    struct sh3_tls *h3tls;       /* --http3: QUIC's TLS (serve_h3_quic.c), or NULL */
    char alt_svc[24];            /* --http3: the Alt-Svc value of TCP answers ("h3=\":PORT\""), or "" */
};

/* How the body of a reply is made. */
enum reply_kind {
    B_MEM,          /* body/blen: static text or a file's bytes */
    B_TEXT,         /* text/blen: made for this reply */
    B_GEN_BYTES,    /* gen_len pattern bytes, generated as they are sent */
    B_GEN_CHUNKED,  /* the same without a length (HTTP/1.1: chunked) */
    B_DELAY,        /* no answer yet: serve_reply_delayed() after delay_us */
};

struct reply {
    int status;
    const char *ctype;           /* NULL: no Content-Type */
    const char *location;        /* /redirect: the Location (loclen bytes), or NULL */
    size_t loclen;
    const char *body;
    size_t blen;
    uint64_t gen_len;
    uint32_t delay_us;
    uint8_t kind;                /* enum reply_kind */
    uint8_t close;               /* /close: end the connection after it */
    char text[64];
};

/* Decides the answer to a request for target (path and query, tlen bytes).
 * Pointers in rp point into the target, the server or static text; rng is
 * the calling thread's. Returns 0. */
int serve_reply(const struct serve *s, uint32_t *rng, const char *target, size_t tlen, struct reply *rp);
/* The answer to a /delay request once its time (us) has come. */
void serve_reply_delayed(struct reply *rp, uint32_t us);

static inline int reply_text(struct reply *rp, int status, const char *text)
{
    size_t i;
    rp->status = status;
    rp->ctype = "text/plain";
    rp->kind = B_TEXT;
    for (i = 0; text[i] && i < sizeof(rp->text) - 1; i++)
        rp->text[i] = text[i];
    rp->text[i] = '\0';
    rp->blen = i;
    return 0;
}

#endif

/* serve.c - `rafale serve`: a small, fast HTTP/1.1 target server.
 *
 * One thread per core, each with its own SO_REUSEPORT listener and event
 * loop, sharing nothing but read-only files. Requests are parsed (http_req.c)
 * straight from a per-thread read buffer; only a partial request head or
 * unsent output is kept in the connection, so idle keep-alive connections
 * cost a few hundred bytes. Responses to pipelined requests are batched into
 * one write.
 *
 * It is a reference target, and it may end up facing the internet by
 * mistake, so it is a well-behaved server: request bodies are skipped as they
 * come, never buffered; large responses (/bytes, /chunked, big files) are
 * generated as the socket takes them, and pipelined requests are not taken
 * up while output waits (backpressure, not buffering); buffers shrink back;
 * a request head must arrive within --header-timeout and an idle connection
 * is closed after --idle-timeout, as a connection whose client stops reading. */
#include "serve.h"
#include "err.h"
#include "serve_conn.h"
#include "serve_h2.h"
#ifdef RAFALE_HTTP3
#include "serve_h3.h"
#endif
#include "buf.h"
#include "clock.h"
#include "http_lex.h"
#include "http_req.h"
#include "loop.h"
#include "net.h"
#include "tls.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

static void on_tick(struct timer *tm, uint64_t now)
{
    struct sthread *t = container_of(tm, struct sthread, tick);
    time_t sec = time(NULL);
    struct tm g;
    gmtime_r(&sec, &g);
    strftime(t->date, sizeof(t->date), "%a, %d %b %Y %H:%M:%S GMT", &g);
    strftime(t->logdate, sizeof(t->logdate), "%d/%b/%Y:%H:%M:%S +0000", &g);
    serve_h1_hello(t);
    loop_timer_set(&t->loop, &t->tick, now + NS_PER_S);
}

static void on_accept(struct loop_io *io, uint32_t ev)
{
    struct sthread *t = container_of(io, struct sthread, lio);
    (void)ev;
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int one = 1;
        struct sconn *c;
        int fd = accept4(t->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return; /* EAGAIN, or out of descriptors: the next arrival retries */
        }
        t->accepted++;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (t->free) {
            struct sconn *keep_all;
            c = t->free;
            t->free = c->next_free;
            keep_all = c->next_all;
            memset(c, 0, sizeof(*c));
            c->next_all = keep_all;
        } else if ((c = calloc(1, sizeof(*c))) == NULL) {
            close(fd);
            continue;
        } else {
            c->next_all = t->all;
            t->all = c;
        }
        c->t = t;
        c->fd = fd;
        c->io.fn = serve_conn_on_io;
        c->timer.fn = serve_conn_on_timer;
        c->ops = &io_plain;
        c->fresh = 1;
        c->t_idle = c->t_req = c->t_out = clock_ns();
        if (t->s->tls) {
            c->io_ctx = tls_server_conn(t->s->tls, fd);
            if (c->io_ctx == NULL) {
                serve_conn_free(c);
                continue;
            }
            c->ops = &io_tls;
            c->handshaking = 2; /* its first bytes not looked at yet */
        }
        if (t->s->log) {
            struct net_addr a;
            char *colon;
            memcpy(&a.ss, &ss, sl);
            a.len = sl;
            net_addr_str(&a, c->peer, sizeof(c->peer));
            colon = strrchr(c->peer, ':');
            if (colon)
                *colon = '\0';
        }
        if (loop_add(&t->loop, fd, LOOP_IN | LOOP_OUT, &c->io) != 0) {
            serve_conn_free(c);
            continue;
        }
        serve_conn_arm(c);
        /* No read yet: the request has rarely arrived with the handshake, and
         * epoll reports data that is already there when the socket is added. */
        if (c->handshaking)
            serve_conn_on_io(&c->io, LOOP_IN);
    }
}

static void *sthread_main(void *arg)
{
    struct sthread *t = arg;
    while (!atomic_load_explicit(t->stop, memory_order_relaxed))
        if (loop_poll(&t->loop, 100 * NS_PER_MS) < 0)
            break;
    return NULL;
}

/* --- start and stop --- */

static int parse_listen(const char *spec, struct net_addr *a, char *err, size_t errlen)
{
    char host[256];
    const char *colon, *hs = spec, *he;
    uint64_t port;

    if (strncmp(spec, "unix:", 5) == 0)
        return net_unix(spec + 5, a, err, errlen);
    if (spec[0] == '[') {
        he = strchr(spec, ']');
        if (he == NULL || he[1] != ':')
            goto bad;
        hs = spec + 1;
        colon = he + 1;
    } else {
        colon = strrchr(spec, ':');
        if (colon == NULL)
            goto bad;
        he = colon;
    }
    if ((size_t)(he - hs) >= sizeof(host) || lex_number(colon + 1, strlen(colon + 1), 65535, &port) != 0)
        goto bad;
    memcpy(host, hs, (size_t)(he - hs));
    host[he - hs] = '\0';
    if (host[0] == '\0')
        strcpy(host, "0.0.0.0");
    return net_resolve(host, (uint16_t)port, a, err, errlen);
bad:
    err_set(err, errlen, NULL, "--listen wants ADDR:PORT such as 127.0.0.1:8080 or [::1]:0, not '%s'", spec);
    return -1;
}

/* --http3 needs the libraries at build time, and an address UDP can bind. */
static int serve_http3_check(struct serve *s, char *err, size_t errlen)
{
#ifdef RAFALE_HTTP3
    if (s->addr.ss.ss_family == AF_UNIX) {
        err_set(err, errlen, NULL, "--http3 serves on UDP: give --listen ADDR:PORT, not a Unix socket");
        return -1;
    }
    return serve_h3_tls_new(s, err, errlen);
#else
    (void)s;
    err_set(err, errlen, NULL, "--http3: this rafale was built without HTTP/3 (it needs libngtcp2-dev, "
                          "libngtcp2-crypto-gnutls-dev and libnghttp3-dev at build time: make deps, then make)");
    return -1;
#endif
}

static void set_port(struct net_addr *a, uint16_t port)
{
    if (a->ss.ss_family == AF_INET6)
        ((struct sockaddr_in6 *)&a->ss)->sin6_port = htons(port);
    else
        ((struct sockaddr_in *)&a->ss)->sin_port = htons(port);
}

static void serve_free(struct serve *s)
{
    uint32_t i;
    for (i = 0; i < s->nthreads; i++) {
        struct sthread *t = &s->threads[i];
        struct sconn *c;
        if (t->lfd >= 0 && !t->lfd_shared)
            close(t->lfd);
#ifdef RAFALE_HTTP3
        serve_h3_close(t);
#endif
        while ((c = t->all) != NULL) {
            t->all = c->next_all;
            if (c->fd >= 0)
                c->ops->close(c->io_ctx, c->fd);
            serve_h2_free(c->h2);
            buf_free(&c->in);
            buf_free(&c->out);
            free(c);
        }
        loop_fini(&t->loop);
        free(t->rbuf);
        buf_free(&t->wb);
        buf_free(&t->hello);
    }
    for (i = 0; i < s->nfiles; i++) {
        free(s->files[i].data);
        free(s->files[i].name);
    }
    free(s->files);
    /* Our socket file goes with us. */
    if (s->addr.ss.ss_family == AF_UNIX && s->nthreads && s->threads[0].lfd >= 0)
        unlink(((const struct sockaddr_un *)&s->addr.ss)->sun_path);
    free(s->threads);
    if (s->log && s->log_owned)
        fclose(s->log);
    tls_server_free(s->tls);
#ifdef RAFALE_HTTP3
    serve_h3_tls_free(s);
#endif
    free(s);
}

int serve_start(const struct serve_config *sc, struct serve **out, char *err, size_t errlen)
{
    struct serve *s = calloc(1, sizeof(*s));
    uint32_t i;

    if (s == NULL) {
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    s->cfg = *sc;
    if (parse_listen(sc->listen, &s->addr, err, errlen) != 0)
        goto fail;
    if (sc->files_dir && serve_files_load(s, sc->files_dir, err, errlen) != 0)
        goto fail;
    if (sc->tls_cert && (tls_server_new(sc->tls_cert, sc->tls_key, sc->key_pass_set ? sc->key_pass : NULL, 1, &s->tls,
                                        err, errlen) != 0 ||
                         (sc->tls_client_ca && tls_server_require_client(s->tls, sc->tls_client_ca, err, errlen) != 0)))
        goto fail;
    if (sc->http3 && serve_http3_check(s, err, errlen) != 0)
        goto fail;
    /* Every key is read: the phrase is of no more use here. */
    explicit_bzero(s->cfg.key_pass, sizeof(s->cfg.key_pass));
    if (sc->access_log) {
        if (strcmp(sc->access_log, "-") == 0) {
            s->log = stdout;
        } else if ((s->log = fopen(sc->access_log, "a")) == NULL) {
            err_set(err, errlen, NULL, "cannot open access log '%s': %s", sc->access_log, strerror(errno));
            goto fail;
        } else {
            s->log_owned = 1;
        }
    }
    s->threads = calloc(sc->threads, sizeof(*s->threads));
    if (s->threads == NULL) {
        err_set(err, errlen, NULL, "out of memory");
        goto fail;
    }
    for (i = 0; i < sc->threads; i++) {
        struct sthread *t = &s->threads[i];
        t->lfd = -1;
        t->loop.epfd = -1;
        s->nthreads++;
        t->s = s;
        t->rng = 2463534242u + i * 7919u;
        if (loop_init(&t->loop, 512) != 0 || (t->rbuf = malloc(IO_RBUF_SIZE)) == NULL) {
            err_set(err, errlen, NULL, "out of memory");
            goto fail;
        }
        /* A Unix socket has no SO_REUSEPORT: its threads share one listener. */
        if (i > 0 && s->addr.ss.ss_family == AF_UNIX) {
            t->lfd = s->threads[0].lfd;
            t->lfd_shared = 1;
        } else {
            t->lfd = net_listen(&s->addr, 4096, err, errlen);
            if (t->lfd < 0)
                goto fail;
        }
        if (i == 0 && s->addr.ss.ss_family != AF_UNIX)
            set_port(&s->addr, net_local_port(t->lfd)); /* port 0: the others join the one picked */
#ifdef RAFALE_HTTP3
        /* HTTP/3 on UDP at the TCP listener's address and port, as servers
         * announce it (Alt-Svc: h3=":PORT", RFC 9114 section 3.1.1). */
        if (sc->http3) {
            if (serve_h3_listen(t, &s->addr, err, errlen) != 0)
                goto fail;
            snprintf(s->alt_svc, sizeof(s->alt_svc), "h3=\":%u\"", (unsigned)net_local_port(t->lfd));
        }
#endif
        t->lio.fn = on_accept;
        t->tick.fn = on_tick;
        if (loop_add(&t->loop, t->lfd, LOOP_IN, &t->lio) != 0) {
            err_set(err, errlen, NULL, "epoll: %s", strerror(errno));
            goto fail;
        }
        on_tick(&t->tick, clock_ns());
    }
    net_addr_str(&s->addr, s->addr_str, sizeof(s->addr_str));
    *out = s;
    return 0;
fail:
    explicit_bzero(s->cfg.key_pass, sizeof(s->cfg.key_pass));
    serve_free(s);
    return -1;
}

const char *serve_address(const struct serve *s)
{
    return s->addr_str;
}

int serve_wait(struct serve *s, const atomic_int *stop, struct serve_counts *counts, char *err, size_t errlen)
{
    uint32_t i, started = 0;
    int rc = 0;

    memset(counts, 0, sizeof(*counts));
    for (i = 0; i < s->nthreads; i++) {
        s->threads[i].stop = stop;
        if (pthread_create(&s->threads[i].th, NULL, sthread_main, &s->threads[i]) != 0) {
            err_set(err, errlen, NULL, "cannot start thread: %s", strerror(errno));
            rc = -1;
            break;
        }
        started++;
    }
    if (rc != 0) {
        /* Threads already running only stop with the flag: wait for it. */
        while (!atomic_load(stop))
            usleep(100000);
    }
    for (i = 0; i < started; i++) {
        pthread_join(s->threads[i].th, NULL);
        counts->connections += s->threads[i].accepted;
        counts->requests += s->threads[i].requests;
    }
    if (s->log)
        fflush(s->log);
    serve_free(s);
    return rc;
}

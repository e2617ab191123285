/* tls.c - TLS through OpenSSL 3: client and server contexts, session
 * resumption, and the io_tls transport. Non-blocking throughout: OpenSSL's
 * WANT_READ / WANT_WRITE become EAGAIN or IO_WANT_*, and the edge-triggered
 * loop calls back on the next readiness. */
#include "tls.h"
#include "err.h"
#include "rxstamp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <unistd.h>

struct tls_client {
    SSL_CTX *ctx;
    BIO_METHOD *bio; /* the socket BIO, reading through rxstamp_recv; NULL: OpenSSL's own */
    int no_resume;
};

struct tls_server {
    SSL_CTX *ctx;
};

static void openssl_reason(char *err, size_t errlen, const char *what)
{
    unsigned long e = ERR_peek_last_error();
    const char *r = e ? ERR_reason_error_string(e) : NULL;
    err_set(err, errlen, NULL, "%s%s%s", what, r ? ": " : "", r ? r : "");
    ERR_clear_error();
}

/* What a key's pass-phrase callback knows: the phrase given (NULL: none),
 * and, after, whether OpenSSL asked for one (the key is encrypted). */
struct pem_pass {
    const char *phrase;
    int asked;
};

/* Installed on every context: OpenSSL's default prompts on the terminal,
 * or reads standard input when there is none (a CI job's idle pipe:
 * forever). This one gives the phrase that was given, or fails. */
static int pem_pass_cb(char *buf, int size, int rwflag, void *u)
{
    struct pem_pass *pp = u;
    size_t n;
    (void)rwflag;
    if (pp == NULL)
        return -1;
    pp->asked = 1;
    if (pp->phrase == NULL || size < 0 || (n = strlen(pp->phrase)) > (size_t)size)
        return -1;
    memcpy(buf, pp->phrase, n);
    return (int)n;
}

/* KEY_NONE: no private key in the file; KEY_LOCKED: encrypted, no phrase. */
enum { KEY_OK, KEY_ERR, KEY_NONE, KEY_LOCKED, KEY_WRONG };

/* The first private key of a PEM file into ctx, decrypted with phrase
 * when it is encrypted. KEY_ERR leaves OpenSSL's reason queued. */
static int use_key(SSL_CTX *ctx, const char *file, const char *phrase)
{
    struct pem_pass pp = { phrase, 0 };
    BIO *b = BIO_new_file(file, "r");
    EVP_PKEY *k = b ? PEM_read_bio_PrivateKey(b, NULL, pem_pass_cb, &pp) : NULL;
    int ok = k && SSL_CTX_use_PrivateKey(ctx, k) == 1;
    EVP_PKEY_free(k);
    BIO_free(b);
    if (ok)
        return KEY_OK;
    if (b && k == NULL) {
        ERR_clear_error();
        return !pp.asked ? KEY_NONE : phrase ? KEY_WRONG : KEY_LOCKED;
    }
    return KEY_ERR;
}

/* The socket BIO's read, through recvmsg: the kernel's receive stamp of
 * what it reads goes where the BIO's data points (tls_recv sets it for
 * the length of a read; NULL otherwise, as in the handshake). The rest
 * (write, ctrl, create, destroy) is OpenSSL's socket BIO. */
static int stamp_bio_read(BIO *b, char *out, int len)
{
    uint64_t *stamp = BIO_get_data(b), none = 0;
    ssize_t n;
    if (out == NULL || len <= 0)
        return 0;
    errno = 0;
    n = rxstamp_recv(BIO_get_fd(b, NULL), out, (size_t)len, stamp ? stamp : &none);
    BIO_clear_retry_flags(b);
    if (n <= 0) {
        if (BIO_sock_should_retry((int)n))
            BIO_set_retry_read(b);
        else if (n == 0)
            BIO_set_flags(b, BIO_FLAGS_IN_EOF); /* what SSL_OP_IGNORE_UNEXPECTED_EOF reads */
    }
    return (int)n;
}

static BIO_METHOD *stamp_bio_method(void)
{
    const BIO_METHOD *sock = BIO_s_socket();
    BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR, "rafale socket");
    if (m == NULL)
        return NULL;
    if (!BIO_meth_set_read(m, stamp_bio_read) || !BIO_meth_set_write(m, BIO_meth_get_write(sock)) ||
        !BIO_meth_set_puts(m, BIO_meth_get_puts(sock)) || !BIO_meth_set_ctrl(m, BIO_meth_get_ctrl(sock)) ||
        !BIO_meth_set_create(m, BIO_meth_get_create(sock)) || !BIO_meth_set_destroy(m, BIO_meth_get_destroy(sock))) {
        BIO_meth_free(m);
        return NULL;
    }
    return m;
}

/* TLS 1.3 tickets arrive after the handshake: keep the newest for the next
 * connection to the same target. */
static int new_session(SSL *ssl, SSL_SESSION *sess)
{
    struct tls_ticket *slot = SSL_get_app_data(ssl);
    if (slot == NULL)
        return 0;
    if (slot->session)
        SSL_SESSION_free(slot->session);
    slot->session = sess;
    return 1; /* we keep the reference */
}

static int set_version(SSL_CTX *ctx, int v)
{
    if (v == 12)
        return SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) && SSL_CTX_set_max_proto_version(ctx, TLS1_2_VERSION);
    if (v == 13)
        return SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) && SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION);
    return SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

int tls_client_new(const struct tls_options *o, struct tls_client **out, char *err, size_t errlen)
{
    struct tls_client *tc = calloc(1, sizeof(*tc));
    const char *proto = o->alpn ? o->alpn : "http/1.1";
    unsigned char alpn[32];
    size_t n = strlen(proto) < sizeof(alpn) - 1 ? strlen(proto) : sizeof(alpn) - 1;
    SSL_CTX *ctx;

    if (tc == NULL) {
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    ctx = SSL_CTX_new(TLS_client_method());
    if (ctx == NULL) {
        free(tc);
        openssl_reason(err, errlen, "cannot create a TLS context");
        return -1;
    }
    tc->ctx = ctx;
    tc->no_resume = o->no_resume;
    /* Without it (out of memory) the connections read as OpenSSL does, and
     * their answers are stamped in user space. */
    tc->bio = stamp_bio_method();
    ERR_clear_error();
    SSL_CTX_set_default_passwd_cb(ctx, pem_pass_cb);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* A TCP close without close_notify reads as end of stream; the HTTP
     * parser then decides whether the response was complete. */
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    /* Only the run's protocol is offered (with --http2, h2): a server that
     * cannot speak it selects nothing, and the connection says so (RFC 9113
     * §3.2). */
    alpn[0] = (unsigned char)n;
    memcpy(alpn + 1, proto, n);
    SSL_CTX_set_alpn_protos(ctx, alpn, (unsigned)n + 1);
    /* Whole socket reads instead of a header then a body per record. */
    SSL_CTX_set_read_ahead(ctx, 1);
    if (!set_version(ctx, o->version)) {
        tls_client_free(tc);
        openssl_reason(err, errlen, "cannot set the TLS version");
        return -1;
    }
    if (o->ciphers) {
        /* One list serves both: TLS 1.2 cipher names and 1.3 suites. */
        int a = SSL_CTX_set_cipher_list(ctx, o->ciphers), b = SSL_CTX_set_ciphersuites(ctx, o->ciphers);
        ERR_clear_error();
        if (!a && !b) {
            tls_client_free(tc);
            err_set(err, errlen, NULL, "--ciphers: OpenSSL knows none of '%s'", o->ciphers);
            return -1;
        }
    }
    if (o->insecure) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    } else {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
        if (o->cacert ? !SSL_CTX_load_verify_locations(ctx, o->cacert, NULL) : !SSL_CTX_set_default_verify_paths(ctx)) {
            char what[300];
            snprintf(what, sizeof(what), "cannot load the CA certificates%s%s", o->cacert ? " from " : "",
                     o->cacert ? o->cacert : "");
            tls_client_free(tc);
            openssl_reason(err, errlen, what);
            return -1;
        }
    }
    if (o->cert) {
        /* mTLS: the certificate (its chain) and its key, checked together. */
        const char *opt = o->key ? "--key" : "--cert", *file = o->key ? o->key : o->cert;
        char what[300];
        int k;
        if (SSL_CTX_use_certificate_chain_file(ctx, o->cert) != 1) {
            snprintf(what, sizeof(what), "--cert: cannot use '%s'", o->cert);
            tls_client_free(tc);
            openssl_reason(err, errlen, what);
            return -1;
        }
        k = use_key(ctx, file, o->pass);
        if (k == KEY_LOCKED || k == KEY_WRONG || k == KEY_NONE) {
            if (k == KEY_LOCKED)
                err_set(err, errlen, NULL,
                        "%s %s: the key is encrypted; give its pass phrase with --key-pass env:NAME, "
                        "file:PATH or pass:PHRASE",
                        opt, file);
            else if (k == KEY_WRONG)
                err_set(err, errlen, NULL, "%s %s: wrong pass phrase (bad decrypt)", opt, file);
            else
                err_set(err, errlen, NULL, "%s %s: no private key in it (PEM)%s", opt, file,
                        o->key ? "" : "; give the key's file with --key");
            tls_client_free(tc);
            return -1;
        }
        if (k != KEY_OK || SSL_CTX_check_private_key(ctx) != 1) {
            snprintf(what, sizeof(what), "--key: cannot use '%s' with the certificate", file);
            tls_client_free(tc);
            openssl_reason(err, errlen, what);
            return -1;
        }
    }
    if (o->no_resume) {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
        SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
    } else {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
        SSL_CTX_sess_set_new_cb(ctx, new_session);
    }
    *out = tc;
    return 0;
}

void tls_client_free(struct tls_client *tc)
{
    if (tc == NULL)
        return;
    SSL_CTX_free(tc->ctx);
    BIO_meth_free(tc->bio);
    free(tc);
}

/* OpenSSL's message callback while a client handshake lasts: the server's
 * first record header beginning "HTTP/" is a plain HTTP server's answer to
 * the ClientHello (OpenSSL says only "wrong version number"); its alert
 * no_application_protocol refuses what ALPN offered. */
static void peer_seen(int write_p, int version, int type, const void *buf, size_t len, SSL *ssl, void *arg)
{
    const unsigned char *p = buf;
    uint8_t *peer = arg;
    (void)version;
    (void)ssl;
    if (write_p)
        return;
    if (type == SSL3_RT_HEADER && len >= 5 && memcmp(p, "HTTP/", 5) == 0)
        *peer = TLS_PEER_PLAIN_HTTP;
    else if (type == SSL3_RT_ALERT && len >= 2 && p[1] == TLS1_AD_NO_APPLICATION_PROTOCOL)
        *peer = TLS_PEER_NO_ALPN;
}

void *tls_client_conn(struct tls_client *tc, int fd, const char *host, struct tls_ticket *slot, uint8_t *peer,
                      const char **why)
{
    SSL *ssl = SSL_new(tc->ctx);
    BIO *b = ssl && tc->bio ? BIO_new(tc->bio) : NULL;
    unsigned char ip[16];
    int is_ip;

    if (b) {
        BIO_set_fd(b, fd, BIO_NOCLOSE);
        SSL_set_bio(ssl, b, b);
    }
    if (ssl == NULL || (b == NULL && !SSL_set_fd(ssl, fd))) {
        /* OpenSSL's reason, from its static tables, so it can be kept. */
        const char *r = ERR_reason_error_string(ERR_peek_last_error());
        SSL_free(ssl);
        ERR_clear_error();
        *why = r ? r : "cannot start TLS";
        return NULL;
    }
    is_ip = inet_pton(AF_INET, host, ip) == 1 || inet_pton(AF_INET6, host, ip) == 1;
    if (!is_ip)
        SSL_set_tlsext_host_name(ssl, host); /* SNI never carries an address */
    if (is_ip)
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host);
    else
        SSL_set1_host(ssl, host);
    if (!tc->no_resume && slot) {
        SSL_set_app_data(ssl, slot);
        if (slot->session)
            SSL_set_session(ssl, slot->session);
    }
    *peer = TLS_PEER_TLS;
    SSL_set_msg_callback(ssl, peer_seen);
    SSL_set_msg_callback_arg(ssl, peer);
    SSL_set_connect_state(ssl);
    return ssl;
}

static const char *tls_alpn(void *ctx)
{
    const unsigned char *p;
    unsigned int n;
    SSL_get0_alpn_selected(ctx, &p, &n);
    if (n == 2 && memcmp(p, "h2", 2) == 0)
        return "h2";
    if (n == 8 && memcmp(p, "http/1.1", 8) == 0)
        return "http/1.1";
    return n ? "another protocol" : NULL;
}

/* Serve's ALPN choice: h2 when the client offers it (and arg says serve
 * speaks it), else http/1.1, else
 * no ALPN at all (an old client: HTTP/1.1 it is). */
static int alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
                       unsigned int inlen, void *arg)
{
    static const unsigned char h2[] = "h2", h1[] = "http/1.1";
    const unsigned char *pick = NULL;
    unsigned char picklen = 0;
    unsigned int i;
    (void)ssl;
    for (i = 0; i < inlen && i + 1 + in[i] <= inlen; i += 1u + in[i]) {
        if (arg && in[i] == 2 && memcmp(in + i + 1, h2, 2) == 0) {
            pick = h2;
            picklen = 2;
            break;
        }
        if (in[i] == 8 && memcmp(in + i + 1, h1, 8) == 0 && pick == NULL) {
            pick = h1;
            picklen = 8;
        }
    }
    if (pick == NULL)
        return SSL_TLSEXT_ERR_NOACK;
    *out = pick;
    *outlen = picklen;
    return SSL_TLSEXT_ERR_OK;
}

static int tls_handshake_kind(void *ctx)
{
    return SSL_session_reused(ctx) ? IO_HS_RESUMED : IO_HS_FULL;
}

void tls_ticket_free(struct tls_ticket *slot)
{
    if (slot->session)
        SSL_SESSION_free(slot->session);
    slot->session = NULL;
}

int tls_server_new(const char *cert, const char *key, const char *pass, int h2, struct tls_server **out, char *err,
                   size_t errlen)
{
    struct tls_server *ts = calloc(1, sizeof(*ts));
    int k;
    if (ts == NULL) {
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    ts->ctx = SSL_CTX_new(TLS_server_method());
    if (ts->ctx == NULL) {
        free(ts);
        openssl_reason(err, errlen, "cannot create a TLS context");
        return -1;
    }
    SSL_CTX_set_mode(ts->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_default_passwd_cb(ts->ctx, pem_pass_cb);
    SSL_CTX_set_options(ts->ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_min_proto_version(ts->ctx, TLS1_2_VERSION);
    SSL_CTX_set_alpn_select_cb(ts->ctx, alpn_select, h2 ? (void *)ts : NULL);
    if (SSL_CTX_use_certificate_chain_file(ts->ctx, cert) != 1) {
        char what[300];
        snprintf(what, sizeof(what), "cannot use the certificate '%s'", cert);
        openssl_reason(err, errlen, what);
        tls_server_free(ts);
        return -1;
    }
    if ((k = use_key(ts->ctx, key, pass)) == KEY_LOCKED || k == KEY_WRONG || k == KEY_NONE) {
        if (k == KEY_LOCKED)
            err_set(err, errlen, NULL,
                    "--tls-key %s: the key is encrypted; give its pass phrase with --key-pass env:NAME, file:PATH "
                    "or pass:PHRASE",
                    key);
        else if (k == KEY_WRONG)
            err_set(err, errlen, NULL, "--tls-key %s: wrong pass phrase (bad decrypt)", key);
        else
            err_set(err, errlen, NULL, "--tls-key %s: no private key in it (PEM)", key);
        tls_server_free(ts);
        return -1;
    }
    if (k != KEY_OK || SSL_CTX_check_private_key(ts->ctx) != 1) {
        char what[300];
        snprintf(what, sizeof(what), "cannot use the key '%s'", key);
        openssl_reason(err, errlen, what);
        tls_server_free(ts);
        return -1;
    }
    *out = ts;
    return 0;
}

int tls_server_require_client(struct tls_server *ts, const char *ca_file, char *err, size_t errlen)
{
    STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(ca_file);
    if (names == NULL || SSL_CTX_load_verify_locations(ts->ctx, ca_file, NULL) != 1) {
        char what[300];
        snprintf(what, sizeof(what), "--tls-client-ca: cannot load '%s'", ca_file);
        if (names)
            sk_X509_NAME_pop_free(names, X509_NAME_free);
        openssl_reason(err, errlen, what);
        return -1;
    }
    SSL_CTX_set_client_CA_list(ts->ctx, names);
    SSL_CTX_set_verify(ts->ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    /* A verified session is resumed only within a context it names: without
     * one, OpenSSL refuses every resumption (an internal error alert). */
    SSL_CTX_set_session_id_context(ts->ctx, (const unsigned char *)"rafale serve", 12);
    return 0;
}

void tls_server_free(struct tls_server *ts)
{
    if (ts == NULL)
        return;
    SSL_CTX_free(ts->ctx);
    free(ts);
}

void *tls_server_conn(struct tls_server *ts, int fd)
{
    SSL *ssl = SSL_new(ts->ctx);
    if (ssl == NULL || !SSL_set_fd(ssl, fd)) {
        SSL_free(ssl);
        ERR_clear_error();
        return NULL;
    }
    SSL_set_accept_state(ssl);
    return ssl;
}

/* Sends close_notify (best effort, no waiting), then shuts the write side. */
static void tls_shutdown(void *ctx, int fd)
{
    SSL_shutdown(ctx);
    ERR_clear_error();
    shutdown(fd, SHUT_WR);
}

/* --- the transport --- */

static int tls_handshake(void *ctx, int fd)
{
    SSL *ssl = ctx;
    int r, e;
    (void)fd;
    ERR_clear_error();
    r = SSL_do_handshake(ssl);
    if (r == 1) {
        SSL_set_msg_callback(ssl, NULL); /* (the client's peer_seen) not a call per record after */
        return IO_OK;
    }
    e = SSL_get_error(ssl, r);
    if (e == SSL_ERROR_WANT_READ)
        return IO_WANT_READ;
    if (e == SSL_ERROR_WANT_WRITE)
        return IO_WANT_WRITE;
    errno = EPROTO;
    return IO_ERROR;
}

static ssize_t tls_read(void *ctx, int fd, void *buf, size_t len)
{
    SSL *ssl = ctx;
    size_t total = 0;
    (void)fd;
    /* SSL_read returns one record at a time: keep going until the socket
     * is drained, or edge-triggered polling would never call us again. */
    while (total < len) {
        size_t got = 0;
        int r, e;
        ERR_clear_error();
        r = SSL_read_ex(ssl, (char *)buf + total, len - total, &got);
        if (r == 1) {
            total += got;
            continue;
        }
        e = SSL_get_error(ssl, r);
        if (total > 0 && (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_ZERO_RETURN))
            return (ssize_t)total; /* the end of stream will be seen on the next call */
        if (total > 0)
            return (ssize_t)total; /* report the data; the error comes again next call */
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
            errno = EAGAIN;
            return -1;
        }
        if (e == SSL_ERROR_ZERO_RETURN)
            return 0;
        if (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) {
            if (errno == 0)
                return 0;
            return -1; /* errno from the socket: ECONNRESET... */
        }
        errno = EPROTO;
        return -1;
    }
    return (ssize_t)total;
}

static ssize_t tls_recv(void *ctx, int fd, struct rxstamp_msg *rm, uint64_t *stamp)
{
    BIO *b = SSL_get_rbio(ctx);
    ssize_t n;
    BIO_set_data(b, stamp);
    n = tls_read(ctx, fd, rm->iov.iov_base, rm->iov.iov_len);
    BIO_set_data(b, NULL);
    return n;
}

static int tls_ending(void *ctx)
{
    return (SSL_get_shutdown(ctx) & SSL_RECEIVED_SHUTDOWN) != 0;
}

/* SSL_OP_IGNORE_UNEXPECTED_EOF makes a TCP close read as a close_notify;
 * only the socket BIO knows it met the TCP end first (a close_notify ends
 * the stream without another read from the socket). */
static int tls_eof_clean(void *ctx)
{
    return !BIO_test_flags(SSL_get_rbio(ctx), BIO_FLAGS_IN_EOF);
}

static ssize_t tls_write(void *ctx, int fd, const void *buf, size_t len)
{
    SSL *ssl = ctx;
    size_t done = 0;
    int r, e;
    (void)fd;
    ERR_clear_error();
    r = SSL_write_ex(ssl, buf, len, &done);
    if (r == 1)
        return (ssize_t)done;
    e = SSL_get_error(ssl, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        errno = EAGAIN;
        return -1;
    }
    if (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0 && errno != 0)
        return -1;
    errno = EPROTO;
    return -1;
}

static ssize_t tls_writev(void *ctx, int fd, const struct iovec *iov, int n)
{
    /* Pipelined requests in one record (one system call), as writev does
     * for plain TCP. The data is rebuilt the same on a retry, as OpenSSL
     * requires after WANT_WRITE. */
    char buf[16384];
    size_t len = 0;
    int i;
    for (i = 0; i < n; i++) {
        if (len + iov[i].iov_len > sizeof(buf))
            break;
        memcpy(buf + len, iov[i].iov_base, iov[i].iov_len);
        len += iov[i].iov_len;
    }
    if (i == 0)
        return tls_write(ctx, fd, iov[0].iov_base, iov[0].iov_len);
    return tls_write(ctx, fd, buf, len);
}

static void tls_close(void *ctx, int fd)
{
    /* No close_notify: it would cost a write per connection, and the server
     * learns of the close from TCP as it does from wrk and h2load. Marked as
     * shut down all the same, or OpenSSL would make the session
     * unresumable. */
    SSL_set_shutdown(ctx, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
    SSL_free(ctx);
    close(fd);
}

static const char *tls_error(void *ctx)
{
    SSL *ssl = ctx;
    unsigned long e = ERR_peek_last_error();
    long v = SSL_get_verify_result(ssl);
    /* Only a check that was made counts: with --insecure a resumed session
     * carries its first handshake's result, and a later failure of
     * another kind read "unable to get local issuer certificate". */
    if (v != X509_V_OK && (SSL_get_verify_mode(ssl) & SSL_VERIFY_PEER))
        return X509_verify_cert_error_string(v);
    if (e) {
        const char *r = ERR_reason_error_string(e);
        return r ? r : "TLS error";
    }
    if (!SSL_is_init_finished(ssl))
        return "connection closed during the TLS handshake";
    return "TLS error";
}

const struct io_ops io_tls = {
    .name = "tls",
    .handshake = tls_handshake,
    .read = tls_read,
    .recv = tls_recv,
    .write = tls_write,
    .writev = tls_writev,
    .close = tls_close,
    .error = tls_error,
    .handshake_kind = tls_handshake_kind,
    .alpn = tls_alpn,
    .shutdown = tls_shutdown,
    .ending = tls_ending,
    .eof_clean = tls_eof_clean,
    .lingers = 1,
};

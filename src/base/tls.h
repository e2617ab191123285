/* tls.h - TLS through OpenSSL, as another transport (io_ops) under the
 * same connection state machines as plain TCP. */
#ifndef RAFALE_TLS_H
#define RAFALE_TLS_H

#include <stddef.h>
#include <stdint.h>

#include "io.h"

#define TLS_PASS_MAX 1024   /* a key's pass phrase, at most (OpenSSL's PEM_BUFSIZE) */

struct tls_options {
    int insecure;            /* do not verify the server certificate */
    const char *cacert;      /* trust this CA file instead of the system store */
    int version;             /* 0: any, 12: TLS 1.2 only, 13: TLS 1.3 only */
    const char *ciphers;     /* OpenSSL cipher list (1.2) / ciphersuites (1.3) */
    int no_resume;           /* full handshake every time */
    const char *alpn;        /* the one protocol ALPN offers (the run's, proto.h); NULL: http/1.1 */
    const char *cert, *key;  /* --cert, --key: a client certificate (PEM), for servers that ask for one */
    const char *pass;        /* the key's pass phrase (--pass, --key-pass), NULL: none given */
};

struct tls_client;

/* A session kept for resumption, one per target and thread. */
struct tls_ticket {
    void *session;           /* SSL_SESSION *, or NULL */
};

/* Returns 0, or -1 with a reason in err. */
int tls_client_new(const struct tls_options *o, struct tls_client **out, char *err, size_t errlen);
void tls_client_free(struct tls_client *tc);

/* What the server sent in a client handshake that says it does not speak
 * what was offered: a plain HTTP answer to the ClientHello, or an alert
 * refusing every protocol offered in ALPN (RFC 7301 section 3.2). */
enum tls_peer { TLS_PEER_TLS, TLS_PEER_PLAIN_HTTP, TLS_PEER_NO_ALPN };

/* Starts a client connection on connected socket fd, for host (SNI and
 * certificate name). slot may hold a session to resume and receives new
 * ones; *peer is set to TLS_PEER_TLS, then to what the handshake shows of
 * the server (enum tls_peer) until it is over, so it must last as long.
 * Returns the io context for io_tls, or NULL with OpenSSL's reason (a
 * static string) in *why. */
void *tls_client_conn(struct tls_client *tc, int fd, const char *host, struct tls_ticket *slot, uint8_t *peer,
                      const char **why);

/* Releases a session slot. */
void tls_ticket_free(struct tls_ticket *slot);

/* Server side, for rafale serve. */
struct tls_server;
/* key is decrypted with pass when it is encrypted (NULL: none given, and
 * an encrypted key is refused). h2: ALPN selects "h2" when the client
 * offers it; else "http/1.1". */
int tls_server_new(const char *cert, const char *key, const char *pass, int h2, struct tls_server **out, char *err,
                   size_t errlen);
/* Requires a client certificate signed by the CAs of ca_file (PEM). Returns
 * 0, or -1 with the reason in err. */
int tls_server_require_client(struct tls_server *ts, const char *ca_file, char *err, size_t errlen);
void tls_server_free(struct tls_server *ts);
void *tls_server_conn(struct tls_server *ts, int fd);

/* The transport: handshake / read / write / writev / close on an SSL.
 * read fills the buffer as far as the data allows (not one record), so a
 * short read means the socket is drained, as with plain TCP. A TLS failure
 * is errno EPROTO and io_tls.error() names it. */
extern const struct io_ops io_tls;

#endif

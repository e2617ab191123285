/* serve_h3.h - `rafale serve --http3`: HTTP/3 over QUIC on UDP, beside the
 * TCP listener on the same port. What serve.c calls; the libraries
 * (ngtcp2, nghttp3, GnuTLS) stay behind it, in serve_h3*.c. Private to
 * src/serve/. */
#ifndef RAFALE_SERVE_H3_H
#define RAFALE_SERVE_H3_H

#include <stddef.h>

#include "net.h"

struct serve;
struct sthread;

/* The server's QUIC TLS: --tls-cert and --tls-key, or a self-signed
 * certificate for localhost and 127.0.0.1 made now. Returns 0, or -1 with
 * why in err. */
int serve_h3_tls_new(struct serve *s, char *err, size_t errlen);
void serve_h3_tls_free(struct serve *s);

/* Binds t's UDP socket at a (SO_REUSEPORT: a client's datagrams stay on one
 * thread) and watches it on t's loop. Returns 0, or -1 with why in err. */
int serve_h3_listen(struct sthread *t, const struct net_addr *a, char *err, size_t errlen);
/* Frees t's QUIC connections and closes its socket. */
void serve_h3_close(struct sthread *t);

#endif

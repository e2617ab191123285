/* http3_early.c - 0-RTT (--http3-0rtt, RFC 9001 section 4.6; RFC 9114
 * section 3.3 allows requests in it): a connection that resumes with a
 * ticket allowing early data sends its requests with its first flight,
 * under the previous connection's transport parameters (remembered as they
 * came). Off by default: a request sent in 0-RTT may be replayed by an
 * attacker, so only what is safe to repeat belongs there.
 *
 * The session and the requests go in http3.c, right after the first
 * flight, which made the 0-RTT key (nothing of http3.c is called from here,
 * so the calls go one way). When the server refuses the early data, ngtcp2
 * forgets the streams (ngtcp2_conn_early_data_rejected): nghttp3's session
 * goes too, and the requests go again, unchanged, once the handshake is
 * done, as for a connection without 0-RTT. Each connection that tried counts as accepted
 * or rejected (JSON quic.early_data_accepted and early_data_rejected). */
#include "http3.h"

#include <string.h>

/* ngtcp2 installed a key: the 0-RTT one, on a client, means early data
 * may go (GnuTLS took the ticket's max_early_data as allowing it). */
static int on_tx_key(ngtcp2_conn *qc, ngtcp2_crypto_level level, void *ud)
{
    struct conn *c = ud;
    (void)qc;
    if (level == NGTCP2_CRYPTO_LEVEL_EARLY)
        h3_of(c)->early = 1;
    return 0;
}

/* The server refused the early data: the streams are gone, their requests
 * wait (stream 0) for the handshake's end, when http3.c opens the HTTP/3
 * session again. */
static int on_rejected(ngtcp2_conn *qc, void *ud)
{
    struct conn *c = ud;
    struct h3 *h = h3_of(c);
    uint32_t i;
    if (h->early != 2)
        return 0; /* nothing was sent early */
    h->early = 3;
    for (i = 0; i < c->cap; i++)
        if (c->slots[i].busy)
            c->slots[i].stream = 0;
    http3_body_all_done(h);
    (void)qc;
    if (h->hc)
        nghttp3_conn_del(h->hc);
    h->hc = NULL;
    return 0;
}

void http3_early_callbacks(ngtcp2_callbacks *cb)
{
    cb->recv_tx_key = on_tx_key;
    cb->early_data_rejected = on_rejected;
}

void http3_early_setup(struct conn *c)
{
    struct h3 *h = h3_of(c);
    h->early = 0;
    if (c->w->plan->cfg->http3_0rtt && h->ticket.size && h->have_params)
        ngtcp2_conn_set_early_remote_transport_params(h->qc, &h->early_params);
}

void http3_early_done(struct conn *c, uint64_t now)
{
    struct h3 *h = h3_of(c);
    const ngtcp2_transport_params *p = ngtcp2_conn_get_remote_transport_params(h->qc);
    if (p) {
        memcpy(&h->early_params, p, sizeof(h->early_params));
        h->have_params = 1;
    }
    /* GnuTLS knows whether the server took the early data; ngtcp2 is told
     * when it did not (once: the callback above then counts). */
    if (h->early == 2 && !(gnutls_session_get_flags(h->tls) & GNUTLS_SFLAGS_EARLY_DATA) &&
        !ngtcp2_conn_get_early_data_rejected(h->qc))
        ngtcp2_conn_early_data_rejected(h->qc);
    if (h->early >= 2)
        record_quic_early(c->w, h->early == 2, now);
}

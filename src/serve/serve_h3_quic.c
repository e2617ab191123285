/* serve_h3_quic.c - the QUIC side of `rafale serve --http3` (RFC 9000), on
 * ngtcp2 with GnuTLS (ngtcp2_crypto_gnutls): each thread has a UDP socket
 * bound with SO_REUSEPORT to the TCP listener's address and port, so the
 * kernel keeps a client's datagrams on one thread; there, datagrams are
 * read by batches (recvmmsg) and routed by their Destination Connection ID
 * (serve_h3_cid.c) to their connection, or start one when they are a
 * client's Initial (ngtcp2_accept). Each connection has one timer on the
 * thread's loop: ngtcp2's expiry (loss detection, ACK delay, the idle
 * timeout) or its next /delay answer, whichever is first.
 *
 * Choices:
 * - a well-behaved server buffers nothing it sends: a datagram the socket
 *   does not take (EAGAIN) is dropped, and QUIC's loss recovery sends it
 *   again;
 * - the handshake must end within --header-timeout, an idle connection
 *   ends after --idle-timeout (QUIC's max_idle_timeout);
 * - a connection that ends (the client's CONNECTION_CLOSE, ours, the idle
 *   timeout) is freed at once, without the closing and draining periods of
 *   RFC 9000 section 10.2: later datagrams for it are dropped;
 * - past SH3_RETRY_ABOVE handshakes under way on a thread, a client's
 *   Initial gets a Retry (RFC 9000 section 8.1.2) and a connection only
 *   when it comes back with the Retry's token: a client that never ends
 *   its handshakes, or spoofs its address, cannot make the server hold
 *   one connection (~100 KB, for --header-timeout) per Initial;
 * - no 0-RTT, no connection migration across threads (a client whose
 *   address changes may land on another thread, which drops it);
 * - at most SH3_MAX_CONNS connections a thread: further Initials are
 *   dropped. */
#include "serve_h3_int.h"
#include "err.h"
#include "clock.h"

#include <errno.h>
#include <gnutls/crypto.h>
#include <gnutls/x509.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

/* TLS 1.3 only (RFC 9001 section 4.2), with the AEADs ngtcp2 protects
 * packets with. */
#define SH3_PRIORITY                                                                                                  \
    "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:+AES-128-CCM:"             \
    "-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:+GROUP-SECP384R1"

/* --- TLS credentials --- */

/* A certificate for localhost and 127.0.0.1, signed by its own key. */
static int self_signed(gnutls_certificate_credentials_t cred)
{
    gnutls_x509_privkey_t key = NULL;
    gnutls_x509_crt_t crt = NULL;
    unsigned char serial[8], ip[4] = { 127, 0, 0, 1 };
    time_t now = time(NULL);
    int r;
    if ((r = gnutls_x509_privkey_init(&key)) < 0 || (r = gnutls_x509_crt_init(&crt)) < 0 ||
        (r = gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA, GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0)) <
            0 ||
        (r = gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial))) < 0)
        goto done;
    serial[0] &= 0x7f; /* a positive serial number (RFC 5280 section 4.1.2.2) */
    if ((r = gnutls_x509_crt_set_version(crt, 3)) < 0 || (r = gnutls_x509_crt_set_serial(crt, serial, 8)) < 0 ||
        (r = gnutls_x509_crt_set_activation_time(crt, now - 3600)) < 0 ||
        (r = gnutls_x509_crt_set_expiration_time(crt, now + 365 * 86400)) < 0 ||
        (r = gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, "localhost", 9)) < 0 ||
        (r = gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_DNSNAME, "localhost", 9, GNUTLS_FSAN_SET)) < 0 ||
        (r = gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, ip, 4, GNUTLS_FSAN_APPEND)) < 0 ||
        (r = gnutls_x509_crt_set_key(crt, key)) < 0 || (r = gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0)) < 0)
        goto done;
    r = gnutls_certificate_set_x509_key(cred, &crt, 1, key);
done:
    if (crt)
        gnutls_x509_crt_deinit(crt);
    if (key)
        gnutls_x509_privkey_deinit(key);
    return r;
}

int serve_h3_tls_new(struct serve *s, char *err, size_t errlen)
{
    struct sh3_tls *tls = calloc(1, sizeof(*tls));
    int r;
    if (tls == NULL) {
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    s->h3tls = tls;
    if ((r = gnutls_certificate_allocate_credentials(&tls->cred)) < 0) {
        tls->cred = NULL;
        err_set(err, errlen, NULL, "--http3: GnuTLS: %s", gnutls_strerror(r));
        return -1;
    }
    if (s->cfg.tls_cert)
        r = gnutls_certificate_set_x509_key_file2(tls->cred, s->cfg.tls_cert, s->cfg.tls_key, GNUTLS_X509_FMT_PEM,
                                                  s->cfg.key_pass_set ? s->cfg.key_pass : NULL, 0);
    else
        r = self_signed(tls->cred);
    if (r < 0) {
        err_set(err, errlen, NULL, "--http3: %s: %s", s->cfg.tls_cert ? s->cfg.tls_cert : "a self-signed certificate",
                 gnutls_strerror(r));
        return -1;
    }
    if ((r = gnutls_session_ticket_key_generate(&tls->ticket_key)) < 0) {
        tls->ticket_key.data = NULL;
        err_set(err, errlen, NULL, "--http3: session tickets: %s", gnutls_strerror(r));
        return -1;
    }
    if ((r = gnutls_rnd(GNUTLS_RND_KEY, tls->token_key, sizeof(tls->token_key))) < 0) {
        err_set(err, errlen, NULL, "--http3: Retry tokens' key: %s", gnutls_strerror(r));
        return -1;
    }
    return 0;
}

void serve_h3_tls_free(struct serve *s)
{
    if (s->h3tls && s->h3tls->cred)
        gnutls_certificate_free_credentials(s->h3tls->cred);
    if (s->h3tls)
        gnutls_memset(s->h3tls->token_key, 0, sizeof(s->h3tls->token_key));
    if (s->h3tls && s->h3tls->ticket_key.data) {
        gnutls_memset(s->h3tls->ticket_key.data, 0, s->h3tls->ticket_key.size);
        gnutls_free(s->h3tls->ticket_key.data);
    }
    free(s->h3tls);
    s->h3tls = NULL;
}

/* --- connections --- */

static void on_rand(uint8_t *dest, size_t len, const ngtcp2_rand_ctx *ctx)
{
    (void)ctx;
    (void)gnutls_rnd(GNUTLS_RND_RANDOM, dest, len);
}

static int on_new_cid(ngtcp2_conn *qc, ngtcp2_cid *cid, uint8_t *token, size_t cidlen, void *ud)
{
    struct sh3_conn *c = ud;
    (void)qc;
    if (gnutls_rnd(GNUTLS_RND_RANDOM, cid->data, cidlen) != 0 ||
        gnutls_rnd(GNUTLS_RND_RANDOM, token, NGTCP2_STATELESS_RESET_TOKENLEN) != 0)
        return NGTCP2_ERR_CALLBACK_FAILURE;
    cid->datalen = cidlen;
    return serve_h3_cid_add(c->ep, cid->data, cidlen, c) == 0 ? 0 : NGTCP2_ERR_CALLBACK_FAILURE;
}

static int on_del_cid(ngtcp2_conn *qc, const ngtcp2_cid *cid, void *ud)
{
    struct sh3_conn *c = ud;
    (void)qc;
    serve_h3_cid_del(c->ep, cid->data, cid->datalen);
    return 0;
}

static ngtcp2_conn *get_conn(ngtcp2_crypto_conn_ref *ref)
{
    struct sh3_conn *c = ref->user_data;
    return c->qc;
}

static void conn_free(struct sh3_conn *c)
{
    struct sh3_ep *ep = c->ep;
    if (c->qc) {
        ngtcp2_cid ids[16];
        size_t i, n = ngtcp2_conn_get_num_scid(c->qc);
        if (n <= 16) {
            n = ngtcp2_conn_get_scid(c->qc, ids);
            for (i = 0; i < n; i++)
                serve_h3_cid_del(ep, ids[i].data, ids[i].datalen);
        }
        ngtcp2_conn_del(c->qc);
    }
    serve_h3_cid_del(ep, c->odcid.data, c->odcid.datalen);
    /* Any route left (more than 16 IDs, or one ngtcp2 no longer lists):
     * the whole table is read, which the IDs above spare in practice. */
    if (c->nroutes) {
        uint32_t k;
        for (k = 0; k < ep->caproutes; k++)
            while (ep->routes[k].conn == c)
                serve_h3_cid_del(ep, ep->routes[k].id, ep->routes[k].len);
    }
    serve_h3_session_free(c);
    if (c->tls)
        gnutls_deinit(c->tls);
    loop_timer_cancel(&ep->t->loop, &c->timer);
    ep->nconns--;
    ep->nhandshakes -= c->handshaking;
    free(c);
}

static void on_timer(struct timer *tm, uint64_t now);

static int tls_start(struct sh3_ep *ep, struct sh3_conn *c)
{
    gnutls_datum_t alpn = { (unsigned char *)"h3", 2 };
    if (gnutls_init(&c->tls, GNUTLS_SERVER) != 0) {
        c->tls = NULL;
        return -1;
    }
    if (gnutls_priority_set_direct(c->tls, SH3_PRIORITY, NULL) != 0 ||
        ngtcp2_crypto_gnutls_configure_server_session(c->tls) != 0 ||
        gnutls_credentials_set(c->tls, GNUTLS_CRD_CERTIFICATE, ep->t->s->h3tls->cred) != 0 ||
        gnutls_alpn_set_protocols(c->tls, &alpn, 1, GNUTLS_ALPN_MANDATORY) != 0 ||
        gnutls_session_ticket_enable_server(c->tls, &ep->t->s->h3tls->ticket_key) != 0)
        return -1;
    c->ref.get_conn = get_conn;
    c->ref.user_data = c;
    gnutls_session_set_ptr(c->tls, &c->ref);
    ngtcp2_conn_set_tls_native_handle(c->qc, c->tls);
    return 0;
}

/* A client's Initial (hd) from peer: a new connection, or NULL. odcid:
 * the Destination CID of its Initial before our Retry, or NULL. */
static struct sh3_conn *conn_new(struct sh3_ep *ep, const ngtcp2_pkt_hd *hd, const ngtcp2_cid *odcid,
                                 const struct sockaddr_storage *peer, socklen_t plen, uint64_t now)
{
    const struct serve_config *sc = &ep->t->s->cfg;
    struct sh3_conn *c;
    ngtcp2_settings set;
    ngtcp2_transport_params par;
    ngtcp2_cid scid;

    if (ep->nconns >= SH3_MAX_CONNS || (c = calloc(1, sizeof(*c))) == NULL)
        return NULL;
    ep->nconns++;
    ep->nhandshakes++;
    c->handshaking = 1;
    c->ep = ep;
    c->timer.fn = on_timer;
    c->max_sid = c->goaway_id = -1;
    c->now = now;
    ngtcp2_path_storage_init(&c->ps, (const ngtcp2_sockaddr *)&ep->local, ep->local_len,
                             (const ngtcp2_sockaddr *)peer, plen, NULL);
    ngtcp2_settings_default(&set);
    set.initial_ts = now;
    set.handshake_timeout = sc->header_timeout_ns;
    ngtcp2_transport_params_default(&par);
    par.initial_max_streams_bidi = sc->h2_streams ? sc->h2_streams : 128;
    par.initial_max_streams_uni = 3; /* the client's control and QPACK streams (RFC 9114 section 6.2) */
    par.initial_max_stream_data_bidi_remote = 256 * 1024;
    par.initial_max_stream_data_uni = 256 * 1024;
    par.initial_max_data = 4 * 1024 * 1024;
    par.max_idle_timeout = sc->idle_timeout_ns;
    par.max_udp_payload_size = SH3_RSLICE;
    par.original_dcid = hd->dcid;
    if (odcid) {
        /* Section 7.3: the parameters name both CIDs; the token proved
         * the address (no anti-amplification limit). */
        par.original_dcid = *odcid;
        par.retry_scid = hd->dcid;
        par.retry_scid_present = 1;
        set.token = hd->token;
    }
    par.stateless_reset_token_present = 1;
    scid.datalen = SH3_CIDLEN;
    if (gnutls_rnd(GNUTLS_RND_RANDOM, scid.data, scid.datalen) != 0 ||
        gnutls_rnd(GNUTLS_RND_RANDOM, par.stateless_reset_token, sizeof(par.stateless_reset_token)) != 0 ||
        ngtcp2_conn_server_new(&c->qc, &hd->scid, &scid, &c->ps.path, hd->version, &ep->qcb, &set, &par, NULL, c) != 0) {
        c->qc = NULL;
        conn_free(c);
        return NULL;
    }
    c->odcid = hd->dcid;
    if (tls_start(ep, c) != 0 || serve_h3_cid_add(ep, scid.data, scid.datalen, c) != 0 ||
        serve_h3_cid_add(ep, hd->dcid.data, hd->dcid.datalen, c) != 0) {
        conn_free(c);
        return NULL;
    }
    if (ep->t->s->log) {
        struct net_addr a;
        char *colon;
        memcpy(&a.ss, peer, plen);
        a.len = plen;
        net_addr_str(&a, c->peer, sizeof(c->peer));
        if ((colon = strrchr(c->peer, ':')) != NULL)
            *colon = '\0';
    }
    return c;
}

/* Our CONNECTION_CLOSE for liberr (or the HTTP/3 error the session set),
 * sent once, best effort; then the connection is freed after the batch. */
static void conn_end(struct sh3_conn *c, int liberr, uint64_t now)
{
    ngtcp2_connection_close_error cc;
    c->dead = 1;
    if (liberr == NGTCP2_ERR_DRAINING || liberr == NGTCP2_ERR_IDLE_CLOSE || liberr == NGTCP2_ERR_DROP_CONN ||
        liberr == NGTCP2_ERR_HANDSHAKE_TIMEOUT || ngtcp2_conn_is_in_closing_period(c->qc) ||
        ngtcp2_conn_is_in_draining_period(c->qc))
        return; /* nothing to say, or said already */
    ngtcp2_connection_close_error_default(&cc);
    if (c->h3_error)
        ngtcp2_connection_close_error_set_application_error(&cc, c->h3_error, NULL, 0);
    else if (liberr == NGTCP2_ERR_CRYPTO)
        ngtcp2_connection_close_error_set_transport_error_tls_alert(&cc, ngtcp2_conn_get_tls_alert(c->qc), NULL, 0);
    else
        ngtcp2_connection_close_error_set_transport_error_liberr(&cc, liberr, NULL, 0);
    {
        ngtcp2_pkt_info pi;
        ngtcp2_ssize n = ngtcp2_conn_write_connection_close(c->qc, &c->ps.path, &pi, c->ep->sbuf, SH3_SLOT, &cc, now);
        if (n > 0)
            (void)sendto(c->ep->fd, c->ep->sbuf, (size_t)n, MSG_DONTWAIT, (const struct sockaddr *)c->ps.path.remote.addr,
                         c->ps.path.remote.addrlen);
    }
}

static void arm(struct sh3_conn *c)
{
    uint64_t t = ngtcp2_conn_get_expiry(c->qc), d = serve_h3_deadline(c);
    if (d < t)
        t = d;
    if (t == UINT64_MAX)
        loop_timer_cancel(&c->ep->t->loop, &c->timer);
    else if (loop_timer_set(&c->ep->t->loop, &c->timer, t) != 0)
        c->dead = 1; /* no timer, no loss recovery: it ends here */
}

/* Writes what c has to send, by batches; then sets its timer. */
static void flush(struct sh3_conn *c, uint64_t now)
{
    struct sh3_ep *ep = c->ep;
    struct mmsghdr mm[SH3_BATCH];
    struct iovec iov[SH3_BATCH];
    size_t room = ngtcp2_conn_get_path_max_tx_udp_payload_size(c->qc);
    uint32_t n = 0;
    if (room > SH3_SLOT)
        room = SH3_SLOT;
    memset(mm, 0, sizeof(mm));
    for (;;) {
        ngtcp2_ssize k = serve_h3_quic_write(c, ep->sbuf + (size_t)n * SH3_SLOT, room, now);
        if (k < 0) {
            conn_end(c, (int)k, now);
            return;
        }
        if (k > 0) {
            iov[n].iov_base = ep->sbuf + (size_t)n * SH3_SLOT;
            iov[n].iov_len = (size_t)k;
            mm[n].msg_hdr.msg_iov = &iov[n];
            mm[n].msg_hdr.msg_iovlen = 1;
            mm[n].msg_hdr.msg_name = c->ps.path.remote.addr;
            mm[n].msg_hdr.msg_namelen = c->ps.path.remote.addrlen;
            n++;
        }
        if (n && (k == 0 || n == SH3_BATCH)) {
            int r;
            do
                r = sendmmsg(ep->fd, mm, n, MSG_DONTWAIT);
            while (r < 0 && errno == EINTR);
            n = 0; /* what the socket did not take is lost, and sent again by QUIC */
        }
        if (k == 0)
            break;
    }
    /* Pacing from the handshake's end only (as the client, http3_quic.c):
     * paced by the initial RTT guess, the first answer waited ~20 ms. */
    if (ngtcp2_conn_get_handshake_completed(c->qc))
        ngtcp2_conn_update_pkt_tx_time(c->qc, now);
    arm(c);
}

static void on_timer(struct timer *tm, uint64_t now)
{
    struct sh3_conn *c = container_of(tm, struct sh3_conn, timer);
    int e;
    c->now = now;
    if (serve_h3_deadline(c) <= now)
        serve_h3_tick(c, now);
    if (ngtcp2_conn_get_expiry(c->qc) <= now && (e = ngtcp2_conn_handle_expiry(c->qc, now)) != 0)
        conn_end(c, e, now);
    if (!c->dead)
        flush(c, now);
    if (c->dead)
        conn_free(c);
}

/* --- the socket --- */

static void version_negotiation(struct sh3_ep *ep, const ngtcp2_version_cid *vc, const struct sockaddr_storage *peer,
                                socklen_t plen)
{
    uint32_t sv[1] = { NGTCP2_PROTO_VER_V1 };
    uint8_t r;
    ngtcp2_ssize n;
    (void)gnutls_rnd(GNUTLS_RND_NONCE, &r, 1);
    /* Its CIDs are the client's, swapped (RFC 9000 section 17.2.1). */
    n = ngtcp2_pkt_write_version_negotiation(ep->sbuf, SH3_SLOT, r, vc->scid, vc->scidlen, vc->dcid, vc->dcidlen, sv, 1);
    if (n > 0)
        (void)sendto(ep->fd, ep->sbuf, (size_t)n, MSG_DONTWAIT, (const struct sockaddr *)peer, plen);
}

/* Answers an Initial (hd) with a Retry whose token (keyed, with the
 * client's address and CID, and the time) it must send back. */
static void send_retry(struct sh3_ep *ep, const ngtcp2_pkt_hd *hd, const struct sockaddr_storage *peer,
                       socklen_t plen, uint64_t now)
{
    const struct sh3_tls *tls = ep->t->s->h3tls;
    uint8_t token[NGTCP2_CRYPTO_MAX_RETRY_TOKENLEN];
    ngtcp2_cid scid;
    ngtcp2_ssize tl, n;
    scid.datalen = SH3_CIDLEN;
    if (gnutls_rnd(GNUTLS_RND_NONCE, scid.data, scid.datalen) != 0)
        return;
    tl = ngtcp2_crypto_generate_retry_token(token, tls->token_key, sizeof(tls->token_key), hd->version,
                                            (const ngtcp2_sockaddr *)peer, plen, &scid, &hd->dcid, now);
    if (tl < 0)
        return;
    n = ngtcp2_crypto_write_retry(ep->sbuf, SH3_SLOT, hd->version, &hd->scid, &scid, &hd->dcid, token, (size_t)tl);
    if (n > 0)
        (void)sendto(ep->fd, ep->sbuf, (size_t)n, MSG_DONTWAIT, (const struct sockaddr *)peer, plen);
}

/* A datagram that names no connection: a client's Initial starts one,
 * with a Retry first when many handshakes are under way. NULL: dropped
 * (not an Initial, a bad or stale token, no room). */
static struct sh3_conn *accept_initial(struct sh3_ep *ep, const uint8_t *p, size_t len,
                                       const struct sockaddr_storage *peer, socklen_t plen, uint64_t now)
{
    const struct sh3_tls *tls = ep->t->s->h3tls;
    ngtcp2_pkt_hd hd;
    ngtcp2_cid odcid;
    if (ngtcp2_accept(&hd, p, len) != 0 || hd.type != NGTCP2_PKT_INITIAL)
        return NULL;
    if (hd.token.len && hd.token.base[0] == NGTCP2_CRYPTO_TOKEN_MAGIC_RETRY) {
        if (ngtcp2_crypto_verify_retry_token(&odcid, hd.token.base, hd.token.len, tls->token_key,
                                             sizeof(tls->token_key), hd.version, (const ngtcp2_sockaddr *)peer, plen,
                                             &hd.dcid, SH3_TOKEN_TTL, now) != 0) {
            /* RFC 9000 section 8.1.3: the client will take no other Retry,
             * so say INVALID_TOKEN now rather than let it wait out its
             * handshake timeout. */
            ngtcp2_ssize n = ngtcp2_crypto_write_connection_close(ep->sbuf, SH3_SLOT, hd.version, &hd.scid, &hd.dcid,
                                                                  NGTCP2_INVALID_TOKEN, NULL, 0);
            if (n > 0)
                (void)sendto(ep->fd, ep->sbuf, (size_t)n, MSG_DONTWAIT, (const struct sockaddr *)peer, plen);
            return NULL;
        }
        return conn_new(ep, &hd, &odcid, peer, plen, now);
    }
    if (ep->nhandshakes >= SH3_RETRY_ABOVE) {
        send_retry(ep, &hd, peer, plen, now);
        return NULL;
    }
    return conn_new(ep, &hd, NULL, peer, plen, now);
}

static void on_datagram(struct sh3_ep *ep, uint8_t *p, size_t len, const struct sockaddr_storage *peer, socklen_t plen,
                        uint64_t now)
{
    ngtcp2_version_cid vc;
    ngtcp2_pkt_info pi = { 0 };
    ngtcp2_path path;
    struct sh3_conn *c;
    int e = ngtcp2_pkt_decode_version_cid(&vc, p, len, SH3_CIDLEN);
    if (e == NGTCP2_ERR_VERSION_NEGOTIATION) {
        version_negotiation(ep, &vc, peer, plen);
        return;
    }
    if (e != 0)
        return;
    if ((c = serve_h3_cid_find(ep, vc.dcid, vc.dcidlen)) == NULL &&
        (c = accept_initial(ep, p, len, peer, plen, now)) == NULL)
        return;
    if (c->dead)
        return;
    c->now = now;
    path.local = c->ps.path.local;
    path.remote.addr = (ngtcp2_sockaddr *)peer;
    path.remote.addrlen = plen;
    path.user_data = NULL;
    if ((e = ngtcp2_conn_read_pkt(c->qc, &path, &pi, p, len, now)) != 0)
        conn_end(c, e, now);
    /* Accepted once its handshake is done: an Initial that decrypts to
     * nothing is no client, though it made a connection here. */
    if (c->handshaking && ngtcp2_conn_get_handshake_completed(c->qc)) {
        c->handshaking = 0;
        ep->nhandshakes--;
        ep->t->accepted++;
    }
    if (!c->dirty) {
        c->dirty = 1;
        c->next_dirty = ep->dirty;
        ep->dirty = c;
    }
}

static void on_io(struct loop_io *io, uint32_t ev)
{
    struct sh3_ep *ep = container_of(io, struct sh3_ep, io);
    uint8_t *rbuf = (uint8_t *)ep->t->rbuf;
    struct mmsghdr mm[SH3_BATCH];
    struct iovec iov[SH3_BATCH];
    struct sockaddr_storage peers[SH3_BATCH];
    uint32_t i;
    (void)ev;
    for (;;) {
        uint64_t now;
        int r;
        memset(mm, 0, sizeof(mm));
        for (i = 0; i < SH3_BATCH; i++) {
            iov[i].iov_base = rbuf + (size_t)i * SH3_RSLICE;
            iov[i].iov_len = SH3_RSLICE;
            mm[i].msg_hdr.msg_iov = &iov[i];
            mm[i].msg_hdr.msg_iovlen = 1;
            mm[i].msg_hdr.msg_name = &peers[i];
            mm[i].msg_hdr.msg_namelen = sizeof(peers[i]);
        }
        r = recvmmsg(ep->fd, mm, SH3_BATCH, MSG_DONTWAIT, NULL);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return; /* EAGAIN; an ICMP error of a past send is nothing to act on */
        now = clock_ns();
        /* Empty datagrams (ngtcp2 asserts on them) and ones past our
         * max_udp_payload_size are no QUIC packet we take: dropped. */
        for (i = 0; i < (uint32_t)r; i++)
            if (mm[i].msg_len > 0 && !(mm[i].msg_hdr.msg_flags & MSG_TRUNC))
                on_datagram(ep, iov[i].iov_base, mm[i].msg_len, &peers[i], mm[i].msg_hdr.msg_namelen, now);
        /* What the batch set off: answers, ACKs, handshakes; or the end. */
        while (ep->dirty) {
            struct sh3_conn *c = ep->dirty;
            ep->dirty = c->next_dirty;
            c->dirty = 0;
            if (!c->dead)
                flush(c, now);
            if (c->dead)
                conn_free(c);
        }
        if (r < SH3_BATCH)
            return;
    }
}

/* Pattern bytes any generated body can point into: from 0, byte k of
 * /bytes (SERVE_PATTERN); from 63000 + 64 KiB, byte k of /chunked's (its
 * 1000-byte chunks each start the pattern again). 63000 is a multiple of
 * both periods, so a body's offset modulo 63000 finds its bytes. */
static uint8_t *pattern_new(void)
{
    size_t half = 63000 + 64 * 1024, k;
    uint8_t *g = malloc(2 * half);
    if (g == NULL)
        return NULL;
    for (k = 0; k < half; k++) {
        g[k] = (uint8_t)SERVE_PATTERN[k % SERVE_PATTERN_LEN];
        g[half + k] = (uint8_t)SERVE_PATTERN[(k % 1000) % SERVE_PATTERN_LEN];
    }
    return g;
}

int serve_h3_listen(struct sthread *t, const struct net_addr *a, char *err, size_t errlen)
{
    struct sh3_ep *ep = calloc(1, sizeof(*ep));
    int one = 1;
    if (ep == NULL || (ep->sbuf = malloc((size_t)SH3_BATCH * SH3_SLOT)) == NULL || (ep->gen = pattern_new()) == NULL) {
        if (ep)
            free(ep->sbuf);
        free(ep);
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    t->h3 = ep;
    ep->t = t;
    ep->io.fn = on_io;
    ep->fd = socket(a->ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (ep->fd < 0 || setsockopt(ep->fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0 ||
        bind(ep->fd, (const struct sockaddr *)&a->ss, a->len) != 0) {
        err_set(err, errlen, NULL, "--http3: UDP %s: %s", t->s->addr_str[0] ? t->s->addr_str : "socket", strerror(errno));
        return -1;
    }
    ep->local_len = sizeof(ep->local);
    getsockname(ep->fd, (struct sockaddr *)&ep->local, &ep->local_len);
    ep->qcb.rand = on_rand;
    ep->qcb.get_new_connection_id = on_new_cid;
    ep->qcb.remove_connection_id = on_del_cid;
    serve_h3_callbacks(&ep->qcb, &ep->hcb);
    if (loop_add(&t->loop, ep->fd, LOOP_IN, &ep->io) != 0) {
        err_set(err, errlen, NULL, "epoll: %s", strerror(errno));
        return -1;
    }
    return 0;
}

void serve_h3_close(struct sthread *t)
{
    struct sh3_ep *ep = t->h3;
    uint32_t k;
    if (ep == NULL)
        return;
    for (k = 0; ep->nconns && k < ep->caproutes; k++)
        while (ep->routes[k].conn)
            conn_free(ep->routes[k].conn); /* takes its routes away */
    if (ep->fd >= 0)
        close(ep->fd);
    free(ep->routes);
    free(ep->sbuf);
    free(ep->gen);
    free(ep);
    t->h3 = NULL;
}

/* http3_quic.c - the transport under the HTTP/3 client: QUIC v1 (RFC 9000)
 * on ngtcp2, its TLS 1.3 through GnuTLS (ngtcp2_crypto_gnutls), over one
 * connected UDP socket per connection. Datagrams go out and come in by
 * batches (sendmmsg, recvmmsg); ngtcp2's expiry (loss detection, ACK
 * delay, pacing, the idle timeout) is a timer on the worker's loop. The
 * handshake stands where TCP's connect and TLS's handshake stand: its time
 * is the connection's connect time.
 *
 * Choices:
 * - ECN and path MTU discovery are ngtcp2's defaults;
 * - our max_udp_payload_size is H3_RSLICE, so recvmmsg's slices hold any
 *   datagram the server may send;
 * - the handshake times out with ngtcp2's handshake_timeout set to
 *   --connect-timeout (or --timeout when shorter): a server that never
 *   answers ends its requests as quic_handshake;
 * - an error is told in QUIC's terms: the CONNECTION_CLOSE's code and its
 *   name (RFC 9000 section 20, RFC 9114 section 8.1). */
#include "http3.h"
#include "clock.h"
#include "http3_write.h"

#include <errno.h>
#include <gnutls/crypto.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* GnuTLS's priorities for QUIC: TLS 1.3 only (RFC 9001 section 4.2), its
 * AEADs ngtcp2 can protect packets with. */
#define H3_PRIORITY                                                                                                  \
    "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:+AES-128-CCM:"             \
    "-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:+GROUP-SECP384R1"

static void on_rand(uint8_t *dest, size_t len, const ngtcp2_rand_ctx *ctx)
{
    (void)ctx;
    (void)gnutls_rnd(GNUTLS_RND_RANDOM, dest, len);
}

static int on_new_cid(ngtcp2_conn *qc, ngtcp2_cid *cid, uint8_t *token, size_t cidlen, void *ud)
{
    (void)qc;
    (void)ud;
    if (gnutls_rnd(GNUTLS_RND_RANDOM, cid->data, cidlen) != 0 ||
        gnutls_rnd(GNUTLS_RND_RANDOM, token, NGTCP2_STATELESS_RESET_TOKENLEN) != 0)
        return NGTCP2_ERR_CALLBACK_FAILURE;
    cid->datalen = cidlen;
    return 0;
}

void http3_quic_callbacks(ngtcp2_callbacks *cb)
{
    cb->client_initial = ngtcp2_crypto_client_initial_cb;
    cb->recv_crypto_data = ngtcp2_crypto_recv_crypto_data_cb;
    cb->encrypt = ngtcp2_crypto_encrypt_cb;
    cb->decrypt = ngtcp2_crypto_decrypt_cb;
    cb->hp_mask = ngtcp2_crypto_hp_mask_cb;
    cb->recv_retry = ngtcp2_crypto_recv_retry_cb;
    cb->update_key = ngtcp2_crypto_update_key_cb;
    cb->delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb;
    cb->delete_crypto_cipher_ctx = ngtcp2_crypto_delete_crypto_cipher_ctx_cb;
    cb->get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb;
    cb->version_negotiation = ngtcp2_crypto_version_negotiation_cb;
    cb->rand = on_rand;
    cb->get_new_connection_id = on_new_cid;
}

/* ngtcp2_crypto finds the connection from GnuTLS's session through this. */
static ngtcp2_conn *get_conn(ngtcp2_crypto_conn_ref *ref)
{
    struct h3 *h = ref->user_data;
    return h->qc;
}

static void on_qtimer(struct timer *t, uint64_t now);

/* A session ticket (TLS 1.3's NewSessionTicket, after the handshake): kept
 * by the connection, for its next handshake to resume. */
static int on_ticket(gnutls_session_t tls, unsigned int type, unsigned when, unsigned int incoming,
                     const gnutls_datum_t *msg)
{
    ngtcp2_crypto_conn_ref *ref = gnutls_session_get_ptr(tls);
    struct h3 *h = ref->user_data;
    (void)type;
    (void)when;
    (void)msg;
    if (!incoming)
        return 0;
    gnutls_free(h->ticket.data);
    h->ticket.data = NULL;
    h->ticket.size = 0;
    if (gnutls_session_get_data2(tls, &h->ticket) != 0) {
        h->ticket.data = NULL;
        h->ticket.size = 0;
    }
    return 0;
}

/* The TLS session of a new connection: ALPN h3, SNI, the certificate's
 * check, the last ticket (unless --no-tls-resume); early data only with
 * --http3-0rtt. Returns 0, or -1 with GnuTLS's reason in *why. */
static int tls_start(struct conn *c, struct h3 *h, const char **why)
{
    const struct h3_plan *hp = c->w->plan->shared;
    const char *host = c->w->plan->endpoints[c->endpoint].host;
    gnutls_datum_t alpn = { (unsigned char *)"h3", 2 };
    int r;
    if ((r = gnutls_init(&h->tls, GNUTLS_CLIENT | (c->w->plan->cfg->http3_0rtt
                                                         ? GNUTLS_ENABLE_EARLY_DATA | GNUTLS_NO_END_OF_EARLY_DATA
                                                         : 0))) != 0) {
        h->tls = NULL;
        *why = gnutls_strerror(r);
        return -1;
    }
    if ((r = gnutls_priority_set_direct(h->tls, H3_PRIORITY, NULL)) != 0 ||
        (r = ngtcp2_crypto_gnutls_configure_client_session(h->tls)) != 0 ||
        (r = gnutls_credentials_set(h->tls, GNUTLS_CRD_CERTIFICATE, hp->cred)) != 0 ||
        (r = gnutls_alpn_set_protocols(h->tls, &alpn, 1, GNUTLS_ALPN_MANDATORY)) != 0) {
        *why = r < 0 ? gnutls_strerror(r) : "GnuTLS refused QUIC's settings";
        return -1;
    }
    h->ref.get_conn = get_conn;
    h->ref.user_data = h;
    gnutls_session_set_ptr(h->tls, &h->ref);
    /* SNI is a name's, never an address's (RFC 6066 section 3). */
    if (strspn(host, "0123456789.:[]") != strlen(host))
        gnutls_server_name_set(h->tls, GNUTLS_NAME_DNS, host, strlen(host));
    if (hp->verify)
        gnutls_session_set_verify_cert(h->tls, host[0] == '[' ? NULL : host, 0);
    if (!c->w->plan->cfg->tls.no_resume) {
        gnutls_handshake_set_hook_function(h->tls, GNUTLS_HANDSHAKE_NEW_SESSION_TICKET, GNUTLS_HOOK_POST, on_ticket);
        if (h->ticket.size)
            (void)gnutls_session_set_data(h->tls, h->ticket.data, h->ticket.size); /* a stale one: a full handshake */
    }
    return 0;
}

static int quic_new(struct conn *c, struct h3 *h, uint64_t now)
{
    const struct plan *pl = c->w->plan;
    const struct config *cfg = pl->cfg;
    const struct h3_plan *hp = pl->shared;
    uint64_t win = (1ull << cfg->h2_window_bits) - 1;
    ngtcp2_settings set;
    ngtcp2_transport_params par;
    ngtcp2_cid dcid, scid;

    ngtcp2_settings_default(&set);
    set.initial_ts = now;
    set.handshake_timeout = cfg->connect_timeout_ns < cfg->timeout_ns ? cfg->connect_timeout_ns : cfg->timeout_ns;
    ngtcp2_transport_params_default(&par);
    /* Flow control never throttles a benchmark (as --h2-window does); the
     * server opens its three unidirectional streams (RFC 9114 section 6.2)
     * and no bidirectional one. */
    par.initial_max_stream_data_bidi_local = win;
    par.initial_max_stream_data_uni = win;
    par.initial_max_data = win;
    par.initial_max_streams_uni = 3;
    par.initial_max_streams_bidi = 0;
    par.max_idle_timeout = 30 * NGTCP2_SECONDS;
    par.max_udp_payload_size = H3_RSLICE;
    dcid.datalen = 18;
    scid.datalen = 17;
    if (gnutls_rnd(GNUTLS_RND_RANDOM, dcid.data, dcid.datalen) != 0 ||
        gnutls_rnd(GNUTLS_RND_RANDOM, scid.data, scid.datalen) != 0)
        return NGTCP2_ERR_NOMEM;
    return ngtcp2_conn_client_new(&h->qc, &dcid, &scid, &h->ps.path, NGTCP2_PROTO_VER_V1, &hp->qcb, &set, &par, NULL,
                                  c);
}

int http3_quic_open(struct conn *c, uint64_t now)
{
    struct worker *w = c->w;
    const struct net_addr *a = &w->plan->endpoints[c->endpoint].addr, *src;
    struct h3 *h = h3_of(c);
    struct sockaddr_storage local;
    socklen_t llen = sizeof(local);
    const char *why = NULL;
    int fd, e;

    fd = socket(a->ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        conn_fail(c, errno == EMFILE || errno == ENFILE ? ERR_ADDR_UNAVAILABLE : ERR_CONNECT_OTHER, errno, NULL, now);
        return -1;
    }
    /* --source, as over TCP; then connect(): the kernel filters other
     * peers' datagrams, and an ICMP port unreachable comes back as
     * ECONNREFUSED. */
    if ((src = conn_source(c)) != NULL && bind(fd, (const struct sockaddr *)&src->ss, src->len) != 0) {
        e = errno;
        close(fd);
        conn_fail(c, e == EADDRNOTAVAIL || e == EADDRINUSE ? ERR_ADDR_UNAVAILABLE : ERR_CONNECT_OTHER, e, NULL, now);
        return -1;
    }
    if (connect(fd, (const struct sockaddr *)&a->ss, a->len) != 0 ||
        getsockname(fd, (struct sockaddr *)&local, &llen) != 0) {
        e = errno;
        close(fd);
        conn_fail(c, ERR_CONNECT_OTHER, e, NULL, now);
        return -1;
    }
    c->fd = fd;
    c->ops = &io_plain;
    c->io_ctx = NULL;
    /* As over TCP (conn.c): refused, the answers are stamped as read. */
    c->stamping = !w->plan->cfg->user_timestamps && rxstamp_enable(fd) == 0;
    c->state = C_CONNECTING; /* the QUIC handshake: conn_arm gives it --connect-timeout */
    w->open++;
    h->qtimer.fn = on_qtimer;
    h->goaway_id = -1;
    h->now = now;
    h->handshaken = h->more_streams = 0;
    h->completed = 0;
    h->sent = h->recv = h->lost = 0;
    h->npend = h->pend_first = 0;
    ngtcp2_path_storage_init(&h->ps, (const ngtcp2_sockaddr *)&local, llen, (const ngtcp2_sockaddr *)&a->ss, a->len,
                             NULL);
    if ((e = quic_new(c, h, now)) != 0) {
        h->qc = NULL;
        conn_fail(c, ERR_QUIC_HANDSHAKE, 0, ngtcp2_strerror(e), now);
        return -1;
    }
    if (tls_start(c, h, &why) != 0) {
        conn_fail(c, ERR_TLS, 0, why, now);
        return -1;
    }
    ngtcp2_conn_set_tls_native_handle(h->qc, h->tls);
    http3_early_setup(c);
    if ((e = loop_add(&w->loop, fd, LOOP_IN | LOOP_OUT, &h->io)) != 0) {
        conn_fail(c, ERR_CONNECT_OTHER, e, NULL, now);
        return -1;
    }
    conn_arm(c);
    if (c->state == C_IDLE)
        return -1;
    return http3_quic_flush(c);
}

void http3_quic_free(struct h3 *h, uint64_t now)
{
    struct conn *c = h->c;
    if (h->qc) {
        ngtcp2_conn_stat st;
        ngtcp2_conn_get_conn_stat(h->qc, &st);
        if (st.first_rtt_sample_ts != UINT64_MAX)
            record_quic_rtt(c->w, st.smoothed_rtt, st.min_rtt, now);
        ngtcp2_conn_del(h->qc);
        h->qc = NULL;
    }
    if (h->tls)
        gnutls_deinit(h->tls);
    h->tls = NULL;
    loop_timer_cancel(&c->w->loop, &h->qtimer);
    h->npend = 0;
}

/* Sends the datagrams from the pending ones' first; keeps what the socket
 * does not take. Returns 0, or -1 when the connection failed. */
static int send_batch(struct conn *c, uint8_t *buf, const uint16_t *len, uint32_t n)
{
    struct h3 *h = h3_of(c);
    struct mmsghdr mm[H3_BATCH];
    struct iovec iov[H3_BATCH];
    uint32_t i, off = 0;
    int r;
    memset(mm, 0, sizeof(mm));
    for (i = 0; i < n; i++) {
        iov[i].iov_base = buf + (size_t)i * H3_SLOT;
        iov[i].iov_len = len[i];
        mm[i].msg_hdr.msg_iov = &iov[i];
        mm[i].msg_hdr.msg_iovlen = 1;
        off += len[i];
    }
    do
        r = sendmmsg(c->fd, mm, n, 0);
    while (r < 0 && errno == EINTR);
    if (r < 0 && errno != EAGAIN && errno != ENOBUFS) {
        uint64_t now = clock_ns();
        conn_fail(c, errno == ECONNREFUSED ? (c->state == C_OPEN ? ERR_RESET : ERR_CONNECT_REFUSED) : ERR_WRITE, errno,
                  NULL, now);
        return -1;
    }
    if (r < 0)
        r = 0;
    for (i = 0; i < (uint32_t)r; i++)
        record_sent_conn(c->w, len[i], h->now);
    h->sent += (uint32_t)r;
    record_quic(c->w, (uint32_t)r, 0, 0, clock_ns());
    if ((uint32_t)r == n) {
        h->npend = 0;
        return 0;
    }
    /* Kept in order for EPOLLOUT; the rest of this flush waits too. */
    if (h->pend == NULL && (h->pend = malloc((size_t)H3_BATCH * H3_SLOT)) == NULL) {
        conn_fail(c, ERR_WRITE, ENOMEM, "out of memory for unsent datagrams", clock_ns());
        return -1;
    }
    if (buf != h->pend)
        memcpy(h->pend, buf, (size_t)n * H3_SLOT);
    else if (r > 0)
        memmove(h->pend, h->pend + (size_t)r * H3_SLOT, (size_t)(n - (uint32_t)r) * H3_SLOT);
    memmove(h->pend_len, len + r, (n - (uint32_t)r) * sizeof(*len));
    h->npend = n - (uint32_t)r;
    return 0;
}

static void arm(struct conn *c)
{
    struct h3 *h = h3_of(c);
    ngtcp2_tstamp t = ngtcp2_conn_get_expiry(h->qc);
    if (t == UINT64_MAX)
        loop_timer_cancel(&c->w->loop, &h->qtimer);
    else if (loop_timer_set(&c->w->loop, &h->qtimer, t) != 0)
        conn_fail(c, ERR_QUIC_CLOSE, ENOMEM, "no memory for QUIC's timer", clock_ns());
}

/* One packet of what waits into dest: nghttp3's stream data once the
 * handshake is done or early data may go (h->early == 2). */
static ngtcp2_ssize write_one(struct h3 *h, uint8_t *dest, size_t room, uint64_t now)
{
    nghttp3_conn *hc = h->hc && (h->early == 2 || ngtcp2_conn_get_handshake_completed(h->qc)) ? h->hc : NULL;
    return http3_write_packet(h->qc, hc, NULL, dest, room, now);
}

int http3_quic_flush(struct conn *c)
{
    struct h3 *h = h3_of(c);
    uint8_t *buf = (uint8_t *)c->w->wbuf;
    uint16_t len[H3_BATCH];
    uint32_t n = 0;
    uint64_t now = clock_ns();
    size_t room;

    if (h->qc == NULL || c->fd < 0)
        return 0;
    if (h->npend) {
        if (send_batch(c, h->pend, h->pend_len, h->npend) != 0)
            return -1;
        if (h->npend)
            return 0; /* EPOLLOUT calls us back */
    }
    room = ngtcp2_conn_get_path_max_tx_udp_payload_size(h->qc);
    if (room > H3_SLOT)
        room = H3_SLOT;
    for (;;) {
        ngtcp2_ssize k = write_one(h, buf + (size_t)n * H3_SLOT, room, now);
        if (k < 0) {
            http3_quic_lost(c, (int)k, now);
            return -1;
        }
        if (k > 0)
            len[n++] = (uint16_t)k;
        if (n && (k == 0 || n == H3_BATCH)) {
            if (send_batch(c, buf, len, n) != 0)
                return -1;
            n = 0;
            if (h->npend)
                break;
        }
        if (k == 0)
            break;
    }
    /* Pacing from the handshake's end only: before an RTT sample ngtcp2
     * paces by its initial guess (333 ms), which held the first request
     * some 20 ms behind a handshake done in 1 ms (the server's flight and
     * ours are a few packets anyway). */
    if (ngtcp2_conn_get_handshake_completed(h->qc))
        ngtcp2_conn_update_pkt_tx_time(h->qc, now);
    arm(c);
    return c->state == C_IDLE ? -1 : 0;
}

/* A datagram's SO_TIMESTAMPING on the monotonic clock, 0 without one. */
static uint64_t datagram_arrival(struct worker *w, struct msghdr *m, uint64_t now)
{
    struct cmsghdr *cm;
    uint64_t t;
    for (cm = CMSG_FIRSTHDR(m); cm != NULL; cm = CMSG_NXTHDR(m, cm))
        if ((t = rxstamp_of(cm)) != 0)
            return rxstamp_mono(&w->clk, t, now);
    return 0;
}

int http3_quic_input(struct conn *c)
{
    struct h3 *h = h3_of(c);
    struct worker *w = c->w;
    struct mmsghdr mm[H3_BATCH];
    struct iovec iov[H3_BATCH];
    uint32_t i;
    for (;;) {
        int r;
        uint64_t now;
        memset(mm, 0, sizeof(mm));
        for (i = 0; i < H3_BATCH; i++) {
            iov[i].iov_base = w->rbuf + (size_t)i * H3_RSLICE;
            iov[i].iov_len = H3_RSLICE;
            mm[i].msg_hdr.msg_iov = &iov[i];
            mm[i].msg_hdr.msg_iovlen = 1;
            if (c->stamping) {
                mm[i].msg_hdr.msg_control = h->ctl[i].b;
                mm[i].msg_hdr.msg_controllen = sizeof(h->ctl[i].b);
            }
        }
        r = recvmmsg(c->fd, mm, H3_BATCH, MSG_DONTWAIT, NULL);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN)
                return 0;
            /* An ICMP port unreachable: nothing listens there (any more). */
            conn_fail(c, c->state == C_OPEN ? ERR_RESET : errno == ECONNREFUSED ? ERR_CONNECT_REFUSED : ERR_CONNECT_OTHER,
                      errno, NULL, clock_ns());
            return -1;
        }
        now = clock_ns();
        h->now = now;
        h->recv += (uint32_t)r;
        record_quic(w, 0, (uint32_t)r, 0, now);
        for (i = 0; i < (uint32_t)r; i++) {
            ngtcp2_pkt_info pi = { 0 };
            int e;
            record_received(w, NULL, mm[i].msg_len, now);
            /* An empty datagram (ngtcp2 fails the connection on it) or one
             * past our max_udp_payload_size is junk: dropped, as RFC 9000
             * section 5.2 allows for packets that cannot be processed. */
            if (mm[i].msg_len == 0 || (mm[i].msg_hdr.msg_flags & MSG_TRUNC))
                continue;
            /* The answers this datagram ends (or begins) arrived with it:
             * record_response reads its kernel stamp from w->t_arr. */
            w->t_arr = c->stamping ? datagram_arrival(w, &mm[i].msg_hdr, now) : 0;
            e = ngtcp2_conn_read_pkt(h->qc, &h->ps.path, &pi, iov[i].iov_base, mm[i].msg_len, now);
            w->t_arr = 0;
            if (e != 0) {
                http3_quic_lost(c, e, now);
                return -1;
            }
        }
        if (r < H3_BATCH)
            return 0;
    }
}

static const struct {
    uint64_t code;
    const char *name;
} tnames[] = {
    { 0x0, "NO_ERROR (0x0)" }, { 0x1, "INTERNAL_ERROR (0x1)" }, { 0x2, "CONNECTION_REFUSED (0x2)" },
    { 0x3, "FLOW_CONTROL_ERROR (0x3)" }, { 0x4, "STREAM_LIMIT_ERROR (0x4)" }, { 0x5, "STREAM_STATE_ERROR (0x5)" },
    { 0x6, "FINAL_SIZE_ERROR (0x6)" }, { 0x7, "FRAME_ENCODING_ERROR (0x7)" },
    { 0x8, "TRANSPORT_PARAMETER_ERROR (0x8)" }, { 0x9, "CONNECTION_ID_LIMIT_ERROR (0x9)" },
    { 0xa, "PROTOCOL_VIOLATION (0xa)" }, { 0xb, "INVALID_TOKEN (0xb)" }, { 0xc, "APPLICATION_ERROR (0xc)" },
    { 0xd, "CRYPTO_BUFFER_EXCEEDED (0xd)" }, { 0xe, "KEY_UPDATE_ERROR (0xe)" }, { 0xf, "AEAD_LIMIT_REACHED (0xf)" },
    { 0x10, "NO_VIABLE_PATH (0x10)" },
}, anames[] = {
    { 0x100, "H3_NO_ERROR (0x100)" }, { 0x101, "H3_GENERAL_PROTOCOL_ERROR (0x101)" },
    { 0x102, "H3_INTERNAL_ERROR (0x102)" }, { 0x103, "H3_STREAM_CREATION_ERROR (0x103)" },
    { 0x104, "H3_CLOSED_CRITICAL_STREAM (0x104)" }, { 0x105, "H3_FRAME_UNEXPECTED (0x105)" },
    { 0x106, "H3_FRAME_ERROR (0x106)" }, { 0x107, "H3_EXCESSIVE_LOAD (0x107)" }, { 0x108, "H3_ID_ERROR (0x108)" },
    { 0x109, "H3_SETTINGS_ERROR (0x109)" }, { 0x10a, "H3_MISSING_SETTINGS (0x10a)" },
    { 0x10b, "H3_REQUEST_REJECTED (0x10b)" }, { 0x10c, "H3_REQUEST_CANCELLED (0x10c)" },
    { 0x10d, "H3_REQUEST_INCOMPLETE (0x10d)" }, { 0x10e, "H3_MESSAGE_ERROR (0x10e)" },
    { 0x10f, "H3_CONNECT_ERROR (0x10f)" }, { 0x110, "H3_VERSION_FALLBACK (0x110)" },
    { 0x200, "QPACK_DECOMPRESSION_FAILED (0x200)" }, { 0x201, "QPACK_ENCODER_STREAM_ERROR (0x201)" },
    { 0x202, "QPACK_DECODER_STREAM_ERROR (0x202)" },
};

const char *http3_quic_code_name(int app, uint64_t code)
{
    size_t i;
    if (app) {
        for (i = 0; i < sizeof(anames) / sizeof(anames[0]); i++)
            if (anames[i].code == code)
                return anames[i].name;
        return "an application error code HTTP/3 does not define";
    }
    for (i = 0; i < sizeof(tnames) / sizeof(tnames[0]); i++)
        if (tnames[i].code == code)
            return tnames[i].name;
    if (code >= 0x100 && code <= 0x1ff)
        return "CRYPTO_ERROR (0x1XX): the TLS handshake failed, with the TLS alert in its low byte";
    return "a transport error code QUIC does not define";
}

/* GnuTLS's verdict on the server's certificate in OpenSSL's words for
 * the same faults, as a TCP run says them (reach.c adds what helps). */
static const char *cert_why(unsigned status)
{
    if (status & (GNUTLS_CERT_SIGNER_NOT_FOUND | GNUTLS_CERT_SIGNER_NOT_CA))
        return "unable to get local issuer certificate";
    if (status & GNUTLS_CERT_EXPIRED)
        return "certificate has expired";
    if (status & GNUTLS_CERT_NOT_ACTIVATED)
        return "certificate is not yet valid";
    if (status & GNUTLS_CERT_UNEXPECTED_OWNER)
        return "hostname mismatch";
    return "certificate verify failed";
}

/* Our CONNECTION_CLOSE for ccerr, sent once, best effort. */
static void send_close(struct conn *c, const ngtcp2_connection_close_error *cc)
{
    struct h3 *h = h3_of(c);
    ngtcp2_pkt_info pi;
    uint8_t *buf = (uint8_t *)c->w->wbuf;
    ngtcp2_ssize n = ngtcp2_conn_write_connection_close(h->qc, NULL, &pi, buf, H3_SLOT, cc, clock_ns());
    if (n > 0 && send(c->fd, buf, (size_t)n, MSG_DONTWAIT) == n)
        record_quic(c->w, 1, 0, 0, clock_ns());
}

int http3_quic_alpn(struct conn *c)
{
    struct h3 *h = h3_of(c);
    const struct plan *pl = c->w->plan;
    gnutls_datum_t p = { NULL, 0 };
    if (gnutls_alpn_get_selected_protocol(h->tls, &p) == 0 && p.size == 2 && memcmp(p.data, "h3", 2) == 0)
        return 0;
    /* A worker's error that ends the whole run: the server does not speak
     * HTTP/3 at all. */
    if (c->w->err[0] == '\0')
        snprintf(c->w->err, sizeof(c->w->err), "%s: the server did not agree to HTTP/3 in the QUIC handshake (ALPN: "
                 "%s)", pl->cfg->url_text[pl->endpoints[c->endpoint].targets[0]], p.size ? "another protocol" : "none chosen");
    c->w->stopping = 1;
    conn_fail(c, ERR_QUIC_HANDSHAKE, 0, "the server does not speak HTTP/3 (ALPN h3)", clock_ns());
    return -1;
}

void http3_quic_goodbye(struct conn *c)
{
    struct h3 *h = h3_of(c);
    if (h->qc && !ngtcp2_conn_is_in_closing_period(h->qc) && !ngtcp2_conn_is_in_draining_period(h->qc)) {
        ngtcp2_connection_close_error cc;
        ngtcp2_connection_close_error_default(&cc);
        ngtcp2_connection_close_error_set_application_error(&cc, NGHTTP3_H3_NO_ERROR, NULL, 0);
        send_close(c, &cc);
    }
    conn_close(c);
    workq_enqueue(c);
}

void http3_quic_lost(struct conn *c, int liberr, uint64_t now)
{
    struct h3 *h = h3_of(c);
    int up = c->state == C_OPEN;
    ngtcp2_connection_close_error cc;
    const char *why;
    enum err_kind k;

    ngtcp2_connection_close_error_default(&cc);
    switch (liberr) {
    case NGTCP2_ERR_DRAINING:
    case NGTCP2_ERR_CLOSING:
        /* The server's CONNECTION_CLOSE, with its code. */
        ngtcp2_conn_get_connection_close_error(h->qc, &cc);
        why = http3_quic_code_name(cc.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION, cc.error_code);
        k = up ? ERR_QUIC_CLOSE : ERR_QUIC_HANDSHAKE;
        if (up && c->count == 0) {
            conn_close(c);
            workq_enqueue(c);
            return;
        }
        break;
    case NGTCP2_ERR_IDLE_CLOSE:
        if (c->count == 0) {
            conn_close(c); /* an idle keep-alive connection: nothing lost */
            workq_enqueue(c);
            return;
        }
        k = up ? ERR_QUIC_IDLE : ERR_QUIC_HANDSHAKE;
        why = up ? "nothing came from the server within QUIC's idle timeout (the least of "
                   "ours, 30 s, and the server's)" : "no answer to the QUIC handshake";
        break;
    case NGTCP2_ERR_HANDSHAKE_TIMEOUT:
        k = ERR_QUIC_HANDSHAKE;
        why = "no answer to the QUIC handshake within --connect-timeout";
        break;
    case NGTCP2_ERR_RECV_VERSION_NEGOTIATION:
        /* Nothing to close: the server has no connection (section 6.2). */
        k = ERR_QUIC_HANDSHAKE;
        why = "the server does not speak QUIC v1 (it answered with a Version Negotiation packet)";
        break;
    case NGTCP2_ERR_CRYPTO:
        /* GnuTLS failed the handshake: an untrusted certificate is TLS's
         * own error, as over TCP. */
        k = h->tls && gnutls_session_get_verify_cert_status(h->tls) != 0 ? ERR_TLS : ERR_QUIC_HANDSHAKE;
        why = k == ERR_TLS ? cert_why(gnutls_session_get_verify_cert_status(h->tls))
                           : "the TLS handshake inside QUIC failed (no common ALPN h3, cipher or group?)";
        ngtcp2_connection_close_error_set_transport_error_tls_alert(&cc, ngtcp2_conn_get_tls_alert(h->qc), NULL, 0);
        send_close(c, &cc);
        break;
    default:
        k = up ? ERR_QUIC_CLOSE : ERR_QUIC_HANDSHAKE;
        why = ngtcp2_strerror(liberr);
        if (liberr != NGTCP2_ERR_DROP_CONN) {
            ngtcp2_connection_close_error_set_transport_error_liberr(&cc, liberr, NULL, 0);
            send_close(c, &cc);
        }
        break;
    }
    conn_fail(c, k, 0, why, now);
}

static void on_qtimer(struct timer *t, uint64_t now)
{
    struct h3 *h = container_of(t, struct h3, qtimer);
    struct conn *c = h->c;
    int e;
    if (h->qc == NULL || c->fd < 0)
        return;
    h->now = now;
    if ((e = ngtcp2_conn_handle_expiry(h->qc, now)) != 0) {
        http3_quic_lost(c, e, now);
        return;
    }
    http3_quic_flush(c);
}

/* serve_h3_offline.h - serve's HTTP/3 session without a socket or a
 * handshake, for the fuzzer (fuzz_serve_h3.c) and the QPACK unit test
 * (tests/serve/test_serve_h3_qpack.c): ngtcp2's server connection is made but
 * never connected, so what serve_h3.c asks of it about streams is refused
 * as for a stream it does not know. Its control stream is 3, its QPACK
 * streams 7 and 11; the client's are 2, 6 and 10. */
#ifndef RAFALE_SERVE_H3_OFFLINE_H
#define RAFALE_SERVE_H3_OFFLINE_H

#include "serve_h3_int.h"

#include <arpa/inet.h>
#include <string.h>

static void offline_rand(uint8_t *dest, size_t len, const ngtcp2_rand_ctx *ctx)
{
    (void)ctx;
    memset(dest, 7, len);
}

static int offline_cid(ngtcp2_conn *qc, ngtcp2_cid *cid, uint8_t *token, size_t cidlen, void *ud)
{
    (void)qc;
    (void)ud;
    memset(cid->data, 9, cidlen);
    cid->datalen = cidlen;
    memset(token, 1, NGTCP2_STATELESS_RESET_TOKENLEN);
    return 0;
}

/* ep's callbacks: fixed randomness, then serve's own. */
static void offline_callbacks(struct sh3_ep *ep)
{
    ep->qcb.rand = offline_rand;
    ep->qcb.get_new_connection_id = offline_cid;
    serve_h3_callbacks(&ep->qcb, &ep->hcb);
}

/* c, a connection of ep at now with serve's session, as serve makes it
 * once a handshake is done. Returns -1 when a step failed; in every case
 * offline_free(c) releases what was made. */
static int offline_session(struct sh3_ep *ep, struct sh3_conn *c, uint64_t now)
{
    ngtcp2_cid dcid, scid;
    ngtcp2_path_storage ps;
    ngtcp2_settings set;
    ngtcp2_transport_params par;
    struct sockaddr_in a = { .sin_family = AF_INET };

    memset(c, 0, sizeof(*c));
    c->ep = ep;
    c->max_sid = c->goaway_id = -1;
    c->now = now;
    dcid.datalen = scid.datalen = SH3_CIDLEN;
    memset(dcid.data, 1, SH3_CIDLEN);
    memset(scid.data, 2, SH3_CIDLEN);
    a.sin_addr.s_addr = htonl(0x7f000001);
    ngtcp2_path_storage_init(&ps, (const ngtcp2_sockaddr *)&a, sizeof(a), (const ngtcp2_sockaddr *)&a, sizeof(a), NULL);
    ngtcp2_settings_default(&set);
    set.initial_ts = now;
    ngtcp2_transport_params_default(&par);
    par.initial_max_streams_bidi = 16;
    par.original_dcid = dcid;
    if (ngtcp2_conn_server_new(&c->qc, &dcid, &scid, &ps.path, NGTCP2_PROTO_VER_V1, &ep->qcb, &set, &par, NULL, c) != 0)
        return -1;
    if (serve_h3_session_new(c) != 0 || nghttp3_conn_bind_control_stream(c->hc, 3) != 0 ||
        nghttp3_conn_bind_qpack_streams(c->hc, 7, 11) != 0)
        return -1;
    return 0;
}

static void offline_free(struct sh3_conn *c)
{
    serve_h3_session_free(c);
    ngtcp2_conn_del(c->qc);
}

#endif

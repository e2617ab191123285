/* fuzz/fuzz_h3_serve.c - libFuzzer entry point for `rafale serve`'s HTTP/3
 * side (serve_h3.c on nghttp3's server session), without a socket or a
 * handshake: its QUIC connection is ngtcp2's, made but never connected, so
 * what serve_h3.c asks of it about streams is refused as for a stream it
 * does not know. The input is a list of stream chunks, each [selector]
 * [length] [bytes]: the selector's low 3 bits name the client's control
 * stream (0), QPACK encoder (1) and decoder (2) streams, or request streams
 * 0, 4, 8, 12 and 16 (3-7); its high bit ends the stream. After each chunk
 * what the server has to send is drained and acknowledged (bodies read
 * byte by byte), and time moves on for /delay. Nothing may crash, leak
 * (ASan) or loop; the output must stay bounded. */
#include "serve_h3_int.h"

#include <ngtcp2/ngtcp2_crypto.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void on_rand(uint8_t *dest, size_t len, const ngtcp2_rand_ctx *ctx)
{
    (void)ctx;
    memset(dest, 7, len);
}

static int on_cid(ngtcp2_conn *qc, ngtcp2_cid *cid, uint8_t *token, size_t cidlen, void *ud)
{
    (void)qc;
    (void)ud;
    memset(cid->data, 9, cidlen);
    cid->datalen = cidlen;
    memset(token, 1, NGTCP2_STATELESS_RESET_TOKENLEN);
    return 0;
}

/* What the session has to send, taken and acknowledged. Returns -1 when
 * the session failed. */
static int drain(struct sh3_conn *c)
{
    size_t total = 0;
    for (;;) {
        nghttp3_vec v[16];
        int64_t sid = -1;
        int fin = 0;
        nghttp3_ssize n = nghttp3_conn_writev_stream(c->hc, &sid, &fin, v, 16), i;
        size_t len = 0, k;
        unsigned sum = 0;
        if (n < 0)
            return -1;
        if (sid < 0)
            return 0;
        for (i = 0; i < n; i++) {
            for (k = 0; k < v[i].len; k++)
                sum += v[i].base[k]; /* every byte readable (ASan) */
            len += v[i].len;
        }
        (void)sum;
        total += len;
        if (total > (size_t)200 << 20)
            abort(); /* 64 MiB bodies asked for in a small input are fine, endless output is not */
        if (n == 0 && !fin)
            return 0;
        if (nghttp3_conn_add_write_offset(c->hc, sid, len) != 0 || nghttp3_conn_add_ack_offset(c->hc, sid, len) != 0)
            return -1;
    }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static struct serve s;
    static struct sthread t;
    static struct sh3_ep ep;
    static uint8_t *gen;
    static const int64_t ids[8] = { 2, 6, 10, 0, 4, 8, 12, 16 };
    struct sh3_conn c;
    ngtcp2_cid dcid, scid;
    ngtcp2_path_storage ps;
    ngtcp2_settings set;
    ngtcp2_transport_params par;
    struct sockaddr_in a = { .sin_family = AF_INET };
    uint64_t now = 1000000000;
    size_t at = 0;
    int used = 0, k;

    if (gen == NULL) {
        size_t half = 63000 + 64 * 1024, i;
        if ((gen = malloc(2 * half)) == NULL)
            return 0;
        for (i = 0; i < half; i++) {
            gen[i] = (uint8_t)SERVE_PATTERN[i % SERVE_PATTERN_LEN];
            gen[half + i] = (uint8_t)SERVE_PATTERN[(i % 1000) % SERVE_PATTERN_LEN];
        }
        s.cfg.redirect_to = "http://example.com";
        s.cfg.h2_streams = 16;
        t.s = &s;
        t.rng = 1;
        strcpy(t.date, "Mon, 30 Nov 2026 00:00:00 GMT");
        ep.t = &t;
        ep.gen = gen;
        ep.qcb.recv_client_initial = ngtcp2_crypto_recv_client_initial_cb;
        ep.qcb.recv_crypto_data = ngtcp2_crypto_recv_crypto_data_cb;
        ep.qcb.encrypt = ngtcp2_crypto_encrypt_cb;
        ep.qcb.decrypt = ngtcp2_crypto_decrypt_cb;
        ep.qcb.hp_mask = ngtcp2_crypto_hp_mask_cb;
        ep.qcb.update_key = ngtcp2_crypto_update_key_cb;
        ep.qcb.delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb;
        ep.qcb.delete_crypto_cipher_ctx = ngtcp2_crypto_delete_crypto_cipher_ctx_cb;
        ep.qcb.get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb;
        ep.qcb.rand = on_rand;
        ep.qcb.get_new_connection_id = on_cid;
        serve_h3_callbacks(&ep.qcb, &ep.hcb);
    }
    memset(&c, 0, sizeof(c));
    c.ep = &ep;
    c.max_sid = c.goaway_id = -1;
    c.now = now;
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
    if (ngtcp2_conn_server_new(&c.qc, &dcid, &scid, &ps.path, NGTCP2_PROTO_VER_V1, &ep.qcb, &set, &par, NULL, &c) != 0)
        return 0;
    if (serve_h3_session_new(&c) != 0 || nghttp3_conn_bind_control_stream(c.hc, 3) != 0 ||
        nghttp3_conn_bind_qpack_streams(c.hc, 7, 11) != 0)
        goto done;
    while (at + 2 <= size) {
        int sel = data[at] & 7, fin = (data[at] & 0x80) != 0;
        size_t len = data[at + 1];
        nghttp3_ssize r;
        at += 2;
        if (len > size - at)
            len = size - at;
        if (sel >= 3)
            used |= 1 << sel;
        c.now = now;
        r = nghttp3_conn_read_stream(c.hc, ids[sel], data + at, len, fin);
        at += len;
        if (r < 0 || drain(&c) != 0)
            goto done;
        now += 5000000;
        serve_h3_tick(&c, now);
        if (drain(&c) != 0)
            goto done;
    }
    /* Every /delay answer, however long (600 s at most). */
    now += 601ull * 1000000000;
    serve_h3_tick(&c, now);
    if (drain(&c) == 0 && serve_h3_deadline(&c) <= now)
        abort();
    /* The streams close, as ngtcp2 says once both sides are done. */
    for (k = 3; k < 8; k++)
        if (used & (1 << k))
            nghttp3_conn_close_stream(c.hc, ids[k], NGHTTP3_H3_NO_ERROR);
done:
    serve_h3_session_free(&c);
    ngtcp2_conn_del(c.qc);
    return 0;
}

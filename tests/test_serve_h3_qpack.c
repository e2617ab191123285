/* test_serve_h3_qpack.c - serve over HTTP/3 offers no dynamic QPACK table,
 * so a client's encoder cannot make it hold one (the QPACK table-size bomb):
 * its SETTINGS say a capacity of 0 (RFC 9204 section 5), and a client
 * encoder stream asking for more is a connection error
 * QPACK_ENCODER_STREAM_ERROR (section 4.3.1); one asking for 0, or saying
 * nothing, is fine. serve_h3.c's session is driven as in
 * fuzz/fuzz_h3_serve.c: ngtcp2's connection made but never connected. */
#include "t.h"
#include "serve_h3_int.h"

#include <string.h>

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

static struct serve s;
static struct sthread th;
static struct sh3_ep ep;

/* A session as serve makes it once a handshake is done; its control
 * stream (3) is ours, the client's encoder stream is 6. */
static int session(struct sh3_conn *c)
{
    ngtcp2_cid dcid, scid;
    ngtcp2_path_storage ps;
    ngtcp2_settings set;
    ngtcp2_transport_params par;
    struct sockaddr_in a = { .sin_family = AF_INET };

    memset(c, 0, sizeof(*c));
    c->ep = &ep;
    c->max_sid = c->goaway_id = -1;
    c->now = 1000000000;
    dcid.datalen = scid.datalen = SH3_CIDLEN;
    memset(dcid.data, 1, SH3_CIDLEN);
    memset(scid.data, 2, SH3_CIDLEN);
    a.sin_addr.s_addr = htonl(0x7f000001);
    ngtcp2_path_storage_init(&ps, (const ngtcp2_sockaddr *)&a, sizeof(a), (const ngtcp2_sockaddr *)&a, sizeof(a), NULL);
    ngtcp2_settings_default(&set);
    set.initial_ts = c->now;
    ngtcp2_transport_params_default(&par);
    par.initial_max_streams_bidi = 16;
    par.original_dcid = dcid;
    if (ngtcp2_conn_server_new(&c->qc, &dcid, &scid, &ps.path, NGTCP2_PROTO_VER_V1, &ep.qcb, &set, &par, NULL, c) != 0)
        return -1;
    if (serve_h3_session_new(c) != 0 || nghttp3_conn_bind_control_stream(c->hc, 3) != 0 ||
        nghttp3_conn_bind_qpack_streams(c->hc, 7, 11) != 0)
        return -1;
    return 0;
}

static void session_free(struct sh3_conn *c)
{
    serve_h3_session_free(c);
    ngtcp2_conn_del(c->qc);
}

/* A QUIC variable-length integer (RFC 9000 section 16) at *p. */
static uint64_t varint(const uint8_t **p, const uint8_t *end)
{
    size_t n = (size_t)1 << (**p >> 6), i;
    uint64_t v = **p & 0x3f;
    if ((size_t)(end - *p) < n) {
        *p = end;
        return UINT64_MAX;
    }
    for (i = 1; i < n; i++)
        v = v << 8 | (*p)[i];
    *p += n;
    return v;
}

/* The SETTINGS serve sends on its control stream: QPACK_MAX_TABLE_CAPACITY
 * (0x01) and QPACK_BLOCKED_STREAMS (0x07) absent or 0 (their default is 0,
 * RFC 9204 section 5). */
static void settings_offer_no_table(void)
{
    struct sh3_conn c;
    uint8_t out[256];
    size_t len = 0;
    const uint8_t *p, *end;
    uint64_t ftype, flen, cap = 0, blocked = 0;
    int seen_settings = 0;

    CHECK(session(&c) == 0);
    for (;;) {
        nghttp3_vec v[8];
        int64_t sid = -1;
        int fin = 0;
        nghttp3_ssize n = nghttp3_conn_writev_stream(c.hc, &sid, &fin, v, 8), i;
        size_t got = 0;
        if (n < 0 || sid < 0 || (n == 0 && !fin))
            break;
        for (i = 0; i < n; i++) {
            if (sid == 3 && len + v[i].len <= sizeof(out)) {
                memcpy(out + len, v[i].base, v[i].len);
                len += v[i].len;
            }
            got += v[i].len;
        }
        if (nghttp3_conn_add_write_offset(c.hc, sid, got) != 0)
            break;
    }
    p = out;
    end = out + len;
    CHECKF(len > 2 && varint(&p, end) == 0x00, "the control stream's type (%zu bytes)", len);
    ftype = varint(&p, end);
    flen = varint(&p, end);
    if (ftype == 0x04 && flen <= (uint64_t)(end - p)) {
        const uint8_t *fend = p + flen;
        seen_settings = 1;
        while (p < fend) {
            uint64_t id = varint(&p, fend), val = varint(&p, fend);
            if (id == 0x01)
                cap = val;
            else if (id == 0x07)
                blocked = val;
        }
    }
    CHECK(seen_settings);
    CHECKF(cap == 0, "QPACK_MAX_TABLE_CAPACITY %llu", (unsigned long long)cap);
    CHECKF(blocked == 0, "QPACK_BLOCKED_STREAMS %llu", (unsigned long long)blocked);
    session_free(&c);
}

/* What reading the client's encoder stream (6) gives. */
static nghttp3_ssize encoder_says(const uint8_t *b, size_t len)
{
    struct sh3_conn c;
    nghttp3_ssize r = -1;
    if (session(&c) == 0)
        r = nghttp3_conn_read_stream(c.hc, 6, b, len, 0);
    session_free(&c);
    return r;
}

static void encoder_cannot_grow_the_table(void)
{
    /* Stream type 0x02, then Set Dynamic Table Capacity (001xxxxx, a 5-bit
     * prefix integer, RFC 9204 sections 4.3.1 and 4.1.1). */
    static const uint8_t cap4096[] = { 0x02, 0x3f, 0xe1, 0x1f };           /* 31 + 0x61 + (31 << 7) = 4096 */
    static const uint8_t cap1g[] = { 0x02, 0x3f, 0xe1, 0xff, 0xff, 0x03 }; /* about 1 GiB */
    static const uint8_t cap0[] = { 0x02, 0x20 };
    /* Insert With Literal Name (01xxxxxx) with no table: "a" = "b". */
    static const uint8_t insert[] = { 0x02, 0x41, 'a', 0x01, 'b' };
    nghttp3_ssize r;

    r = encoder_says(cap4096, sizeof(cap4096));
    CHECKF(r == NGHTTP3_ERR_QPACK_ENCODER_STREAM_ERROR, "capacity 4096: %ld", (long)r);
    CHECK(nghttp3_err_infer_quic_app_error_code((int)r) == NGHTTP3_QPACK_ENCODER_STREAM_ERROR);
    r = encoder_says(cap1g, sizeof(cap1g));
    CHECKF(r == NGHTTP3_ERR_QPACK_ENCODER_STREAM_ERROR, "capacity 1 GiB: %ld", (long)r);
    r = encoder_says(insert, sizeof(insert));
    CHECKF(r == NGHTTP3_ERR_QPACK_ENCODER_STREAM_ERROR, "an insert into no table: %ld", (long)r);
    r = encoder_says(cap0, sizeof(cap0));
    CHECKF(r == (nghttp3_ssize)sizeof(cap0), "capacity 0 is fine: %ld", (long)r);
}

int main(void)
{
    s.cfg.h2_streams = 16;
    th.s = &s;
    th.rng = 1;
    ep.t = &th;
    ep.qcb.rand = on_rand;
    ep.qcb.get_new_connection_id = on_cid;
    ep.qcb.recv_client_initial = ngtcp2_crypto_recv_client_initial_cb;
    ep.qcb.recv_crypto_data = ngtcp2_crypto_recv_crypto_data_cb;
    ep.qcb.encrypt = ngtcp2_crypto_encrypt_cb;
    ep.qcb.decrypt = ngtcp2_crypto_decrypt_cb;
    ep.qcb.hp_mask = ngtcp2_crypto_hp_mask_cb;
    ep.qcb.update_key = ngtcp2_crypto_update_key_cb;
    ep.qcb.delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb;
    ep.qcb.delete_crypto_cipher_ctx = ngtcp2_crypto_delete_crypto_cipher_ctx_cb;
    ep.qcb.get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb;
    serve_h3_callbacks(&ep.qcb, &ep.hcb);
    T_RUN(settings_offer_no_table);
    T_RUN(encoder_cannot_grow_the_table);
    T_END("serve_h3_qpack");
}

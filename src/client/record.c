/* record.c - every figure a request adds to the results, in one place: the
 * counters of all targets and of its own, its target's histograms (the totals'
 * are summed after join), and the timeline. A new statistic is one edit
 * here. Only requests of the measured window count: those begun in it, and
 * those begun in the warm-up that end in it (carried in, see
 * record_carry_in). */
#include "client.h"
#include "clock.h"
#include "engine_figs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --stages: the stage a request due at t_due belongs to. */
static uint8_t stage_of(const struct worker *w, uint64_t t_due)
{
    const struct ramp *rp = &w->plan->ramp;
    uint64_t rel = t_due > w->plan->t_measure ? t_due - w->plan->t_measure : 0;
    uint32_t k = 0;
    while (k + 1 < rp->n && rel >= rp->t[k + 1])
        k++;
    return (uint8_t)k;
}

/* A request's start, counted: c NULL for one waiting to be sent again
 * (HTTP/2), whose connection is not known. */
static void count_start(struct worker *w, struct conn *c, struct slot *s, uint64_t now)
{
    if (c) {
        /* Fairness: a connection waits from its first outstanding request
         * to its next answer (a reconnect does not end the wait). */
        c->used = 1;
        if (c->t_wait == 0)
            c->t_wait = now;
    }
    if (w->per_stage) {
        s->stage = stage_of(w, s->t_due);
        w->per_stage[s->stage].started++;
    }
    w->st.started++;
    w->per_target[figures_row(s->target)].started++;
    if (rate_mode(w))
        hist_record(&w->per_target[figures_row(s->target)].h[H_LAG], now - s->t_due);
}

/* A warm-up request that the window takes in: begun when it was (its
 * latency and send lag count from its own due and send times, so rate
 * mode's correction holds), counted among the window's requests. */
static void carry(struct worker *w, struct conn *c, struct slot *s)
{
    s->measured = 1;
    w->st.carried_in++;
    w->per_target[figures_row(s->target)].carried_in++;
    count_start(w, c, s, s->t_sent);
}

void record_carry_in(struct worker *w)
{
    uint32_t i, k;
    w->carried = 1;
    for (i = 0; i < w->nconns; i++) {
        struct conn *c = &w->conns[i];
        for (k = 0; c->count && k < c->cap; k++)
            if (c->slots[k].busy && !c->slots[k].measured)
                carry(w, c, &c->slots[k]);
    }
    for (i = 0; i < w->rlen; i++) {
        struct slot *s = &w->retry[(w->rhead + i) % w->rcap];
        if (!s->measured)
            carry(w, NULL, s);
    }
}

void record_start(struct conn *c, struct slot *s, uint64_t now)
{
    if (s->measured)
        count_start(c->w, c, s, now);
    else if (now >= c->w->plan->t_measure)
        carry(c->w, c, s); /* rate mode: due in the warm-up, sent in the window */
}

/* Whether what s does at now counts. A request that ends in the window
 * counts whenever it began; the first such end opens the window for the
 * whole worker (the worker loop may not have yet). Only a warm-up
 * request is unmeasured at or after t_measure (conn.c): one cold branch. */
static int counts(struct worker *w, struct conn *c, struct slot *s, uint64_t now)
{
    if (s->measured)
        return 1;
    if (now < w->plan->t_measure)
        return 0;
    if (!w->carried)
        record_carry_in(w);
    if (!s->measured) /* no longer on its connection's ring (released first) */
        carry(w, c, s);
    return 1;
}

void record_connect(struct worker *w, const struct slot *s, uint64_t now)
{
    if (w->connected < w->nconns && ++w->connected == w->nconns)
        w->t_all_connected = now;
    if (!s->measured) {
        w->st.conns_warmup++; /* opened, but not in the window: said apart */
        w->per_target[figures_row(s->target)].conns_warmup++;
        return;
    }
    w->st.conns_opened++;
    w->per_target[figures_row(s->target)].conns_opened++;
    hist_record(&w->per_target[figures_row(s->target)].h[H_CONNECT], now - s->t_sent);
}

void record_tls(struct worker *w, const struct slot *s, uint64_t ns, int resumed)
{
    struct stats *u = &w->per_target[figures_row(s->target)];
    if (!s->measured)
        return;
    hist_record(&u->h[H_TLS], ns);
    if (resumed) {
        w->st.tls_resumed++;
        u->tls_resumed++;
    } else {
        w->st.tls_full++;
        u->tls_full++;
    }
}

void record_sent(struct worker *w, const struct slot *s, uint64_t bytes)
{
    if (!s->measured)
        return;
    w->st.bytes_sent += bytes;
    w->per_target[figures_row(s->target)].bytes_sent += bytes;
}

void record_received(struct worker *w, const struct slot *s, uint64_t bytes, uint64_t now)
{
    if (now < w->plan->t_measure)
        return;
    w->st.bytes_received += bytes;
    if (s)
        w->per_target[figures_row(s->target)].bytes_received += bytes;
}

void record_frame_bytes(struct worker *w, struct slot *s, uint64_t bytes, uint64_t now)
{
    /* HTTP/2: a stream's frames, for its target; the total is the wire's. */
    s->bytes_in += bytes;
    if (now >= w->plan->t_measure && counts(w, NULL, s, now))
        w->per_target[figures_row(s->target)].bytes_received += bytes;
}

void record_sent_conn(struct worker *w, uint64_t bytes, uint64_t now)
{
    if (now >= w->plan->t_measure)
        w->st.bytes_sent += bytes;
}

void record_quic(struct worker *w, uint64_t sent, uint64_t recv, uint64_t lost, uint64_t now)
{
    if (now < w->plan->t_measure)
        return;
    w->st.quic_sent += sent;
    w->st.quic_recv += recv;
    w->st.quic_lost += lost;
}

void record_quic_early(struct worker *w, int accepted, uint64_t now)
{
    if (now < w->plan->t_measure)
        return;
    if (accepted)
        w->st.quic_early++;
    else
        w->st.quic_early_rejected++;
}

void record_quic_rtt(struct worker *w, uint64_t srtt_ns, uint64_t min_rtt_ns, uint64_t now)
{
    if (now < w->plan->t_measure)
        return;
    w->st.quic_conns++;
    w->st.quic_srtt_sum_ns += srtt_ns;
    if (w->st.quic_min_rtt_ns == 0 || min_rtt_ns < w->st.quic_min_rtt_ns)
        w->st.quic_min_rtt_ns = min_rtt_ns;
}

void record_headers(struct worker *w, int h3, uint64_t wire, uint64_t decoded, uint64_t now)
{
    if (now < w->plan->t_measure)
        return;
    if (h3) {
        w->st.h3_hdr_wire += wire;
        w->st.h3_hdr_decoded += decoded;
    } else {
        w->st.h2_hdr_wire += wire;
        w->st.h2_hdr_decoded += decoded;
    }
}

void record_retry(struct worker *w, const struct slot *s, int h3)
{
    struct stats *t;
    if (!s->measured)
        return;
    t = &w->per_target[figures_row(s->target)];
    if (h3) {
        w->st.h3_retried++;
        t->h3_retried++;
    } else {
        w->st.h2_retried++;
        t->h2_retried++;
    }
}

void record_redirect(struct worker *w, const struct slot *s, int away)
{
    if (!s->measured)
        return;
    if (away) {
        w->st.redirects_away++;
        w->per_target[figures_row(s->target)].redirects_away++;
    } else {
        w->st.redirects++;
        w->per_target[figures_row(s->target)].redirects++;
    }
}

/* --metrics-listen: this worker's counts since its last second, into the
 * plan's live figures (once a second, a lock each). */
static void live_merge(struct worker *w)
{
    struct engine_live *l = w->plan->live;
    uint32_t i;
    pthread_mutex_lock((pthread_mutex_t *)&w->plan->live_mu);
    for (i = 0; i < STATUS_MAX; i++)
        l->status[i] += w->live_status[i];
    for (i = 0; i < ERR__COUNT; i++)
        l->errors[i] += w->live_err[i];
    for (i = 0; i <= ENGINE_LIVE_FIGS; i++)
        l->targets[i] += w->live_targets[i];
    /* The counters with a metric: what this worker counted since. */
    for (i = 0; i < COUNTERS_NROWS; i++)
        if (stats_counters[i].metric) {
            uint64_t v = stats_counter_get(&w->st, &stats_counters[i]);
            l->counters[i] += v - w->live_counted[i];
            w->live_counted[i] = v;
        }
    pthread_mutex_unlock((pthread_mutex_t *)&w->plan->live_mu);
    memset(w->live_status, 0, STATUS_MAX * sizeof(*w->live_status));
    memset(w->live_err, 0, sizeof(w->live_err));
    memset(w->live_targets, 0, sizeof(w->live_targets));
}

/* The tick that ended (or the last, partial one) into its second and the
 * batches: a merge of a few hundred buckets, no more per answer than
 * before. A tick is as long as a batch is now (1/32 s at first, doubling
 * as the run goes on, at most a second, so a tick never spans two batches
 * nor two seconds): a long run merges a few times a second, not 32. */
static void tick_close(struct worker *w)
{
    if (w->tick_req || w->tick_err || w->tick_h.total) {
        struct plan *pl = (struct plan *)w->plan;
        pthread_mutex_lock(&pl->batch_mu);
        batches_add(&pl->batches, w->tick_start - pl->t_measure, &w->tick_h, w->tick_req);
        if (pl->batches.len_ns > w->tick_len)
            w->tick_len = pl->batches.len_ns < NS_PER_S ? pl->batches.len_ns : NS_PER_S;
        pthread_mutex_unlock(&pl->batch_mu);
    }
    if (w->tick_h.total) {
        hist_merge(&w->tl_h, &w->tick_h); /* out of memory: the timeline's second lacks it */
        hist_reset(&w->tick_h);
    }
    w->tl_req += w->tick_req;
    w->tl_err += w->tick_err;
    w->tick_req = w->tick_err = 0;
}

void record_roll(struct worker *w, uint64_t now)
{
    /* The ticks and seconds that ended, empty ones too, so no second waits
     * on an idle thread. One division-free compare on the per-request
     * path. */
    while (now >= w->tick_end) {
        uint64_t k;
        tick_close(w);
        /* The next tick ends on the grid of its length, from the start
         * of the measured phase (a length just doubled: the next multiple). */
        k = (w->tick_end - w->plan->t_measure) / w->tick_len + 1;
        w->tick_start = w->tick_end;
        w->tick_end = w->plan->t_measure + k * w->tick_len;
        if (w->tick_end <= w->tl_end)
            continue;
        if (w->live)
            live_merge(w);
        timeline_close(w->plan->tl, w->tl_sec, w->tl_req, w->tl_err, &w->tl_h);
        hist_reset(&w->tl_h);
        w->tl_req = w->tl_err = 0;
        w->tl_sec++;
        w->tl_end += NS_PER_S;
    }
}

void record_last_second(struct worker *w)
{
    uint32_t i;
    for (i = 0; i < figures_rows(w->plan->ntargets); i++) {
        hist_record_n(&w->per_target[i].h[H_TRANSFER], 0, w->per_target[i].transfer_zero);
        w->per_target[i].transfer_zero = 0;
    }
    if (w->live)
        live_merge(w);
    /* The last, partial tick and second, when this thread saw something in
     * them. */
    tick_close(w);
    if (w->tl_req || w->tl_err)
        timeline_close(w->plan->tl, w->tl_sec, w->tl_req, w->tl_err, &w->tl_h);
}

/* A measured request ended (answered or failed): when, for the run's
 * length and for the stragglers at its end (findings.c). */
static void record_end(struct worker *w, uint64_t now)
{
    hist_record(&w->ends, now > w->plan->t_measure ? now - w->plan->t_measure : 0);
    w->ended++;
    w->t_last = now;
}

void record_response(struct conn *c, struct slot *s, unsigned status, uint64_t t_first,
                     enum close_kind closed, uint64_t now)
{
    struct worker *w = c->w;
    struct stats *u = &w->per_target[figures_row(s->target)];
    /* The kernel's arrival of its last byte (conn_read; never after now),
     * or now without one; kept within [sent, now] so no figure can come
     * out negative. */
    uint64_t t_arr = w->t_arr ? w->t_arr : now;
    c->tcp_answers++;
    if (!counts(w, c, s, now))
        return;
    if (t_arr < s->t_sent)
        t_arr = s->t_sent;
    if (t_first > t_arr)
        t_first = t_arr;
    if (t_first < s->t_sent)
        t_first = s->t_sent;
    if (c->t_wait) {
        uint64_t from = c->t_wait > w->plan->t_measure ? c->t_wait : w->plan->t_measure;
        if (now - from > c->wait_max) {
            c->wait_max = now - from;
            c->wait_end = now;
        }
    }
    /* More outstanding (pipelined, HTTP/2): the next wait begins now. */
    c->t_wait = c->count > 1 ? now : 0;
    if (c->answered++ == 0) {
        c->t_ans_first = now;
        conn_spoke(c);
    }
    c->t_ans_last = now;
    if (status >= STATUS_MAX)
        status = 0;
    w->st.completed++;
    u->completed++;
    if (w->abort && !status_set_has(&w->plan->cfg->expect, status))
        w->live_bad++;
    if (w->verbose && !status_set_has(&w->plan->cfg->expect, status))
        show_status(w, s, status);
    if (w->live) {
        w->live_status[status]++;
        w->live_targets[s->target < ENGINE_LIVE_FIGS ? s->target : ENGINE_LIVE_FIGS]++;
    }
    w->st.status[status]++;
    u->status[status]++;
    if (w->per_stage) {
        struct stats *g = &w->per_stage[s->stage];
        g->completed++;
        g->status[status]++;
        hist_record(&g->h[H_LATENCY], t_arr - s->t_due);
    }
    hist_record(&u->h[H_LATENCY], t_arr - s->t_due);
    hist_record(&u->h[H_LATENCY_USER], now - s->t_due);
    if (w->t_arr) /* user-stamped answers have no delay to tell */
        hist_record(&u->h[H_CLIENT_DELAY], now - t_arr);
    if (rate_mode(w))
        /* A closed loop sends when due: the two are one histogram, copied
         * after join (engine.c) instead of recorded twice. */
        hist_record(&u->h[H_LATENCY_UNC], t_arr - s->t_sent);
    hist_record(&u->h[H_TTFB], t_first - s->t_sent);
    if (t_arr != t_first)
        hist_record(&u->h[H_TRANSFER], t_arr - t_first);
    else
        u->transfer_zero++;
    if (w->logging)
        reqlog_line(w, c, s, status, -1, t_first, t_arr, now);
    if (closed != CLOSE__COUNT) {
        w->st.closes[closed]++;
        u->closes[closed]++;
        w->ka_ended[c->tcp_answers < KA_MAX ? c->tcp_answers : KA_MAX]++;
    }
    record_roll(w, now);
    w->tick_req++;
    hist_record(&w->tick_h, t_arr - s->t_due);
    record_end(w, now);
}

void record_check(struct conn *c, struct slot *s, uint32_t k, int ok, const char *seen, uint64_t now)
{
    struct worker *w = c->w;
    if (!counts(w, c, s, now))
        return;
    if (ok) {
        w->chk_pass[k]++;
        return;
    }
    if (w->chk_fail[k]++ == 0) {
        snprintf(w->chk_seen[k], sizeof(w->chk_seen[k]), "%s", seen);
        w->chk_seen_t[k] = now;
    }
}

void record_checked(struct worker *w, const struct slot *s, int all)
{
    struct stats *u = &w->per_target[figures_row(s->target)];
    if (!s->measured)
        return;
    w->st.checked++;
    u->checked++;
    if (!all) {
        w->st.checks_failed++;
        u->checks_failed++;
    }
}

void record_skip(struct worker *w, uint32_t target, uint32_t v, uint64_t t_due)
{
    if (t_due < w->plan->t_measure)
        return;
    w->st.skipped++;
    w->per_target[figures_row(target)].skipped++;
    w->skipped_var[v]++;
}

static void note_error(struct stats *st, enum err_kind k, int e, const char *detail)
{
    st->errors[k]++;
    if (st->err_errno[k] == 0)
        st->err_errno[k] = e;
    if (st->err_detail[k] == NULL)
        st->err_detail[k] = detail;
}

void record_error(struct conn *c, struct slot *s, enum err_kind k, int e, const char *detail, uint64_t now)
{
    struct worker *w = c->w;
    struct stats *u = &w->per_target[figures_row(s->target)];
    if (!counts(w, c, s, now))
        return;
    /* In rate mode a connection with nothing left outstanding is idle, not
     * waiting; a closed loop tries again at once, its wait going on. */
    if (rate_mode(w) && c->count <= 1)
        c->t_wait = 0;
    note_error(&w->st, k, e, detail);
    note_error(u, k, e, detail);
    if (w->verbose)
        show_error(w, s, k, detail);
    if (w->logging)
        reqlog_line(w, c, s, 0, (int)k, now, now, now);
    if (w->live) {
        w->live_err[k]++;
        w->live_targets[s->target < ENGINE_LIVE_FIGS ? s->target : ENGINE_LIVE_FIGS]++;
    }
    if (w->per_stage)
        note_error(&w->per_stage[s->stage], k, e, detail);
    record_roll(w, now);
    w->tick_err++;
    if (s->unsent) {
        /* Never sent: an error, and no time of the server's. */
        w->st.failed_waiting++;
        u->failed_waiting++;
    } else if (k == ERR_TIMEOUT_ANSWER || k == ERR_TIMEOUT_CONNECT) {
        /* A slow sample is still a sample: drop it and the tail lies. */
        hist_record(&u->h[H_LATENCY], now - s->t_due);
        hist_record(&u->h[H_LATENCY_USER], now - s->t_due);
        if (rate_mode(w))
            hist_record(&u->h[H_LATENCY_UNC], now - s->t_sent);
        hist_record(&w->tick_h, now - s->t_due);
    }
    record_end(w, now);
}

void record_backoff(struct conn *c, uint32_t target, uint64_t now)
{
    struct worker *w = c->w;
    /* Fairness: with no connection it waits for no answer, and a target
     * that is down does not starve it while another answers. */
    c->t_wait = 0;
    if (now < w->plan->t_measure)
        return;
    w->st.reconnects_delayed++;
    if (target != UINT32_MAX)
        w->per_target[figures_row(target)].reconnects_delayed++;
}

void record_idle_close(struct worker *w, enum close_kind k, uint64_t now)
{
    if (w->plan->cfg->keepalive && now >= w->plan->t_measure)
        w->st.closes[k]++;
}

void record_tcpinfo(struct conn *c)
{
    struct worker *w = c->w;
    /* Only connections that were up: a failed connect says nothing of the
     * path. The first TCPINFO_FIRST closes, then one in TCPINFO_EVERY:
     * where every request closes one (--close, a server that closes) the
     * getsockopt stays off most of them. */
    if (c->fd < 0 || c->state != C_OPEN || c->sess->open)
        return; /* (QUIC's socket is UDP: no TCP_INFO) */
    if (w->tcp_closes++ >= TCPINFO_FIRST && w->tcp_closes % TCPINFO_EVERY != 0)
        return;
    tcpinfo_add(&w->tcp, c->fd);
}

static void censor(struct worker *w, uint32_t target, uint8_t stage, uint64_t due, uint64_t sent)
{
    struct censored *e = &w->cens[w->ncens++];
    e->target = target;
    e->stage = stage;
    e->age_due = w->t_stop > due ? w->t_stop - due : 0;
    e->age_sent = sent == UINT64_MAX ? UINT64_MAX : w->t_stop > sent ? w->t_stop - sent : 0;
}

/* Counts (cens NULL) or records the requests that wait at the stop: on
 * their connections, or refused and waiting to be sent again. The due,
 * unsent ones stay in the backlog, where the merge reads them. */
static uint64_t censor_walk(struct worker *w)
{
    uint64_t n = 0;
    uint32_t i, k;
    for (i = 0; i < w->nconns; i++) {
        const struct conn *c = &w->conns[i];
        for (k = 0; c->count && k < c->cap; k++) {
            const struct slot *s = &c->slots[k];
            if (s->busy && s->measured && ++n && w->cens)
                censor(w, s->target, s->stage, s->t_due, s->t_sent);
        }
    }
    for (i = 0; i < w->rlen; i++) {
        const struct slot *s = &w->retry[(w->rhead + i) % w->rcap];
        if (s->measured && ++n && w->cens)
            censor(w, s->target, s->stage, s->t_due, s->t_sent);
    }
    return n;
}

uint8_t record_stage(const struct worker *w, uint64_t t_due)
{
    return w->per_stage ? stage_of(w, t_due) : 0;
}

int record_censor(struct worker *w)
{
    uint64_t n = censor_walk(w);
    uint32_t i;
    for (i = 0; i < w->nconns; i++) {
        /* A wait still going on counts to the stop. */
        struct conn *c = &w->conns[i];
        uint64_t from = c->t_wait > w->plan->t_measure ? c->t_wait : w->plan->t_measure;
        if (c->t_wait && c->used && w->t_stop > from && w->t_stop - from > c->wait_max) {
            c->wait_max = w->t_stop - from;
            c->wait_end = w->t_stop;
        }
    }
    /* At most the connections' slots: out of memory here, they stay
     * counted in flight but not in the histogram. */
    if (n == 0 || n > UINT32_MAX || (w->cens = malloc((size_t)n * sizeof(*w->cens))) == NULL)
        return n == 0 ? 0 : -1;
    censor_walk(w);
    return 0;
}

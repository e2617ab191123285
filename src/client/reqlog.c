/* reqlog.c - --log FILE: a line per ended request, as it ends. Each worker
 * formats its lines into buffers of its own (no lock, no allocation per
 * request) and hands a full one to the writer thread, which alone touches
 * the file. A worker never waits for the disk: when its buffers are all
 * still queued, the lines of the one it fills are dropped and counted. */
#include "client.h"
#include "err.h"
#include "clock.h"
#include "units.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdatomic.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOG_BUF ((size_t)64 << 10)

/* Writes p (n bytes) whole, or returns why not (an errno). A reader that
 * does not read (a pipe, a terminal) is waited for, but only until the
 * run's end gives up on it (abandon): the descriptor never blocks. */
static int write_all(struct reqlog *lg, const char *p, size_t n)
{
    size_t off = 0;
    while (off < n) {
        size_t k = n - off;
        ssize_t r;
        if (atomic_load_explicit(&lg->abandon, memory_order_relaxed))
            return EAGAIN;
        if (lg->how != LOG_FILE) {
            struct pollfd q = { lg->fd, POLLOUT, 0 };
            if (poll(&q, 1, 100) <= 0)
                continue; /* not writable yet (or EINTR): abandon is looked at again */
        }
        /* A blocking descriptor shared with the caller: after POLLOUT, a
         * pipe takes PIPE_BUF bytes without blocking (pipe(7)). */
        if (lg->how == LOG_SHARED && k > PIPE_BUF)
            k = PIPE_BUF;
        r = lg->how == LOG_SOCKET ? send(lg->fd, p + off, k, MSG_DONTWAIT | MSG_NOSIGNAL) : write(lg->fd, p + off, k);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r <= 0)
            return r < 0 ? errno : EIO;
        off += (size_t)r;
    }
    return 0;
}

static void *writer_main(void *arg)
{
    struct reqlog *lg = arg;
    pthread_mutex_lock(&lg->mu);
    for (;;) {
        while (lg->nready == 0 && !lg->closing)
            pthread_cond_wait(&lg->cv, &lg->mu);
        if (lg->nready == 0 && lg->closing)
            break;
        {
            struct logbuf *b = lg->ready[0];
            memmove(lg->ready, lg->ready + 1, (size_t)(lg->nready - 1) * sizeof(*lg->ready));
            lg->nready--;
            pthread_mutex_unlock(&lg->mu);
            /* The write is outside the lock: workers hand buffers meanwhile. */
            if (!lg->failed)
                lg->failed = write_all(lg, b->p, b->len);
            pthread_mutex_lock(&lg->mu);
            if (lg->failed)
                lg->dropped += b->lines;
            else
                lg->written += b->lines;
            b->len = 0;
            b->lines = 0;
            b->busy = 0;
        }
    }
    lg->finished = 1;
    pthread_cond_broadcast(&lg->cv);
    pthread_mutex_unlock(&lg->mu);
    return NULL;
}

/* --log -: standard output, whose open file description is the caller's
 * (its flags are shared with the shell's pipe or terminal, and with the
 * report written after the run): never made non-blocking. A pipe, FIFO or
 * terminal is opened anew through /proc, a description of rafale's own; a
 * socket is sent to with MSG_DONTWAIT; a regular file is written as it is
 * (a disk does not wait for a reader, and its offset is shared with the
 * report's). Without /proc, poll() comes before each write of PIPE_BUF. */
static int open_stdout(struct reqlog *lg)
{
    struct stat st;
    char path[40];
    int fd;
    if (fstat(STDOUT_FILENO, &st) != 0)
        return -1;
    if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) {
        lg->how = LOG_FILE;
        return fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
    }
    if (S_ISSOCK(st.st_mode)) {
        lg->how = LOG_SOCKET;
        return fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
    }
    snprintf(path, sizeof(path), "/proc/self/fd/%d", STDOUT_FILENO);
    if ((fd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) >= 0) {
        lg->how = LOG_OWN;
        return fd;
    }
    lg->how = LOG_SHARED;
    return fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
}

int reqlog_open(struct reqlog *lg, const struct config *cfg, uint32_t nthreads, char *err, size_t errlen)
{
    const char *p = cfg->out[OUT_LOG];
    size_t n = strlen(p);
    memset(lg, 0, sizeof(*lg));
    lg->csv = n > 4 && strcmp(p + n - 4, ".csv") == 0;
    lg->sample = cfg->log_sample ? cfg->log_sample : 1;
    /* O_NONBLOCK: a FIFO nobody reads is refused (ENXIO), not waited for;
     * the description is rafale's own. */
    lg->fd = strcmp(p, "-") == 0 ? open_stdout(lg) : open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0644);
    if (lg->fd < 0) {
        err_set(err, errlen, NULL, "--log: cannot write '%s': %s", p,
                errno == ENXIO ? "a pipe with no reader" : strerror(errno));
        return -1;
    }
    lg->cap = nthreads * REQLOG_BUFS;
    if ((lg->ready = calloc(lg->cap, sizeof(*lg->ready))) == NULL) {
        close(lg->fd);
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    pthread_mutex_init(&lg->mu, NULL);
    pthread_cond_init(&lg->cv, NULL);
    if (pthread_create(&lg->thread, NULL, writer_main, lg) != 0) {
        err_set(err, errlen, NULL, "--log: cannot start its writer thread");
        close(lg->fd);
        free(lg->ready);
        return -1;
    }
    lg->started = 1;
    return 0;
}

void reqlog_header(struct reqlog *lg, double start_unix_s)
{
    char h[400];
    int k = lg->csv ? snprintf(h, sizeof(h), "# rafale request log, start_unix_s=%.6f\n"
                                             "t_us,target,method,status,error,ttfb_us,total_us,user_total_us,bytes_in,bytes_out,conn,"
                                             "thread,shard,due_us\n", start_unix_s)
                    : snprintf(h, sizeof(h), "{\"rafale_log\": 1, \"start_unix_s\": %.6f}\n", start_unix_s);
    lg->failed = write_all(lg, h, (size_t)k);
}

int reqlog_worker_init(struct worker *w)
{
    int i;
    for (i = 0; i < REQLOG_BUFS; i++)
        if ((w->logb[i].p = malloc(LOG_BUF)) == NULL)
            return -1;
    return 0;
}

void reqlog_worker_free(struct worker *w)
{
    int i;
    for (i = 0; i < REQLOG_BUFS; i++)
        free(w->logb[i].p);
}

/* Hands the filling buffer to the writer and takes a free one; with none
 * free, empties it: its lines are dropped, and counted. last: the worker
 * ends, its buffer goes whatever it holds. */
static void hand_over(struct worker *w, int last)
{
    struct reqlog *lg = w->plan->log;
    struct logbuf *b = &w->logb[w->logcur];
    int i, next = -1;
    pthread_mutex_lock(&lg->mu);
    for (i = 1; i < REQLOG_BUFS && !last; i++)
        if (!w->logb[(w->logcur + i) % REQLOG_BUFS].busy) {
            next = (w->logcur + i) % REQLOG_BUFS;
            break;
        }
    if (b->len && (last || next >= 0)) {
        b->busy = 1;
        lg->ready[lg->nready++] = b;
        pthread_cond_signal(&lg->cv);
    } else if (b->len) {
        lg->dropped += b->lines; /* the writer is behind: the worker does not wait */
        b->len = b->lines = 0;
    }
    pthread_mutex_unlock(&lg->mu);
    if (next >= 0)
        w->logcur = next;
}

void reqlog_flush(struct worker *w)
{
    if (w->plan->log)
        hand_over(w, 1);
}


#define LIT(o, s) (memcpy((o), (s), sizeof(s) - 1), sizeof(s) - 1)

/* Microseconds from t0 to t, negative before it: a request begun in the
 * warm-up and ended in the window is logged with the window's. */
static size_t put_since(char *o, uint64_t t, uint64_t t0)
{
    if (t >= t0)
        return units_put_u64(o, (t - t0) / 1000);
    *o = '-';
    return 1 + units_put_u64(o + 1, (t0 - t) / 1000);
}

void reqlog_line(struct worker *w, const struct conn *c, const struct slot *s, unsigned status, int err, uint64_t t_first,
                 uint64_t t_end, uint64_t now)
{
    const struct plan *pl = w->plan;
    struct reqlog *lg = pl->log;
    const struct plan_target *pt = &pl->targets[s->target];
    struct logbuf *b;
    char *o;
    int csv = lg->csv;
    if (lg->sample > 1 && w->logn++ % lg->sample != 0)
        return;
    b = &w->logb[w->logcur];
    if (b->len + pl->log_line_max > LOG_BUF) {
        hand_over(w, 0);
        b = &w->logb[w->logcur];
    }
    o = b->p + b->len;
    /* JSON Lines keys / CSV columns: t_us, target, method, status, error,
     * ttfb_us, total_us (to the kernel's arrival), user_total_us (to
     * rafale's read), bytes_in, bytes_out, conn, thread, shard, due_us. */
    o += csv ? 0 : LIT(o, "{\"t_us\": ");
    o += put_since(o, s->t_sent, pl->t_measure);
    o += csv ? LIT(o, ",") : LIT(o, ", \"target\": ");
    memcpy(o, csv ? pt->log_csv : pt->log_json, csv ? pt->log_csv_len : pt->log_json_len);
    o += csv ? pt->log_csv_len : pt->log_json_len;
    o += csv ? LIT(o, ",") : LIT(o, ", \"method\": \"");
    memcpy(o, pt->log_method, pt->log_method_len);
    o += pt->log_method_len;
    o += csv ? LIT(o, ",") : LIT(o, "\", \"status\": ");
    if (err < 0)
        o += units_put_u64(o, status);
    else
        o += csv ? 0 : LIT(o, "null");
    o += csv ? LIT(o, ",") : LIT(o, ", \"error\": ");
    if (err >= 0) {
        const char *name = stats_err_name((enum err_kind)err);
        size_t n = strlen(name);
        if (!csv)
            *o++ = '"';
        memcpy(o, name, n);
        o += n;
        if (!csv)
            *o++ = '"';
    } else if (!csv) {
        o += LIT(o, "null");
    }
    o += csv ? LIT(o, ",") : LIT(o, ", \"ttfb_us\": ");
    if (err < 0)
        o += units_put_u64(o, (t_first - s->t_sent) / 1000);
    else if (!csv)
        o += LIT(o, "null");
    o += csv ? LIT(o, ",") : LIT(o, ", \"total_us\": ");
    o += units_put_u64(o, (t_end - s->t_due) / 1000);
    o += csv ? LIT(o, ",") : LIT(o, ", \"user_total_us\": ");
    o += units_put_u64(o, (now - s->t_due) / 1000);
    o += csv ? LIT(o, ",") : LIT(o, ", \"bytes_in\": ");
    o += units_put_u64(o, s->bytes_in);
    o += csv ? LIT(o, ",") : LIT(o, ", \"bytes_out\": ");
    o += units_put_u64(o, s->req_len);
    o += csv ? LIT(o, ",") : LIT(o, ", \"conn\": ");
    o += units_put_u64(o, c ? c->number : 0);
    o += csv ? LIT(o, ",") : LIT(o, ", \"thread\": ");
    o += units_put_u64(o, w->id);
    o += csv ? LIT(o, ",") : LIT(o, ", \"shard\": ");
    o += units_put_u64(o, pl->cfg->shard_index);
    o += csv ? LIT(o, ",") : LIT(o, ", \"due_us\": ");
    if (rate_mode(w))
        o += put_since(o, s->t_due, pl->t_measure);
    else if (!csv)
        o += LIT(o, "null");
    o += csv ? LIT(o, "\n") : LIT(o, "}\n");
    b->len = (size_t)(o - b->p);
    b->lines++;
}

void reqlog_close(struct reqlog *lg, uint64_t *written, uint64_t *dropped, int *failed)
{
    if (!lg->started)
        return;
    pthread_mutex_lock(&lg->mu);
    lg->closing = 1;
    pthread_cond_signal(&lg->cv);
    {
        /* What is queued gets 2 s to be written; then the writer gives up
         * on a reader that does not read, and the rest counts as dropped. */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 2;
        while (!lg->finished && pthread_cond_timedwait(&lg->cv, &lg->mu, &until) == 0)
            ;
        if (!lg->finished)
            atomic_store(&lg->abandon, 1);
    }
    pthread_mutex_unlock(&lg->mu);
    pthread_join(lg->thread, NULL);
    close(lg->fd);
    *written = lg->written;
    *dropped = lg->dropped;
    *failed = lg->failed;
    free(lg->ready);
    pthread_mutex_destroy(&lg->mu);
    pthread_cond_destroy(&lg->cv);
    lg->started = 0;
}

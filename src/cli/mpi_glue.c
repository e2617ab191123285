/* mpi_glue.c - see mpi_glue.h. Compiled only into rafale-mpi. */
#ifdef RAFALE_MPI
#include "mpi_glue.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shard.h"

enum { TAG_PROGRESS = 1 };

/* A rank's progress on the wire: plain doubles, no struct layout to agree on. */
enum { P_ELAPSED, P_COMPLETED, P_ERRORS, P_OPEN, P_P50, P_P99, P_DONE, P__N };

int mpig_begin(int *argc, char ***argv, struct mpig *m)
{
    int provided;
    memset(m, 0, sizeof(*m));
    /* Only the main thread calls MPI; the workers never do. */
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "rafale-mpi: MPI_Init failed\n");
        return -1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->size);
    if (m->rank == 0) {
        m->last = calloc((size_t)m->size, sizeof(*m->last));
        m->done = calloc((size_t)m->size, sizeof(*m->done));
        if (m->last == NULL || m->done == NULL) {
            fprintf(stderr, "rafale-mpi: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    return 0;
}

struct status {
    int ok;
    char host[64];
    char why[384];
};

int mpig_ready(struct mpig *m, int ok, const char *why, double *start_at)
{
    struct status me, *all = NULL;
    int i, bad = 0;
    double t = *start_at;

    memset(&me, 0, sizeof(me));
    me.ok = ok;
    if (gethostname(me.host, sizeof(me.host) - 1) != 0)
        strcpy(me.host, "?");
    snprintf(me.why, sizeof(me.why), "%s", why ? why : "");
    all = malloc((size_t)m->size * sizeof(*all));
    if (all == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, MPI_COMM_WORLD);
    for (i = 0; i < m->size; i++) {
        int j, same = 0, seen = 0;
        if (all[i].ok)
            continue;
        bad++;
        /* One line per distinct reason, with every rank that gave it. */
        for (j = 0; j < i; j++)
            seen |= !all[j].ok && strcmp(all[j].why, all[i].why) == 0;
        for (j = i + 1; j < m->size; j++)
            same += !all[j].ok && strcmp(all[j].why, all[i].why) == 0;
        if (m->rank != 0 || seen)
            continue;
        if (same == 0) {
            fprintf(stderr, "rafale-mpi: rank %d (%s) cannot run: %s\n", i, all[i].host, all[i].why);
        } else {
            fprintf(stderr, "rafale-mpi: ranks %d", i);
            for (j = i + 1; j < m->size; j++)
                if (!all[j].ok && strcmp(all[j].why, all[i].why) == 0)
                    fprintf(stderr, ", %d", j);
            fprintf(stderr, " cannot run: %s\n", all[i].why);
        }
    }
    free(all);
    if (bad) {
        if (m->rank == 0)
            fprintf(stderr, "rafale-mpi: %d of %d ranks cannot run; nothing was sent\n", bad, m->size);
        return -1;
    }
    /* Everyone is ready. Without --start-at, every rank begins 0.2 s after
     * the word from rank 0, on its own clock: the hosts' clocks need not
     * agree (a given --start-at is wall-clock time, and they must). */
    MPI_Barrier(MPI_COMM_WORLD);
    if (m->rank == 0 && !(t > 0))
        t = -0.2;
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (t < 0)
        t = shard_now() - t;
    *start_at = t;
    return 0;
}

/* Rank 0: takes every progress message that has come. */
static void drain(struct mpig *m)
{
    for (;;) {
        int flag = 0;
        double v[P__N];
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_PROGRESS, MPI_COMM_WORLD, &flag, &st);
        if (!flag)
            return;
        MPI_Recv(v, P__N, MPI_DOUBLE, st.MPI_SOURCE, TAG_PROGRESS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        m->last[st.MPI_SOURCE].elapsed_s = v[P_ELAPSED];
        m->last[st.MPI_SOURCE].completed = (uint64_t)v[P_COMPLETED];
        m->last[st.MPI_SOURCE].errors = (uint64_t)v[P_ERRORS];
        m->last[st.MPI_SOURCE].open = (uint32_t)v[P_OPEN];
        m->last[st.MPI_SOURCE].p50_ns = v[P_P50];
        m->last[st.MPI_SOURCE].p99_ns = v[P_P99];
        if (v[P_DONE] != 0)
            m->done[st.MPI_SOURCE] = 1;
    }
}

static void send_progress(const struct engine_progress *p, int done)
{
    double v[P__N] = { p->elapsed_s, (double)p->completed, (double)p->errors, (double)p->open, p->p50_ns, p->p99_ns,
                       (double)done };
    MPI_Send(v, P__N, MPI_DOUBLE, 0, TAG_PROGRESS, MPI_COMM_WORLD);
}

void mpig_progress(const struct engine_progress *p, void *arg)
{
    struct mpig *m = arg;
    struct engine_progress sum;
    int i;

    if (m->rank != 0) {
        if (m->ticks++ % 4 == 0) /* about once a second */
            send_progress(p, 0);
        return;
    }
    drain(m);
    m->last[0] = *p;
    sum = *p;
    sum.completed = sum.errors = 0;
    sum.open = 0;
    sum.p50_ns = sum.p90_ns = sum.p99_ns = -1; /* not known until a rank knows it (a rank not heard from has 0) */
    for (i = 0; i < m->size; i++) {
        sum.completed += m->last[i].completed;
        sum.errors += m->last[i].errors;
        sum.open += m->last[i].open;
        if (m->last[i].p50_ns > 0 && m->last[i].p50_ns > sum.p50_ns)
            sum.p50_ns = m->last[i].p50_ns;
        if (m->last[i].p99_ns > 0 && m->last[i].p99_ns > sum.p99_ns)
            sum.p99_ns = m->last[i].p99_ns;
    }
    if (m->prog)
        progress_update(&sum, m->prog);
}

int mpig_gather(struct mpig *m, const char *json, size_t len, const char *why, char ***jsons, size_t **lens,
                char ***whys)
{
    /* A failed rank sends its reason, as a negative length. */
    long long mine = json ? (long long)len : -(long long)strlen(why ? why : "") - 1;
    long long *all = NULL;
    int *counts = NULL, *displs = NULL, i;
    char *buf = NULL;
    long long total = 0;
    struct engine_progress none;

    *jsons = NULL;
    *lens = NULL;
    *whys = NULL;
    /* Every progress message is taken before the results: the last one of
     * each rank says it is done, and MPI keeps a pair's messages in order. */
    memset(&none, 0, sizeof(none));
    if (m->rank != 0) {
        send_progress(&none, 1);
    } else {
        int left;
        m->done[0] = 1;
        do {
            drain(m);
            for (left = 0, i = 0; i < m->size; i++)
                left += !m->done[i];
        } while (left);
    }
    if (m->rank == 0) {
        all = calloc((size_t)m->size, sizeof(*all));
        counts = calloc((size_t)m->size, sizeof(*counts));
        displs = calloc((size_t)m->size, sizeof(*displs));
        if (all == NULL || counts == NULL || displs == NULL)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gather(&mine, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (m->rank == 0) {
        for (i = 0; i < m->size; i++) {
            long long n = all[i] >= 0 ? all[i] : -all[i] - 1;
            if (total + n > 0x7fffffff) {
                fprintf(stderr, "rafale-mpi: the results are over 2 GiB together\n");
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            counts[i] = (int)n;
            displs[i] = (int)total;
            total += n;
        }
        if ((buf = malloc((size_t)total + 1)) == NULL)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gatherv(json ? json : (why ? why : ""), (int)(mine >= 0 ? mine : -mine - 1), MPI_BYTE, buf, counts, displs,
                MPI_BYTE, 0, MPI_COMM_WORLD);
    if (m->rank == 0) {
        *jsons = calloc((size_t)m->size, sizeof(char *));
        *lens = calloc((size_t)m->size, sizeof(size_t));
        *whys = calloc((size_t)m->size, sizeof(char *));
        if (*jsons == NULL || *lens == NULL || *whys == NULL)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (i = 0; i < m->size; i++) {
            char *s = malloc((size_t)counts[i] + 1);
            if (s == NULL)
                MPI_Abort(MPI_COMM_WORLD, 1);
            memcpy(s, buf + displs[i], (size_t)counts[i]);
            s[counts[i]] = '\0';
            if (all[i] >= 0) {
                (*jsons)[i] = s;
                (*lens)[i] = (size_t)counts[i];
            } else {
                (*whys)[i] = s;
            }
        }
    }
    free(buf);
    free(all);
    free(counts);
    free(displs);
    return 0;
}

void mpig_end(struct mpig *m)
{
    free(m->last);
    free(m->done);
    MPI_Finalize();
}
#else
/* The plain rafale: no MPI. (ISO C wants a declaration in every file.) */
typedef int mpi_glue_unused;
#endif

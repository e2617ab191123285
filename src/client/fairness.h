/* fairness.h - what a run's connections each got: their share of the
 * answers, the starved ones, how the server ended keep-alive connections
 * (computed by fairness.c after join, part of every engine_result). */
#ifndef RAFALE_FAIRNESS_H
#define RAFALE_FAIRNESS_H

#include <stdint.h>

/* Fairness over the -c connections (each kept across its reconnects), and
 * how the server ended keep-alive connections. */
struct fairness_conns {
    uint32_t clients;           /* connections that started a measured request */
    uint64_t req_min, req_median, req_max; /* answers each got */
    uint32_t starved;           /* waited wait_limit_s or more for an answer while another was answered */
    double starved_wait_s;      /* the longest wait of a starved one */
    double longest_wait_s;      /* the longest any connection waited for an answer */
    double wait_limit_s;        /* max(1 s, 10 x p99 of the answers), 0 when nothing was answered */
    /* TCP connections the server ended right after a response (keep-alive),
     * and the most common number of answers such a connection had carried. */
    uint64_t server_ended;
    uint64_t ended_mode, ended_mode_count;
};

#endif

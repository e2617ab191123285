/* findings_rules.h - the table of the findings' rules, as counters.h is
 * for the counters: a row each, and from the rows the rules' ids (enum
 * finding_id, which code names them by), their JSON ids, FINDINGS_MAX (a
 * run finds each rule once at most, so none can be dropped), the order
 * findings_eval runs them in and which finding silences which.
 *
 * Adding a rule is a row here and its function (findings.c, or
 * findings_server.c for the server's), which adds its finding with add()
 * when its figures pass its thresholds (findings_int.h).
 *
 * FINDINGS_RULES(X) lists, in the order the rules run (and, warnings
 * first, the order their findings are shown):
 *
 *   X(id, json, severity, fn, silences)
 *     id        FINDING_<id>, its enum finding_id
 *     json      its id in the result JSON and the reports (a contract:
 *               add ids, never rename one)
 *     severity  WARNING (the figures mislead without it) or INFO
 *     fn        the function that evaluates it: void fn(struct ctx *)
 *     silences  the rules, later in the order, that do not run once it
 *               found something (FINDING_BIT(id) | ..., or 0): it is the
 *               cause of their figures, or says them already
 *
 * Nothing but the table and its enum here: it includes nothing. */
#ifndef RAFALE_FINDINGS_RULES_H
#define RAFALE_FINDINGS_RULES_H

#define FINDING_BIT(id) (1u << FINDING_##id)

/* A wait for an answer is explained by any finding before server_waiting:
 * a queue (the accept queue's or the server's), lost SYNs, starved
 * connections, Nagle, a CPU limit. */
#define FINDINGS_RULES(X)                                                                                            \
    /* The kernel dropped connects for a full accept queue: the SYN retries are its. */                              \
    X(LISTEN_QUEUE_OVERFLOW, "listen_queue_overflow", WARNING, listen_overflow,                                      \
      FINDING_BIT(SYN_RETRANSMITS) | FINDING_BIT(SERVER_WAITING))                                                    \
    X(SYN_RETRANSMITS, "syn_retransmits", WARNING, syn_retransmits, FINDING_BIT(SERVER_WAITING))                     \
    X(STARVED_CONNECTIONS, "starved_connections", WARNING, starved, FINDING_BIT(SERVER_WAITING))                     \
    /* The delayed ACK is the wait, not a queue. */                                                                  \
    X(NAGLE_DELAYED_ACK, "nagle_delayed_ack", WARNING, nagle, FINDING_BIT(QUEUEING) | FINDING_BIT(SERVER_WAITING))   \
    X(QUEUEING, "queueing", WARNING, queueing, FINDING_BIT(SERVER_WAITING))                                          \
    /* Its summary cites rafale's own late reads. */                                                                 \
    X(CLIENT_CPU_BOUND, "client_cpu_bound", WARNING, client_cpu,                                                     \
      FINDING_BIT(SERVER_WAITING) | FINDING_BIT(CLIENT_DELAY))                                                       \
    X(SERVER_CPU_BOUND, "server_cpu_bound", INFO, findings_server_cpu_bound, FINDING_BIT(SERVER_WAITING))            \
    X(SERVER_WAITING, "server_waiting", WARNING, findings_server_waiting, 0)                                         \
    X(SERVER_WRITES, "server_writes", INFO, findings_server_writes, 0)                                               \
    X(SERVER_SCALING, "server_scaling", WARNING, findings_server_scaling, 0)                                         \
    /* INFO when fewer than 1% of the requests paid a new connection. */                                             \
    X(KEEPALIVE_LIMIT, "keepalive_limit", WARNING, keepalive_limit, 0)                                               \
    X(PORTS_EXHAUSTED, "ports_exhausted", WARNING, ports_exhausted, 0)                                               \
    X(FD_LIMIT, "fd_limit", WARNING, fd_limit, 0)                                                                    \
    X(PACKET_LOSS, "packet_loss", WARNING, packet_loss, 0)                                                           \
    /* A -n run's tail or a storm of timeouts moves the last seconds: they say why. */                               \
    X(STRAGGLERS, "stragglers", WARNING, stragglers, FINDING_BIT(NOT_STEADY))                                        \
    X(TIMEOUT_STORM, "timeout_storm", WARNING, timeout_storm, FINDING_BIT(NOT_STEADY))                               \
    /* Other processes are the cause of rafale's late reads, and of figures                                          \
     * that move with their work: it tells them. */                                                                  \
    X(NOISY_NEIGHBOUR, "noisy_neighbour", WARNING, noisy_neighbour,                                                  \
      FINDING_BIT(CLIENT_DELAY) | FINDING_BIT(NOT_STEADY))                                                           \
    /* After server_scaling, which it names as the cause when it found a pool growing. */                            \
    X(NOT_STEADY, "not_steady", WARNING, findings_not_steady, 0)                                                     \
    /* Last: after the server's rules, which a finding before them would                                             \
     * silence; rafale's own late reads say nothing of the server. */                                                \
    X(CLIENT_DELAY, "client_delay", WARNING, client_delay, 0)

enum finding_id {
#define FINDINGS_RULE_ENUM(id, json, severity, fn, silences) FINDING_##id,
    FINDINGS_RULES(FINDINGS_RULE_ENUM)
#undef FINDINGS_RULE_ENUM
    FINDING_COUNT
};

#endif

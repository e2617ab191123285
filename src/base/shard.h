/* shard.h - one process's part of a run spread over several (--shard I/N):
 * where the rank comes from, the exact split of -c, -n and -R, and the
 * wall-clock start (--start-at). The merge of the shards' results is
 * merge.c's. */
#ifndef RAFALE_SHARD_H
#define RAFALE_SHARD_H

#include <stddef.h>
#include <stdint.h>

struct config;

/* Parses "I/N" (0 <= I < N <= 100000) or "auto" (from the environment of
 * MPI, Slurm or a Kubernetes Indexed Job; *from names the variable).
 * Returns 0, or -1 when v is neither. */
int shard_parse(const char *v, uint32_t *index, uint32_t *count, const char **from);

/* "1764583200", "1764583200.5" or "2026-12-01T10:00:00Z" (ISO 8601, UTC,
 * optional fraction): Unix seconds, or -1. */
double shard_parse_time(const char *v);

/* Shard i's share of total over n shards: the remainder goes to the first
 * shards, so the shares add up to total exactly. */
uint64_t shard_share(uint64_t total, uint32_t i, uint32_t n);

/* cfg with this shard's share of -c, -n, -R, --max-connections and the
 * stage values in out (a shallow copy: it borrows cfg's arrays, and must
 * not be freed). Without --shard, out is cfg unchanged. Returns 0, or -1
 * with the reason in err (a shard left without a connection). */
int shard_apply(const struct config *cfg, struct config *out, char *err, size_t errlen);

/* The wall clock, Unix seconds. */
double shard_now(void);

#endif

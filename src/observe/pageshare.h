/* pageshare.h - a server's memory as if it ran alone: every physical page
 * its processes map, each divided among those of its processes that map it
 * (never among other programs'), from /proc/PID/pagemap's frame numbers.
 * The kernel's PSS divides a shared page among every process of the
 * machine, so a server's PSS falls when another server of the same
 * interpreter starts beside it; this share does not. Frame numbers need
 * CAP_SYS_ADMIN (root): without it they read as 0 and nothing is counted.
 * Private to src/observe/. */
#ifndef RAFALE_PAGESHARE_H
#define RAFALE_PAGESHARE_H

#include <stddef.h>
#include <stdint.h>

/* Counts the resident pages of n processes (pids) and gives each its share
 * in bytes (share[i]: a page mapped by k of them adds page_size / k to each
 * of the k), summing to the bytes of the distinct pages of them all.
 * Returns 0; -1 with a reason in err when the frame numbers are not
 * readable (not root) or the processes map more than the walk will read
 * (64 GiB of address space in all: a sample would take seconds). A process
 * gone meanwhile has a share of 0. */
int pageshare_measure(const int *pids, uint32_t n, uint64_t *share, char *err, size_t errlen);

#endif

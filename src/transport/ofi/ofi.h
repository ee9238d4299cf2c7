/* ofi.h - the libfabric transport: how a PE reaches peers whose segments it has not mapped (other nodes, or every
 * peer under SHMEM_TRANSPORT=ofi). src/comm/rma.c calls these when shmemi_xlate finds no mapping; they take the
 * segment and the offset already resolved and checked there.
 *
 * Design (see docs/transport.md): one reliable-datagram endpoint (every context uses it; FI_THREAD_SAFE), one
 * completion counter per endpoint
 * counting every operation it posted, so quiet is "counter == posted"; every segment registered once, keys and base
 * addresses exchanged through the bootstrap; inject for small puts and non-fetching atomics; transfers cut at the
 * provider's maximum message size; a progress thread asleep in poll() on the completion queue's wait descriptor. */
#ifndef GSHMEM_OFI_H
#define GSHMEM_OFI_H

#include <stddef.h>
#include <stdint.h>

#include "state.h"

/* 1 once the transport is up: some peer is reached through libfabric */
SHMEMI_HIDDEN extern int shmemi_ofi_up;

/* The transport's start, in two steps, each 0 or -1 with a message in err. open: this PE alone picks the provider
 * (SHMEM_OFI_PROVIDER, SHMEM_OFI_DOMAIN), opens it and registers every segment (user segments and the control
 * block); no bootstrap call, so every PE reaches its end, failed or not, and shmem_init can say a failure every PE
 * shares once. connect: takes in every PE's addresses and keys (collective over all PEs). */
SHMEMI_HIDDEN int shmemi_ofi_open(char *err, size_t errlen);
SHMEMI_HIDDEN int shmemi_ofi_connect(const void *cards, size_t stride, char *err, size_t errlen);
/* This PE's card (address, keys and bases of its registered segments: card_bytes of it) once open succeeded, for
 * shmem_init to carry in an exchange of its own; connect then takes every PE's (stride bytes apart, rank order), or
 * NULL to exchange them itself. */
SHMEMI_HIDDEN size_t shmemi_ofi_card_bytes(void);
SHMEMI_HIDDEN void shmemi_ofi_card(void *out);
/* Completes everything, stops the progress thread, closes the provider (collective: every PE calls it). */
SHMEMI_HIDDEN void shmemi_ofi_fini(void);
/* Removes the /dev/shm regions the provider keeps this PE's endpoints in (libfabric's shm provider), on the way out of
 * a job that ends without closing them (shmem_global_exit, a fatal error). Async-signal-safe. */
SHMEMI_HIDDEN void shmemi_ofi_regions_unlink(void);
/* Which provider and domain the transport runs on, for shmem_info ("tcp;ofi_rxm on lo"), or NULL when down. */
SHMEMI_HIDDEN const char *shmemi_ofi_describe(void);

/* Operations. seg is a user segment or &shmemi_rt.internal; off is checked against its size by the caller. A NULL
 * ctx means the default context. Blocking forms return with the source reusable (put) or the data there (get). */
SHMEMI_HIDDEN void shmemi_ofi_put(shmem_ctx_t ctx, struct shmemi_seg *s, size_t off, const void *src, size_t len,
                                  int pe, int nbi);
SHMEMI_HIDDEN void shmemi_ofi_get(shmem_ctx_t ctx, struct shmemi_seg *s, size_t off, void *dst, size_t len, int pe,
                                  int nbi);
SHMEMI_HIDDEN uint64_t shmemi_ofi_amo(shmem_ctx_t ctx, int op, struct shmemi_seg *s, size_t off, uint64_t value,
                                      uint64_t cond, size_t size, int pe);
/* the data before the signal, as put-with-signal requires */
SHMEMI_HIDDEN void shmemi_ofi_put_signal(shmem_ctx_t ctx, struct shmemi_seg *ds, size_t doff, const void *src,
                                         size_t len, struct shmemi_seg *ss, size_t soff, uint64_t signal, int sig_op,
                                         int pe);
/* Collectives: a put on endpoint 0, then a signal (add 1 to the control-block word at `off`) that the receiver
 * waits for; delivery is learned from the signal, so neither is left for the next quiet to flush. The put's source
 * must stay untouched until shmemi_ofi_coll_done returns. */
SHMEMI_HIDDEN void shmemi_ofi_coll_put(struct shmemi_seg *s, size_t off, const void *src, size_t len, int pe);
SHMEMI_HIDDEN void shmemi_ofi_coll_done(void);
SHMEMI_HIDDEN void shmemi_ofi_coll_signal(size_t off, int pe);
/* Both at once: len bytes into seg at off, then the signal at control-block offset sig (one message where the
 * provider carries atomics as messages and the data is small) */
SHMEMI_HIDDEN void shmemi_ofi_coll_put_signal(struct shmemi_seg *s, size_t off, const void *src, size_t len, size_t sig,
                                              int pe);
SHMEMI_HIDDEN void shmemi_ofi_quiet(shmem_ctx_t ctx);
SHMEMI_HIDDEN void shmemi_ofi_fence(shmem_ctx_t ctx);
/* every endpoint (barriers, finalize) */
SHMEMI_HIDDEN void shmemi_ofi_quiet_all(void);
/* Drives the provider once (waiters call it while they spin, so data lands without a thread switch); returns the
 * completions taken, atomic messages from peers included, or 1 when the call took long enough to have served a
 * peer's read (which leaves no completion); 0 when it found nothing to do. */
SHMEMI_HIDDEN int shmemi_ofi_progress(void);
/* Whether atomics to remote PEs are the provider's (then a CPU atomic on a word they may touch is not atomic with
 * them, and every atomic goes through the fabric), or messages the target applies with CPU atomics. */
SHMEMI_HIDDEN int shmemi_ofi_fabric_atomics(void);
/* Whether peers reach this PE's GPU segment s (and this PE theirs) over the network: every PE registered it. */
SHMEMI_HIDDEN int shmemi_ofi_gpu_reachable(const struct shmemi_seg *s);
/* A thread starts (SHMEMI_DRIVE_START) or stops driving the provider in a loop; the progress thread stands down
 * meanwhile. SHMEMI_DRIVE_STOP: the thread goes back to the program and may well be back at once (the next blocking
 * call), so the progress thread takes over only if nobody drove for a while. SHMEMI_DRIVE_HANDOFF: the thread goes
 * to sleep and needs the progress thread to serve the provider (and ring it) from now on. */
enum { SHMEMI_DRIVE_STOP, SHMEMI_DRIVE_START, SHMEMI_DRIVE_HANDOFF };
SHMEMI_HIDDEN void shmemi_ofi_driving(int how);

/* Probes (comm/liveness.c: do PEs of other nodes still answer?): a read of len bytes (at most 64) at offset off of pe's
 * control block that no one waits for, one per peer at a time. post: tries to post it once, never waiting (returns 1
 * when it tried, 0 when one is in flight already); a refused try is tried again by the next post. poll: 1 with the
 * answer in out (the peer's slot is then free for the next post), 0 while the read is in flight or refused, -1 when
 * none was asked for; *since: the first try (CLOCK_MONOTONIC ns). One thread at a time. */
SHMEMI_HIDDEN int shmemi_ofi_probe_post(int pe, size_t off, size_t len);
SHMEMI_HIDDEN int shmemi_ofi_probe_poll(int pe, void *out, size_t len, uint64_t *since);
/* Seconds without progress on the network before a PE ends the job (SHMEM_OFI_STALL_TIMEOUT as resolved; 0: never) */
SHMEMI_HIDDEN int shmemi_ofi_stall_limit(void);
/* pe's network address as the provider writes it (tcp: fi_sockaddr_in://10.0.0.2:41234), for messages */
SHMEMI_HIDDEN const char *shmemi_ofi_peer_addr(int pe, char *buf, size_t len);

/* Contexts: the endpoint a new context uses (today endpoint 0 for all), and its release. */
SHMEMI_HIDDEN void shmemi_ofi_ctx_create(struct gshmem_ctx *c);
SHMEMI_HIDDEN void shmemi_ofi_ctx_destroy(struct gshmem_ctx *c);

#endif

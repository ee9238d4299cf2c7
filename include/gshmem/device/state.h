/* state.h - what the host library tells kernels (the device state) and the request ring kernels hand work to the host
 * proxy through. Plain C, the same layout for the library (src/device, src/proxy) and for the device headers, which
 * nvcc, hipcc and the CPU emulation compile. Every pointer here is one the device may use (device memory, or host
 * memory mapped for it). */
#ifndef GSHMEM_DEVICE_STATE_H
#define GSHMEM_DEVICE_STATE_H

#include <stddef.h>
#include <stdint.h>

#define SHMEMGI_DSTATE_MAGIC 0x6773686dU /* set once SHMEM_DEVICE_KERNEL_INIT was provided */
#define SHMEMGI_DSTATE_VERSION 2
#define SHMEMGI_MAX_DSEGS 17   /* the GPU heap and KIND=DEVICE partitions */
#define SHMEMGI_MAX_DTEAMS 64  /* device teams alive at once (the predefined two included) */
#define SHMEMGI_MAX_DCTX 64    /* device contexts alive at once (the default included) */
#define SHMEMGI_SYNC_ROUNDS 32 /* dissemination rounds of a device barrier: teams of up to 2^32 PEs */
#define SHMEMGI_RING_SLOTS 1024

/* A segment of GPU memory every PE has: where this PE's copy starts, and each PE's copy as this PE reaches it by loads
 * and stores (0: not mapped, the proxy carries the operation) */
struct shmemgi_dseg {
    uint64_t base, size;
    const uint64_t *peer; /* [n_pes] */
};

/* A device team: world PE of member i is start + i * stride, or pes[i] */
struct shmemgi_dteam {
    uint64_t handle; /* the shmem_team_t value the host gave out (0: free entry) */
    int32_t start, stride, size, my_pe;
    const int32_t *pes;
    int32_t index; /* its row of counters in the sync area */
    int32_t pad;
    /* the team's own scratch for the shmemgx collectives (device memory, 2 * coll_half bytes, this PE's only):
     * a partial result, and a peer's piece fetched through the proxy; one per team, so reductions on two teams may
     * run at once (two streams, two blocks) */
    char *scratch;
};

/* A device context: its team, and how many operations it handed the proxy */
struct shmemgi_dctx {
    uint64_t handle; /* the shmem_ctx_t value (0: free entry; ~value: destroyed, its misuse then said as such) */
    int32_t team;    /* index in the team table */
    int32_t index;
};

/* What a kernel reports before it stops: the host (the proxy's thread) prints it and ends the job */
struct shmemgi_derror {
    uint32_t flag; /* 0 until a report is complete */
    int32_t pe;
    uint64_t addr, len;
    uint32_t what; /* enum shmemgi_err */
    char fn[52];
};
enum shmemgi_err {
    SHMEMGI_ERR_NOT_INIT = 1, /* no SHMEM_DEVICE_KERNEL_INIT */
    SHMEMGI_ERR_PE,           /* PE out of range */
    SHMEMGI_ERR_ADDR,         /* address outside the GPU symmetric heap */
    SHMEMGI_ERR_TEAM,         /* not a device team */
    SHMEMGI_ERR_CTX,          /* not a device context */
    SHMEMGI_ERR_ALIGN,        /* an atomic on a misaligned object */
    SHMEMGI_ERR_CMP,          /* comparison operator */
    SHMEMGI_ERR_SIGOP,        /* signal operation */
    SHMEMGI_ERR_CTX_GONE,     /* a device context destroyed while a kernel used it */
};

/* A request to the proxy, 128 bytes. Slot s of the ring holds ticket t when seq == t + 1 (filled); it is free for
 * ticket t when seq == t (the proxy, or the requester of a blocking operation, moves seq on by SHMEMGI_RING_SLOTS). */
struct shmemgi_req {
    uint64_t seq;
    uint32_t op;   /* enum shmemgi_op */
    uint32_t size; /* atomic operand size, 4 or 8 */
    int32_t pe;    /* world PE */
    int32_t ctx;   /* device context index */
    uint32_t amo;  /* enum shmemgi_amo (AMO), or the signal operation (PUT_SIGNAL) */
    uint32_t wait; /* the requester waits for done, then frees the slot itself */
    uint64_t dst, src, len;
    uint64_t value, cond; /* AMO operands; a p's data (cond: its second 8 bytes) */
    uint64_t sig;
    uint64_t result[2]; /* the fetched value of a blocking atomic or g, written by the proxy */
    uint32_t done;      /* the proxy finished (blocking requests) */
    uint32_t pad0;
    uint64_t pad[3];
};
enum shmemgi_op {
    SHMEMGI_OP_PUT = 1, /* blocking when wait */
    SHMEMGI_OP_GET,     /* blocking when wait */
    SHMEMGI_OP_AMO,     /* fetching ones wait; value, cond; dst on pe; nbi fetching: result stored at src */
    SHMEMGI_OP_PUT_SIGNAL,
    SHMEMGI_OP_FENCE,
    SHMEMGI_OP_QUIET,
};
/* the OpenSHMEM atomic operations, numbered as the library numbers them (src/core/shmemi.h checks it) */
enum shmemgi_amo {
    SHMEMGI_AMO_FETCH,
    SHMEMGI_AMO_SET,
    SHMEMGI_AMO_SWAP,
    SHMEMGI_AMO_CSWAP,
    SHMEMGI_AMO_FETCH_INC,
    SHMEMGI_AMO_INC,
    SHMEMGI_AMO_FETCH_ADD,
    SHMEMGI_AMO_ADD,
    SHMEMGI_AMO_FETCH_AND,
    SHMEMGI_AMO_AND,
    SHMEMGI_AMO_FETCH_OR,
    SHMEMGI_AMO_OR,
    SHMEMGI_AMO_FETCH_XOR,
    SHMEMGI_AMO_XOR
};

/* Host memory the device writes requests into and the proxy answers in */
struct shmemgi_ring {
    uint32_t doorbell; /* the emulation rings it (a futex) so an idle proxy wakes at once */
    uint32_t pad1[15];
    struct shmemgi_req slot[SHMEMGI_RING_SLOTS];
};

struct shmemgi_dstate {
    uint32_t magic, version;
    int32_t my_pe, n_pes;
    int32_t nsegs;
    int32_t fence_quiet; /* a fence completes the proxy's requests: an operation after it may reach the same PE by the
                            direct path (copy cutover, SHMEM_DEVICE_PROXY_ALL: data through the proxy, atomics not) */
    int32_t proxy_all;   /* puts and gets go through the proxy even to mapped peers (SHMEM_DEVICE_PROXY_ALL, for
                            testing); atomics to them never do (the host would need a kernel, so a free SM) */
    int32_t pad0;
    uint64_t copy_cutover; /* puts and gets of at least this many bytes to mapped peers go to the proxy (0: never) */
    struct shmemgi_dseg seg[SHMEMGI_MAX_DSEGS];
    uint64_t team_world, team_shared, ctx_default; /* the handles of SHMEM_DEVICE_TEAM_* and SHMEM_DEVICE_CTX_DEFAULT */
    const struct shmemgi_dteam *teams;             /* [SHMEMGI_MAX_DTEAMS] */
    const struct shmemgi_dctx *ctxs;               /* [SHMEMGI_MAX_DCTX] */
    struct shmemgi_ring *ring;
    uint64_t *ring_tail; /* device memory: tickets handed out */
    uint64_t *issued;    /* device memory: [SHMEMGI_MAX_DCTX] requests each context handed the proxy */
    uint64_t *quieted;   /* device memory: [SHMEMGI_MAX_DCTX] of those, how many the last quiet found complete */
    struct shmemgi_derror *err;
    uint32_t *err_claim; /* device memory: the first failing thread takes it */
    /* GPU heap memory of the library's own, symmetric: sync[team][round] counts the barrier signals a team's round
     * received here; epoch[team] the barriers this PE began on it */
    uint64_t *sync;
    uint64_t *epoch;
    uint64_t coll_half; /* the size of each half of a team's scratch */
    /* device memory, [n_pes]: 1 where this PE's GPU may update that PE's mapped GPU memory with its own atomics (the
     * same GPU, or native atomics over the link); 0: atomics and signals to it go through the proxy, whose host path
     * has that PE apply them (without native P2P atomics a GPU's atomic on a peer's memory is not atomic) */
    const uint8_t *peer_amo;
};
#define SHMEMGI_COLL_HALF ((size_t)64 << 10)

#endif

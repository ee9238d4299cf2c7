/* gtl.h - the GPU transport layer: one vendor-neutral interface (pick the PE's device, device memory, memory-kind
 * queries cached per allocation range, IPC between PEs of a node, copies, atomics on device memory) over backends. */
#ifndef GSHMEM_GTL_H
#define GSHMEM_GTL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "shmemi.h"

#define SHMEMI_GTL_NO_PIN (-2) /* host_register: the driver cannot pin memory it did not allocate */
#define GTL_IPC_SIZE 64        /* CUDA's IPC handle size; every backend's handle fits */
struct gtl_ipc {
    unsigned char bytes[GTL_IPC_SIZE];
};

enum gtl_mem { GTL_MEM_HOST = 0, GTL_MEM_DEVICE = 1 };

/* What one device may do with another's memory (gtl_backend.p2p): peer access (IPC import works, and kernels load and
 * store the memory), and native atomics over the link (its atomics there are atomic with the owner's own; without
 * them an atomicAdd_system to the peer is split into a read and a write, as on most PCIe links). */
#define GTL_P2P_ACCESS 1
#define GTL_P2P_ATOMICS 2

/* How the kernels of several processes share one device (gtl_backend.share) */
struct gtl_share {
    int mps;      /* 1: CUDA MPS, kernels of several processes run at once; 0: no, each process's context gets the
                   * device in turn (time slices); -1: not known */
    int sms;      /* the device's multiprocessors, 0: not known */
    int sms_mine; /* those this process's kernels may use (MPS's provisioning), 0: not known */
};

/* A backend is an ops table; an operation a backend cannot do returns -1 (never a NULL pointer). All return 0 on
 * success. Device pointers are addresses in the process's virtual address space (unified addressing), so one copy
 * routine covers host->device, device->host and device->device. */
struct gtl_backend {
    const char *name;
    /* how the network registers this backend's memory: libfabric's enum fi_hmem_iface (0: as host memory, at the
     * address net_addr gives; 1: FI_HMEM_CUDA, with device net_device) */
    int net_iface;
    /* local_rank/nlocal: this PE among the PEs of its node (several may share one device). On success desc says which
     * device; on failure why says what is missing. */
    int (*init)(int local_rank, int nlocal, char *desc, size_t desclen, char *why, size_t whylen);
    void (*fini)(void);
    int (*alloc)(size_t size, void **ptr);
    void (*free)(void *ptr, size_t size);
    /* GTL_MEM_DEVICE with the allocation's range, or GTL_MEM_HOST (memory the CPU may load and store) */
    int (*query)(const void *p, uintptr_t *base, size_t *size);
    int (*ipc_export)(void *base, size_t size, struct gtl_ipc *h);
    int (*ipc_import)(const struct gtl_ipc *h, size_t size, void **ptr);
    void (*ipc_close)(void *ptr, size_t size);
    /* every peer has imported `base`: names (if the backend has any) can go */
    void (*ipc_done)(void *base);
    int (*copy)(void *dst, const void *src, size_t n); /* synchronous: done when it returns */
    /* Pipelines: copy_start queues a copy behind the ones queued before it and gives a ticket; copy_end(ticket, 0)
     * says whether it is done yet (1: not yet, ticket kept), copy_end(ticket, 1) waits for it; a ticket is given back
     * by the copy_end that returns 0 (or -1: the copy failed). With page-locked host memory (host_register) on the
     * host side, the copy runs while the CPU goes on. */
    int (*copy_start)(void *dst, const void *src, size_t n, void **ticket);
    int (*copy_end)(void *ticket, int wait);
    int (*memset)(void *dst, int byte, size_t n);
    /* an OpenSHMEM atomic (SHMEMI_AMO_*) on a 4- or 8-byte word of device memory, own or imported */
    int (*amo)(void *p, int op, uint64_t value, uint64_t cond, size_t size, uint64_t *old);
    /* height rows of width bytes, row r from src + r*spitch to dst + r*dpitch; synchronous */
    int (*copy2d)(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height);
    /* acc[i] = acc[i] OP in[i] for count elements (SHMEMI_OP_*, SHMEMI_DT_*), both in device memory (own or
     * imported); -1 when the backend has no kernel for the pair (the caller reduces on the host), 1 when it failed.
     * count 0 only asks whether there is a kernel. */
    int (*reduce)(int op, int dt, void *acc, const void *in, size_t count);
    /* the address the network registers for the device allocation at base, and its device ordinal */
    int (*net_addr)(void *base, void **addr, int *device);
    /* page-lock host memory for the device (CUDA: cuMemHostRegister), so copies between it and device memory run at
     * full DMA speed instead of through the driver's staging of pageable memory; undone before it is unmapped.
     * 0, -1 (it failed: too much, say), or SHMEMI_GTL_NO_PIN: this driver cannot pin memory it did not allocate */
    int (*host_register)(void *p, size_t size);
    int (*host_unregister)(void *p);
    /* zeroed host memory the device may load and store at the same address (CUDA: cuMemHostAlloc, mapped and
     * portable, unified addressing): the request ring kernels share with the proxy */
    int (*host_alloc)(size_t size, void **ptr);
    void (*host_free)(void *ptr);
    /* 1: the CPU may load, store and atomically update this PE's device memory (and imported peers') coherently,
     * at the same addresses (APUs such as MI300A, Grace-Hopper): small transfers then skip the copy engine; 0: not */
    int (*coherent)(void);
    /* PCI bus id ("dddd:bb:dd.f", as the driver writes it) of visible device i (0, 1, ...), or of this PE's device
     * (i = -1); -1 past the last device, or where the driver does not say */
    int (*busid)(int i, char *id, size_t len);
    /* GTL_P2P_* bits: what the visible device at bus id `from` may do with memory of the one at `to` (both of them
     * when they are one device); -1: either is not visible to this process (CUDA_VISIBLE_DEVICES and the like) */
    int (*p2p)(const char *from, const char *to);
    /* how this PE's device is shared with other processes' kernels */
    int (*share)(struct gtl_share *s);
    /* Waits up to wait_s seconds (< 0: as long as it takes) for all the work this process queued on this PE's device
     * to end, on every stream (the application's too), as cuCtxSynchronize waits: 0 when it has (or a failed kernel
     * ended it), 1 while work is left, -1 when the backend cannot tell */
    int (*idle)(int wait_s);
};

SHMEMI_HIDDEN extern const struct gtl_backend shmemi_gtl_cuda, shmemi_gtl_hip, shmemi_gtl_ze, shmemi_gtl_emu;
/* Which of ndev devices this PE opens when the application made none current. busid[i] is device i's PCI address
 * ("dddd:bb:dd.f", lower-case hex) or NULL when the driver does not say: the device nearest to the cores this PE
 * runs on (node topology) when that can be told, else local_rank % ndev (several PEs may share one device). */
SHMEMI_HIDDEN int shmemi_gtl_pick_device(int ndev, const char *const *busid, int local_rank, int nlocal);
/* the same, asking busid(i) for device i's PCI bus id as the driver writes it (non-zero: unknown); local_rank mod
 * ndev where the choice has no answer */
SHMEMI_HIDDEN int shmemi_gtl_pick_busid(int ndev, int (*busid)(int i, char *id, int len), int local_rank, int nlocal);
/* The emulated GPU for a program whose kernels run on the CPU (src/device/emu): set before shmem_init, it makes
 * SHMEM_GPU=auto pick the emulation and maps device memory where the CPU's emulated threads can reach it. */
SHMEMI_HIDDEN extern int shmemi_gtl_emu_kernels;
/* That program's cudaMalloc/cudaFree: device memory of the emulated GPU (0, or -1: not one of them) */
SHMEMI_HIDDEN int shmemi_gtl_emu_user_alloc(size_t size, void **ptr);
SHMEMI_HIDDEN int shmemi_gtl_emu_user_free(void *ptr);
/* 0 when p is memory of another emulated GPU that this PE's may not update atomically (SHMEM_TEST_GPU_P2P=noatomics):
 * the emulation's kernels ask before a system-scope atomic, as the real link would not make it atomic */
SHMEMI_HIDDEN int shmemi_gtl_emu_native_amo(const void *p);

/* The backend in use, or NULL: GPU support is off (not requested, or no GPU). */
SHMEMI_HIDDEN extern const struct gtl_backend *shmemi_gtl;

/* Loads the backend SHMEM_GPU names (auto: the first of CUDA, HIP, Level Zero whose driver loads and sees a device).
 * 0: on; -1: off, with why (for auto: why each backend was not taken). */
SHMEMI_HIDDEN int shmemi_gtl_init(int local_rank, int nlocal, char *why, size_t whylen);
SHMEMI_HIDDEN void shmemi_gtl_fini(void);
/* After init: up to which size the CPU itself moves data to and from GPU memory the backend says is coherent
 * (SHMEM_GPU_COHERENT, measured or set); 0: never; (size_t)-1: a setting that cannot hold, with why. */
SHMEMI_HIDDEN size_t shmemi_gtl_coherent_setup(char *why, size_t whylen);
SHMEMI_HIDDEN const char *shmemi_gtl_coherent_describe(void); /* for shmem_info; NULL: not coherent */
SHMEMI_HIDDEN const char *shmemi_gtl_describe(void);          /* "cuda: NVIDIA H200 (device 0 of 1), ..." or NULL */

/* After init, collectively: which GPU every PE took (bus ids), which node peers share this PE's GPU, and what this
 * PE's GPU may do with each node peer's (shmemi_rt.gpu_peer: SHMEMI_GPU_PEER_SAME, _ACCESS, _ATOMICS, _HIDDEN). Also
 * warns where PEs share a GPU under MPS with more of it each than leaves room for the others. 0, or -1 with why. */
SHMEMI_HIDDEN int shmemi_gtl_peers(char *why, size_t whylen);
/* node device index (0..63, in the order of the node's lowest PEs) of local PE pe's GPU, -1: not known */
SHMEMI_HIDDEN int shmemi_gtl_peer_dev(int pe);
/* SHMEM_INFO: this PE's row of the matrix (what it does with each node peer's GPU memory) */
SHMEMI_HIDDEN void shmemi_gpu_peers_print(FILE *f);

/* Kind of a local (non-symmetric) buffer: answers are cached per device allocation range, since the driver's query
 * sits on the hot path of every operation once local GPU buffers are accepted. */
SHMEMI_HIDDEN int shmemi_gtl_kind(const void *p);
/* Device allocations the library frees (or the user's, when it learns of them) leave the cache. */
SHMEMI_HIDDEN void shmemi_gtl_forget(const void *base);

/* Copy with either side in device memory; aborts the job naming fn when the backend fails. */
SHMEMI_HIDDEN void shmemi_gtl_copy(void *dst, const void *src, size_t n, const char *fn);
/* the same, for pipelines (see copy_start); copy_end returns 1 while the copy is not done (only when !wait) */
SHMEMI_HIDDEN void *shmemi_gtl_copy_start(void *dst, const void *src, size_t n, const char *fn);
SHMEMI_HIDDEN int shmemi_gtl_copy_end(void *ticket, int wait, const char *fn);
/* Two page-locked host buffers of SHMEMI_GTL_STAGE bytes each (pinned where the backend can), for pipelines that
 * copy one piece while the network moves the other; one pair is kept between uses, as the scratch is. */
#define SHMEMI_GTL_STAGE ((size_t)1 << 20)
SHMEMI_HIDDEN char *shmemi_gtl_stage_get(const char *fn);
SHMEMI_HIDDEN void shmemi_gtl_stage_put(char *p);
SHMEMI_HIDDEN void shmemi_gtl_memset(void *dst, int byte, size_t n, const char *fn);
SHMEMI_HIDDEN void shmemi_gpu_info_print(FILE *f, int brief);
/* 2D copy (rows of width bytes at pitches dpitch and spitch); row by row where the backend cannot */
SHMEMI_HIDDEN void shmemi_gtl_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                     size_t height, const char *fn);
/* 0: acc OP= in ran on the device; -1: no device kernel for (op, dt), reduce on the host */
SHMEMI_HIDDEN int shmemi_gtl_reduce(int op, int dt, void *acc, const void *in, size_t count, const char *fn);
/* A private device buffer of SHMEMI_GTL_SCRATCH bytes (collectives' accumulator), and its return. Threads that
 * need one at once each get their own; one is kept between uses. */
#define SHMEMI_GTL_SCRATCH ((size_t)1 << 22)
SHMEMI_HIDDEN void *shmemi_gtl_scratch_get(const char *fn);
SHMEMI_HIDDEN void shmemi_gtl_scratch_put(void *p);
SHMEMI_HIDDEN uint64_t shmemi_gtl_amo(void *p, int op, uint64_t value, uint64_t cond, size_t size, const char *fn);

/* Set by the proxy thread (src/proxy): what it asks of the GPU must run without an SM, since the kernel it serves may
 * hold every SM while it waits for the answer. Copies then take the copy engine whatever SHMEM_GPU_COPY_CUTOVER says;
 * an atomic or a reduction (a kernel of the library's) ends the job naming the routine: a library bug, which on a
 * GPU would be a hang. */
SHMEMI_HIDDEN extern __thread int shmemi_gtl_no_sm;

/* The emulated GPU's SMs (SHMEM_EMU_SMS), for programs whose kernels run on the CPU: a running block holds one
 * (src/device/emu), and so does each kernel of the library's own (its atomics and reductions on GPU memory).
 * take: 0 once one is held; -1 when none came free within wait_s seconds (wait_s < 0: waits as long as it takes). */
SHMEMI_HIDDEN int shmemi_emu_sm_take(int wait_s);
SHMEMI_HIDDEN void shmemi_emu_sm_give(void);

#endif

/* abi.h - the C interface between a program built with `oshcc --emulate-gpu` (the CUDA shim, cuda_runtime.h) and the
 * CPU emulation of the GPU inside libgshmem (src/device/emu). Not for direct use: programs call the CUDA names. */
#ifndef GSHMEM_EMU_ABI_H
#define GSHMEM_EMU_ABI_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif
#ifdef __cplusplus
extern "C" {
#endif

#define GSHMEM_EMU_ABI_VERSION 2

struct gshmem_emu_dim3 {
    unsigned x, y, z;
};

/* What threadIdx & co read: the emulated GPU thread running on this OS thread (NULL outside kernels). */
struct gshmem_emu_thread {
    struct gshmem_emu_dim3 tid, bid, bdim, gdim;
    unsigned lin;  /* linear index in the block */
    unsigned lane; /* index in its warp (warps are 32 consecutive linear indices) */
    /* the device routine the thread last entered (the device library writes it), so that shmem_finalize can say
     * where a kernel still running is */
    const char *routine;
};
extern __thread struct gshmem_emu_thread *gshmem_emu_cur;

/* The program says it was built for the emulation (the shim calls it before main): GPU support then means the
 * emulated GPU, with device memory the CPU's emulated threads can load and store. */
int gshmem_emu_program(int abi_version);

/* Kernels: fn(closure) runs once per thread of every block; release(closure) (may be NULL) once the kernel is done.
 * Returns a cudaError_t value (0, or an invalid-configuration error without launching). */
int gshmem_emu_launch(struct gshmem_emu_dim3 grid, struct gshmem_emu_dim3 block, size_t shmem, void *stream,
                      void (*fn)(void *), void *closure, void (*release)(void *));
/* The same with flags: GSHMEM_EMU_LAUNCH_COOPERATIVE is cudaLaunchCooperativeKernel (every block resident at once,
 * grid barriers allowed; a grid larger than gshmem_emu_coop_max_blocks is refused, cudaErrorCooperativeLaunchTooLarge)
 */
#define GSHMEM_EMU_LAUNCH_COOPERATIVE 0x1u
int gshmem_emu_launch_ex(struct gshmem_emu_dim3 grid, struct gshmem_emu_dim3 block, size_t shmem, void *stream,
                         void (*fn)(void *), void *closure, void (*release)(void *), unsigned flags);
int gshmem_emu_coop_max_blocks(unsigned nthreads);

/* Inside kernels */
void gshmem_emu_syncthreads(void);
int gshmem_emu_syncthreads_op(int op, int pred); /* op 0: count, 1: and, 2: or */
void gshmem_emu_syncwarp(unsigned mask);
enum { GSHMEM_EMU_SHFL_IDX, GSHMEM_EMU_SHFL_UP, GSHMEM_EMU_SHFL_DOWN, GSHMEM_EMU_SHFL_XOR };
uint64_t gshmem_emu_shfl(unsigned mask, uint64_t v, int kind, int arg, int width);
enum { GSHMEM_EMU_VOTE_BALLOT, GSHMEM_EMU_VOTE_ANY, GSHMEM_EMU_VOTE_ALL };
unsigned gshmem_emu_vote(unsigned mask, int kind, int pred);
unsigned gshmem_emu_activemask(void);
/* cooperative_groups' grid: a barrier of every thread of the grid (a trap outside a cooperative launch), and whether
 * the kernel was launched cooperatively */
void gshmem_emu_grid_sync(void);
int gshmem_emu_grid_valid(void);
/* A poll in a wait loop: lets the block's other threads run (and, when none can, other PEs) */
void gshmem_emu_yield(void);
void *gshmem_emu_dyn_shared(void);
/* Ends the job from inside a kernel (a trap), naming what happened */
void gshmem_emu_trap(const char *what) __attribute__((noreturn));
/* Non-zero while this PE's emulated GPU may not update some other GPU's memory atomically (SHMEM_TEST_GPU_P2P=
 * noatomics): system-scope atomics then pass their address to gshmem_emu_peer_atomic first, which ends the job on
 * such memory, since over such a link a real GPU's atomic would not be atomic */
extern int gshmem_emu_atomics_checked;
void gshmem_emu_peer_atomic(const void *p);

/* The runtime calls programs make (cudaError_t values back) */
enum { GSHMEM_EMU_MEM_DEVICE, GSHMEM_EMU_MEM_HOST, GSHMEM_EMU_MEM_MANAGED };
int gshmem_emu_malloc(void **p, size_t n, int kind);
int gshmem_emu_free(void *p, int kind);
/* cudaMallocAsync/cudaFreeAsync: the allocation and the free happen where the stream reaches them */
int gshmem_emu_malloc_async(void **p, size_t n, void *stream);
int gshmem_emu_free_async(void *p, void *stream);
int gshmem_emu_memcpy(void *dst, const void *src, size_t n, void *stream, int async);
int gshmem_emu_memset(void *dst, int value, size_t n, void *stream, int async);
int gshmem_emu_stream_create(void **stream, unsigned flags);
int gshmem_emu_stream_destroy(void *stream);
int gshmem_emu_stream_synchronize(void *stream);
int gshmem_emu_stream_query(void *stream);
int gshmem_emu_stream_wait_event(void *stream, void *event);
int gshmem_emu_host_func(void *stream, void (*fn)(void *), void *arg);
int gshmem_emu_event_create(void **event, unsigned flags);
int gshmem_emu_event_destroy(void *event);
int gshmem_emu_event_record(void *event, void *stream);
int gshmem_emu_event_synchronize(void *event);
int gshmem_emu_event_query(void *event);
int gshmem_emu_event_elapsed(float *ms, void *start, void *end);
/* the flags an event was created with, and whether it was ever recorded (the HIP names' checks) */
int gshmem_emu_event_info(void *event, unsigned *flags, int *recorded);
int gshmem_emu_device_synchronize(void);
int gshmem_emu_set_device(int device);
int gshmem_emu_get_device(int *device);
int gshmem_emu_device_count(int *count);
/* kernels' dynamic shared memory: 48 KiB unless cudaFuncSetAttribute raised it, up to the opt-in limit (an H100's) */
#define GSHMEM_EMU_SHMEM_DEFAULT ((size_t)48 << 10)
#define GSHMEM_EMU_SHMEM_OPTIN ((size_t)227 << 10)
int gshmem_emu_func_attr(const void *fn, int attr, int value); /* cudaFuncSetAttribute: a cudaError_t */
int gshmem_emu_func_shmem(const void *fn, size_t shmem);        /* 0, or the launch's refusal (recorded) */
int gshmem_emu_rules(int hip); /* 1: a HIP program (a launch runs on its stream's device) */
int gshmem_emu_sm_count(void); /* SHMEM_EMU_SMS */
int gshmem_emu_capture_begin(void *stream);
int gshmem_emu_capture_end(void *stream, void **graph);
int gshmem_emu_capture_status(void *stream, int *capturing);
int gshmem_emu_graph_launch(void *graph, void *stream);
int gshmem_emu_graph_retain(void *graph); /* an instantiation shares the captured list */
int gshmem_emu_graph_destroy(void *graph);
/* cudaGraphGetNodes (the nodes in capture order) and cudaGraphNodeGetType (a cudaGraphNodeType value) */
int gshmem_emu_graph_nodes(void *graph, void **nodes, size_t *count);
int gshmem_emu_node_type(void *node, int *type);
int gshmem_emu_last_error(int peek); /* this host thread's last launch/API error, cleared unless peek */
int gshmem_emu_set_error(int err);   /* records err as the last error and returns it */
/* Registered by every translation unit that includes the device library: see gshmem/device/state.h */
typedef int (*gshmem_emu_sym_copy)(void *dst, const void *src, size_t n);

#ifdef __cplusplus
}
#endif
#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#endif

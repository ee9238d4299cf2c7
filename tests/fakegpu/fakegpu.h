/* fakegpu.h - the machinery the stand-in GPU drivers (tests/fakecuda, tests/fakehip) share: device memory the CPU
 * cannot touch (reached through a hidden alias), IPC between processes, streams whose work runs only when
 * synchronized, events, and C versions of kernels.cu's kernels. Each fake adds only its vendor's API on top. */
#ifndef GSHMEM_FAKEGPU_H
#define GSHMEM_FAKEGPU_H

#include <pthread.h>
#include <stddef.h>

/* Error codes: CUDA's driver API numbers, which HIP's hipError_t repeats for every one used here, so each fake
 * returns them as they are. */
enum {
    FG_OK = 0,
    FG_INVALID_VALUE = 1,
    FG_OUT_OF_MEMORY = 2,
    FG_NOT_INITIALIZED = 3,
    FG_NO_DEVICE = 100,
    FG_INVALID_DEVICE = 101,
    FG_INVALID_IMAGE = 200,
    FG_INVALID_CONTEXT = 201,
    FG_NO_BINARY_FOR_GPU = 209,
    FG_INVALID_HANDLE = 400,
    FG_NOT_FOUND = 500,
    FG_NOT_READY = 600,
    FG_ILLEGAL_ADDRESS = 700,
    FG_LAUNCH_FAILED = 719,
    FG_ALREADY_REGISTERED = 712,
    FG_NOT_REGISTERED = 713,
    FG_DEVICE_UNAVAILABLE = 46,
    FG_PEER_ACCESS_UNSUPPORTED = 217,
    FG_UNSUPPORTED_EXEC_AFFINITY = 224,
};

/* Everything below is called with fg_mu held (each fake's API entry takes it). */
extern pthread_mutex_t fg_mu;
/* an illegal address in a kernel or copy poisons the device, as on a GPU: every later call returns it */
extern int fg_sticky;
/* device memory at its device address is readable and writable by the CPU (the fake's *_HOST_VISIBLE=1, or a
 * coherent APU); set before the first allocation */
extern int fg_host_visible;

/* ---- several devices: each fake numbers its devices 0.. and sets fg_dev, under fg_mu, to the one the calling
 * API entry acts on (CUDA: the current context's, HIP: the thread's current device); memory is that device's ---- */
extern int fg_dev;
/* What each pair of distinct devices may do with the other's memory, the same for every pair (FAKE*_P2P): peer access
 * and native atomics (FG_P2P_ALL, the default), peer access without native atomics (FG_P2P_NO_ATOMICS: "noatomics",
 * as PCIe links mostly are), or neither (FG_P2P_NONE: "0"). With less than all, the fake refuses what the drivers
 * refuse (an IPC import of another device's memory without peer access: PEER_ACCESS_UNSUPPORTED), and stops what
 * would silently not be atomic on a real GPU: an atomic kernel on another device's memory fails (ILLEGAL_ADDRESS,
 * sticky), where a real GPU would split it into a read and a write. */
enum { FG_P2P_ALL, FG_P2P_NO_ATOMICS, FG_P2P_NONE };
extern int fg_p2p;
void fg_p2p_setup(const char *env_name); /* reads the variable (unset, "1": all; "0": none; "noatomics") */
int fg_p2p_access(int a, int b);         /* device a may map and access device b's memory */
int fg_p2p_atomics(int a, int b);        /* device a's atomics on device b's memory are native */

/* ---- memory ---- */
enum { FG_DEVICE = 1, FG_IMPORTED, FG_HOSTALLOC, FG_REGISTERED };
struct fg_range {
    char *addr;  /* what the application sees (device: PROT_NONE unless host-visible) */
    char *alias; /* device: the same pages, readable and writable; host: addr */
    size_t len;
    int kind, fd;
    /* the device it is memory of (device and imported memory), and what a vendor's fake records about it (fakehip:
     * its coherence kind; 0 until it says); both carried by IPC handles to the importer */
    int dev;
    unsigned attr;
};
struct fg_range *fg_find(const void *p);
/* where the bytes [p, p+n) are for the CPU: device memory through its alias, other memory as is (kernel: only
 * device and page-locked host memory). NULL: an illegal address. */
char *fg_xlate(const void *p, size_t n, int kernel);
int fg_mem_alloc(size_t size, void **p);  /* device memory of fg_dev, 2 MiB-aligned */
int fg_mem_free(void *p);                 /* the start of a device allocation */
int fg_host_alloc(size_t size, void **p); /* page-locked host memory */
int fg_host_free(void *p);
int fg_host_register(void *p, size_t size);
int fg_host_unregister(void *p);
/* IPC: a handle of 64 bytes naming the allocation at p (its start) with the fake's magic (8 bytes with the NUL);
 * opening needs another process, as the drivers require, and peer access from fg_dev to the memory's device */
int fg_ipc_get(void *p, unsigned char h[64], const char *magic);
int fg_ipc_open(const unsigned char h[64], const char *magic, void **p);
int fg_ipc_close(void *p);

/* ---- streams and events: owner is the context (CUDA) or device (HIP) a stream belongs to; queueing work on a
 * stream of another owner is an invalid handle, as the drivers say ---- */
int fg_stream_create(const void *owner, void **s);
int fg_stream_destroy(void *s);
int fg_stream_sync(void *s, const void *owner);
/* every stream of owner run to its end, and the application's kernels (fakegpu_app_kernel) waited for: the driver's
 * cuCtxSynchronize / hipDeviceSynchronize (called with fg_mu held, which it lets go while it waits) */
int fg_device_sync(const void *owner);
int fg_event_create(void **ev);
int fg_event_destroy(void *ev);
int fg_event_record(void *ev, void *s, const void *owner);
int fg_event_query(void *ev); /* the first query of a pending event says FG_NOT_READY */
int fg_event_sync(void *ev);
int fg_copy_async(void *dst, const void *src, size_t n, void *s, const void *owner);
int fg_copy2d_async(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, void *s,
                    const void *owner);
int fg_memset_async(void *dst, int byte, size_t n, void *s, const void *owner); /* device memory only */

/* ---- kernels: the C version of kernels.cu's kernel `name` (the caller checked its image defines it) ---- */
/* A vendor's rule for a kernel's atomic on the word in r, run by a kernel queued by owner: 0 lets it happen, else
 * the error the kernel fails with (the vendor says why on stderr). NULL: every atomic is fine (CUDA). */
extern int (*fg_atomic_rule)(const struct fg_range *r, const void *owner);
int fg_function(const char *name, void **fn);
int fg_launch(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shmem,
              void *s, const void *owner, void **params, void **extra);

#endif

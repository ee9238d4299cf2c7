/* gpu_local.c - local (non-symmetric) GPU buffers in the host routines, as a CUDA application has them: allocated with
 * the CUDA driver (cuMemAlloc), used as sources of puts and destinations of gets (device awareness), at their start
 * and inside them (the memory-kind cache answers per allocation range), and a buffer freed and allocated again. Also
 * the HPE paper's example: host and GPU sources put into one GPU-heap destination. Checked through gets into host
 * memory. Skips (77) without GPU support or without a CUDA driver in the process (the emulated GPU has no local
 * buffers); CI runs it on tests/fakecuda. */
#include <dlfcn.h>
#include <shmemg.h>
#include <stdint.h>

#include "ftest.h"

#define N 4096
static int (*cu_init)(unsigned);
static int (*cu_ctx_get)(void **);
static int (*cu_alloc)(unsigned long long *, size_t);
static int (*cu_free)(unsigned long long);

static long *dev_alloc(size_t bytes) {
    unsigned long long p = 0;
    return cu_alloc(&p, bytes) ? NULL : (long *)(uintptr_t)p;
}

static long val(int pe, int i, int salt) { return (long)pe * 1000003 + (long)i * 11 + salt; }

/* the n longs at sym (symmetric, on this PE) against val(from, first + i, salt) */
static void check_sym(const long *sym, int n, int from, int first, int salt, const char *what) {
    static long back[N];
    shmem_long_get(back, sym, (size_t)n, shmem_my_pe());
    for (int i = 0; i < n; i++)
        if (back[i] != val(from, first + i, salt)) {
            FAIL("%s: element %d is %ld, expected %ld", what, i, back[i], val(from, first + i, salt));
            return;
        }
}

int main(void) {
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_SINGLE | SHMEM_DEVICE_HOST_INIT, &provided);
    if (!(provided & SHMEM_DEVICE_HOST_INIT))
        return ftest_skip("no GPU support: SHMEM_DEVICE_HOST_INIT was not provided (shmem_info says why)");
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    void *ctx = NULL;
    if (!lib || !(cu_init = (int (*)(unsigned))dlsym(lib, "cuInit")) ||
        !(cu_ctx_get = (int (*)(void **))dlsym(lib, "cuCtxGetCurrent")) ||
        !(cu_alloc = (int (*)(unsigned long long *, size_t))dlsym(lib, "cuMemAlloc_v2")) ||
        !(cu_free = (int (*)(unsigned long long))dlsym(lib, "cuMemFree_v2")) || cu_init(0) || cu_ctx_get(&ctx) || !ctx)
        return ftest_skip("no CUDA driver with a current context in this process (emulated GPU?)");
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    static long host[N];
    long *sym = shmem_malloc(N * sizeof(long));       /* host symmetric */
    long *dsym = shmemg_malloc(2 * N * sizeof(long)); /* GPU symmetric */
    long *loc = dev_alloc(N * sizeof(long));          /* local GPU buffer */
    REQUIRE(sym && dsym && loc, "allocations");

    /* fill the local GPU buffer: a get into it from this PE's host symmetric object */
    for (int i = 0; i < N; i++)
        host[i] = val(me, i, 1);
    shmem_long_put(sym, host, N, me);
    shmem_long_get(loc, sym, N, me);
    /* local GPU source, put to the right neighbour's host and GPU objects (whole, then from inside the buffer) */
    shmem_barrier_all();
    shmem_long_put(dsym, loc, N, right);
    shmem_long_put(sym, loc + 100, N - 100, right);
    shmem_barrier_all();
    check_sym(dsym, N, left, 0, 1, "put from a local GPU buffer to GPU memory");
    check_sym(sym, N - 100, left, 100, 1, "put from inside a local GPU buffer to host memory");
    shmem_barrier_all();

    /* local GPU destination of gets: from the right neighbour's GPU object, into the middle of the buffer */
    for (int i = 0; i < N; i++)
        host[i] = val(me, i, 2);
    shmem_long_put(dsym, host, N, me);
    shmem_barrier_all();
    shmem_long_get(loc + 7, dsym, N - 7, right);
    shmem_long_put(dsym + N, loc + 7, N - 7, me); /* (read back through this PE's GPU heap) */
    check_sym(dsym + N, N - 7, right, 0, 2, "get into a local GPU buffer");
    /* scalar and nbi forms with a local GPU buffer */
    shmem_long_get_nbi(loc, dsym + 3, 1, right);
    shmem_quiet();
    shmem_long_put(dsym + N, loc, 1, me);
    check_sym(dsym + N, 1, right, 3, 2, "get_nbi into a local GPU buffer");
    shmem_barrier_all();

    /* the HPE paper's example: a host source and a GPU source into one GPU-heap destination */
    for (int i = 0; i < N; i++)
        host[i] = val(me, i, 3);
    shmem_long_put(dsym, host, N, right); /* first half: from host memory */
    shmem_long_put(sym, host, N, me);
    shmem_long_get(loc, sym, N, me);
    shmem_long_put_nbi(dsym + N, loc, N, right); /* second half: from GPU memory */
    shmem_quiet();
    shmem_barrier_all();
    check_sym(dsym, N, left, 0, 3, "host source into the GPU heap");
    check_sym(dsym + N, N, left, 0, 3, "GPU source into the GPU heap");
    shmem_barrier_all();

    /* a local buffer freed, and another allocated (maybe at the same address): the kind cache must not go stale */
    CHECK(cu_free((unsigned long long)(uintptr_t)loc) == 0, "cuMemFree");
    long *loc2 = dev_alloc(2 * N * sizeof(long));
    REQUIRE(loc2, "cuMemAlloc of a second buffer");
    shmem_long_get(loc2 + N, dsym, N, right);
    shmem_long_put(dsym + N, loc2 + N, N, me);
    check_sym(dsym + N, N, me, 0, 3, "a second local GPU buffer (after a free)");
    shmem_barrier_all();
    cu_free((unsigned long long)(uintptr_t)loc2);
    shmem_free(dsym);
    shmem_free(sym);
    return ftest_finish("gpu_local");
}

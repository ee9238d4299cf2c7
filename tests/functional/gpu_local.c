/* gpu_local.c - local (non-symmetric) GPU buffers in the host routines, as a CUDA or HIP application has them:
 * allocated with the GPU API the library loaded (cuMemAlloc, hipMalloc), used as sources of puts and destinations of
 * gets (device awareness), at their start and inside them (the memory-kind cache answers per allocation range), and a
 * buffer freed and allocated again. Also a mixed-domain exchange: host and GPU sources put into one GPU-heap
 * destination; strided RMA, put-with-signal and the fetch results of nonblocking AMOs with local GPU buffers; calls
 * made while another context of the application's is current (HIP: another device, where there are two). Checked
 * through gets into host memory. Skips (77) without GPU support or without a CUDA driver, HIP runtime or Level Zero
 * loader in the process (the emulated GPU has no local buffers); CI runs it on tests/fakecuda, tests/fakehip and
 * tests/fakeze (Level Zero: zeMemAllocDevice in a context of the application's own; the part about current
 * contexts does not apply). */
#include <dlfcn.h>
#include <shmemg.h>
#include <stdint.h>

#include "ftest.h"

#define N 4096
static int (*cu_init)(unsigned);
static int (*cu_ctx_get)(void **);
static int (*cu_alloc)(unsigned long long *, size_t);
static int (*cu_free)(unsigned long long);
static int (*hip_malloc)(void **, size_t), (*hip_free)(void *), (*hip_count)(int *), (*hip_get)(int *), (*hip_set)(int);

/* Level Zero: the application's own context on the first GPU of the first driver */
static void *ze_ctx, *ze_dev;
static int (*ze_alloc)(void *, const void *, size_t, size_t, void *, void **), (*ze_free)(void *, void *);
static int find_ze(void) {
    void *lib = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_NOLOAD);
    int (*init)(unsigned) = lib ? (int (*)(unsigned))dlsym(lib, "zeInit") : NULL;
    int (*drivers)(unsigned *, void **) = lib ? (int (*)(unsigned *, void **))dlsym(lib, "zeDriverGet") : NULL;
    int (*devices)(void *, unsigned *, void **) =
        lib ? (int (*)(void *, unsigned *, void **))dlsym(lib, "zeDeviceGet") : NULL;
    int (*ctx_create)(void *, const void *, void **) =
        lib ? (int (*)(void *, const void *, void **))dlsym(lib, "zeContextCreate") : NULL;
    ze_alloc =
        lib ? (int (*)(void *, const void *, size_t, size_t, void *, void **))dlsym(lib, "zeMemAllocDevice") : NULL;
    ze_free = lib ? (int (*)(void *, void *))dlsym(lib, "zeMemFree") : NULL;
    struct {
        int stype;
        const void *next;
        unsigned flags;
    } cd = {0xd, NULL, 0}; /* ZE_STRUCTURE_TYPE_CONTEXT_DESC */
    void *drv = NULL;
    unsigned one = 1;
    if (!init || !drivers || !devices || !ctx_create || !ze_alloc || !ze_free || init(1) || drivers(&one, &drv) ||
        !drv || (one = 1, devices(drv, &one, &ze_dev)) || !ze_dev || ctx_create(drv, &cd, &ze_ctx))
        ze_ctx = NULL;
    return ze_ctx != NULL;
}

static long *dev_alloc(size_t bytes) {
    unsigned long long p = 0;
    void *h = NULL;
    if (ze_ctx) {
        struct {
            int stype;
            const void *next;
            unsigned flags, ordinal;
        } desc = {0x15, NULL, 0, 0}; /* ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC */
        return ze_alloc(ze_ctx, &desc, bytes, 0, ze_dev, &h) ? NULL : h;
    }
    if (hip_malloc)
        return hip_malloc(&h, bytes) ? NULL : h;
    return cu_alloc(&p, bytes) ? NULL : (long *)(uintptr_t)p;
}

static int dev_free(void *p) {
    return ze_ctx ? ze_free(ze_ctx, p) : hip_malloc ? hip_free(p) : cu_free((unsigned long long)(uintptr_t)p);
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

/* the HIP runtime the library loaded, if it is HIP's turn */
static int find_hip(void) {
    static const char *const names[] = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};
    void *lib = NULL;
    for (int i = 0; i < 3 && !lib; i++)
        lib = dlopen(names[i], RTLD_NOW | RTLD_NOLOAD);
    return lib && (hip_malloc = (int (*)(void **, size_t))dlsym(lib, "hipMalloc")) &&
           (hip_free = (int (*)(void *))dlsym(lib, "hipFree")) &&
           (hip_count = (int (*)(int *))dlsym(lib, "hipGetDeviceCount")) &&
           (hip_get = (int (*)(int *))dlsym(lib, "hipGetDevice")) &&
           (hip_set = (int (*)(int))dlsym(lib, "hipSetDevice"));
}

/* HIP: another device of the application's current on this thread (as after hipSetDevice): the library's copies
 * still run on its own, and the application's device is current again afterwards */
static void hip_other_device(long *dsym, long *loc, int right) {
    int me = shmem_my_pe(), n = 0, ours = -1, cur = -1;
    if (hip_count(&n) || n < 2 || hip_get(&ours)) {
        printf("PE %d: one HIP device: another current device is not checked\n", me);
        return;
    }
    int other = (ours + 1) % n;
    CHECK(hip_set(other) == 0, "hipSetDevice to another device");
    shmem_long_put(dsym + N, loc, N, me); /* a GPU-to-GPU copy (loc holds val(me, i, 3)) */
    CHECK(hip_get(&cur) == 0 && cur == other, "the application's device is no longer current after a put");
    shmem_long_get(loc + N / 2, dsym, N / 2, right);
    CHECK(hip_get(&cur) == 0 && cur == other, "the application's device is no longer current after a get");
    CHECK(hip_set(ours) == 0, "hipSetDevice back");
    check_sym(dsym + N, N, me, 0, 3, "a put with another device current");
    shmem_long_put(dsym + N, loc + N / 2, N / 2, me);
    check_sym(dsym + N, N / 2, me, 0, 3, "a get with another device current");
}

/* the n longs of a local GPU buffer, through this PE's host symmetric object scr */
static const long *read_loc(long *scr, const long *loc, int n) {
    shmem_long_put(scr, loc, (size_t)n, shmem_my_pe());
    return scr;
}

/* The other routines the auxiliary specification lets local GPU memory into: strided puts from it and gets into it,
 * put-with-signal from it (signal in host and in GPU memory), and the fetch results of nonblocking AMOs. */
static void strided_signal_amo(long *sym, long *dsym, long *loc, int right, int left) {
    int me = shmem_my_pe(), k = N / 4;
    static long host[N];
    uint64_t *hsig = shmem_calloc(1, sizeof(uint64_t)), *dsig = shmemg_calloc(1, sizeof(uint64_t));
    long *ctr = shmemg_calloc(1, sizeof(long));
    REQUIRE(hsig && dsig && ctr, "signal and counter allocations");
    for (int i = 0; i < N; i++)
        host[i] = val(me, i, 4);
    shmem_long_put(sym, host, N, me);
    shmem_long_get(loc, sym, N, me);
    shmem_barrier_all();

    /* iput: every third element of the local GPU buffer to every second of the neighbour's GPU object */
    shmem_long_iput(dsym, loc, 2, 3, (size_t)k, right);
    shmem_barrier_all();
    shmem_long_get(host, dsym, 2 * (size_t)k, me);
    for (int i = 0; i < k; i++)
        CHECK(host[2 * i] == val(left, 3 * i, 4), "iput from a local GPU buffer: element %d is %ld, expected %ld", i,
              host[2 * i], val(left, 3 * i, 4));
    shmem_barrier_all();
    /* iget: every second element of the neighbour's GPU object (what it just received) into every third here */
    shmem_long_iget(loc + 1, dsym, 3, 2, (size_t)k, right);
    const long *got = read_loc(sym, loc, N);
    for (int i = 0; i < k; i++)
        CHECK(got[1 + 3 * i] == val(me, 3 * i, 4), "iget into a local GPU buffer: element %d is %ld, expected %ld", i,
              got[1 + 3 * i], val(me, 3 * i, 4));
    shmem_barrier_all();
    /* ibput: blocks of 5 from the local GPU buffer, strided 7 there and 9 at the neighbour (host memory) */
    for (int i = 0; i < N; i++)
        host[i] = val(me, i, 5);
    shmem_long_put(sym, host, N, me);
    shmem_long_get(loc, sym, N, me);
    shmem_barrier_all();
    shmem_long_ibput(dsym, loc, 9, 7, 5, (size_t)k / 9, right);
    shmem_barrier_all();
    shmem_long_get(host, dsym, (size_t)N, me);
    for (int b = 0; b < k / 9; b++)
        for (int j = 0; j < 5; j++)
            CHECK(host[9 * b + j] == val(left, 7 * b + j, 5), "ibput from a local GPU buffer: block %d element %d", b,
                  j);
    shmem_barrier_all();

    /* put-with-signal from the local GPU buffer, the signal in host memory, then in GPU memory (nbi) */
    shmem_long_put_signal(dsym + N, loc, N, hsig, 1, SHMEM_SIGNAL_SET, right);
    shmem_signal_wait_until(hsig, SHMEM_CMP_EQ, 1);
    check_sym(dsym + N, N, left, 0, 5, "put_signal from a local GPU buffer (signal in host memory)");
    shmem_barrier_all();
    shmem_long_put_signal_nbi(dsym, loc + 16, N - 16, dsig, 3, SHMEM_SIGNAL_ADD, right);
    shmem_quiet();
    shmem_signal_wait_until(dsig, SHMEM_CMP_EQ, 3);
    check_sym(dsym, N - 16, left, 16, 5, "put_signal_nbi from a local GPU buffer (signal in GPU memory)");
    shmem_barrier_all();

    /* nonblocking fetching AMOs on the neighbour's GPU counter, their fetch results in the local GPU buffer */
    shmem_long_atomic_fetch_add_nbi(loc, ctr, 5, right);
    shmem_quiet();
    shmem_barrier_all();
    shmem_long_atomic_fetch_nbi(loc + 1, ctr, right);
    shmem_long_atomic_compare_swap_nbi(loc + 2, ctr, 5, 40, right);
    shmem_quiet();
    shmem_long_atomic_swap_nbi(loc + 3, ctr, 77, right);
    shmem_quiet();
    got = read_loc(sym, loc, 4);
    CHECK(got[0] == 0 && got[1] == 5 && got[2] == 5 && got[3] == 40,
          "fetch results in a local GPU buffer: %ld %ld %ld %ld, expected 0 5 5 40", got[0], got[1], got[2], got[3]);
    shmem_barrier_all();
    CHECK(shmem_long_g(ctr, me) == 77, "the GPU counter after the AMOs");
    shmem_barrier_all();
    shmem_free(ctr);
    shmem_free(dsig);
    shmem_free(hsig);
}

int main(void) {
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_SINGLE | SHMEM_DEVICE_HOST_INIT, &provided);
    if (!(provided & SHMEM_DEVICE_HOST_INIT))
        return ftest_skip("no GPU support: SHMEM_DEVICE_HOST_INIT was not provided (shmem_info says why)");
    void *lib = find_hip() ? NULL : dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    void *ctx = NULL;
    if (!hip_malloc &&
        (!lib || !(cu_init = (int (*)(unsigned))dlsym(lib, "cuInit")) ||
         !(cu_ctx_get = (int (*)(void **))dlsym(lib, "cuCtxGetCurrent")) ||
         !(cu_alloc = (int (*)(unsigned long long *, size_t))dlsym(lib, "cuMemAlloc_v2")) ||
         !(cu_free = (int (*)(unsigned long long))dlsym(lib, "cuMemFree_v2")) || cu_init(0) || cu_ctx_get(&ctx) ||
         !ctx) &&
        !find_ze())
        return ftest_skip(
            "no CUDA driver with a current context (or HIP runtime, or Level Zero loader) in this process (emulated "
            "GPU?)");
    if (ze_ctx)
        lib = NULL; /* no CUDA calls below */
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

    strided_signal_amo(sym, dsym, loc, right, left);

    /* mixed domains: a host source and a GPU source into one GPU-heap destination */
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

    /* another context of the application's current on this thread (as after cudaSetDevice to another GPU): the
     * library's copies still run, under its own context, and the application's is current again afterwards */
    int (*ctx_create)(void **, unsigned, int) =
        lib ? (int (*)(void **, unsigned, int))dlsym(lib, "cuCtxCreate_v2") : NULL;
    int (*ctx_destroy)(void *) = lib ? (int (*)(void *))dlsym(lib, "cuCtxDestroy_v2") : NULL;
    int (*ctx_set)(void *) = lib ? (int (*)(void *))dlsym(lib, "cuCtxSetCurrent") : NULL;
    void *other = NULL, *cur = NULL;
    if (hip_malloc) {
        hip_other_device(dsym, loc, right);
    } else if (ctx_create && ctx_destroy && ctx_set && ctx_create(&other, 0, 0) == 0 && other) {
        shmem_long_put(dsym + N, loc, N, me); /* a GPU-to-GPU copy (loc holds val(me, i, 3)) */
        CHECK(cu_ctx_get(&cur) == 0 && cur == other, "the application's context is no longer current after a put");
        shmem_long_get(loc + N / 2, dsym, N / 2, right);
        CHECK(cu_ctx_get(&cur) == 0 && cur == other, "the application's context is no longer current after a get");
        CHECK(ctx_set(ctx) == 0, "cuCtxSetCurrent back to the first context");
        check_sym(dsym + N, N, me, 0, 3, "a put under another context of the application's");
        shmem_long_put(dsym + N, loc + N / 2, N / 2, me);
        /* the right neighbour's dsym holds what this PE put there (val(me, i, 3)) */
        check_sym(dsym + N, N / 2, me, 0, 3, "a get under another context of the application's");
        ctx_destroy(other);
        CHECK(ctx_set(ctx) == 0, "cuCtxSetCurrent back to the first context");
    } else if (!ze_ctx) {
        printf("PE %d: no second context (cuCtxCreate_v2): that part is not checked\n", me);
    }
    shmem_barrier_all();

    /* a local buffer freed, and another allocated (maybe at the same address): the kind cache must not go stale */
    CHECK(dev_free(loc) == 0, "cuMemFree, hipFree or zeMemFree");
    long *loc2 = dev_alloc(2 * N * sizeof(long));
    REQUIRE(loc2, "cuMemAlloc of a second buffer");
    shmem_long_get(loc2 + N, dsym, N, right);
    shmem_long_put(dsym + N, loc2 + N, N, me);
    check_sym(dsym + N, N, me, 0, 3, "a second local GPU buffer (after a free)");
    shmem_barrier_all();
    dev_free(loc2);
    shmem_free(dsym);
    shmem_free(sym);
    return ftest_finish("gpu_local");
}

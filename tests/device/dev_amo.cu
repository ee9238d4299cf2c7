/* dev_amo.cu - the functional suite's atomics from kernels: every operation on a type of each category (standard:
 * int, long long, size_t; extended: float, double for fetch/set/swap; bitwise: unsigned, uint64_t), with ctx forms;
 * the bitwise operations on the standard AMO types the host's bitwise AMOs lack (int, long, long long, size_t,
 * ptrdiff_t: the GPU auxiliary specification has them), every form; fetch-add tickets from every thread of several
 * blocks on every PE (all distinct); a compare-and-swap lock guarding a plain counter; the nonblocking fetching forms
 * completed by a quiet. */
#include "dev_common.h"

#define BLOCKS 3
#define THREADS 64

struct objs {
    int *i;
    long long *ll;
    size_t *sz;
    float *f;
    double *d;
    unsigned *u;
    uint64_t *u64;
    long *tickets_counter;
    long *tickets; /* [n_pes * BLOCKS * THREADS] on PE 0 */
    int *lock, *guarded;
    long *fetched; /* nbi results */
};

__global__ void k_each(objs o, int *fails) {
    int me = shmemg_my_pe(), np = shmemg_n_pes(), right = (me + 1) % np;
    if (threadIdx.x != 0 || blockIdx.x != 0)
        return;
    /* standard: on the right neighbour's objects, which only this PE touches */
    shmemg_int_atomic_set(o.i, 5, right);
    DCHECK(shmemg_int_atomic_fetch(o.i, right) == 5, "int set/fetch");
    shmemg_int_atomic_add(o.i, 3, right);
    DCHECK(shmemg_int_atomic_fetch_add(o.i, 2, right) == 8, "int add, fetch_add");
    shmemg_int_atomic_inc(o.i, right);
    DCHECK(shmemg_int_atomic_fetch_inc(o.i, right) == 11, "int inc, fetch_inc");
    DCHECK(shmemg_int_atomic_swap(o.i, -4, right) == 12, "int swap");
    DCHECK(shmemg_int_atomic_compare_swap(o.i, 99, 1, right) == -4, "int cswap (no match)");
    DCHECK(shmemg_ctx_int_atomic_compare_swap(SHMEM_DEVICE_CTX_DEFAULT, o.i, -4, 1, right) == -4, "int cswap");
    DCHECK(shmemg_int_atomic_fetch(o.i, right) == 1, "int after cswap");
    shmemg_longlong_atomic_set(o.ll, 1ll << 40, right);
    DCHECK(shmemg_longlong_atomic_fetch_add(o.ll, -(1ll << 40) - 7, right) == 1ll << 40, "long long fetch_add");
    DCHECK(shmemg_ctx_longlong_atomic_fetch(SHMEM_DEVICE_CTX_DEFAULT, o.ll, right) == -7, "long long negative");
    shmemg_size_atomic_set(o.sz, (size_t)3 << 33, right);
    DCHECK(shmemg_size_atomic_fetch_inc(o.sz, right) == (size_t)3 << 33, "size_t");
    /* extended: bit moves of float and double */
    shmemg_float_atomic_set(o.f, 2.5f, right);
    DCHECK(shmemg_float_atomic_swap(o.f, -1.25f, right) == 2.5f, "float swap");
    DCHECK(shmemg_float_atomic_fetch(o.f, right) == -1.25f, "float fetch");
    shmemg_ctx_double_atomic_set(SHMEM_DEVICE_CTX_DEFAULT, o.d, 1e300, right);
    DCHECK(shmemg_double_atomic_swap(o.d, 3.0, right) == 1e300, "double swap");
    DCHECK(shmemg_double_atomic_fetch(o.d, right) == 3.0, "double fetch");
    /* bitwise */
    shmemg_uint_atomic_set(o.u, 0xf0f0u, right);
    shmemg_fence(); /* two non-fetching atomics may land in either order without one */
    shmemg_uint_atomic_and(o.u, 0xff00u, right);
    DCHECK(shmemg_uint_atomic_fetch_or(o.u, 0x000fu, right) == 0xf000u, "uint and, fetch_or");
    shmemg_uint_atomic_or(o.u, 0x0100u, right);
    DCHECK(shmemg_uint_atomic_fetch_xor(o.u, 0xffffu, right) == 0xf10fu, "uint or, fetch_xor");
    DCHECK(shmemg_uint_atomic_fetch_and(o.u, 0x0ff0u, right) == 0x0ef0u, "uint fetch_and");
    shmemg_uint64_atomic_set(o.u64, ~0ull, right);
    shmemg_fence();
    shmemg_uint64_atomic_xor(o.u64, 0xffull << 56, right);
    DCHECK(shmemg_ctx_uint64_atomic_fetch_and(SHMEM_DEVICE_CTX_DEFAULT, o.u64, 1ull << 55, right) == ~0ull >> 8,
           "uint64 xor, fetch_and");
    DCHECK(shmemg_uint64_atomic_fetch(o.u64, right) == 1ull << 55, "uint64 after and");
    /* nonblocking fetching forms: results land by the quiet; those on one object are ordered by fences */
    shmemg_long_atomic_fetch_nbi(&o.fetched[0], o.tickets_counter, 0);
    shmemg_int_atomic_fetch_add_nbi((int *)&o.fetched[1], o.i, 10, right);
    shmemg_fence();
    shmemg_int_atomic_swap_nbi((int *)&o.fetched[2], o.i, 77, right);
    shmemg_fence();
    shmemg_int_atomic_compare_swap_nbi((int *)&o.fetched[3], o.i, 77, 78, right);
    shmemg_uint_atomic_fetch_xor_nbi((unsigned *)&o.fetched[4], o.u, 1u, right);
    shmemg_quiet();
    DCHECK(*(int *)&o.fetched[1] == 1 && *(int *)&o.fetched[2] == 11 && *(int *)&o.fetched[3] == 77 &&
               *(unsigned *)&o.fetched[4] == 0x0ef0u,
           "nbi fetches: %d %d %d %#x", *(int *)&o.fetched[1], *(int *)&o.fetched[2], *(int *)&o.fetched[3],
           *(unsigned *)&o.fetched[4]);
    DCHECK(shmemg_int_atomic_fetch(o.i, right) == 78, "int after the nbi ones");
}

/* bit patterns with the sign bit and both halves of a 64-bit word in play */
template <class T> __device__ T pat(int k) {
    uint64_t u = 0x9e3779b97f4a7c15ull * (uint64_t)(2 * k + 1);
    return (T)(u ^ (u >> 29));
}
/* the nine bitwise routines of type TN, then their context forms on context c, on o (the right neighbour's object,
 * which only this PE touches); f takes the nbi forms' results */
#define BITWISE_SUITE(TN, T)                                                                                           \
    __device__ void bitwise_##TN(T *o, T *f, int pe, shmem_ctx_t c, int *fails) {                                      \
        T v = pat<T>(0);                                                                                               \
        shmemg_##TN##_atomic_set(o, v, pe);                                                                            \
        shmemg_fence();                                                                                                \
        shmemg_##TN##_atomic_and(o, pat<T>(1), pe);                                                                    \
        shmemg_fence();                                                                                                \
        shmemg_##TN##_atomic_or(o, pat<T>(2), pe);                                                                     \
        shmemg_fence();                                                                                                \
        shmemg_##TN##_atomic_xor(o, pat<T>(3), pe);                                                                    \
        shmemg_fence();                                                                                                \
        v = (T)(((v & pat<T>(1)) | pat<T>(2)) ^ pat<T>(3));                                                            \
        T got = shmemg_##TN##_atomic_fetch_and(o, pat<T>(4), pe);                                                      \
        DCHECK(got == v, #TN " and, or, xor: %llx, expected %llx", (unsigned long long)got, (unsigned long long)v);    \
        v = (T)(v & pat<T>(4));                                                                                        \
        got = shmemg_##TN##_atomic_fetch_or(o, pat<T>(5), pe);                                                         \
        DCHECK(got == v, #TN " fetch_and: %llx, expected %llx", (unsigned long long)got, (unsigned long long)v);       \
        v = (T)(v | pat<T>(5));                                                                                        \
        got = shmemg_##TN##_atomic_fetch_xor(o, pat<T>(6), pe);                                                        \
        DCHECK(got == v, #TN " fetch_or: %llx, expected %llx", (unsigned long long)got, (unsigned long long)v);        \
        v = (T)(v ^ pat<T>(6));                                                                                        \
        shmemg_##TN##_atomic_fetch_and_nbi(f, o, pat<T>(7), pe);                                                       \
        shmemg_quiet();                                                                                                \
        DCHECK(*f == v, #TN " fetch_xor, fetch_and_nbi: %llx, expected %llx", (unsigned long long)*f,                  \
               (unsigned long long)v);                                                                                 \
        v = (T)(v & pat<T>(7));                                                                                        \
        shmemg_##TN##_atomic_fetch_or_nbi(f, o, pat<T>(8), pe);                                                        \
        shmemg_quiet();                                                                                                \
        DCHECK(*f == v, #TN " fetch_or_nbi: %llx, expected %llx", (unsigned long long)*f, (unsigned long long)v);      \
        v = (T)(v | pat<T>(8));                                                                                        \
        shmemg_##TN##_atomic_fetch_xor_nbi(f, o, pat<T>(9), pe);                                                       \
        shmemg_quiet();                                                                                                \
        DCHECK(*f == v, #TN " fetch_xor_nbi: %llx, expected %llx", (unsigned long long)*f, (unsigned long long)v);     \
        v = (T)(v ^ pat<T>(9));                                                                                        \
        got = shmemg_##TN##_atomic_fetch(o, pe);                                                                       \
        DCHECK(got == v, #TN " after fetch_xor_nbi: %llx, expected %llx", (unsigned long long)got,                     \
               (unsigned long long)v);                                                                                 \
        v = pat<T>(10);                                                                                                \
        shmemg_ctx_##TN##_atomic_set(c, o, v, pe);                                                                     \
        shmemg_ctx_fence(c);                                                                                           \
        shmemg_ctx_##TN##_atomic_and(c, o, pat<T>(11), pe);                                                            \
        shmemg_ctx_fence(c);                                                                                           \
        shmemg_ctx_##TN##_atomic_or(c, o, pat<T>(12), pe);                                                             \
        shmemg_ctx_fence(c);                                                                                           \
        shmemg_ctx_##TN##_atomic_xor(c, o, pat<T>(13), pe);                                                            \
        shmemg_ctx_fence(c);                                                                                           \
        v = (T)(((v & pat<T>(11)) | pat<T>(12)) ^ pat<T>(13));                                                         \
        got = shmemg_ctx_##TN##_atomic_fetch_and(c, o, pat<T>(14), pe);                                                \
        DCHECK(got == v, "ctx " #TN " and, or, xor: %llx, expected %llx", (unsigned long long)got,                     \
               (unsigned long long)v);                                                                                 \
        v = (T)(v & pat<T>(14));                                                                                       \
        got = shmemg_ctx_##TN##_atomic_fetch_or(c, o, pat<T>(15), pe);                                                 \
        DCHECK(got == v, "ctx " #TN " fetch_and: %llx, expected %llx", (unsigned long long)got,                        \
               (unsigned long long)v);                                                                                 \
        v = (T)(v | pat<T>(15));                                                                                       \
        got = shmemg_ctx_##TN##_atomic_fetch_xor(c, o, pat<T>(16), pe);                                                \
        DCHECK(got == v, "ctx " #TN " fetch_or: %llx, expected %llx", (unsigned long long)got, (unsigned long long)v); \
        v = (T)(v ^ pat<T>(16));                                                                                       \
        shmemg_ctx_##TN##_atomic_fetch_and_nbi(c, f, o, pat<T>(17), pe);                                               \
        shmemg_ctx_quiet(c);                                                                                           \
        DCHECK(*f == v, "ctx " #TN " fetch_xor, fetch_and_nbi: %llx, expected %llx", (unsigned long long)*f,           \
               (unsigned long long)v);                                                                                 \
        v = (T)(v & pat<T>(17));                                                                                       \
        shmemg_ctx_##TN##_atomic_fetch_or_nbi(c, f, o, pat<T>(18), pe);                                                \
        shmemg_ctx_quiet(c);                                                                                           \
        DCHECK(*f == v, "ctx " #TN " fetch_or_nbi: %llx, expected %llx", (unsigned long long)*f,                       \
               (unsigned long long)v);                                                                                 \
        v = (T)(v | pat<T>(18));                                                                                       \
        shmemg_ctx_##TN##_atomic_fetch_xor_nbi(c, f, o, pat<T>(19), pe);                                               \
        shmemg_ctx_quiet(c);                                                                                           \
        DCHECK(*f == v, "ctx " #TN " fetch_xor_nbi: %llx, expected %llx", (unsigned long long)*f,                      \
               (unsigned long long)v);                                                                                 \
        v = (T)(v ^ pat<T>(19));                                                                                       \
        got = shmemg_ctx_##TN##_atomic_fetch(c, o, pe);                                                                \
        DCHECK(got == v, "ctx " #TN " after fetch_xor_nbi: %llx, expected %llx", (unsigned long long)got,              \
               (unsigned long long)v);                                                                                 \
    }
BITWISE_SUITE(int, int)
BITWISE_SUITE(long, long)
BITWISE_SUITE(longlong, long long)
BITWISE_SUITE(size, size_t)
BITWISE_SUITE(ptrdiff, ptrdiff_t)
#undef BITWISE_SUITE

/* one word per type on every PE: [0] the object, [1] the nbi forms' results */
struct bw_objs {
    int *i;
    long *l;
    long long *ll;
    size_t *sz;
    ptrdiff_t *pd;
};
__global__ void k_bitwise(bw_objs o, shmem_ctx_t c, int *fails) {
    int right = (shmemg_my_pe() + 1) % shmemg_n_pes();
    if (threadIdx.x != 0)
        return;
    bitwise_int(o.i, o.i + 1, right, c, fails);
    bitwise_long(o.l, o.l + 1, right, c, fails);
    bitwise_longlong(o.ll, o.ll + 1, right, c, fails);
    bitwise_size(o.sz, o.sz + 1, right, c, fails);
    bitwise_ptrdiff(o.pd, o.pd + 1, right, c, fails);
}

/* every thread of every block takes a ticket from PE 0, and does a locked increment there */
__global__ void k_contend(objs o, int *fails) {
    int me = shmemg_my_pe();
    long t = shmemg_long_atomic_fetch_add(o.tickets_counter, 1, 0);
    long n = (long)shmemg_n_pes() * BLOCKS * THREADS;
    DCHECK(t >= 0 && t < n, "ticket %ld out of 0..%ld", t, n - 1);
    if (t >= 0 && t < n)
        shmemg_long_p(&o.tickets[t], 1 + me * 100000 + blockIdx.x * 1000 + threadIdx.x, 0);
    if (threadIdx.x % 16 == 0) { /* a lock on PE 0 between some threads of every PE */
        while (shmemg_int_atomic_compare_swap(o.lock, 0, 1, 0) != 0)
            ;
        int v = shmemg_int_g(o.guarded, 0);
        shmemg_int_p(o.guarded, v + 1, 0);
        shmemg_quiet(); /* the update is done before the lock is free */
        shmemg_int_atomic_set(o.lock, 0, 0);
    }
    shmemg_quiet();
}

int main() {
    dev_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    objs o;
    o.i = (int *)shmemg_calloc(1, sizeof(int));
    o.ll = (long long *)shmemg_calloc(1, sizeof(long long));
    o.sz = (size_t *)shmemg_calloc(1, sizeof(size_t));
    o.f = (float *)shmemg_calloc(1, sizeof(float));
    o.d = (double *)shmemg_calloc(1, sizeof(double));
    o.u = (unsigned *)shmemg_calloc(1, sizeof(unsigned));
    o.u64 = (uint64_t *)shmemg_calloc(1, sizeof(uint64_t));
    o.tickets_counter = (long *)shmemg_calloc(1, sizeof(long));
    o.tickets = (long *)shmemg_calloc((size_t)np * BLOCKS * THREADS, sizeof(long));
    o.lock = (int *)shmemg_calloc(1, sizeof(int));
    o.guarded = (int *)shmemg_calloc(1, sizeof(int));
    o.fetched = (long *)shmemg_calloc(8, sizeof(long));
    k_each<<<1, 32>>>(o, dev_fail);
    dev_check("k_each");
    shmem_barrier_all();
    bw_objs b;
    b.i = (int *)shmemg_calloc(2, sizeof(int));
    b.l = (long *)shmemg_calloc(2, sizeof(long));
    b.ll = (long long *)shmemg_calloc(2, sizeof(long long));
    b.sz = (size_t *)shmemg_calloc(2, sizeof(size_t));
    b.pd = (ptrdiff_t *)shmemg_calloc(2, sizeof(ptrdiff_t));
    shmem_ctx_t bctx;
    HCHECK(shmem_ctx_create(SHMEM_DEVICE_CTX, &bctx) == 0, "shmem_ctx_create(SHMEM_DEVICE_CTX) failed");
    k_bitwise<<<1, 32>>>(b, bctx, dev_fail);
    dev_check("k_bitwise");
    shmem_barrier_all();
    shmem_ctx_destroy(bctx);
    cudaMemset(o.tickets_counter, 0, sizeof(long));
    shmem_barrier_all();
    k_contend<<<BLOCKS, THREADS>>>(o, dev_fail);
    dev_check("k_contend");
    shmem_barrier_all();
    if (me == 0) {
        long n = (long)np * BLOCKS * THREADS, cnt = 0;
        long *t = (long *)malloc(n * sizeof(long));
        cudaMemcpy(t, o.tickets, n * sizeof(long), cudaMemcpyDeviceToHost);
        cudaMemcpy(&cnt, o.tickets_counter, sizeof cnt, cudaMemcpyDeviceToHost);
        HCHECK(cnt == n, "ticket counter %ld, expected %ld", cnt, n);
        for (long k = 0; k < n; k++)
            HCHECK(t[k] != 0, "ticket %ld was never taken (or taken twice elsewhere)", k);
        int g = 0;
        cudaMemcpy(&g, o.guarded, sizeof g, cudaMemcpyDeviceToHost);
        HCHECK(g == np * BLOCKS * (THREADS / 16), "locked counter %d, expected %d", g, np * BLOCKS * (THREADS / 16));
        free(t);
        printf("dev_amo: ok (%d PEs)\n", np);
    }
    shmem_finalize();
    return 0;
}

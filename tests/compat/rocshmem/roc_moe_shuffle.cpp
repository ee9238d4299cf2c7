/* roc_moe_shuffle.cpp - an MoE token shuffle as rocSHMEM programs write it: per-expert counts exchanged by a work-group
 * alltoall, then every work-group sends its tokens to the experts' PEs (put with signal, or put + fence + atomic add). */
#include "roc_common.h"

#define EXPERTS 2 /* experts per PE */
#define TOKENS 45 /* tokens per PE */
#define DIM 24    /* ints per token */
#define GROUPS 3  /* work-groups that send */

/* the router: which of the n * EXPERTS experts token t of PE p goes to (uneven on purpose, some experts get none) */
__host__ __device__ static int route(int p, int t, int n) { return (int)((p * 7u + t * t * 13u + t) % (n * EXPERTS)); }
__host__ __device__ static int token_val(int p, int t, int j) { return p * 1000000 + t * 1000 + j; }

/* counts[q * EXPERTS + e]: tokens this PE sends to expert e of PE q; the alltoall gives recv[p * EXPERTS + e]: tokens
 * PE p sends to this PE's expert e */
__global__ void exchange_counts(long *counts, long *recv, rocshmem_team_t team, int *fails) {
    rocshmem_wg_init();
    int me = rocshmem_my_pe(), n = rocshmem_n_pes();
    for (int i = (int)threadIdx.x; i < n * EXPERTS; i += (int)blockDim.x) {
        long c = 0;
        for (int t = 0; t < TOKENS; t++)
            c += route(me, t, n) == i;
        counts[i] = c;
    }
    __syncthreads();
    rocshmem_ctx_long_wg_alltoall(ROCSHMEM_CTX_DEFAULT, team, recv, counts, EXPERTS);
    for (int i = (int)threadIdx.x; i < n * EXPERTS; i += (int)blockDim.x) {
        long c = 0;
        for (int t = 0; t < TOKENS; t++)
            c += route(i / EXPERTS, t, n) == me * EXPERTS + i % EXPERTS;
        DCHECK(recv[i] == c, "count from PE %d for expert %d: %ld, expected %ld", i / EXPERTS, i % EXPERTS, recv[i], c);
    }
    rocshmem_wg_finalize();
}

/* slot (e, p, k): the k-th token PE p sends to this PE's expert e; sig[e * n + p] counts the ones that arrived */
__device__ static int *slot(int *inbox, int e, int p, int k, int n) { return inbox + ((e * n + p) * TOKENS + k) * DIM; }

/* work-group g sends tokens g, g + GROUPS, ...: even ones with a put with signal, odd ones with a put, a fence and an
 * atomic add on the same signal (the two ways rocSHMEM programs announce data) */
__global__ void dispatch(int *tokens, int *inbox, uint64_t *sig) {
    rocshmem_wg_init();
    rocshmem_ctx_t ctx;
    int me = rocshmem_my_pe(), n = rocshmem_n_pes();
    int have = rocshmem_wg_ctx_create(0, &ctx) == 0;
    if (!have)
        ctx = ROCSHMEM_CTX_DEFAULT;
    for (int t = (int)blockIdx.x; t < TOKENS; t += (int)gridDim.x) {
        int x = route(me, t, n), q = x / EXPERTS, e = x % EXPERTS, k = 0;
        for (int u = 0; u < t; u++)
            k += route(me, u, n) == x;
        int *src = tokens + t * DIM, *dst = slot(inbox, e, me, k, n);
        uint64_t *s = sig + e * n + me;
        if (t % 2 == 0) {
            rocshmem_ctx_int_put_signal_wg(ctx, dst, src, DIM, s, 1, ROCSHMEM_SIGNAL_ADD, q);
        } else {
            rocshmem_ctx_int_put_wg(ctx, dst, src, DIM, q);
            if (threadIdx.x == 0) {
                rocshmem_ctx_fence(ctx);
                rocshmem_ctx_uint64_atomic_add(ctx, s, 1, q);
            }
            __syncthreads();
        }
    }
    rocshmem_ctx_quiet(ctx);
    if (have)
        rocshmem_wg_ctx_destroy(&ctx);
    rocshmem_wg_finalize();
}

/* work-group g waits for the (expert, source PE) pairs g, g + GROUPS, ... to have all their tokens, and checks each */
__global__ void receive(int *inbox, uint64_t *sig, const long *recv, int *fails) {
    rocshmem_wg_init();
    int me = rocshmem_my_pe(), n = rocshmem_n_pes();
    for (int i = (int)blockIdx.x; i < EXPERTS * n; i += (int)gridDim.x) {
        int e = i / n, p = i % n;
        long want = recv[p * EXPERTS + e];
        if (threadIdx.x == 0)
            rocshmem_ulong_wait_until((unsigned long *)(sig + i), ROCSHMEM_CMP_GE, (unsigned long)want);
        __syncthreads();
        if (threadIdx.x == 0)
            DCHECK(rocshmem_signal_fetch(sig + i) == (uint64_t)want, "expert %d from PE %d: signal %lu, %ld tokens", e,
                   p, (unsigned long)rocshmem_signal_fetch(sig + i), want);
        int k = 0;
        for (int t = 0; t < TOKENS; t++) {
            if (route(p, t, n) != me * EXPERTS + e)
                continue;
            for (int j = (int)threadIdx.x; j < DIM; j += (int)blockDim.x)
                DCHECK(slot(inbox, e, p, k, n)[j] == token_val(p, t, j), "expert %d slot %d from PE %d [%d] = %d", e,
                       k, p, j, slot(inbox, e, p, k, n)[j]);
            k++;
        }
        /* the slots past the count stay as they were */
        for (int j = (int)threadIdx.x; j < (TOKENS - k) * DIM; j += (int)blockDim.x)
            DCHECK(slot(inbox, e, p, k, n)[j] == -1, "expert %d from PE %d: unused slot written", e, p);
    }
    rocshmem_wg_finalize();
}

int main() {
    rocshmem_init();
    int me = rocshmem_my_pe(), n = rocshmem_n_pes();
    int *fails = roc_fails();
    long *counts = (long *)rocshmem_malloc(n * EXPERTS * sizeof(long));
    long *recv = (long *)rocshmem_malloc(n * EXPERTS * sizeof(long));
    int *tokens = (int *)rocshmem_malloc(TOKENS * DIM * sizeof(int));
    size_t inbox_bytes = (size_t)EXPERTS * n * TOKENS * DIM * sizeof(int);
    int *inbox = (int *)rocshmem_malloc(inbox_bytes);
    uint64_t *sig = (uint64_t *)rocshmem_malloc(EXPERTS * n * sizeof(uint64_t));
    int *host = (int *)malloc(TOKENS * DIM * sizeof(int));
    for (int t = 0; t < TOKENS; t++)
        for (int j = 0; j < DIM; j++)
            host[t * DIM + j] = token_val(me, t, j);
    HIPOK(hipMemcpy(tokens, host, TOKENS * DIM * sizeof(int), hipMemcpyHostToDevice));
    HIPOK(hipMemset(inbox, 0xff, inbox_bytes));
    HIPOK(hipMemset(sig, 0, EXPERTS * n * sizeof(uint64_t)));
    rocshmem_barrier_all();
    hipLaunchKernelGGL(exchange_counts, dim3(1), dim3(64), 0, 0, counts, recv, ROCSHMEM_TEAM_WORLD, fails);
    HIPOK(hipGetLastError());
    HIPOK(hipDeviceSynchronize());
    hipLaunchKernelGGL(dispatch, dim3(GROUPS), dim3(64), 0, 0, tokens, inbox, sig);
    HIPOK(hipGetLastError());
    hipLaunchKernelGGL(receive, dim3(GROUPS), dim3(64), 0, 0, inbox, sig, recv, fails);
    HIPOK(hipGetLastError());
    HIPOK(hipDeviceSynchronize());
    rocshmem_barrier_all();
    free(host);
    rocshmem_free(sig);
    rocshmem_free(inbox);
    rocshmem_free(tokens);
    rocshmem_free(recv);
    rocshmem_free(counts);
    return roc_finish("roc_moe_shuffle", fails);
}

/* dev_fullgpu.cu - a kernel that holds every SM (a grid of one block per SM, every block resident, all but one
 * spinning) and waits for atomics, barriers and a put with signal to and from its node's peers: nothing it asks of
 * the library may need a free SM, since none comes free until it ends. Under the CPU emulation the SMs are
 * SHMEM_EMU_SMS, and a kernel the library launches itself waits for one of them; on a GPU the grid is the SM count
 * times the blocks an SM holds. PEs pair up (0-1, 2-3, ...) on one node: run where pairs map each other's GPU heap
 * (shared memory; pretend nodes of two; SHMEM_DEVICE_PROXY_ALL, which sends puts through the proxy). */
#include "dev_common.h"

struct objs {
    long *ctr;      /* the pair's atomics land here */
    long *data;     /* put with signal */
    uint64_t *sig;
    long *src;
    int *go;        /* device memory: block 0 lets the others go */
};

__global__ void k_fill(objs o, int peer, int *fails) {
    if (blockIdx.x != 0) { /* the other SMs' blocks: resident, busy, until block 0 is done */
        if (threadIdx.x == 0)
            while (!*(volatile int *)o.go)
                __nanosleep(1000);
        __syncthreads();
        return;
    }
    if (threadIdx.x == 0) {
        long old = shmemg_long_atomic_fetch_add(o.ctr, 1, peer);
        DCHECK(old == 0 || old == 1, "fetch_add returned %ld", old);
        shmemg_long_atomic_add(o.ctr, 10, peer);
        shmemg_quiet();
        shmemg_long_wait_until(o.ctr, SHMEM_CMP_EQ, 11); /* the peer's two */
        shmemg_team_sync(SHMEM_DEVICE_TEAM_SHARED);
        o.src[0] = 42;
        shmemg_putmem_signal(o.data, o.src, sizeof(long), o.sig, 1, SHMEM_SIGNAL_ADD, peer);
        shmemg_signal_wait_until(o.sig, SHMEM_CMP_EQ, 1);
        DCHECK(*(volatile long *)o.data == 42, "put with signal: %ld", *(volatile long *)o.data);
        shmemg_team_sync(SHMEM_DEVICE_TEAM_SHARED);
        *(volatile int *)o.go = 1;
    }
    __syncthreads();
}

int main() {
    dev_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    if (np % 2) {
        if (me == 0)
            printf("dev_fullgpu: needs an even number of PEs\n");
        shmem_finalize();
        return 1;
    }
    int sms = 0, per_sm = 1;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
#ifndef GSHMEM_EMULATE_GPU
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_fill, 64, 0);
#endif
    objs o;
    o.ctr = (long *)shmemg_calloc(1, sizeof(long));
    o.data = (long *)shmemg_calloc(1, sizeof(long));
    o.sig = (uint64_t *)shmemg_calloc(1, sizeof(uint64_t));
    o.src = (long *)shmemg_calloc(1, sizeof(long));
    cudaMalloc((void **)&o.go, sizeof(int));
    cudaMemset(o.go, 0, sizeof(int));
    shmem_barrier_all();
    k_fill<<<sms * per_sm, 64>>>(o, me ^ 1, dev_fail);
    dev_check("dev_fullgpu");
    shmem_barrier_all();
    if (me == 0)
        printf("dev_fullgpu: ok (%d PEs, a grid of %d blocks on %d SMs)\n", np, sms * per_sm, sms);
    cudaFree(o.go);
    shmem_finalize();
    return 0;
}

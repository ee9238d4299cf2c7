/* dev_finalize.cu - kernels still running when their PE's host reaches shmem_finalize: finalize waits for them, its
 * proxy serving them meanwhile (late), or, for one that never ends, reports it in one line and ends the job (stuck).
 * Usage: dev_finalize late|stuck. Each PE prints "PE <me> job <id>" first, so the test can look for what it left. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <shmem.h>
#include <shmemg.h>
#include <unistd.h>

/* late: PE 0's kernel starts after its host paused, so the others' kernels are still waiting for it when their hosts
 * are long in shmem_finalize; they then make device calls (an atomic on PE 0, a quiet) and PE 0's waits for them */
__global__ void k_late(long *flag, long *ack, int *out) {
    if (threadIdx.x != 0)
        return;
    int me = shmemg_my_pe(), n = shmemg_n_pes();
    if (me == 0) {
        for (int pe = 1; pe < n; pe++)
            shmemg_long_p(flag, 1, pe);
        shmemg_long_wait_until(ack, SHMEM_CMP_EQ, n - 1);
    } else {
        shmemg_long_wait_until(flag, SHMEM_CMP_EQ, 1);
        shmemg_long_atomic_add(ack, 1, 0);
        shmemg_quiet();
    }
    *out = 1;
}

/* stuck: the last PE's kernel waits for a value nobody sends */
__global__ void k_stuck(long *flag) {
    if (threadIdx.x == 0 && shmemg_my_pe() == shmemg_n_pes() - 1)
        shmemg_long_wait_until(flag, SHMEM_CMP_EQ, 1);
}

int main(int argc, char **argv) {
    int late = argc > 1 && !strcmp(argv[1], "late"), stuck = argc > 1 && !strcmp(argv[1], "stuck");
    if (!late && !stuck) {
        fprintf(stderr, "usage: dev_finalize late|stuck\n");
        return 2;
    }
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE | SHMEM_DEVICE_KERNEL_INIT, &provided);
    int me = shmem_my_pe();
    if (!(provided & SHMEM_DEVICE_KERNEL_INIT)) {
#ifdef GSHMEM_EMULATE_GPU
        printf("FAIL PE %d: SHMEM_DEVICE_KERNEL_INIT not provided on the emulated GPU\n", me);
        shmem_global_exit(1);
#else
        if (me == 0)
            printf("SKIP: no kernel-side communication here (no GPU)\n");
        shmem_finalize();
        return 77;
#endif
    }
    const char *job = getenv("GSHMEM_JOBID");
    printf("PE %d job %s\n", me, job ? job : "?");
    fflush(stdout);
    long *flag = (long *)shmemg_calloc(2, sizeof(long));
    int *out;
    cudaMalloc(&out, sizeof(int)); /* (not the library's memory: still there after finalize) */
    cudaMemset(out, 0, sizeof(int));
    cudaStream_t s;
    cudaStreamCreate(&s);
    shmem_barrier_all();
    if (late) {
        if (me == 0)
            usleep(300000);
        k_late<<<1, 32, 0, s>>>(flag, flag + 1, out);
    } else {
        k_stuck<<<1, 32, 0, s>>>(flag);
    }
    shmem_finalize(); /* the kernel has not been waited for: finalize must */
    if (stuck) {
        printf("FAIL PE %d: shmem_finalize returned while a kernel waited for ever\n", me);
        return 1;
    }
    cudaStreamSynchronize(s);
    int o = 0;
    cudaMemcpy(&o, out, sizeof o, cudaMemcpyDeviceToHost);
    if (o != 1) {
        printf("FAIL PE %d: the kernel did not finish its work (out = %d)\n", me, o);
        return 1;
    }
    printf("PE %d: dev_finalize %s: ok\n", me, argv[1]);
    return 0;
}

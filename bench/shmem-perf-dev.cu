/* shmem-perf-dev.cu - shmem-perf's device-initiated mode: gshmem's shmemg_* from kernels on PE 0 against PE 1 (p, put,
 * get, fetch-add, the p and put-with-signal ping-pongs, fetch-add rate, warp and block put bandwidth) and the host's
 * shmemx_putmem_on_stream, measured by bench/devbench.cuh exactly as nvshmem/nvshmem-perf-dev.cu measures NVSHMEM and
 * gpu-floor --mode dev measures raw stores through CUDA IPC. Built with nvcc for a GPU (bench/CMakeLists.txt), and for
 * the CPU emulation, where it is a smoke test: CPU numbers, not GPU ones.
 * Usage: oshrun -np 2 shmem-perf-dev [--quick] [--iters N] [--reps R] [--max BYTES] [--only FIG,...] [--json FILE] */
#include <shmem.h>
#include <shmemg.h>
#include <shmemx.h>

#include "devbench.cuh"

struct gshmem_ops {
    static __device__ void p(long *d, long v, int pe) { shmemg_long_p(d, v, pe); }
    static __device__ void quiet() { shmemg_quiet(); }
    static __device__ void put(char *d, const char *s, size_t n, int pe) { shmemg_putmem(d, s, n, pe); }
    static __device__ void get(char *d, const char *s, size_t n, int pe) { shmemg_getmem(d, s, n, pe); }
    static __device__ long fadd(long *d, long v, int pe) { return shmemg_long_atomic_fetch_add(d, v, pe); }
    static __device__ void wait_ge(long *f, long v) { shmemg_long_wait_until(f, SHMEM_CMP_GE, v); }
    static __device__ void put_signal(char *d, const char *s, size_t n, uint64_t *sig, uint64_t v, int pe) {
        shmemg_putmem_signal(d, s, n, sig, v, SHMEM_SIGNAL_SET, pe);
    }
    static __device__ void sig_wait_ge(uint64_t *sig, uint64_t v) { shmemg_signal_wait_until(sig, SHMEM_CMP_GE, v); }
    static __device__ void put_nbi_block(char *d, const char *s, size_t n, int pe) {
        shmemg_putmem_nbi_tg(d, s, n, pe);
    }
    static __device__ void put_nbi_warp(char *d, const char *s, size_t n, int pe) {
        shmemg_putmem_nbi_htg(d, s, n, pe);
    }
    static __device__ void quiet_block() { shmemg_quiet_tg(); }
    static __device__ void quiet_warp() { shmemg_quiet_htg(); }
};

struct gshmem_host : devbench::host_if {
    long *shared; /* host symmetric: the count PE 0 broadcasts */
    void barrier() override { shmem_barrier_all(); }
    long share(long v) override {
        if (me == 0)
            for (int pe = 0; pe < npes; pe++)
                shmem_long_p(shared, v, pe);
        shmem_barrier_all(); /* (completes the puts) */
        return *shared;
    }
    void put_on_stream(void *d, const void *s, size_t n, int pe, cudaStream_t st) override {
        shmemx_putmem_on_stream(d, s, n, pe, st); /* (includes the quiet) */
    }
};

int main(int argc, char **argv) {
    devbench::opts o;
    if (devbench::parse(argc, argv, o, "oshrun -np 2 shmem-perf-dev"))
        return 2;
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE | SHMEM_DEVICE_KERNEL_INIT, &provided);
    if (!(provided & SHMEM_DEVICE_KERNEL_INIT)) {
        if (shmem_my_pe() == 0)
            printf("SKIP: no kernel-side communication here (no GPU)\n");
        shmem_finalize();
        return 77;
    }
    gshmem_host h;
    h.me = shmem_my_pe();
    h.npes = shmem_n_pes();
    if (h.npes < 2) {
        if (h.me == 0)
            fprintf(stderr, "shmem-perf-dev needs 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    h.shared = (long *)shmem_malloc(sizeof(long));
    devbench::dev_sym s;
    s.half = devbench::buf_half(o);
    s.flag = (long *)shmemg_calloc(1, devbench::flag_bytes);
    s.sig = (uint64_t *)shmemg_calloc(1, devbench::sig_bytes);
    s.buf = (char *)shmemg_calloc(2, s.half);
    if (!s.flag || !s.sig || !s.buf || !h.shared) {
        fprintf(stderr, "shmem-perf-dev: PE %d: no room for %zu bytes in the GPU heap (SHMEM_SYMMETRIC_SIZE_DEVICE)\n",
                h.me, 2 * s.half);
        shmem_global_exit(1);
    }
#ifdef GSHMEM_EMULATE_GPU
    h.device = "the CPU emulation (CPU times, not GPU ones)";
#else
    static cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    h.device = prop.name;
#endif
    static char impl[SHMEM_MAX_NAME_LEN];
    shmem_info_get_name(impl);
    h.impl = impl;
    devbench::run_all<gshmem_ops>(h, s, o);
    shmemg_free(s.buf);
    shmemg_free(s.sig);
    shmemg_free(s.flag);
    shmem_free(h.shared);
    shmem_finalize();
    return 0;
}

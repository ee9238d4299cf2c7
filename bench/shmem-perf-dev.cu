/* shmem-perf-dev.cu - shmem-perf's device-initiated mode: kernels on PE 0 against PE 1. `p` latency (p + quiet),
 * one-way latency of a p + wait_until ping-pong and of a put-with-signal ping-pong, put bandwidth per granularity
 * (thread, warp, block) and size, fetch-add rate from many threads, and the latency of shmemx_putmem_on_stream; beside
 * each, the floor: the same done by raw stores and copies through the peer's mapped address (shmemg_ptr), what CUDA
 * IPC gives. Times come from CUDA events around kernels that loop (a kernel launch is not counted per operation).
 * Built for a GPU with nvcc (bench/CMakeLists.txt), and for the CPU emulation, where it is a smoke test: CPU numbers,
 * not GPU ones.  Usage: oshrun -np 2 shmem-perf-dev [--quick] [--max BYTES] [--iters N] */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <shmem.h>
#include <shmemg.h>
#include <shmemx.h>

static long iters = 2000;
static size_t max_bytes = (size_t)1 << 20;

__global__ void k_p(long *dst, int peer, long n, int raw) {
    long *p = (long *)shmemg_ptr(dst, peer);
    for (long i = 0; i < n; i++) {
        if (raw && p) {
            *(volatile long *)p = i;
            __threadfence_system();
        } else {
            shmemg_long_p(dst, i, peer);
            shmemg_quiet();
        }
    }
}

/* ping-pong: PE 0 sends i, PE 1 answers i; each waits for the other's */
__global__ void k_pingpong(long *flag, int me, long n, int raw) {
    int peer = 1 - me;
    long *p = (long *)shmemg_ptr(flag, peer);
    for (long i = 1; i <= n; i++) {
        if (me == 0) {
            if (raw && p) {
                *(volatile long *)p = i;
                __threadfence_system();
                while (*(volatile long *)flag < i)
                    ;
            } else {
                shmemg_long_p(flag, i, peer);
                shmemg_long_wait_until(flag, SHMEM_CMP_GE, i);
            }
        } else {
            if (raw && p) {
                while (*(volatile long *)flag < i)
                    ;
                *(volatile long *)p = i;
                __threadfence_system();
            } else {
                shmemg_long_wait_until(flag, SHMEM_CMP_GE, i);
                shmemg_long_p(flag, i, peer);
            }
        }
    }
}

__global__ void k_sigpong(char *buf, uint64_t *sig, int me, size_t bytes, long n) {
    if (threadIdx.x != 0)
        return;
    int peer = 1 - me;
    for (long i = 1; i <= n; i++) {
        if (me == 0) {
            shmemg_putmem_signal(buf, buf + bytes, bytes, sig, (uint64_t)i, SHMEM_SIGNAL_SET, peer);
            shmemg_signal_wait_until(sig, SHMEM_CMP_GE, (uint64_t)i);
        } else {
            shmemg_signal_wait_until(sig, SHMEM_CMP_GE, (uint64_t)i);
            shmemg_putmem_signal(buf, buf + bytes, bytes, sig, (uint64_t)i, SHMEM_SIGNAL_SET, peer);
        }
    }
}

/* gran 0 thread, 1 warp, 2 block; raw: a copy loop through the mapped address, spread the same way */
__global__ void k_put(char *dst, const char *src, size_t bytes, int peer, long n, int gran, int raw) {
    char *p = (char *)shmemg_ptr(dst, peer);
    unsigned rank = gran == 2 ? threadIdx.x : threadIdx.x % 32, size = gran == 2 ? blockDim.x : 32;
    if (gran == 0 && threadIdx.x != 0)
        return;
    if (gran == 1 && threadIdx.x >= 32)
        return;
    if (gran == 0)
        size = 1;
    for (long i = 0; i < n; i++) {
        if (raw && p) {
            const uint4 *s = (const uint4 *)src;
            uint4 *d = (uint4 *)p;
            for (size_t k = rank; k < bytes / 16; k += size)
                d[k] = s[k];
        } else if (gran == 0) {
            shmemg_putmem_nbi(dst, src, bytes, peer);
        } else if (gran == 1) {
            shmemg_putmem_nbi_htg(dst, src, bytes, peer);
        } else {
            shmemg_putmem_nbi_tg(dst, src, bytes, peer);
        }
    }
    if (gran == 2)
        shmemg_quiet_tg();
    else if (gran == 1)
        shmemg_quiet_htg();
    else
        shmemg_quiet();
}

__global__ void k_fadd(long *ctr, int peer, long n) {
    for (long i = 0; i < n; i++)
        shmemg_long_atomic_fetch_add(ctr, 1, peer);
}

static double timed(void (*launch)(void *), void *arg) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a, 0);
    launch(arg);
    cudaEventRecord(b, 0);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms * 1e3; /* microseconds */
}

struct ctx {
    long *l;
    char *buf;
    uint64_t *sig;
    int me;
    long n;
    size_t bytes;
    int gran, raw;
};
static void run_p(void *v) {
    ctx *c = (ctx *)v;
    k_p<<<1, 1>>>(c->l, 1, c->n, c->raw);
}
static void run_pingpong(void *v) {
    ctx *c = (ctx *)v;
    k_pingpong<<<1, 1>>>(c->l + 1, c->me, c->n, c->raw);
}
static void run_sigpong(void *v) {
    ctx *c = (ctx *)v;
    k_sigpong<<<1, 32>>>(c->buf, c->sig, c->me, c->bytes, c->n);
}
static void run_put(void *v) {
    ctx *c = (ctx *)v;
    k_put<<<1, 256>>>(c->buf, c->buf + max_bytes, c->bytes, 1, c->n, c->gran, c->raw);
}
static void run_fadd(void *v) {
    ctx *c = (ctx *)v;
    k_fadd<<<4, 64>>>(c->l + 2, 1, c->n);
}

int main(int argc, char **argv) {
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--max") && i + 1 < argc)
            max_bytes = strtoull(argv[++i], nullptr, 0);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            iters = atol(argv[++i]);
        else {
            fprintf(stderr, "usage: oshrun -np 2 shmem-perf-dev [--quick] [--max BYTES] [--iters N]\n");
            return 2;
        }
    }
    if (quick) {
        iters = 20;
        if (max_bytes > 65536)
            max_bytes = 65536;
    }
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE | SHMEM_DEVICE_KERNEL_INIT, &provided);
    if (!(provided & SHMEM_DEVICE_KERNEL_INIT)) {
        if (shmem_my_pe() == 0)
            printf("SKIP: no kernel-side communication here (no GPU)\n");
        shmem_finalize();
        return 77;
    }
    int me = shmem_my_pe();
    if (shmem_n_pes() < 2) {
        if (me == 0)
            printf("shmem-perf-dev needs 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    ctx c = {};
    c.l = (long *)shmemg_calloc(8, sizeof(long));
    c.buf = (char *)shmemg_calloc(2 * max_bytes, 1);
    c.sig = (uint64_t *)shmemg_calloc(1, sizeof(uint64_t));
    c.me = me;
#ifdef GSHMEM_EMULATE_GPU
    const char *where = "the CPU emulation (CPU times, not GPU ones)";
#else
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    const char *where = prop.name;
#endif
    if (me == 0)
        printf("# shmem-perf-dev: device-initiated, PE 0 -> PE 1, %s; floor = raw stores/copies through the mapped "
               "address\n",
               where);
    /* latency: p + quiet, and the two ping-pongs; both PEs run the ping-pongs */
    for (int raw = 0; raw < 2; raw++) {
        shmem_barrier_all();
        c.n = iters;
        c.raw = raw;
        double t = me == 0 ? timed(run_p, &c) : 0;
        shmem_barrier_all();
        cudaMemset(c.l, 0, 8 * sizeof(long));
        shmem_barrier_all();
        double tp = timed(run_pingpong, &c);
        if (me == 0)
            printf("%-26s %10.3f us   %-26s %10.3f us (one way)\n", raw ? "raw store+fence" : "p + quiet", t / iters,
                   raw ? "raw store ping-pong" : "p+wait_until ping-pong", tp / iters / 2);
    }
    for (size_t b = 8; b <= 4096 && b <= max_bytes; b *= 8) {
        cudaMemset(c.sig, 0, sizeof(uint64_t));
        shmem_barrier_all();
        c.bytes = b;
        c.n = iters;
        double t = timed(run_sigpong, &c);
        if (me == 0)
            printf("signal ping-pong %7zu B %10.3f us (one way)\n", b, t / iters / 2);
    }
    /* bandwidth per granularity against the raw copy */
    if (me == 0)
        printf("%10s %12s %12s %12s %12s   (GB/s)\n", "bytes", "thread", "warp", "block", "raw block copy");
    for (size_t b = 16; b <= max_bytes; b *= 4) {
        double gbs[4];
        for (int k = 0; k < 4; k++) {
            shmem_barrier_all();
            c.bytes = b;
            c.gran = k == 3 ? 2 : k;
            c.raw = k == 3;
            c.n = iters / 10 > 5 ? iters / 10 : 5;
            double t = me == 0 ? timed(run_put, &c) : 1;
            gbs[k] = (double)b * c.n / t / 1e3;
        }
        if (me == 0)
            printf("%10zu %12.3f %12.3f %12.3f %12.3f\n", b, gbs[0], gbs[1], gbs[2], gbs[3]);
    }
    /* fetch-add rate: 4 blocks x 64 threads */
    shmem_barrier_all();
    c.n = iters / 20 > 2 ? iters / 20 : 2;
    double t = me == 0 ? timed(run_fadd, &c) : 1;
    if (me == 0)
        printf("fetch-add rate (256 threads) %10.3f Mops/s\n", 256.0 * c.n / t);
    /* on-stream put latency: put_on_stream + stream synchronize, from the host */
    shmem_barrier_all();
    if (me == 0) {
        cudaStream_t s;
        cudaStreamCreate(&s);
        long n = iters / 10 > 5 ? iters / 10 : 5;
        cudaEvent_t a, e;
        cudaEventCreate(&a);
        cudaEventCreate(&e);
        cudaEventRecord(a, s);
        for (long i = 0; i < n; i++) {
            shmemx_putmem_on_stream(c.buf, c.buf + max_bytes, 8, 1, s);
            cudaStreamSynchronize(s);
        }
        cudaEventRecord(e, s);
        cudaEventSynchronize(e);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, e);
        printf("putmem_on_stream 8 B + stream sync %10.3f us\n", ms * 1e3 / n);
        cudaStreamDestroy(s);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}

/* gpu-floor - what the GPU and the CUDA runtime alone do between two processes on one node: the floor that
 * shmem-perf-dev (device-initiated) and shmem-perf --src/--dst device (host-initiated) are judged against. No OpenSHMEM
 * here. Two processes (forked before CUDA starts) map each other's GPU buffers through CUDA IPC.
 *   --mode dev   bench/devbench.cuh's figures (as shmem-perf-dev and the NVSHMEM benchmark measure them) done with raw
 *                loads, stores (volatile, + __threadfence_system where the library quiets) and system-scope atomics
 *                through the mapping, copies spread over a warp or block in 16-byte words; the ping-pongs run on both
 *                processes; put_on_stream is a cudaMemcpyAsync into the mapped buffer + stream synchronize
 *   --mode copy  for each size (the floor of the H-D/D-H/D-D curves), by the parent into the child's mapped buffer:
 *     dd_lat  cudaMemcpy from its GPU buffer (one synchronous copy per iteration)
 *     dd_bw   a window of cudaMemcpyAsync, one stream synchronize (shmem-perf's put_bw window)
 *     hd_lat, hd_bw, dh_lat, dh_bw  the same between pinned host memory (cudaHostAlloc) and the mapped buffer
 *     hd_pageable_lat  from pageable (malloc) host memory
 *   --mode all   both (default)
 * Prints medians like shmem-perf; --json FILE: test, size, unit, median, min, max (and mem for copies).
 * usage: gpu-floor [--mode dev|copy|all] [--min B] [--max B] [--reps R] [--time S] [--json FILE] [--device N]
 *                  [--iters N] [--dev-max B] [--only FIG,...] [--quick] [--mps] */
#include <cuda_runtime.h>

#include <algorithm>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vector>

#include "devbench.cuh"

#define CK(x)                                                                                                          \
    do {                                                                                                               \
        cudaError_t e_ = (x);                                                                                          \
        if (e_ != cudaSuccess) {                                                                                       \
            fprintf(stderr, "gpu-floor: %s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__);                    \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

/* ---- the device floor: devbench's Ops as raw accesses to the peer's region, mapped at raw_peer ---- */

__device__ char *raw_mine, *raw_peer;
static char *host_mine, *host_peer;

template <class T> __device__ T *peer_of(T *p) { return (T *)(raw_peer + ((const char *)p - raw_mine)); }

/* spin, then back off (the other process may need the GPU to answer: without MPS the two take turns) */
template <class T> __device__ void spin_ge(const volatile T *f, T v) {
    unsigned ns = 0;
    for (int k = 0; *f < v; k++)
        if (k > 256) {
            ns = ns ? (ns < 1024 ? 2 * ns : ns) : 32;
            __nanosleep(ns);
        }
}

/* a thread's copy in 8-byte words (sizes are multiples of 8) */
__device__ void copy8(char *d, const char *s, size_t n) {
    for (size_t k = 0; k < n / 8; k++)
        ((volatile long *)d)[k] = ((const volatile long *)s)[k];
}

/* a group's copy in 16-byte words; the compiler barrier keeps repeated identical copies apart */
__device__ void copy16(char *d, const char *s, size_t n, unsigned rank, unsigned size) {
    for (size_t k = rank; k < n / 16; k += size)
        ((uint4 *)d)[k] = ((const uint4 *)s)[k];
    asm volatile("" ::: "memory");
}

struct raw_ops {
    static __device__ void p(long *d, long v, int) { *(volatile long *)peer_of(d) = v; }
    static __device__ void quiet() { __threadfence_system(); }
    static __device__ void put(char *d, const char *s, size_t n, int) { copy8(peer_of(d), s, n); }
    static __device__ void get(char *d, const char *s, size_t n, int) { copy8(d, peer_of(s), n); }
    static __device__ long fadd(long *d, long v, int) {
        return (long)atomicAdd_system((unsigned long long *)peer_of(d), (unsigned long long)v);
    }
    static __device__ void wait_ge(long *f, long v) { spin_ge((volatile long *)f, v); }
    static __device__ void put_signal(char *d, const char *s, size_t n, uint64_t *sig, uint64_t v, int) {
        copy8(peer_of(d), s, n);
        __threadfence_system();
        *(volatile uint64_t *)peer_of(sig) = v;
    }
    static __device__ void sig_wait_ge(uint64_t *sig, uint64_t v) { spin_ge((volatile uint64_t *)sig, v); }
    static __device__ void put_nbi_block(char *d, const char *s, size_t n, int) {
        copy16(peer_of(d), s, n, threadIdx.x, blockDim.x);
    }
    static __device__ void put_nbi_warp(char *d, const char *s, size_t n, int) {
        copy16(peer_of(d), s, n, threadIdx.x % 32, 32);
    }
    static __device__ void quiet_block() {
        __threadfence_system();
        __syncthreads();
    }
    static __device__ void quiet_warp() {
        __threadfence_system();
        __syncwarp();
    }
};

/* the two processes keep in step over the pipes that carried the IPC handles */
struct pipe_host : devbench::host_if {
    int rd, wr;
    void xfer(void *out, const void *in, size_t n) {
        if (in && write(wr, in, n) != (ssize_t)n) {
            perror("gpu-floor: write to the other process");
            exit(1);
        }
        if (out) {
            size_t got = 0;
            while (got < n) {
                ssize_t r = read(rd, (char *)out + got, n - got);
                if (r < 0 && errno == EINTR)
                    continue;
                if (r <= 0) {
                    fprintf(stderr, "gpu-floor: the other process is gone\n");
                    exit(1);
                }
                got += (size_t)r;
            }
        }
    }
    void barrier() override {
        char c = 'b', d;
        xfer(&d, &c, 1);
    }
    long share(long v) override {
        if (me == 0)
            xfer(nullptr, &v, sizeof v);
        else
            xfer(&v, nullptr, sizeof v);
        return v;
    }
    void put_on_stream(void *d, const void *s, size_t n, int, cudaStream_t st) override {
        CK(cudaMemcpyAsync(host_peer + ((char *)d - host_mine), s, n, cudaMemcpyDeviceToDevice, st));
    }
};

/* ---- the copy floor (parent only) ---- */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static size_t parse_size(const char *s) {
    char *end;
    double v = strtod(s, &end);
    if (*end == 'K' || *end == 'k')
        v *= 1024;
    else if (*end == 'M' || *end == 'm')
        v *= 1024 * 1024;
    else if (*end == 'G' || *end == 'g')
        v *= 1024.0 * 1024 * 1024;
    return (size_t)v;
}

static size_t window_for(size_t size) { /* shmem-perf's rule: 64 copies, at most 64 MiB per window */
    size_t w = 64;
    while (w > 1 && w * size > ((size_t)64 << 20))
        w /= 2;
    return w;
}

struct result {
    const char *test, *mem;
    size_t size;
    int bw;
    double median, min, max;
};
static std::vector<result> results;
static int reps = 5;
static double target = 0.02;
static cudaStream_t stream;

/* one timed body: n iterations (latency: n copies; bandwidth: n windows) */
static double run(void *dst, const void *src, size_t size, long n, int bw) {
    double t0 = now();
    if (bw) {
        size_t w = window_for(size);
        for (long i = 0; i < n; i++) {
            for (size_t j = 0; j < w; j++)
                CK(cudaMemcpyAsync(dst, src, size, cudaMemcpyDefault, stream));
            CK(cudaStreamSynchronize(stream));
        }
    } else {
        for (long i = 0; i < n; i++)
            CK(cudaMemcpy(dst, src, size, cudaMemcpyDefault));
    }
    return now() - t0;
}

static void measure(const char *test, const char *mem, void *dst, const void *src, size_t size, int bw) {
    long n = 4;
    run(dst, src, size, n, bw); /* warm up */
    while (n < (1L << 24)) {
        double t = run(dst, src, size, n, bw);
        if (t >= target)
            break;
        n = t > 0 ? std::max(2 * n, (long)(n * target / t * 1.2)) : 2 * n;
    }
    std::vector<double> v;
    for (int r = 0; r < reps; r++) {
        double t = run(dst, src, size, n, bw);
        v.push_back(bw ? (double)size * (double)window_for(size) * (double)n / t / 1e9 : t / (double)n * 1e6);
    }
    std::sort(v.begin(), v.end());
    result res = {test, mem, size, bw, v[v.size() / 2], v.front(), v.back()};
    results.push_back(res);
    printf("%-16s %-4s %10zu %12.3f %12.3f %12.3f  %s\n", test, mem, size, res.median, res.min, res.max,
           bw ? "GB/s" : "us");
    fflush(stdout);
}

struct child_msg {
    cudaIpcMemHandle_t dev, copy;
};

int main(int argc, char **argv) {
    size_t min = 8, max = (size_t)64 << 20;
    const char *json = NULL;
    int device = 0, do_dev = 1, do_copy = 1;
    devbench::opts o;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick")) {
            o.quick = 1;
            continue;
        }
        if (!strcmp(a, "--mps")) {
            o.mps = 1;
            continue;
        }
        if (!v)
            goto usage;
        if (!strcmp(a, "--mode")) {
            do_dev = !strcmp(v, "dev") || !strcmp(v, "all");
            do_copy = !strcmp(v, "copy") || !strcmp(v, "all");
            if (!do_dev && !do_copy)
                goto usage;
        } else if (!strcmp(a, "--min"))
            min = parse_size(v);
        else if (!strcmp(a, "--max"))
            max = parse_size(v);
        else if (!strcmp(a, "--reps"))
            reps = o.reps = atoi(v);
        else if (!strcmp(a, "--time"))
            target = atof(v);
        else if (!strcmp(a, "--json"))
            json = v;
        else if (!strcmp(a, "--device"))
            device = atoi(v);
        else if (!strcmp(a, "--iters"))
            o.iters = atol(v);
        else if (!strcmp(a, "--dev-max"))
            o.max_bw = parse_size(v);
        else if (!strcmp(a, "--only"))
            o.only = v;
        else
            goto usage;
        i++;
    }
    if (o.quick) {
        o.iters = std::min(o.iters, (long)20);
        o.reps = 1;
        o.max_bw = std::min(o.max_bw, (size_t)16384);
    }
    if (min < 1 || max < min || reps < 1 || o.iters < 1 || o.max_bw < 1024)
        goto usage;
    {
        int to_parent[2], to_child[2];
        if (pipe(to_parent) || pipe(to_child)) {
            perror("pipe");
            return 1;
        }
        size_t half = devbench::buf_half(o), region = devbench::flag_bytes + devbench::sig_bytes + 2 * half;
        pid_t pid = fork(); /* before any CUDA call: a CUDA context does not survive fork */
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        pipe_host h;
        h.npes = 2;
        h.me = pid == 0;
        h.rd = h.me ? to_child[0] : to_parent[0];
        h.wr = h.me ? to_parent[1] : to_child[1];
        close(h.me ? to_child[1] : to_parent[1]); /* so that a process that dies unblocks the other's read */
        close(h.me ? to_parent[0] : to_child[0]);
        void *mine = NULL, *peer = NULL, *copybuf = NULL;
        cudaIpcMemHandle_t mine_h;
        child_msg m;
        if (h.me) { /* the child owns the copy floor's destination; it answers first, so that without a GPU the
                       parent learns it before it touches CUDA itself */
            cudaError_t e = cudaSetDevice(device);
            if (e != cudaSuccess) {
                fprintf(stderr, "gpu-floor: no GPU: %s\n", cudaGetErrorString(e));
                _exit(77);
            }
            CK(cudaMalloc(&copybuf, do_copy ? max : 1));
            CK(cudaMalloc(&mine, region));
            CK(cudaMemset(mine, 0, region));
            CK(cudaIpcGetMemHandle(&m.dev, mine));
            CK(cudaIpcGetMemHandle(&m.copy, copybuf));
            h.xfer(NULL, &m, sizeof m);
            h.xfer(&mine_h, NULL, sizeof mine_h); /* the parent's region */
            CK(cudaIpcOpenMemHandle(&peer, mine_h, cudaIpcMemLazyEnablePeerAccess));
        } else {
            if (read(h.rd, &m, sizeof m) != (ssize_t)sizeof m) {
                int st = 0;
                waitpid(pid, &st, 0);
                if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
                    printf("SKIP: gpu-floor needs a CUDA GPU\n");
                    return 77;
                }
                fprintf(stderr, "gpu-floor: the other process failed to set up its GPU buffers\n");
                return 1;
            }
            CK(cudaSetDevice(device));
            CK(cudaMalloc(&mine, region));
            CK(cudaMemset(mine, 0, region));
            CK(cudaIpcGetMemHandle(&mine_h, mine));
            h.xfer(NULL, &mine_h, sizeof mine_h);
            CK(cudaIpcOpenMemHandle(&peer, m.dev, cudaIpcMemLazyEnablePeerAccess));
        }
        static cudaDeviceProp prop;
        CK(cudaGetDeviceProperties(&prop, device));
        static char devname[320];
        snprintf(devname, sizeof devname, "%s", prop.name);
        h.impl = "raw CUDA IPC (loads, stores, system atomics)";
        h.device = devname;
        std::vector<devbench::result> dev_rows;
        if (do_dev) {
            host_mine = (char *)mine;
            host_peer = (char *)peer;
            CK(cudaMemcpyToSymbol(raw_mine, &host_mine, sizeof host_mine));
            CK(cudaMemcpyToSymbol(raw_peer, &host_peer, sizeof host_peer));
            devbench::dev_sym s;
            s.flag = (long *)mine;
            s.sig = (uint64_t *)((char *)mine + devbench::flag_bytes);
            s.buf = (char *)mine + devbench::flag_bytes + devbench::sig_bytes;
            s.half = half;
            dev_rows = devbench::run_all<raw_ops>(h, s, o);
        }
        if (h.me) { /* wait until the parent is done with the mappings */
            char c;
            h.xfer(&c, NULL, 1);
            CK(cudaIpcCloseMemHandle(peer));
            CK(cudaFree(mine));
            CK(cudaFree(copybuf));
            _exit(0);
        }
        if (do_copy) {
            void *cpeer, *dsrc, *pinned, *pageable = malloc(max);
            CK(cudaIpcOpenMemHandle(&cpeer, m.copy, cudaIpcMemLazyEnablePeerAccess));
            CK(cudaMalloc(&dsrc, max));
            CK(cudaHostAlloc(&pinned, max, cudaHostAllocDefault));
            CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
            CK(cudaMemset(dsrc, 1, max));
            memset(pinned, 2, max);
            memset(pageable, 3, max);
            printf("# gpu-floor copies: %s, two processes, CUDA IPC; reps %d, >= %.0f ms per point\n", prop.name, reps,
                   target * 1e3);
            printf("%-16s %-4s %10s %12s %12s %12s  %s\n", "# test", "mem", "size", "median", "min", "max", "unit");
            for (int bw = 0; bw < 2; bw++)
                for (size_t s = min; s <= max; s *= 2) {
                    measure(bw ? "cuda_dd_bw" : "cuda_dd_lat", "D-D", cpeer, dsrc, s, bw);
                    measure(bw ? "cuda_hd_bw" : "cuda_hd_lat", "H-D", cpeer, pinned, s, bw);
                    measure(bw ? "cuda_dh_bw" : "cuda_dh_lat", "D-H", pinned, cpeer, s, bw);
                    if (!bw)
                        measure("cuda_hd_pageable_lat", "H-D", cpeer, pageable, s, 0);
                }
            CK(cudaIpcCloseMemHandle(cpeer));
        }
        if (json) {
            FILE *f = fopen(json, "w");
            if (f) {
                fprintf(f, "[\n");
                devbench::json_rows(f, dev_rows, h, o.mps, !results.empty());
                for (size_t i = 0; i < results.size(); i++) {
                    const result &r = results[i];
                    fprintf(f,
                            "  {\"test\": \"%s\", \"size\": %zu, \"unit\": \"%s\", \"median\": %.6g, \"min\": %.6g, "
                            "\"max\": %.6g, \"reps\": %d, \"mem\": \"%s\", \"impl\": \"CUDA runtime (%s)\"}%s\n",
                            r.test, r.size, r.bw ? "GB/s" : "us", r.median, r.min, r.max, reps, r.mem, prop.name,
                            i + 1 < results.size() ? "," : "");
                }
                fprintf(f, "]\n");
                fclose(f);
            } else {
                perror(json);
            }
        }
        CK(cudaIpcCloseMemHandle(peer));
        h.xfer(NULL, "x", 1);
        int st = 0;
        waitpid(pid, &st, 0);
        return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
    }
usage:
    fprintf(stderr, "usage: gpu-floor [--mode dev|copy|all] [--min B] [--max B] [--reps R] [--time S] [--json FILE] "
                    "[--device N] [--iters N] [--dev-max B] [--only FIG,...] [--quick] [--mps]\n");
    return 2;
}

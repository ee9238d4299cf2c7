/* gpu-floor - what the CUDA runtime alone does between two processes on one node: the floor shmem-perf's
 * --src/--dst device numbers are judged against (issue 5). No OpenSHMEM here. Two processes (forked before CUDA
 * starts); the child allocates a buffer on the GPU and hands its CUDA IPC handle to the parent over a pipe; the parent
 * times, for each size:
 *   dd_lat  cudaMemcpy from its GPU buffer into the child's IPC-mapped buffer (one synchronous copy per iteration)
 *   dd_bw   a window of cudaMemcpyAsync into the mapped buffer, one stream synchronize (shmem-perf's put_bw window)
 *   hd_lat, hd_bw, dh_lat, dh_bw  the same between pinned host memory (cudaHostAlloc) and the mapped buffer
 *   hd_pageable_lat  from pageable (malloc) host memory
 * and prints medians like shmem-perf (JSON with --json: test, size, unit, median, min, max, mem).
 * usage: gpu-floor [--min BYTES] [--max BYTES] [--reps R] [--time SECONDS] [--json FILE] [--device N] */
#include <cuda_runtime.h>

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vector>

#define CK(x)                                                                                                          \
    do {                                                                                                               \
        cudaError_t e_ = (x);                                                                                          \
        if (e_ != cudaSuccess) {                                                                                       \
            fprintf(stderr, "gpu-floor: %s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__);                  \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

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

int main(int argc, char **argv) {
    size_t min = 8, max = (size_t)64 << 20;
    const char *json = NULL;
    int device = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--min"))
            min = parse_size(argv[i + 1]);
        else if (!strcmp(argv[i], "--max"))
            max = parse_size(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--time"))
            target = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--json"))
            json = argv[i + 1];
        else if (!strcmp(argv[i], "--device"))
            device = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "usage: gpu-floor [--min B] [--max B] [--reps R] [--time S] [--json FILE] [--device N]\n");
            return 2;
        }
    }
    if (min < 1 || max < min || reps < 1) {
        fprintf(stderr, "gpu-floor: bad sizes or reps\n");
        return 2;
    }
    int to_parent[2], to_child[2];
    if (pipe(to_parent) || pipe(to_child)) {
        perror("pipe");
        return 1;
    }
    pid_t pid = fork(); /* before any CUDA call: a CUDA context does not survive fork */
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) { /* the peer: owns the destination buffer */
        close(to_parent[0]);
        close(to_child[1]);
        void *buf;
        cudaIpcMemHandle_t h;
        CK(cudaSetDevice(device));
        CK(cudaMalloc(&buf, max));
        CK(cudaIpcGetMemHandle(&h, buf));
        if (write(to_parent[1], &h, sizeof h) != (ssize_t)sizeof h)
            _exit(1);
        char c;
        if (read(to_child[0], &c, 1) != 1) /* the parent is done with the mapping */
            _exit(1);
        CK(cudaFree(buf));
        _exit(0);
    }
    close(to_parent[1]); /* so a peer that dies unblocks the read below */
    close(to_child[0]);
    cudaIpcMemHandle_t h;
    if (read(to_parent[0], &h, sizeof h) != (ssize_t)sizeof h) {
        fprintf(stderr, "gpu-floor: the peer process failed (no GPU?)\n");
        waitpid(pid, NULL, 0);
        return 77;
    }
    void *peer, *dsrc, *pinned, *pageable = malloc(max);
    CK(cudaSetDevice(device));
    CK(cudaIpcOpenMemHandle(&peer, h, cudaIpcMemLazyEnablePeerAccess));
    CK(cudaMalloc(&dsrc, max));
    CK(cudaHostAlloc(&pinned, max, cudaHostAllocDefault));
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CK(cudaMemset(dsrc, 1, max));
    memset(pinned, 2, max);
    memset(pageable, 3, max);
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, device));
    printf("# gpu-floor: %s, two processes, CUDA IPC; reps %d, >= %.0f ms per point\n", prop.name, reps, target * 1e3);
    printf("%-16s %-4s %10s %12s %12s %12s  %s\n", "# test", "mem", "size", "median", "min", "max", "unit");
    for (int bw = 0; bw < 2; bw++)
        for (size_t s = min; s <= max; s *= 2) {
            measure(bw ? "cuda_dd_bw" : "cuda_dd_lat", "D-D", peer, dsrc, s, bw);
            measure(bw ? "cuda_hd_bw" : "cuda_hd_lat", "H-D", peer, pinned, s, bw);
            measure(bw ? "cuda_dh_bw" : "cuda_dh_lat", "D-H", pinned, peer, s, bw);
            if (!bw)
                measure("cuda_hd_pageable_lat", "H-D", peer, pageable, s, 0);
        }
    if (json) {
        FILE *f = fopen(json, "w");
        if (f) {
            fprintf(f, "[\n");
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
        }
    }
    CK(cudaIpcCloseMemHandle(peer));
    if (write(to_child[1], "x", 1) != 1)
        perror("write");
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

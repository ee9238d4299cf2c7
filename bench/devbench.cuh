/* devbench.cuh - the device-initiated measurements that shmem-perf-dev.cu (gshmem), nvshmem/nvshmem-perf-dev.cu
 * (NVSHMEM) and gpu-floor.cu (raw loads and stores through a CUDA IPC mapping) share, so that their figures divide one
 * by one (bench/dev-ratio.py): the same kernels, sizes, iteration counts, repetitions and timing (CUDA events around
 * one launch of a kernel that loops; the launch is not counted per operation).
 *
 * A program supplies an Ops type (static __device__ functions: the library's or the raw operations) and a host_if
 * (barrier, broadcast of a count from PE 0, the host-initiated on-stream put), allocates a dev_sym in its symmetric
 * memory, and calls devbench::run_all<Ops>. PE 0 measures against PE 1; the ping-pongs run on both; other PEs wait. */
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

/* A kernel launch in this header: the emulation's rewriting of <<< >>> (tools/gshmem-emu-cu) reaches the .cu file that
 * includes it, not the header, so the header spells the rewritten form itself there */
#ifdef GSHMEM_EMULATE_GPU
#define DEVBENCH_LAUNCH(k, g, b, ...) (k) << ::gshmem_emu::cfg(g, b) << ::gshmem_emu::args(__VA_ARGS__)
#else
#define DEVBENCH_LAUNCH(k, g, b, ...) (k)<<<g, b>>>(__VA_ARGS__)
#endif

namespace devbench {

/* Symmetric objects, allocated in this order by every implementation on every PE (same offsets everywhere) */
struct dev_sym {
    long *flag;    /* 32 longs: [0] p target, [1] ping-pong flag, [2] fetch-add target, [3] fetch-add rate target */
    uint64_t *sig; /* 8 words: [0] the put-with-signal ping-pong's signal */
    char *buf;     /* 2 * half bytes: [0, half) remote target of puts and source of gets, [half, 2 half) local side */
    size_t half;
};
static const size_t flag_bytes = 32 * sizeof(long), sig_bytes = 8 * sizeof(uint64_t);

struct opts {
    long iters = 1000;          /* iterations per launch (latency; rates and bandwidth: fewer, run_all) */
    int reps = 5;               /* timed launches per point: median, min, max */
    size_t max_bw = 4u << 20;   /* largest put-bandwidth size (1 KiB to this, x4) */
    double rep_cap_s = 0.25;    /* a launch measured longer than this at the planned count gets fewer iterations */
    const char *only = nullptr; /* comma-separated figure names, or all */
    const char *json = nullptr; /* JSON output (PE 0) */
    int quick = 0;              /* CI smoke test: few iterations, one repetition, small sizes */
    int mps = 0;                /* said by the caller: the PEs are CUDA MPS clients (their kernels run at once; without
                                   MPS two processes take turns on the GPU, which the ping-pongs show) */
};

/* bytes of each half of dev_sym::buf for these options */
inline size_t buf_half(const opts &o) { return std::max(o.max_bw, (size_t)4096); }

/* ---- kernels: one per figure, each looping n times; Ops names the implementation ---- */

template <class Ops> __global__ void k_p(long *dst, int peer, long n) {
    for (long i = 0; i < n; i++) {
        Ops::p(dst, i, peer);
        Ops::quiet();
    }
}

template <class Ops> __global__ void k_put(char *dst, const char *src, size_t bytes, int peer, long n) {
    for (long i = 0; i < n; i++) {
        Ops::put(dst, src, bytes, peer);
        Ops::quiet();
    }
}

template <class Ops> __global__ void k_get(char *dst, const char *src, size_t bytes, int peer, long n) {
    for (long i = 0; i < n; i++)
        Ops::get(dst, src, bytes, peer);
}

/* fetch-add latency: each fetch waits for its value; the sum keeps the fetches from being dropped */
template <class Ops> __global__ void k_fadd(long *dst, long *sink, int peer, long n) {
    long s = 0;
    for (long i = 0; i < n; i++)
        s += Ops::fadd(dst, 1, peer);
    *sink = s;
}

/* fetch-add rate: every thread of the grid issues n */
template <class Ops> __global__ void k_fadd_rate(long *dst, long *sink, int peer, long n) {
    long s = 0;
    for (long i = 0; i < n; i++)
        s += Ops::fadd(dst, 1, peer);
    if (s == -1) /* never: keeps the fetched values live */
        *sink = s;
}

/* ping-pong: PE 0 sends i, PE 1 answers i; p without quiet, as the host ping-pong of shmem-perf */
template <class Ops> __global__ void k_pingpong(long *flag, int me, long n) {
    int peer = 1 - me;
    for (long i = 1; i <= n; i++) {
        if (me == 0) {
            Ops::p(flag, i, peer);
            Ops::wait_ge(flag, i);
        } else {
            Ops::wait_ge(flag, i);
            Ops::p(flag, i, peer);
        }
    }
}

template <class Ops>
__global__ void k_sigpong(char *dst, const char *src, size_t bytes, uint64_t *sig, int me, long n) {
    int peer = 1 - me;
    for (long i = 1; i <= n; i++) {
        if (me == 0) {
            Ops::put_signal(dst, src, bytes, sig, (uint64_t)i, peer);
            Ops::sig_wait_ge(sig, (uint64_t)i);
        } else {
            Ops::sig_wait_ge(sig, (uint64_t)i);
            Ops::put_signal(dst, src, bytes, sig, (uint64_t)i, peer);
        }
    }
}

/* put bandwidth: n non-blocking puts by the whole block (warp), then one quiet by the group */
template <class Ops> __global__ void k_put_bw_block(char *dst, const char *src, size_t bytes, int peer, long n) {
    for (long i = 0; i < n; i++)
        Ops::put_nbi_block(dst, src, bytes, peer);
    Ops::quiet_block();
}

template <class Ops> __global__ void k_put_bw_warp(char *dst, const char *src, size_t bytes, int peer, long n) {
    for (long i = 0; i < n; i++)
        Ops::put_nbi_warp(dst, src, bytes, peer);
    Ops::quiet_warp();
}

/* ---- host side ---- */

/* what a program supplies besides its Ops */
struct host_if {
    int me = 0, npes = 1;
    const char *impl = "", *device = "";
    virtual void barrier() = 0;
    virtual long share(long v) = 0; /* PE 0's v, on every PE */
    /* host-initiated put of bytes into dst on pe, complete at the target when the stream reaches its end */
    virtual void put_on_stream(void *dst, const void *src, size_t bytes, int pe, cudaStream_t s) = 0;
    virtual ~host_if() {}
};

struct result {
    const char *test, *unit;
    size_t size;
    double median, min, max;
    long iters;
    int reps;
};

/* JSON rows of results, `more` if rows follow in the same array; mps: the run was under CUDA MPS */
inline void json_rows(FILE *f, const std::vector<result> &rows, const host_if &h, int mps, bool more) {
    for (size_t i = 0; i < rows.size(); i++) {
        const result &r = rows[i];
        fprintf(f,
                "  {\"test\": \"%s\", \"size\": %zu, \"unit\": \"%s\", \"median\": %.6g, \"min\": %.6g, "
                "\"max\": %.6g, \"reps\": %d, \"iters\": %ld, \"npes\": %d, \"impl\": \"%s\", \"device\": \"%s\", "
                "\"mps\": %d}%s\n",
                r.test, r.size, r.unit, r.median, r.min, r.max, r.reps, r.iters, h.npes, h.impl, h.device, mps,
                i + 1 < rows.size() || more ? "," : "");
    }
}

inline void write_json(const char *path, const std::vector<result> &rows, const host_if &h, int mps) {
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    fprintf(f, "[\n");
    json_rows(f, rows, h, mps, false);
    fprintf(f, "]\n");
    fclose(f);
}

struct runner {
    host_if &h;
    const opts &o;
    std::vector<result> out;
    cudaEvent_t ev[2];

    runner(host_if &hi, const opts &op) : h(hi), o(op) {
        cudaEventCreate(&ev[0]);
        cudaEventCreate(&ev[1]);
    }
    ~runner() {
        cudaEventDestroy(ev[0]);
        cudaEventDestroy(ev[1]);
    }

    bool wanted(const char *name) const {
        if (!o.only || !*o.only)
            return true;
        size_t l = strlen(name);
        for (const char *p = o.only; *p;) {
            const char *e = strchr(p, ',');
            size_t k = e ? (size_t)(e - p) : strlen(p);
            if (k == l && !strncmp(p, name, l))
                return true;
            p += k + (e ? 1 : 0);
        }
        return false;
    }

    /* microseconds of one launch, CUDA events on the default stream around it */
    template <class F> double time_launch(F launch, long n) {
        cudaEventRecord(ev[0], 0);
        launch(n);
        cudaEventRecord(ev[1], 0);
        cudaEventSynchronize(ev[1]);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) {
            fprintf(stderr, "devbench: PE %d: a kernel failed: %s\n", h.me, cudaGetErrorString(e));
            exit(1);
        }
        float ms = 0;
        cudaEventElapsedTime(&ms, ev[0], ev[1]);
        return ms * 1e3;
    }

    /* One point. kind: 0 latency (us per iteration, /2 for a ping-pong), 1 GB/s of size bytes per iteration, 2 Mops/s
     * of `ops` operations per iteration. both: PE 1 launches too (ping-pongs). reset: run on every PE before each
     * launch, before the barrier that starts it. PE 0 plans the count: if its warm-up says a launch would outlast
     * rep_cap_s, fewer iterations (never under the warm-up's), broadcast so that both sides of a ping-pong agree. */
    template <class F, class R>
    void point(const char *test, size_t size, int kind, bool both, double scale, long n, F launch, R reset) {
        bool timer = h.me == 0 || (both && h.me == 1);
        long nw = std::min(n, (long)16);
        reset();
        h.barrier();
        double tw = timer ? time_launch(launch, nw) : 0;
        h.barrier();
        if (h.me == 0 && tw > 0 && tw / nw * n > o.rep_cap_s * 1e6)
            n = std::max(nw, (long)(o.rep_cap_s * 1e6 / (tw / nw)));
        n = h.share(n);
        std::vector<double> v;
        for (int r = 0; r < o.reps; r++) {
            reset();
            h.barrier();
            double t = timer ? time_launch(launch, n) : 0;
            h.barrier();
            if (t <= 0)
                t = 1e-3; /* (an emulated launch can read 0: keep the division finite) */
            if (kind == 0)
                v.push_back(t / n * scale);
            else if (kind == 1)
                v.push_back((double)size * n / t / 1e3);
            else
                v.push_back(scale * n / t);
        }
        if (h.me != 0)
            return;
        std::sort(v.begin(), v.end());
        const char *unit = kind == 0 ? "us" : kind == 1 ? "GB/s" : "Mops/s";
        result res = {test, unit, size, v[v.size() / 2], v.front(), v.back(), n, o.reps};
        out.push_back(res);
        if (o.json) /* (after every point: a library that aborts later leaves what it measured) */
            write_json(o.json, out, h, o.mps);
        printf("%-16s %9zu %12.3f %12.3f %12.3f %9ld  %s\n", test, size, res.median, res.min, res.max, n, unit);
        fflush(stdout);
    }
};

/* the plan: every figure with its sizes and counts (the same for every implementation); returns PE 0's results (and
 * writes them to opts::json there, after each point) */
template <class Ops> std::vector<result> run_all(host_if &h, const dev_sym &s, const opts &o) {
    runner R(h, o);
    const long n = o.iters;
    const int peer = 1, me = h.me;
    char *remote = s.buf, *local = s.buf + s.half;
    const bool pe0 = me == 0;
    auto none = [] {};
    static const size_t lat_sizes[] = {8, 64, 512, 4096};
    if (pe0) {
        printf("# devbench: %s on %s, PE 0 -> PE 1 of %d; %d reps, %ld iterations per launch (fewer where a launch "
               "would pass %.2f s)\n",
               h.impl, h.device, h.npes, o.reps, n, o.rep_cap_s);
        printf("%-16s %9s %12s %12s %12s %9s  %s\n", "# test", "size", "median", "min", "max", "iters", "unit");
        fflush(stdout);
    }
    if (R.wanted("p"))
        R.point(
            "p", 8, 0, false, 1, n, [&](long k) { DEVBENCH_LAUNCH(k_p<Ops>, 1, 1, s.flag, peer, k); }, none);
    if (R.wanted("put"))
        for (size_t b : lat_sizes)
            if (!o.quick || b <= 64)
                R.point(
                    "put", b, 0, false, 1, n,
                    [&](long k) { DEVBENCH_LAUNCH(k_put<Ops>, 1, 1, remote, local, b, peer, k); }, none);
    if (R.wanted("get"))
        for (size_t b : lat_sizes)
            if (!o.quick || b <= 64)
                R.point(
                    "get", b, 0, false, 1, n,
                    [&](long k) { DEVBENCH_LAUNCH(k_get<Ops>, 1, 1, local, remote, b, peer, k); }, none);
    if (R.wanted("fadd"))
        R.point(
            "fadd", 8, 0, false, 1, n,
            [&](long k) { DEVBENCH_LAUNCH(k_fadd<Ops>, 1, 1, s.flag + 2, s.flag + 8, peer, k); }, none);
    auto reset_flag = [&] {
        cudaMemset(s.flag + 1, 0, sizeof(long));
        cudaMemset(s.sig, 0, sizeof(uint64_t));
        cudaDeviceSynchronize();
    };
    if (R.wanted("pingpong"))
        R.point(
            "pingpong", 8, 0, true, 0.5, n,
            [&](long k) {
                if (me < 2)
                    DEVBENCH_LAUNCH(k_pingpong<Ops>, 1, 1, s.flag + 1, me, k);
            },
            reset_flag);
    if (R.wanted("sigpong"))
        for (size_t b : lat_sizes)
            if (!o.quick || b <= 64)
                R.point(
                    "sigpong", b, 0, true, 0.5, n,
                    [&](long k) {
                        if (me < 2)
                            DEVBENCH_LAUNCH(k_sigpong<Ops>, 1, 1, remote, local, b, s.sig, me, k);
                    },
                    reset_flag);
    const long nrate = std::max(n / 10, (long)2);
    if (R.wanted("fadd_rate")) /* 4 blocks of 64 threads */
        R.point(
            "fadd_rate", 8, 2, false, 256, nrate,
            [&](long k) { DEVBENCH_LAUNCH(k_fadd_rate<Ops>, 4, 64, s.flag + 3, s.flag + 9, peer, k); }, none);
    /* bandwidth: 1 KiB to max_bw (x4); up to 256 MiB a launch, at least 4 and at most iters puts */
    for (int g = 0; g < 2; g++) {
        const char *name = g ? "put_bw_block" : "put_bw_warp";
        if (!R.wanted(name))
            continue;
        for (size_t b = 1024; b <= o.max_bw; b *= 4) {
            long nb = std::max((long)4, std::min(n, (long)(((size_t)256 << 20) / b)));
            if (g)
                R.point(
                    name, b, 1, false, 1, nb,
                    [&](long k) { DEVBENCH_LAUNCH(k_put_bw_block<Ops>, 1, 256, remote, local, b, peer, k); }, none);
            else
                R.point(
                    name, b, 1, false, 1, nb,
                    [&](long k) { DEVBENCH_LAUNCH(k_put_bw_warp<Ops>, 1, 32, remote, local, b, peer, k); }, none);
        }
    }
    /* host-initiated: an 8-byte put on a stream, then a stream synchronize, per iteration */
    if (R.wanted("put_on_stream")) {
        cudaStream_t st;
        cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
        R.point(
            "put_on_stream", 8, 0, false, 1, nrate,
            [&](long k) {
                for (long i = 0; i < k; i++) {
                    h.put_on_stream(remote, local, 8, peer, st);
                    cudaStreamSynchronize(st);
                }
            },
            none);
        cudaStreamDestroy(st);
    }
    h.barrier();
    return R.out;
}

/* the shared command line: returns 0, or 2 after a usage message */
inline int parse(int argc, char **argv, opts &o, const char *prog) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : nullptr;
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
        if (!strcmp(a, "--iters"))
            o.iters = atol(v);
        else if (!strcmp(a, "--reps"))
            o.reps = atoi(v);
        else if (!strcmp(a, "--max"))
            o.max_bw = strtoull(v, nullptr, 0);
        else if (!strcmp(a, "--cap"))
            o.rep_cap_s = atof(v);
        else if (!strcmp(a, "--only"))
            o.only = v;
        else if (!strcmp(a, "--json"))
            o.json = v;
        else
            goto usage;
        i++;
    }
    if (o.quick) {
        o.iters = std::min(o.iters, (long)20);
        o.reps = 1;
        o.max_bw = std::min(o.max_bw, (size_t)16384);
    }
    if (o.iters < 1 || o.reps < 1 || o.max_bw < 1024 || o.rep_cap_s <= 0)
        goto usage;
    return 0;
usage:
    fprintf(stderr,
            "usage: %s [--quick] [--iters N] [--reps R] [--max BYTES] [--cap SECONDS] [--only FIG,...] [--json FILE] "
            "[--mps]\n"
            "  figures: p put get fadd pingpong sigpong fadd_rate put_bw_warp put_bw_block put_on_stream\n",
            prog);
    return 2;
}

} // namespace devbench

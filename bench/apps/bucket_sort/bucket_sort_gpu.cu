/* bucket_sort_gpu.cu - the GPU forms of the append-pattern bucket sort (HPE's GPU-aware OpenSHMEM paper): keys,
 * classification and the final radix sort on the GPU; the exchange staged through host memory (HA_*), straight
 * between GPU buffers by the host (GA_HI*), overlapped with streams (GA_HI_Stream) or from a kernel (GA_KI). One
 * source for nvcc and for gshmem's CPU emulation of CUDA (then the times are CPU times). See README.md. */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <shmem.h>
#include <shmemg.h>
#include <shmemx.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "app.h"
#include "bsort_common.h"

#define BS_THREADS 256 /* the sort kernels' block: 8 warps, one thread per digit */
#define BS_MAX_BLOCKS 256

enum { V_HA_HI, V_HA_HI_OMP, V_GA_HI, V_GA_HI_STREAM, V_GA_HI_OMP, V_GA_KI, V_COUNT };
static const char *vnames[V_COUNT] = {"HA_HI", "HA_HI_OMP", "GA_HI", "GA_HI_Stream", "GA_HI_OMP", "GA_KI"};

#define CK(call)                                                                                                       \
    do {                                                                                                               \
        cudaError_t e_ = (call);                                                                                       \
        if (e_ != cudaSuccess) {                                                                                       \
            fprintf(stderr, "bucket_sort_gpu PE %d: %s: %s\n", shmem_my_pe(), #call, cudaGetErrorString(e_));          \
            shmem_global_exit(1);                                                                                      \
        }                                                                                                              \
    } while (0)

/* ---- kernels ---- */

__global__ void k_gen(bs_key *keys, size_t n, uint64_t seed, int pe, uint64_t maxkey) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        keys[i] = bs_gen_key(seed, pe, i, maxkey);
}

/* classification, pass 1: block b counts the keys of its chunk per destination into cnt[dest * nb + b] */
__global__ void k_count(const bs_key *keys, size_t n, size_t chunk, int npes, uint64_t maxkey, unsigned *cnt) {
    extern __shared__ unsigned sh[];
    unsigned nb = gridDim.x, b = blockIdx.x;
    for (int p = threadIdx.x; p < npes; p += blockDim.x)
        sh[p] = 0;
    __syncthreads();
    size_t lo = b * chunk, hi = lo + chunk < n ? lo + chunk : n;
    for (size_t i = lo + threadIdx.x; i < hi; i += blockDim.x)
        atomicAdd(&sh[bs_bucket(keys[i], npes, maxkey)], 1u);
    __syncthreads();
    for (int p = threadIdx.x; p < npes; p += blockDim.x)
        cnt[(size_t)p * nb + b] = sh[p];
}

/* exclusive scan of a[0..total) in place by one block; with starts, also starts[j] = a[j * stride] (the first
 * entry of each group of stride) for j < total / stride, and starts[total / stride] = total */
__global__ void k_scan(unsigned *a, unsigned total, unsigned stride, unsigned *starts) {
    __shared__ unsigned part[BS_THREADS], sum;
    unsigned t = threadIdx.x, seg = (total + BS_THREADS - 1) / BS_THREADS;
    unsigned lo = t * seg < total ? t * seg : total, hi = lo + seg < total ? lo + seg : total;
    unsigned s = 0;
    for (unsigned i = lo; i < hi; i++)
        s += a[i];
    part[t] = s;
    __syncthreads();
    if (t == 0) {
        unsigned run = 0;
        for (int i = 0; i < BS_THREADS; i++) {
            unsigned v = part[i];
            part[i] = run;
            run += v;
        }
        sum = run;
    }
    __syncthreads();
    s = part[t];
    for (unsigned i = lo; i < hi; i++) {
        unsigned v = a[i];
        a[i] = s;
        s += v;
    }
    __syncthreads();
    if (starts && t == 0) {
        unsigned g = total / stride;
        for (unsigned j = 0; j < g; j++)
            starts[j] = a[(size_t)j * stride];
        starts[g] = sum;
    }
}

/* classification, pass 2: block b places its chunk's keys at its slots of each destination's slice of out */
__global__ void k_scatter_dest(const bs_key *keys, size_t n, size_t chunk, int npes, uint64_t maxkey,
                               const unsigned *off, bs_key *out) {
    extern __shared__ unsigned sh[];
    unsigned nb = gridDim.x, b = blockIdx.x;
    for (int p = threadIdx.x; p < npes; p += blockDim.x)
        sh[p] = off[(size_t)p * nb + b];
    __syncthreads();
    size_t lo = b * chunk, hi = lo + chunk < n ? lo + chunk : n;
    for (size_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
        bs_key k = keys[i];
        out[atomicAdd(&sh[bs_bucket(k, npes, maxkey)], 1u)] = k;
    }
}

/* radix sort, pass part 1: digit counts of block b's chunk into hist[digit * nb + b] */
__global__ void k_hist(const bs_key *in, size_t n, size_t chunk, int shift, unsigned *hist) {
    __shared__ unsigned c[256];
    unsigned nb = gridDim.x, b = blockIdx.x;
    c[threadIdx.x] = 0;
    __syncthreads();
    size_t lo = b * chunk, hi = lo + chunk < n ? lo + chunk : n;
    for (size_t i = lo + threadIdx.x; i < hi; i += blockDim.x)
        atomicAdd(&c[(in[i] >> shift) & 255], 1u);
    __syncthreads();
    hist[(size_t)threadIdx.x * nb + b] = c[threadIdx.x];
}

/* radix sort, pass part 2: a stable scatter, a tile of BS_TILE keys at a time. Each warp owns a contiguous eighth of
 * the tile, and its lane 0 ranks those keys per digit in order (serial: no votes, which the CPU emulation makes
 * costly, and few block barriers per key); a per-digit prefix over the 8 warps then gives each key its slot. */
#define BS_KPT 8 /* keys per thread per tile */
#define BS_TILE (BS_THREADS * BS_KPT)
__global__ void k_rscatter(const bs_key *in, bs_key *out, size_t n, size_t chunk, int shift, const unsigned *hist) {
    __shared__ unsigned base[256], wcnt[8][256], tile_total[256];
    __shared__ unsigned short sd[BS_TILE], srank[BS_TILE];
    unsigned nb = gridDim.x, b = blockIdx.x, t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const unsigned per_warp = BS_TILE / 8;
    base[t] = hist[(size_t)t * nb + b];
    size_t lo = b * chunk, hi = lo + chunk < n ? lo + chunk : n;
    for (size_t tile = lo; tile < hi; tile += BS_TILE) {
        unsigned m = hi - tile < BS_TILE ? (unsigned)(hi - tile) : BS_TILE;
        for (unsigned j = t; j < m; j += BS_THREADS)
            sd[j] = (unsigned short)((in[tile + j] >> shift) & 255);
        for (int w = 0; w < 8; w++)
            wcnt[w][t] = 0;
        __syncthreads();
        if (lane == 0) {
            unsigned j0 = warp * per_warp, j1 = j0 + per_warp < m ? j0 + per_warp : m;
            for (unsigned j = j0; j < j1; j++)
                srank[j] = (unsigned short)wcnt[warp][sd[j]]++;
        }
        __syncthreads();
        unsigned run = 0; /* thread t: digit t's prefix over the warps */
        for (int w = 0; w < 8; w++) {
            unsigned v = wcnt[w][t];
            wcnt[w][t] = run;
            run += v;
        }
        tile_total[t] = run;
        __syncthreads();
        for (unsigned j = t; j < m; j += BS_THREADS) {
            unsigned d = sd[j];
            out[base[d] + wcnt[j / per_warp][d] + srank[j]] = in[tile + j];
        }
        __syncthreads();
        base[t] += tile_total[t];
        __syncthreads();
    }
}

/* GA_KI: block p reserves room on destination p with a device fetch-add and puts its bucket there */
__global__ void k_append(const bs_key *send, const unsigned *starts, bs_key *recv, long *counter, size_t cap, int me,
                         int npes, unsigned long long *overflow) {
    __shared__ long off;
    int p = (me + 1 + (int)blockIdx.x) % npes;
    unsigned s = starts[p], c = starts[p + 1] - s;
    if (c == 0)
        return;
    if (threadIdx.x == 0) {
        off = shmemg_long_atomic_fetch_add(counter, (long)c, p);
        if ((size_t)off + c > cap) {
            atomicAdd(overflow, 1ull);
            off = -1;
        }
    }
    __syncthreads();
    if (off < 0)
        return;
    shmemg_putmem_nbi_tg(recv + off, send + s, c * sizeof(bs_key), p);
    shmemg_quiet_tg();
}

/* ---- the host side ---- */

struct gbs {
    int v, threads, chunks;
    size_t nkeys, cap;
    uint64_t maxkey;
    int passes, cls_nb, npes, me;
    bs_key *d_keys;  /* generated keys */
    bs_key *d_send;  /* keys by destination (GPU heap: kernels and on-stream puts may read it) */
    bs_key *d_recv;  /* GA: the receive table (GPU heap); HA: where the received keys are sorted */
    bs_key *d_tmp;   /* radix sort's other buffer */
    bs_key *d_out;   /* the sorted result (d_recv or d_tmp) */
    long *d_counter; /* GA: next free slot of d_recv (GPU heap) */
    unsigned *d_cnt, *d_starts, *d_hist;
    unsigned long long *d_overflow;
    bs_key *h_send;     /* HA: staging of d_send (page-locked) */
    bs_key *h_recv;     /* HA: the receive table (host heap) */
    long *h_counter;    /* HA: next free slot of h_recv (host heap) */
    unsigned *h_starts; /* page-locked: the destinations' slices of d_send */
    size_t nrecv;
    long overflow;
    cudaStream_t st, *pst; /* the work stream; per-destination streams (GA_HI_Stream) */
    cudaEvent_t *cev;      /* GA_HI_Stream: chunk c classified */
    struct bs_phases ph;
};

static size_t cdiv(size_t a, size_t b) { return (a + b - 1) / b; }

/* classify keys[0..n) into out, slices by destination; starts (device, npes + 1) gets the slices' first index */
static void classify(struct gbs *g, const bs_key *keys, size_t n, bs_key *out, unsigned *cnt, unsigned *starts,
                     cudaStream_t s) {
    int nb = g->cls_nb;
    size_t chunk = cdiv(n, (size_t)nb);
    size_t shm = (size_t)g->npes * sizeof(unsigned);
    k_count<<<nb, BS_THREADS, shm, s>>>(keys, n, chunk, g->npes, g->maxkey, cnt);
    k_scan<<<1, BS_THREADS, 0, s>>>(cnt, (unsigned)(g->npes * nb), (unsigned)nb, starts);
    k_scatter_dest<<<nb, BS_THREADS, shm, s>>>(keys, n, chunk, g->npes, g->maxkey, cnt, out);
}

/* radix sort of a[0..n) with tmp; returns the buffer holding the result */
static bs_key *gpu_sort(struct gbs *g, bs_key *a, bs_key *tmp, size_t n, cudaStream_t s) {
    if (n == 0)
        return a;
    int nb = (int)cdiv(n, (size_t)BS_TILE * 2);
    if (nb > BS_MAX_BLOCKS)
        nb = BS_MAX_BLOCKS;
    size_t chunk = cdiv(cdiv(n, (size_t)nb), BS_TILE) * BS_TILE;
    nb = (int)cdiv(n, chunk);
    for (int p = 0; p < g->passes; p++) {
        k_hist<<<nb, BS_THREADS, 0, s>>>(a, n, chunk, 8 * p, g->d_hist);
        k_scan<<<1, BS_THREADS, 0, s>>>(g->d_hist, (unsigned)(256 * nb), 1u, (unsigned *)0);
        k_rscatter<<<nb, BS_THREADS, 0, s>>>(a, tmp, n, chunk, 8 * p, g->d_hist);
        bs_key *x = a;
        a = tmp;
        tmp = x;
    }
    return a;
}

/* the fetch-add and put towards destination p of the slice [s, s + c) of src; blocking put where threads share it */
static void append_host(struct gbs *g, long *counter, bs_key *recv, const bs_key *src, unsigned s, unsigned c, int p,
                        int nbi) {
    if (c == 0)
        return;
    long off = shmem_long_atomic_fetch_add(counter, (long)c, p);
    if ((size_t)off + c > g->cap) {
#pragma omp atomic
        g->overflow++;
        return;
    }
    if (nbi)
        shmem_putmem_nbi(recv + off, src + s, c * sizeof(bs_key), p);
    else
        shmem_putmem(recv + off, src + s, c * sizeof(bs_key), p);
}

static void append_threads(struct gbs *g, long *counter, bs_key *recv, const bs_key *src) {
    int npes = g->npes, me = g->me;
#pragma omp parallel for num_threads(g->threads) schedule(dynamic, 1)
    for (int k = 1; k <= npes; k++) {
        int p = (me + k) % npes;
        append_host(g, counter, recv, src, g->h_starts[p], g->h_starts[p + 1] - g->h_starts[p], p, 0);
    }
}

static void body(void *arg) {
    struct gbs *g = (struct gbs *)arg;
    int npes = g->npes, me = g->me, v = g->v;
    size_t N = g->nkeys;
    double t0 = app_now(), tc0, tc1;
    long n = 0;
    if (v == V_HA_HI || v == V_HA_HI_OMP) {
        classify(g, g->d_keys, N, g->d_send, g->d_cnt, g->d_starts, g->st);
        CK(cudaMemcpyAsync(g->h_starts, g->d_starts, (size_t)(npes + 1) * sizeof(unsigned), cudaMemcpyDeviceToHost,
                           g->st));
        CK(cudaMemcpyAsync(g->h_send, g->d_send, N * sizeof(bs_key), cudaMemcpyDeviceToHost, g->st));
        CK(cudaStreamSynchronize(g->st));
        g->h_starts[npes] = (unsigned)N;
        tc0 = app_now();
        if (v == V_HA_HI) {
            for (int k = 1; k <= npes; k++) {
                int p = (me + k) % npes;
                append_host(g, g->h_counter, g->h_recv, g->h_send, g->h_starts[p], g->h_starts[p + 1] - g->h_starts[p],
                            p, 1);
            }
        } else {
            append_threads(g, g->h_counter, g->h_recv, g->h_send);
        }
        shmem_quiet();
        tc1 = app_now();
        shmem_barrier_all();
        n = *g->h_counter;
        *g->h_counter = 0;
        g->nrecv = (size_t)n > g->cap ? g->cap : (size_t)n;
        CK(cudaMemcpyAsync(g->d_recv, g->h_recv, g->nrecv * sizeof(bs_key), cudaMemcpyHostToDevice, g->st));
        CK(cudaStreamSynchronize(g->st));
    } else if (v == V_GA_HI || v == V_GA_HI_OMP) {
        classify(g, g->d_keys, N, g->d_send, g->d_cnt, g->d_starts, g->st);
        CK(cudaMemcpyAsync(g->h_starts, g->d_starts, (size_t)(npes + 1) * sizeof(unsigned), cudaMemcpyDeviceToHost,
                           g->st));
        CK(cudaStreamSynchronize(g->st));
        g->h_starts[npes] = (unsigned)N;
        tc0 = app_now();
        if (v == V_GA_HI) {
            for (int k = 1; k <= npes; k++) {
                int p = (me + k) % npes;
                append_host(g, g->d_counter, g->d_recv, g->d_send, g->h_starts[p], g->h_starts[p + 1] - g->h_starts[p],
                            p, 1);
            }
        } else {
            append_threads(g, g->d_counter, g->d_recv, g->d_send);
        }
        shmem_quiet();
        tc1 = app_now();
        shmem_barrier_all();
    } else if (v == V_GA_HI_STREAM) {
        /* chunk c is classified on the work stream while the host reserves and the destination streams put chunk
         * c - 1; each chunk's slices are appended on their own */
        size_t per = cdiv(N, (size_t)g->chunks);
        for (int c = 0; c < g->chunks; c++) {
            size_t lo = c * per, cn = lo < N ? (lo + per < N ? per : N - lo) : 0;
            if (!cn)
                continue;
            unsigned *hs = g->h_starts + (size_t)c * (npes + 1), *ds = g->d_starts + (size_t)c * (npes + 1);
            classify(g, g->d_keys + lo, cn, g->d_send + lo, g->d_cnt + (size_t)c * npes * g->cls_nb, ds, g->st);
            CK(cudaMemcpyAsync(hs, ds, (size_t)(npes + 1) * sizeof(unsigned), cudaMemcpyDeviceToHost, g->st));
            CK(cudaEventRecord(g->cev[c], g->st));
        }
        tc0 = app_now();
        for (int c = 0; c < g->chunks; c++) {
            size_t lo = c * per, cn = lo < N ? (lo + per < N ? per : N - lo) : 0;
            if (!cn)
                continue;
            unsigned *hs = g->h_starts + (size_t)c * (npes + 1);
            CK(cudaEventSynchronize(g->cev[c]));
            hs[npes] = (unsigned)cn;
            for (int k = 1; k <= npes; k++) {
                int p = (me + k) % npes;
                unsigned cnt = hs[p + 1] - hs[p];
                if (!cnt)
                    continue;
                long off = shmem_long_atomic_fetch_add(g->d_counter, (long)cnt, p);
                if ((size_t)off + cnt > g->cap) {
                    g->overflow++;
                    continue;
                }
                shmemx_putmem_on_stream(g->d_recv + off, g->d_send + lo + hs[p], cnt * sizeof(bs_key), p,
                                        (shmemx_stream_t)g->pst[p]);
            }
        }
        for (int p = 0; p < npes; p++)
            CK(cudaStreamSynchronize(g->pst[p]));
        tc1 = app_now();
        shmem_barrier_all();
    } else { /* V_GA_KI: no host step between classification and the kernel's reservations and puts */
        classify(g, g->d_keys, N, g->d_send, g->d_cnt, g->d_starts, g->st);
        tc0 = app_now();
        k_append<<<npes, BS_THREADS, 0, g->st>>>(g->d_send, g->d_starts, g->d_recv, g->d_counter, g->cap, me, npes,
                                                 g->d_overflow);
        CK(cudaStreamSynchronize(g->st));
        tc1 = app_now();
        shmem_barrier_all();
    }
    if (v != V_HA_HI && v != V_HA_HI_OMP) {
        CK(cudaMemcpy(&n, g->d_counter, sizeof(long), cudaMemcpyDeviceToHost));
        CK(cudaMemset(g->d_counter, 0, sizeof(long)));
        g->nrecv = (size_t)n > g->cap ? g->cap : (size_t)n;
    }
    double tx = app_now();
    g->d_out = gpu_sort(g, g->d_recv, g->d_tmp, g->nrecv, g->st);
    CK(cudaStreamSynchronize(g->st));
    double ts = app_now();
    bs_phases_record(&g->ph, t0, tc0, tc1, tx, ts);
}

static int run_variant(struct gbs *g, int v, int kernel_init) {
    g->v = v;
    app_g.variant = vnames[v];
    app_g.metrics[0] = '\0';
    if ((v == V_GA_KI || v == V_GA_HI_STREAM) && !kernel_init) {
        if (g->me == 0)
            printf("bucket_sort_gpu %s: skipped (needs SHMEM_DEVICE_KERNEL_INIT, not provided here)\n", vnames[v]);
        return -1;
    }
    bs_phases_free(&g->ph);
    bs_phases_init(&g->ph);
    g->overflow = 0;
    CK(cudaMemset(g->d_overflow, 0, sizeof(unsigned long long)));

    /* the bytes each PE sends to others per repetition (the same keys every time) */
    bs_key *h_keys = (bs_key *)malloc(g->nkeys * sizeof(bs_key));
    CK(cudaMemcpy(h_keys, g->d_keys, g->nkeys * sizeof(bs_key), cudaMemcpyDeviceToHost));
    uint64_t remote = 0, sums[1], xors[1];
    for (size_t i = 0; i < g->nkeys; i++)
        remote += bs_bucket(h_keys[i], g->npes, g->maxkey) != g->me;
    remote *= sizeof(bs_key);
    bs_allreduce_u64(&remote, 1, sums, xors);
    double bytes = (double)sums[0] / g->npes;

    double tmin, tmax, med = app_time(vnames[v], body, g, &tmin, &tmax);
    bs_report(&g->ph, med, tmin, tmax, (double)g->nkeys * g->npes, bytes);
    int ok = -1;
    if (app_g.verify) {
        unsigned long long kov = 0;
        CK(cudaMemcpy(&kov, g->d_overflow, sizeof kov, cudaMemcpyDeviceToHost));
        bs_key *out = (bs_key *)malloc((g->nrecv ? g->nrecv : 1) * sizeof(bs_key));
        CK(cudaMemcpy(out, g->d_out, g->nrecv * sizeof(bs_key), cudaMemcpyDeviceToHost));
        ok = bs_verify(h_keys, g->nkeys, out, g->nrecv, g->maxkey, g->overflow + (long)kov);
        free(out);
    }
    free(h_keys);
    if (app_g.me == 0 && app_g.json) {
        FILE *f = fopen(app_g.json, "a");
        if (f) {
            fprintf(f,
                    "{\"app\": \"%s\", \"variant\": \"%s\", \"impl\": \"%s\", \"npes\": %d, \"verify\": \"%s\", "
                    "\"params\": {%s, \"bytes_sent_per_pe\": \"%.0f\"}, \"metrics\": {%s}}\n",
                    app_g.name, vnames[v], app_g.impl, app_g.npes,
                    ok < 0 ? "skipped"
                    : ok   ? "passed"
                           : "failed",
                    app_g.params, bytes, app_g.metrics);
            fclose(f);
        } else {
            fprintf(stderr, "bucket_sort_gpu: cannot write %s\n", app_g.json);
        }
    }
    return ok;
}

int main(int argc, char **argv) {
    size_t nkeys = (size_t)1 << 20;
    long maxkey = 1L << 28, seed = 1, threads = 4, chunks = 4;
    const char *variant = "all";
    struct app_opt opts[] = {
        {"--keys", APP_SIZE, &nkeys, "keys per PE (default 1M; k/M/G suffixes)"},
        {"--maxkey", APP_INT, &maxkey, "keys are in [0, maxkey) (default 2^28, at most 2^32)"},
        {"--seed", APP_INT, &seed, "generator seed (default 1); each PE's keys also depend on its number"},
        {"--variant", APP_STR, &variant,
         "HA_HI, HA_HI_OMP, GA_HI, GA_HI_Stream, GA_HI_OMP, GA_KI, or all (default): each in turn"},
        {"--threads", APP_INT, &threads, "OpenMP threads of the *_OMP variants (default 4)"},
        {"--chunks", APP_INT, &chunks, "GA_HI_Stream: pieces classified while the previous one is sent (default 4)"},
        {NULL, APP_INT, NULL, NULL}};
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE | SHMEM_DEVICE_HOST_INIT | SHMEM_DEVICE_KERNEL_INIT, &provided);
    app_init(argc, argv, "bucket_sort_gpu",
             "Bucket sort with remote fetch-add reservations and puts (append), keys and sorts on the GPU.\n"
             "--json FILE gets one line (a JSON object) per variant run, appended.",
             opts);
    int me = app_g.me, npes = app_g.npes;
    if (!(provided & SHMEM_DEVICE_HOST_INIT)) {
        if (me == 0)
            printf("SKIP: no GPU support here (SHMEM_DEVICE_HOST_INIT not provided)\n");
        shmem_finalize();
        return 77;
    }
    int kernel_init = (provided & SHMEM_DEVICE_KERNEL_INIT) != 0;
    int which = -2;
    for (int v = 0; v < V_COUNT; v++)
        if (!strcmp(variant, vnames[v]))
            which = v;
    if (!strcmp(variant, "all"))
        which = -1;
    if (which == -2 || maxkey < 1 || (uint64_t)maxkey > ((uint64_t)1 << 32) || nkeys < 1 || nkeys > (size_t)1 << 30 ||
        threads < 1 || chunks < 1 || chunks > 64) {
        if (me == 0)
            fprintf(stderr, "bucket_sort_gpu: bad --variant, --keys, --maxkey, --threads or --chunks (see --help)\n");
        shmem_finalize();
        return 2;
    }
#ifdef GSHMEM_EMULATE_GPU
    app_param("gpu", "CPU emulation of CUDA (CPU times)");
#else
    {
        cudaDeviceProp prop;
        cudaGetDeviceProperties(&prop, 0);
        app_param("gpu", "%s", prop.name);
    }
#endif
    app_param("keys_per_pe", "%zu", nkeys);
    app_param("maxkey", "%ld", maxkey);
    app_param("seed", "%ld", seed);
    app_param("key_bytes", "%zu", sizeof(bs_key));
    app_param("threads", "%ld", threads);
    app_param("chunks", "%ld", chunks);
    if (me == 0 && app_g.json) { /* the variants append their lines */
        FILE *f = fopen(app_g.json, "w");
        if (f)
            fclose(f);
    }

    struct gbs g;
    memset(&g, 0, sizeof g);
    g.nkeys = nkeys;
    g.cap = bs_capacity(nkeys);
    g.maxkey = (uint64_t)maxkey;
    g.passes = bs_passes(g.maxkey);
    g.threads = (int)threads;
    g.chunks = (int)chunks;
    g.npes = npes;
    g.me = me;
    g.cls_nb = (int)cdiv(nkeys, (size_t)BS_THREADS * 16);
    if (g.cls_nb > BS_MAX_BLOCKS)
        g.cls_nb = BS_MAX_BLOCKS;
    size_t nst = (size_t)chunks * (npes + 1);
    CK(cudaMalloc((void **)&g.d_keys, nkeys * sizeof(bs_key)));
    CK(cudaMalloc((void **)&g.d_tmp, g.cap * sizeof(bs_key)));
    CK(cudaMalloc((void **)&g.d_cnt, (size_t)chunks * npes * g.cls_nb * sizeof(unsigned)));
    CK(cudaMalloc((void **)&g.d_starts, nst * sizeof(unsigned)));
    CK(cudaMalloc((void **)&g.d_hist, (size_t)256 * BS_MAX_BLOCKS * sizeof(unsigned)));
    CK(cudaMalloc((void **)&g.d_overflow, sizeof(unsigned long long)));
    CK(cudaMallocHost((void **)&g.h_starts, nst * sizeof(unsigned)));
    CK(cudaMallocHost((void **)&g.h_send, nkeys * sizeof(bs_key)));
    g.d_send = (bs_key *)shmemg_malloc(nkeys * sizeof(bs_key));
    g.d_recv = (bs_key *)shmemg_malloc(g.cap * sizeof(bs_key));
    g.d_counter = (long *)shmemg_calloc(1, sizeof(long));
    g.h_recv = (bs_key *)shmem_malloc(g.cap * sizeof(bs_key));
    g.h_counter = (long *)shmem_calloc(1, sizeof(long));
    if (!g.d_send || !g.d_recv || !g.d_counter || !g.h_recv || !g.h_counter) {
        fprintf(stderr,
                "bucket_sort_gpu PE %d: symmetric allocation failed (%zu keys; raise SHMEM_SYMMETRIC_SIZE and "
                "SHMEM_SYMMETRIC_SIZE_DEVICE)\n",
                me, nkeys);
        shmem_global_exit(1);
    }
    CK(cudaStreamCreate(&g.st));
    g.pst = (cudaStream_t *)calloc((size_t)npes, sizeof(cudaStream_t));
    for (int p = 0; p < npes; p++)
        CK(cudaStreamCreate(&g.pst[p]));
    g.cev = (cudaEvent_t *)calloc((size_t)chunks, sizeof(cudaEvent_t));
    for (int c = 0; c < chunks; c++)
        CK(cudaEventCreate(&g.cev[c]));
    k_gen<<<64, BS_THREADS, 0, g.st>>>(g.d_keys, nkeys, (uint64_t)seed, me, g.maxkey);
    CK(cudaStreamSynchronize(g.st));
    CK(cudaGetLastError());
    shmem_barrier_all();

    int all_ok = 1, any = 0;
    for (int v = 0; v < V_COUNT; v++) {
        if (which >= 0 && v != which)
            continue;
        int ok = run_variant(&g, v, kernel_init);
        if (ok == 0)
            all_ok = 0;
        if (ok >= 0)
            any = 1;
    }
    app_g.verified = app_g.verify && any ? all_ok : -1;
    app_g.json = NULL; /* written per variant above */

    bs_phases_free(&g.ph);
    for (int c = 0; c < chunks; c++)
        cudaEventDestroy(g.cev[c]);
    for (int p = 0; p < npes; p++)
        cudaStreamDestroy(g.pst[p]);
    cudaStreamDestroy(g.st);
    free(g.pst), free(g.cev);
    shmem_free(g.h_counter);
    shmem_free(g.h_recv);
    shmemg_free(g.d_counter);
    shmemg_free(g.d_recv);
    shmemg_free(g.d_send);
    cudaFreeHost(g.h_send);
    cudaFreeHost(g.h_starts);
    cudaFree(g.d_keys), cudaFree(g.d_tmp), cudaFree(g.d_cnt), cudaFree(g.d_starts), cudaFree(g.d_hist);
    cudaFree(g.d_overflow);
    return app_finish();
}

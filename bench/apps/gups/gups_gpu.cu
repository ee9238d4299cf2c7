/* gups_gpu.cu - GUPS with the tables in GPU memory, in the forms of the OpenMP/OpenSHMEM GPU paper: "standard" (plain
 * OpenSHMEM cannot name GPU memory, so a get is a request to a service thread on the owner that stages the word through
 * host memory) and "extended" (GPU symmetric memory used directly: from a kernel, or by host-initiated RMA/atomics). */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <shmem.h>
#include <shmemg.h>

#include "app.h"
#include "gups_common.h"

static long log2_local = 16, factor = 4, blocks = 4, threads = 64;
static const char *variant = "extended";
enum { STANDARD, EXTENDED, EXTENDED_HOST, EXTENDED_ATOMIC };
static int form;
static uint64_t *dtab; /* the table: GPU symmetric heap (extended forms) or a private cudaMalloc (standard) */
static struct gups_layout lay;
static uint64_t n_total, n_mine, my_first, *d_starts, chunk;
static long nthreads;

#define CK(call)                                                                                                       \
    do {                                                                                                               \
        cudaError_t e_ = (call);                                                                                       \
        if (e_ != cudaSuccess) {                                                                                       \
            fprintf(stderr, "gups-gpu: PE %d: %s: %s\n", shmem_my_pe(), #call, cudaGetErrorString(e_));                \
            shmem_global_exit(1);                                                                                      \
        }                                                                                                              \
    } while (0)

/* ---- extended: each GPU thread runs a contiguous piece of this PE's share of the stream ---- */
__global__ void k_gups(uint64_t *tab, const uint64_t *starts, uint64_t n, uint64_t chunk, struct gups_layout l,
                       int atomic) {
    uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, b = t * chunk;
    if (b >= n)
        return;
    uint64_t e = b + chunk < n ? b + chunk : n, r = starts[t];
    for (uint64_t i = b; i < e; i++) {
        r = gups_next(r);
        uint64_t off;
        int pe = gups_owner(&l, r & l.mask, &off);
        if (atomic) {
            shmemg_uint64_atomic_xor(tab + off, r, pe);
        } else { /* get-modify-put: a concurrent update of the same word may be lost (HPCC allows 1%) */
            uint64_t v = shmemg_uint64_g(tab + off, pe);
            shmemg_uint64_p(tab + off, v ^ r, pe);
        }
    }
    shmemg_quiet();
}

/* ---- standard: requests and replies in host symmetric memory, a service thread per PE ---- */
#define GUPS_PUT_BIT (UINT64_C(1) << 63)
static uint64_t *req;       /* [requester][2 slots][2 words]: word offset (| PUT bit), then the value or the ticket */
static uint64_t *req_sig;   /* [requester]: the requester's sequence number to this PE; [npes]: stop the service */
static uint64_t *reply;     /* [1]: the value of the last get */
static uint64_t *reply_sig; /* [1]: the ticket that value answers */
static std::vector<uint64_t> seq_to;
static uint64_t ticket;
static std::thread service_thread;

/* the owner's side: answers gets by copying the word out of the GPU, applies puts by copying it in. Requests of one
 * requester are handled in order; two slots suffice since a requester waits for each get's reply before its put, and
 * its next get follows that put. */
static void service(void) {
    int npes = app_g.npes;
    std::vector<uint64_t> seen((size_t)npes + 1, 0);
    uint64_t out;
    for (;;) {
        size_t i = shmem_uint64_wait_until_any_vector(req_sig, (size_t)npes + 1, NULL, SHMEM_CMP_GT, seen.data());
        if (i == (size_t)npes)
            return;
        uint64_t upto = shmem_signal_fetch(&req_sig[i]);
        for (uint64_t s = seen[i] + 1; s <= upto; s++) {
            const uint64_t *q = &req[(i * 2 + s % 2) * 2];
            uint64_t w = q[0], v = q[1], off = w & ~GUPS_PUT_BIT;
            if (w & GUPS_PUT_BIT) {
                CK(cudaMemcpy(dtab + off, &v, sizeof v, cudaMemcpyHostToDevice));
            } else {
                CK(cudaMemcpy(&out, dtab + off, sizeof out, cudaMemcpyDeviceToHost));
                shmem_putmem_signal(reply, &out, sizeof out, reply_sig, v, SHMEM_SIGNAL_SET, (int)i);
            }
        }
        seen[i] = upto;
    }
}

static void request(int pe, uint64_t w, uint64_t v) {
    uint64_t msg[2] = {w, v}, s = ++seq_to[(size_t)pe];
    shmem_fence(); /* the previous request's data lands before this one's signal */
    shmem_putmem_signal(&req[((size_t)app_g.me * 2 + s % 2) * 2], msg, sizeof msg, &req_sig[app_g.me], s,
                        SHMEM_SIGNAL_SET, pe);
}

static void pass_standard(void) {
    uint64_t r = gups_start((int64_t)my_first);
    for (uint64_t i = 0; i < n_mine; i++) {
        r = gups_next(r);
        uint64_t off, v;
        int pe = gups_owner(&lay, r & lay.mask, &off);
        if (pe == app_g.me) { /* our own GPU: staged through host memory as well */
            CK(cudaMemcpy(&v, dtab + off, sizeof v, cudaMemcpyDeviceToHost));
            v ^= r;
            CK(cudaMemcpy(dtab + off, &v, sizeof v, cudaMemcpyHostToDevice));
            continue;
        }
        request(pe, off, ++ticket);
        shmem_signal_wait_until(reply_sig, SHMEM_CMP_GE, ticket);
        request(pe, off | GUPS_PUT_BIT, *reply ^ r);
    }
}

static void pass_extended_host(void) {
    uint64_t r = gups_start((int64_t)my_first);
    for (uint64_t i = 0; i < n_mine; i++) {
        r = gups_next(r);
        uint64_t off;
        int pe = gups_owner(&lay, r & lay.mask, &off);
        uint64_t v = shmem_uint64_g(dtab + off, pe);
        shmem_uint64_p(dtab + off, v ^ r, pe);
    }
}

static void pass(void *arg) {
    (void)arg;
    if (form == STANDARD) {
        pass_standard();
    } else if (form == EXTENDED_HOST) {
        pass_extended_host();
        shmem_quiet();
    } else {
        k_gups<<<(unsigned)blocks, (unsigned)threads>>>(dtab, d_starts, n_mine, chunk, lay, form == EXTENDED_ATOMIC);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
    }
    if (form == STANDARD) {
        /* a put request may still sit in a service's queue: each service has handled all of ours once a get
         * round trip to it returns (it handles one requester's requests in order) */
        for (int k = 1; k < app_g.npes; k++) {
            int pe = (app_g.me + k) % app_g.npes;
            request(pe, 0, ++ticket);
            shmem_signal_wait_until(reply_sig, SHMEM_CMP_GE, ticket);
        }
    }
    shmem_barrier_all();
}

static std::vector<uint64_t> initial(void) {
    uint64_t first = gups_first(&lay, app_g.me), cnt = gups_count(&lay, app_g.me);
    std::vector<uint64_t> v(cnt);
    for (uint64_t i = 0; i < cnt; i++)
        v[i] = first + i;
    return v;
}

static void reset_table(void) {
    std::vector<uint64_t> v = initial();
    CK(cudaMemcpy(dtab, v.data(), v.size() * sizeof(uint64_t), cudaMemcpyHostToDevice));
    shmem_barrier_all();
}

static uint64_t count_diff(const std::vector<uint64_t> &want) {
    std::vector<uint64_t> got(want.size());
    CK(cudaMemcpy(got.data(), dtab, got.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    uint64_t bad = 0;
    for (size_t i = 0; i < got.size(); i++)
        bad += got[i] != want[i];
    return bad;
}

int main(int argc, char **argv) {
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE | SHMEM_DEVICE_HOST_INIT | SHMEM_DEVICE_KERNEL_INIT, &provided);
    const struct app_opt opts[] = {
        {"--log2-table", APP_INT, &log2_local, "log2 of the table words per PE (default 16)"},
        {"--factor", APP_INT, &factor, "updates = factor x global table words (default 4, as HPCC)"},
        {"--variant", APP_STR, &variant,
         "standard | extended (kernel g/p) | extended-host (host g/p on GPU memory) | extended-atomic (kernel xor)"},
        {"--blocks", APP_INT, &blocks, "kernel blocks, extended forms (default 4)"},
        {"--threads", APP_INT, &threads, "threads per block, extended forms (default 64)"},
        {NULL, APP_INT, NULL, NULL}};
    app_init(argc, argv, "gups-gpu", "GUPS on GPU-resident tables (standard: staged by a service thread; extended)",
             opts);
    if (!strcmp(variant, "standard"))
        form = STANDARD;
    else if (!strcmp(variant, "extended"))
        form = EXTENDED;
    else if (!strcmp(variant, "extended-host"))
        form = EXTENDED_HOST;
    else if (!strcmp(variant, "extended-atomic"))
        form = EXTENDED_ATOMIC;
    else
        form = -1;
    if (form < 0 || log2_local < 1 || log2_local > 34 || factor < 1 || blocks < 1 || threads < 1) {
        if (app_g.me == 0)
            fprintf(stderr, "gups-gpu: bad --variant/--log2-table/--factor/--blocks/--threads (see --help)\n");
        shmem_finalize();
        return 2;
    }
    int need = SHMEM_DEVICE_HOST_INIT | (form == STANDARD ? 0 : SHMEM_DEVICE_KERNEL_INIT);
    if ((provided & need) != need || (form == STANDARD && (provided & 0xff) < SHMEM_THREAD_MULTIPLE)) {
#ifdef GSHMEM_EMULATE_GPU
        if (app_g.me == 0)
            fprintf(stderr,
                    "gups-gpu: GPU support not provided on the emulated GPU (set SHMEM_SYMMETRIC_SIZE_DEVICE)\n");
        shmem_global_exit(1);
#else
        if (app_g.me == 0)
            printf("SKIP: no GPU support here\n");
        shmem_finalize();
        return 77;
#endif
    }
    app_g.variant = variant;
    gups_layout_init(&lay, (int)log2_local, app_g.npes);
    n_total = (uint64_t)factor * lay.total;
    n_mine = gups_share(n_total, app_g.npes, app_g.me, &my_first);
    size_t words = (size_t)lay.base + 1;
    if (form == STANDARD) {
        CK(cudaMalloc((void **)&dtab, words * sizeof(uint64_t)));
        req = (uint64_t *)shmem_calloc((size_t)app_g.npes * 4, sizeof(uint64_t));
        req_sig = (uint64_t *)shmem_calloc((size_t)app_g.npes + 1, sizeof(uint64_t));
        reply = (uint64_t *)shmem_calloc(2, sizeof(uint64_t));
        reply_sig = reply + 1;
        seq_to.assign((size_t)app_g.npes, 0);
        shmem_barrier_all();
        service_thread = std::thread(service);
    } else {
        dtab = (uint64_t *)shmemg_malloc(words * sizeof(uint64_t));
        if (!dtab) {
            fprintf(stderr, "gups-gpu: PE %d: shmemg_malloc of %zu words failed (SHMEM_SYMMETRIC_SIZE_DEVICE?)\n",
                    app_g.me, words);
            shmem_global_exit(1);
        }
        nthreads = blocks * threads;
        chunk = (n_mine + (uint64_t)nthreads - 1) / (uint64_t)nthreads;
        std::vector<uint64_t> st((size_t)nthreads);
        for (long t = 0; t < nthreads; t++)
            st[(size_t)t] = gups_start((int64_t)(my_first + (uint64_t)t * chunk));
        CK(cudaMalloc((void **)&d_starts, st.size() * sizeof(uint64_t)));
        CK(cudaMemcpy(d_starts, st.data(), st.size() * sizeof(uint64_t), cudaMemcpyHostToDevice));
        app_param("blocks", "%ld", blocks);
        app_param("threads", "%ld", threads);
    }
    app_param("log2_table_per_pe", "%ld", log2_local);
    app_param("table_words", "%llu", (unsigned long long)lay.total);
    app_param("updates", "%llu", (unsigned long long)n_total);

    reset_table();
    double tmin, tmax, t = app_time("updates", pass, NULL, &tmin, &tmax);
    double g = (double)n_total * 1e-9;
    app_metric("time", t, tmin, tmax, "s");
    app_metric("GUP/s", g / t, g / tmax, g / tmin, "GUP/s");

    if (app_g.verify) {
        /* one pass against a serial recompute (HPCC's check); for the atomic form also a second pass, which xor
         * turns back into the initial table. The get-modify-put forms may lose an update when two land on one word
         * at once: HPCC's tolerance, at most 1% of the words wrong, applies to them; the atomic form must be exact. */
        std::vector<uint64_t> exp(gups_count(&lay, app_g.me));
        reset_table();
        pass(NULL);
        gups_expected(&lay, n_total, app_g.me, exp.data());
        uint64_t bad1 = count_diff(exp), bad2 = 0;
        if (form == EXTENDED_ATOMIC) {
            shmem_barrier_all(); /* every PE has read its words before the second pass changes them */
            pass(NULL);
            bad2 = count_diff(initial());
        }
        /* HPCC counts the wrong words of the whole table against 1% of its size: one PE's words may hold more of
         * the lost updates than another's */
        static uint64_t bad_mine[2], bad_all[2];
        bad_mine[0] = bad1, bad_mine[1] = bad2;
        shmem_barrier_all();
        shmem_uint64_sum_reduce(SHMEM_TEAM_WORLD, bad_all, bad_mine, 2);
        uint64_t limit = form == EXTENDED_ATOMIC ? 0 : lay.total / 100;
        if (bad1 || bad2)
            printf("gups-gpu: PE %d: %llu of %zu words differ from the serial recompute, %llu not restored by a "
                   "second pass (whole table: %llu and %llu of %llu words, allowed: %llu)\n",
                   app_g.me, (unsigned long long)bad1, exp.size(), (unsigned long long)bad2,
                   (unsigned long long)bad_all[0], (unsigned long long)bad_all[1], (unsigned long long)lay.total,
                   (unsigned long long)limit);
        app_verdict(bad_all[0] <= limit && bad_all[1] <= limit);
    }
    if (form == STANDARD) {
        shmem_barrier_all();
        shmem_uint64_atomic_set(&req_sig[app_g.npes], 1, app_g.me);
        service_thread.join();
        CK(cudaFree(dtab));
    } else {
        CK(cudaFree(d_starts));
        shmemg_free(dtab);
    }
    return app_finish();
}

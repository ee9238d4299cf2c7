/* bucket_sort.c - distributed bucket sort with the append pattern (HPE's GPU-aware OpenSHMEM paper, ISx-like), host
 * form: each PE buckets its keys by destination range, reserves room in each destination's receive table with a
 * remote fetch-add, puts its keys there, and after a barrier radix-sorts what it received. Builds with gshmem and
 * with OSHMEM's oshcc (OpenSHMEM 1.4). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime in app.h under -std=c11 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "app.h"
#include "bsort_common.h"

struct bs {
    size_t nkeys, cap;
    uint64_t maxkey;
    int passes;
    bs_key *keys, *send, *tmp, *out; /* out: the sorted result of the last repetition (recv or tmp) */
    bs_key *recv;                    /* symmetric: the receive table */
    long *counter;                   /* symmetric: the next free slot of recv */
    size_t *cnt, *start;             /* per destination PE */
    size_t nrecv;
    long overflow;
    struct bs_phases ph;
};

/* LSD radix sort of a[0..n) with 8-bit digits; returns the buffer that holds the result (a or tmp) */
static bs_key *radix_sort(bs_key *a, bs_key *tmp, size_t n, int passes) {
    size_t cnt[256];
    for (int p = 0; p < passes; p++) {
        int sh = 8 * p;
        memset(cnt, 0, sizeof cnt);
        for (size_t i = 0; i < n; i++)
            cnt[(a[i] >> sh) & 255]++;
        size_t s = 0;
        for (int d = 0; d < 256; d++) {
            size_t c = cnt[d];
            cnt[d] = s;
            s += c;
        }
        for (size_t i = 0; i < n; i++)
            tmp[cnt[(a[i] >> sh) & 255]++] = a[i];
        bs_key *t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}

static void body(void *arg) {
    struct bs *b = (struct bs *)arg;
    int me = app_g.me, npes = app_g.npes;
    double t0 = app_now();
    /* classify: count per destination, then place each key in its destination's slice of send */
    memset(b->cnt, 0, (size_t)npes * sizeof(size_t));
    for (size_t i = 0; i < b->nkeys; i++)
        b->cnt[bs_bucket(b->keys[i], npes, b->maxkey)]++;
    size_t s = 0;
    for (int p = 0; p < npes; p++)
        b->start[p] = s, s += b->cnt[p];
    for (int p = 0; p < npes; p++)
        b->cnt[p] = 0;
    for (size_t i = 0; i < b->nkeys; i++) {
        int p = bs_bucket(b->keys[i], npes, b->maxkey);
        b->send[b->start[p] + b->cnt[p]++] = b->keys[i];
    }
    /* append: reserve room in each destination's table, then put there (destinations staggered from me + 1) */
    double tc0 = app_now();
    for (int k = 1; k <= npes; k++) {
        int p = (me + k) % npes;
        if (!b->cnt[p])
            continue;
        long off = shmem_long_atomic_fetch_add(b->counter, (long)b->cnt[p], p);
        if ((size_t)off + b->cnt[p] > b->cap) {
            b->overflow++;
            continue;
        }
        shmem_putmem_nbi(b->recv + off, b->send + b->start[p], b->cnt[p] * sizeof(bs_key), p);
    }
    shmem_quiet();
    double tc1 = app_now();
    shmem_barrier_all();
    /* every reservation is complete: the counter is the number received; zero it for the next repetition (no
     * PE adds to it again before the barrier that starts the next one) */
    long n = *b->counter;
    *b->counter = 0;
    b->nrecv = (size_t)n > b->cap ? b->cap : (size_t)n;
    double tx = app_now();
    b->out = radix_sort(b->recv, b->tmp, b->nrecv, b->passes);
    double ts = app_now();
    bs_phases_record(&b->ph, t0, tc0, tc1, tx, ts);
}

int main(int argc, char **argv) {
    size_t nkeys = (size_t)1 << 20;
    long maxkey = 1L << 28, seed = 1;
    const char *variant = "host";
    struct app_opt opts[] = {
        {"--keys", APP_SIZE, &nkeys, "keys per PE (default 1M; k/M/G suffixes)"},
        {"--maxkey", APP_INT, &maxkey, "keys are in [0, maxkey) (default 2^28, at most 2^32)"},
        {"--seed", APP_INT, &seed, "generator seed (default 1); each PE's keys also depend on its number"},
        {"--variant", APP_STR, &variant, "host (or all: the same here; the GPU forms are bucket_sort_gpu)"},
        {NULL, APP_INT, NULL, NULL}};
    shmem_init();
    app_init(argc, argv, "bucket_sort",
             "Bucket sort with remote fetch-add reservations and puts (append), host memory.", opts);
    if (strcmp(variant, "host") && strcmp(variant, "all")) {
        if (app_g.me == 0)
            fprintf(stderr, "bucket_sort: unknown variant '%s' (host or all)\n", variant);
        shmem_finalize();
        return 2;
    }
    if (maxkey < 1 || (uint64_t)maxkey > ((uint64_t)1 << 32) || nkeys < 1) {
        if (app_g.me == 0)
            fprintf(stderr, "bucket_sort: --maxkey must be in [1, 2^32] and --keys at least 1\n");
        shmem_finalize();
        return 2;
    }
    app_g.variant = "host";
    app_param("keys_per_pe", "%zu", nkeys);
    app_param("maxkey", "%ld", maxkey);
    app_param("seed", "%ld", seed);
    app_param("key_bytes", "%zu", sizeof(bs_key));

    struct bs b;
    memset(&b, 0, sizeof b);
    int npes = app_g.npes, me = app_g.me;
    b.nkeys = nkeys;
    b.cap = bs_capacity(nkeys);
    b.maxkey = (uint64_t)maxkey;
    b.passes = bs_passes(b.maxkey);
    b.keys = (bs_key *)malloc(nkeys * sizeof(bs_key));
    b.send = (bs_key *)malloc(nkeys * sizeof(bs_key));
    b.tmp = (bs_key *)malloc(b.cap * sizeof(bs_key));
    b.recv = (bs_key *)shmem_malloc(b.cap * sizeof(bs_key));
    b.counter = (long *)shmem_malloc(sizeof(long));
    b.cnt = (size_t *)calloc((size_t)npes, sizeof(size_t));
    b.start = (size_t *)calloc((size_t)npes, sizeof(size_t));
    if (!b.keys || !b.send || !b.tmp || !b.recv || !b.counter || !b.cnt || !b.start) {
        fprintf(stderr, "bucket_sort PE %d: out of memory (%zu keys)\n", me, nkeys);
        shmem_global_exit(1);
    }
    for (size_t i = 0; i < nkeys; i++)
        b.keys[i] = bs_gen_key((uint64_t)seed, me, i, b.maxkey);
    *b.counter = 0;
    bs_phases_init(&b.ph);

    /* the bytes each PE sends to others per repetition (the keys are the same every time) */
    uint64_t remote = 0, sums[1], xors[1];
    for (size_t i = 0; i < nkeys; i++)
        remote += bs_bucket(b.keys[i], npes, b.maxkey) != me;
    remote *= sizeof(bs_key);
    bs_allreduce_u64(&remote, 1, sums, xors);
    double bytes = (double)sums[0] / npes;
    app_param("bytes_sent_per_pe", "%.0f", bytes);

    double tmin, tmax, med = app_time("sort", body, &b, &tmin, &tmax);
    bs_report(&b.ph, med, tmin, tmax, (double)nkeys * npes, bytes);
    if (app_g.verify)
        bs_verify(b.keys, nkeys, b.out, b.nrecv, b.maxkey, b.overflow);

    bs_phases_free(&b.ph);
    shmem_free(b.counter);
    shmem_free(b.recv);
    free(b.keys), free(b.send), free(b.tmp), free(b.cnt), free(b.start);
    return app_finish();
}

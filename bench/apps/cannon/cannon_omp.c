/* cannon_omp.c - cannon.c's matrix multiply with the blocks in OpenMP device memory, in the two forms of the
 * OpenMP/OpenSHMEM paper: "standard" (an ordinary mapped variable: every transfer goes out of the device to host
 * symmetric buffers and back in) and "extended" (symmetric device memory of a KIND=LIBOMP partition behind the same
 * variable, shmemx_omp_map: puts go device to device). cannon.c's protocol and checks; the product is a loop in a
 * target region (no BLAS on a device). Runs on OpenMP's host fallback too. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <omp.h>
#include <shmemx.h>

#include "app.h"
#include "cannon_common.h"

/* the blocks in the program's one variable, nb x nb each: the input blocks, the travelling double buffers, C */
enum { BLK_A0, BLK_B0, BLK_A, BLK_B = BLK_A + 2, BLK_C = BLK_B + 2, BLK_COUNT };

static long n = 1024, max_serial = 512, partition = 1;
static const char *variant = "extended";
static int extended, q, row, col;
static long nb;
static size_t bb;     /* doubles in a block */
static double *blk;   /* the program's variable (host symmetric memory, mapped): BLK_COUNT blocks */
static double *dblk;  /* extended: the symmetric device object behind it */
static uint64_t *sig; /* host symmetric: sig[0..1] A's buffers arrived, sig[2..3] B's */
static long *ack;     /* host symmetric: ack[0] the left PE is done with an A buffer, ack[1] the upper PE with B */
static uint64_t tag;  /* transfers so far over all repetitions: signal values only grow */

static size_t at(int block) { return (size_t)block * bb; }

/* transfer t (0 the skew, then one per step) of blocks sa and sb into buffer t&1 of the PEs that use them next */
static void send(int t, int sa, int sb, int to_a, int to_b) {
    size_t bytes = bb * sizeof(double), oa = at(sa), ob = at(sb);
    uint64_t v = tag + (uint64_t)t + 1;
    double *base = blk;
    if (extended) { /* device to device: the symmetric device blocks */
        base = dblk;
    } else { /* staged, the paper's standard form: every transfer leaves from the device's copy (a forwarded block's
              * host copy is current already, which a program whose device computes the blocks cannot assume) */
#pragma omp target update from(blk [oa:bb], blk [ob:bb])
    }
    if (t >= 2) { /* the receivers used buffer t&1 in step t-2: wait until they say they are done */
        shmem_long_wait_until(&ack[0], SHMEM_CMP_GE, (long)(v - 2));
        shmem_long_wait_until(&ack[1], SHMEM_CMP_GE, (long)(v - 2));
    }
    app_putmem_signal_nbi(base + at(BLK_A + (t & 1)), base + oa, bytes, &sig[t & 1], v, to_a);
    app_putmem_signal_nbi(base + at(BLK_B + (t & 1)), base + ob, bytes, &sig[2 + (t & 1)], v, to_b);
}

/* C += A * B on the device for the blocks in buffer u: one (i, j) entry per iteration, its sum over k in order */
static void multiply(int u) {
    double *m = blk;
    size_t all = at(BLK_COUNT), oa = at(BLK_A + u), ob = at(BLK_B + u), oc = at(BLK_C);
    long w = nb;
#pragma omp target teams distribute parallel for collapse(2) map(alloc : m [0:all])
    for (long i = 0; i < w; i++)
        for (long j = 0; j < w; j++) {
            double s = m[oc + (size_t)(i * w + j)];
            for (long k = 0; k < w; k++)
                s += m[oa + (size_t)(i * w + k)] * m[ob + (size_t)(k * w + j)];
            m[oc + (size_t)(i * w + j)] = s;
        }
}

/* cannon.c's body: the skew, then q steps that wait for their blocks, send them on and multiply them */
static void body(void *arg) {
    (void)arg;
    int left = cannon_pe(q, row, col - 1), up = cannon_pe(q, row - 1, col);
    int right = cannon_pe(q, row, col + 1), down = cannon_pe(q, row + 1, col);
    double *m = blk;
    size_t all = at(BLK_COUNT), oc = at(BLK_C), len = bb;
#pragma omp target teams distribute parallel for map(alloc : m [0:all])
    for (size_t i = 0; i < len; i++)
        m[oc + i] = 0;
    /* skew: A(i,j) goes i places left, B(i,j) j places up */
    send(0, BLK_A0, BLK_B0, cannon_pe(q, row, col - row), cannon_pe(q, row - col, col));
    for (int s = 0; s < q; s++) {
        uint64_t v = tag + (uint64_t)s + 1;
        int u = s & 1;
        app_signal_wait_until(&sig[u], SHMEM_CMP_GE, v);
        app_signal_wait_until(&sig[2 + u], SHMEM_CMP_GE, v);
        if (!extended) { /* the blocks arrived in the host buffers: into the device */
            size_t oa = at(BLK_A + u), ob = at(BLK_B + u);
#pragma omp target update to(blk [oa:bb], blk [ob:bb])
        }
        if (s + 1 < q) /* the next step's blocks travel while this step multiplies */
            send(s + 1, BLK_A + u, BLK_B + u, left, up);
        multiply(u);
        if (s + 2 < q) {
            shmem_quiet(); /* my puts from buffer u have read it: it may be overwritten */
            shmem_long_atomic_set(&ack[0], (long)v, right);
            shmem_long_atomic_set(&ack[1], (long)v, down);
        }
    }
    shmem_quiet();
    tag += (uint64_t)q;
}

int main(int argc, char **argv) {
    shmem_init();
    const struct app_opt opts[] = {
        {"--n", APP_INT, &n, "the matrices are N x N doubles (default 1024); sqrt(npes) must divide N"},
        {"--max-serial", APP_INT, &max_serial,
         "--verify against a serial dgemm up to this N (default 512), above it by weighted checksums"},
        {"--variant", APP_STR, &variant, "standard (staged through host memory) or extended (symmetric device memory)"},
        {"--partition", APP_INT, &partition, "extended: the KIND=LIBOMP partition of the blocks (default 1)"},
        {NULL, 0, NULL, NULL}};
    app_init(argc, argv, "cannon-omp", "Cannon's matrix multiply with the blocks in OpenMP device memory", opts);
    extended = !strcmp(variant, "extended");
    if (!extended && strcmp(variant, "standard")) {
        if (app_g.me == 0)
            fprintf(stderr, "cannon-omp: --variant must be standard or extended, not %s\n", variant);
        shmem_finalize();
        return 2;
    }
    app_g.variant = variant;
    int rc = cannon_grid(n, &q);
    if (rc) {
        shmem_finalize();
        return rc;
    }
    nb = n / q, row = app_g.me / q, col = app_g.me % q;
    bb = (size_t)(nb * nb);
    size_t all = at(BLK_COUNT), bytes = all * sizeof(double);
    blk = (double *)shmem_align(64, bytes);
    sig = (uint64_t *)shmem_calloc(4, sizeof(uint64_t));
    ack = (long *)shmem_calloc(2, sizeof(long));
    if (!blk || !sig || !ack) {
        fprintf(stderr, "cannon-omp: PE %d: out of symmetric memory for N=%ld (raise SHMEM_SYMMETRIC_SIZE)\n", app_g.me,
                n);
        shmem_global_exit(1);
    }
    if (extended) {
        if (!(dblk = (double *)shmemx_omp_map(blk, bytes, (int)partition))) {
            fprintf(stderr,
                    "cannon-omp: PE %d: partition %ld has no room for %zu bytes (SHMEM_SYMMETRIC_PARTITION%ld)\n",
                    app_g.me, partition, bytes, partition);
            shmem_global_exit(1);
        }
    } else {
#pragma omp target enter data map(alloc : blk [0:all])
    }
    app_param("n", "%ld", n);
    app_param("npes", "%d", app_g.npes);
    app_param("q", "%d", q);
    app_param("offload_devices", "%d", omp_get_num_devices());

    /* the input blocks, written on the host, then into the device */
    cannon_fill(nb, row, col, blk + at(BLK_A0), blk + at(BLK_B0));
    size_t in = at(BLK_A0), inlen = 2 * bb;
#pragma omp target update to(blk [in:inlen])
    shmem_barrier_all();

    double tmin, tmax, t = app_time("steps", body, NULL, &tmin, &tmax);
    double flop = 2.0 * (double)n * (double)n * (double)n;
    app_metric("time", t, tmin, tmax, "s");
    app_metric("gflops", flop / t * 1e-9, flop / tmax * 1e-9, flop / tmin * 1e-9, "GFLOP/s");

    if (app_g.verify) { /* cannon.c's checks, on the host copy of C */
        size_t oc = at(BLK_C);
#pragma omp target update from(blk [oc:bb])
        shmem_barrier_all(); /* every PE's C is on its host before PE 0 reads them */
        app_verdict(cannon_verify(n, q, max_serial, blk + oc));
    }

    shmem_barrier_all();
    if (extended) {
        shmemx_omp_unmap(blk);
    } else {
#pragma omp target exit data map(delete : blk [0:all])
    }
    shmem_free(blk), shmem_free(sig), shmem_free(ack);
    return app_finish();
}

/* cannon - Cannon's matrix multiply C = A*B (N x N doubles) on a q x q grid of PEs: the initial skew, then q steps of
 * a local dgemm while the next blocks of A (left) and B (up) travel by non-blocking puts into double buffers. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime in app.h under -std=c11 */
#include <cblas.h>
#include <math.h>

#include "app.h"

struct cannon {
    long n, nb;
    int me, npes, q, row, col;
    double *a0, *b0;         /* this PE's blocks of A and B (local, the input) */
    double *a[2], *b[2], *c; /* symmetric: the blocks travelling, and this PE's block of C */
    uint64_t *sig;           /* symmetric: sig[0..1] A's buffers arrived, sig[2..3] B's */
    long *ack;               /* symmetric: ack[0] the left PE is done with the A buffer, ack[1] the upper PE with B */
    uint64_t tag;            /* transfers so far over all repetitions: signal values only grow */
};

static int pe_at(const struct cannon *m, int r, int c) { return ((r + m->q) % m->q) * m->q + (c + m->q) % m->q; }

/* the inputs, from global indices only: PE 0 can build all of them to check against; in [0.5, 1.5) so the
 * relative error of each C entry is meaningful (no cancellation) */
static double a_at(long i, long j) {
    uint64_t h = ((uint64_t)i << 32 | (uint64_t)j) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 29;
    return 0.5 + (double)(h >> 11) / 9007199254740992.0;
}
static double b_at(long i, long j) { return a_at(j + 0x5555, i + 0x1234); }

/* transfer t (0 the skew, then one per step) of this PE's blocks into buffer t&1 of the PEs that use them next */
static void send(struct cannon *m, int t, const double *sa, const double *sb, int to_a, int to_b) {
    size_t bytes = (size_t)(m->nb * m->nb) * sizeof(double);
    uint64_t v = m->tag + (uint64_t)t + 1;
    if (t >= 2) { /* the receivers used buffer t&1 in step t-2: wait until they say they are done */
        shmem_long_wait_until(&m->ack[0], SHMEM_CMP_GE, (long)(v - 2));
        shmem_long_wait_until(&m->ack[1], SHMEM_CMP_GE, (long)(v - 2));
    }
    app_putmem_signal_nbi(m->a[t & 1], sa, bytes, &m->sig[t & 1], v, to_a);
    app_putmem_signal_nbi(m->b[t & 1], sb, bytes, &m->sig[2 + (t & 1)], v, to_b);
}

static void body(void *arg) {
    struct cannon *m = arg;
    long nb = m->nb;
    int q = m->q, left = pe_at(m, m->row, m->col - 1), up = pe_at(m, m->row - 1, m->col);
    int right = pe_at(m, m->row, m->col + 1), down = pe_at(m, m->row + 1, m->col);
    memset(m->c, 0, (size_t)(nb * nb) * sizeof(double));
    /* skew: A(i,j) goes i places left, B(i,j) j places up */
    send(m, 0, m->a0, m->b0, pe_at(m, m->row, m->col - m->row), pe_at(m, m->row - m->col, m->col));
    for (int s = 0; s < q; s++) {
        uint64_t v = m->tag + (uint64_t)s + 1;
        app_signal_wait_until(&m->sig[s & 1], SHMEM_CMP_GE, v);
        app_signal_wait_until(&m->sig[2 + (s & 1)], SHMEM_CMP_GE, v);
        if (s + 1 < q) /* the next step's blocks leave while this step multiplies */
            send(m, s + 1, m->a[s & 1], m->b[s & 1], left, up);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)nb, (int)nb, (int)nb, 1.0, m->a[s & 1], (int)nb,
                    m->b[s & 1], (int)nb, 1.0, m->c, (int)nb);
        if (s + 2 < q) {
            shmem_quiet(); /* my puts from buffer s&1 have read it: it may be overwritten */
            shmem_long_atomic_set(&m->ack[0], (long)v, right);
            shmem_long_atomic_set(&m->ack[1], (long)v, down);
        }
    }
    shmem_quiet();
    m->tag += (uint64_t)q;
}

/* small N: PE 0 gathers C and compares it with one serial dgemm */
static int verify_serial(struct cannon *m) {
    long n = m->n, nb = m->nb;
    int ok = 1;
    if (m->me == 0) {
        double *a = malloc((size_t)(n * n) * sizeof(double)), *b = malloc((size_t)(n * n) * sizeof(double));
        double *c = malloc((size_t)(n * n) * sizeof(double)), *blk = malloc((size_t)(nb * nb) * sizeof(double));
        for (long i = 0; i < n; i++)
            for (long j = 0; j < n; j++)
                a[i * n + j] = a_at(i, j), b[i * n + j] = b_at(i, j);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0, a, (int)n, b, (int)n, 0.0,
                    c, (int)n);
        double maxrel = 0;
        for (int p = 0; p < m->npes; p++) {
            shmem_getmem(blk, m->c, (size_t)(nb * nb) * sizeof(double), p);
            long r0 = (p / m->q) * nb, c0 = (p % m->q) * nb;
            for (long i = 0; i < nb; i++)
                for (long j = 0; j < nb; j++) {
                    double ref = c[(r0 + i) * n + c0 + j];
                    maxrel = fmax(maxrel, fabs(blk[i * nb + j] - ref) / fabs(ref));
                }
        }
        ok = maxrel < 1e-10 && isfinite(maxrel);
        if (!app_g.quiet || !ok)
            printf("cannon: max relative error %.3g (limit 1e-10)\n", maxrel);
        free(a), free(b), free(c), free(blk);
    }
    return ok;
}

/* larger N: u^T C w = (u^T A)(B w) with weights u, w; each PE checks the rows and columns of its block:
 * sum_ij u_i C_ij w_j over its block = sum_k (sum_i u_i A_ik)(sum_j B_kj w_j) over its rows i and columns j */
static int verify_checksum(struct cannon *m) {
    long n = m->n, nb = m->nb, r0 = m->row * nb, c0 = m->col * nb;
    double got = 0, want = 0, mag = 0;
    for (long i = 0; i < nb; i++)
        for (long j = 0; j < nb; j++)
            got += (1.0 + (double)((r0 + i) % 7)) * m->c[i * nb + j] * (1.0 + (double)((c0 + j) % 5));
    for (long k = 0; k < n; k++) {
        double ua = 0, bw = 0;
        for (long i = 0; i < nb; i++)
            ua += (1.0 + (double)((r0 + i) % 7)) * a_at(r0 + i, k);
        for (long j = 0; j < nb; j++)
            bw += b_at(k, c0 + j) * (1.0 + (double)((c0 + j) % 5));
        want += ua * bw;
        mag += fabs(ua * bw);
    }
    double rel = fabs(got - want) / mag;
    int ok = rel < 1e-10 && isfinite(rel);
    if (!ok || !app_g.quiet)
        printf("cannon: PE %d weighted block sum relative error %.3g (limit 1e-10)\n", m->me, rel);
    return ok;
}

int main(int argc, char **argv) {
    long n = 1024, maxserial = 512, threads = 1;
    struct app_opt opts[] = {
        {"--n", APP_INT, &n, "the matrices are N x N doubles (default 1024); sqrt(npes) must divide N"},
        {"--max-serial", APP_INT, &maxserial,
         "--verify against a serial dgemm up to this N (default 512), above it by weighted checksums"},
        {"--threads", APP_INT, &threads, "OpenBLAS threads per PE (default 1)"},
        {NULL, 0, NULL, NULL}};
    shmem_init();
    app_init(argc, argv, "cannon", "Cannon's matrix multiply C = A*B on a q x q grid of PEs.", opts);
    struct cannon m = {.n = n, .me = app_g.me, .npes = app_g.npes};
    app_g.variant = "host";
    while ((m.q + 1) * (m.q + 1) <= m.npes)
        m.q++;
    if (m.q * m.q != m.npes) {
        if (m.me == 0)
            printf("cannon: needs a square number of PEs (1, 4, 9, ...), not %d: skipped\n", m.npes);
        shmem_finalize();
        return 77;
    }
    if (n < 1 || n % m.q) {
        if (m.me == 0)
            fprintf(stderr, "cannon: --n %ld must be a positive multiple of sqrt(npes) = %d\n", n, m.q);
        shmem_finalize();
        return 2;
    }
    openblas_set_num_threads((int)threads);
    m.nb = n / m.q;
    m.row = m.me / m.q;
    m.col = m.me % m.q;
    app_param("n", "%ld", n);
    app_param("npes", "%d", m.npes);
    app_param("q", "%d", m.q);

    size_t bytes = (size_t)(m.nb * m.nb) * sizeof(double);
    m.a0 = malloc(bytes), m.b0 = malloc(bytes);
    for (int i = 0; i < 2; i++)
        m.a[i] = shmem_align(64, bytes), m.b[i] = shmem_align(64, bytes);
    m.c = shmem_align(64, bytes);
    m.sig = shmem_calloc(4, sizeof(uint64_t));
    m.ack = shmem_calloc(2, sizeof(long));
    if (!m.a0 || !m.b0 || !m.a[0] || !m.a[1] || !m.b[0] || !m.b[1] || !m.c || !m.sig || !m.ack) {
        if (m.me == 0)
            fprintf(stderr, "cannon: out of memory for N=%ld (raise SHMEM_SYMMETRIC_SIZE)\n", n);
        shmem_global_exit(1);
    }
    for (long i = 0; i < m.nb; i++)
        for (long j = 0; j < m.nb; j++) {
            m.a0[i * m.nb + j] = a_at(m.row * m.nb + i, m.col * m.nb + j);
            m.b0[i * m.nb + j] = b_at(m.row * m.nb + i, m.col * m.nb + j);
        }
    shmem_barrier_all();

    double tmin, tmax, t = app_time("steps", body, &m, &tmin, &tmax);
    double flop = 2.0 * (double)n * (double)n * (double)n;
    app_metric("time", t, tmin, tmax, "s");
    app_metric("gflops", flop / t * 1e-9, flop / tmax * 1e-9, flop / tmin * 1e-9, "GFLOP/s");

    if (app_g.verify)
        app_verdict(n <= maxserial ? verify_serial(&m) : verify_checksum(&m));

    shmem_barrier_all();
    for (int i = 0; i < 2; i++)
        shmem_free(m.a[i]), shmem_free(m.b[i]);
    shmem_free(m.c), shmem_free(m.sig), shmem_free(m.ack);
    free(m.a0), free(m.b0);
    return app_finish();
}

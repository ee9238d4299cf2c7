/* cannon - Cannon's matrix multiply C = A*B (N x N doubles) on a q x q grid of PEs: the initial skew, then q steps of
 * a local dgemm while the next blocks of A (left) and B (up) travel by non-blocking puts into double buffers. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime in app.h under -std=c11 */
#include "app.h"
#include "cannon_common.h"

struct cannon {
    long n, nb;
    int me, npes, q, row, col;
    double *a0, *b0;         /* this PE's blocks of A and B (local, the input) */
    double *a[2], *b[2], *c; /* symmetric: the blocks travelling, and this PE's block of C */
    uint64_t *sig;           /* symmetric: sig[0..1] A's buffers arrived, sig[2..3] B's */
    long *ack;               /* symmetric: ack[0] the left PE is done with the A buffer, ack[1] the upper PE with B */
    uint64_t tag;            /* transfers so far over all repetitions: signal values only grow */
};

static int pe_at(const struct cannon *m, int r, int c) { return cannon_pe(m->q, r, c); }

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
    int rc = cannon_grid(n, &m.q);
    if (rc) {
        shmem_finalize();
        return rc;
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
    cannon_fill(m.nb, m.row, m.col, m.a0, m.b0);
    shmem_barrier_all();

    double tmin, tmax, t = app_time("steps", body, &m, &tmin, &tmax);
    double flop = 2.0 * (double)n * (double)n * (double)n;
    app_metric("time", t, tmin, tmax, "s");
    app_metric("gflops", flop / t * 1e-9, flop / tmax * 1e-9, flop / tmin * 1e-9, "GFLOP/s");

    if (app_g.verify)
        app_verdict(cannon_verify(n, m.q, maxserial, m.c));

    shmem_barrier_all();
    for (int i = 0; i < 2; i++)
        shmem_free(m.a[i]), shmem_free(m.b[i]);
    shmem_free(m.c), shmem_free(m.sig), shmem_free(m.ack);
    free(m.a0), free(m.b0);
    return app_finish();
}

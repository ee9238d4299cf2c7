/* nvshmem-perf-dev.cu - NVSHMEM measured as shmem-perf-dev measures gshmem: bench/devbench.cuh's figures with
 * nvshmem_* in the kernels and nvshmemx_putmem_on_stream, so that gshmem / NVSHMEM is a ratio of like with like.
 * Built by bench/nvshmem/build.sh against the nvidia-nvshmem-cu13 wheel (never part of the repository) and run on a
 * GPU machine under gshmem's oshrun, which gives rank and size (GSHMEM_RANK, GSHMEM_SIZE); no MPI: NVSHMEM's
 * unique-ID bootstrap, the ID passed from rank 0 to the others through a file named after the job (GSHMEM_JOBID).
 * The same file holds a host barrier: NVSHMEM's own collectives are refused, or slow, when several processes share one
 * GPU without MPS, and the benchmark's set-up between points needs none of them.
 * Usage: oshrun -np 2 nvshmem-perf-dev [--quick] [--iters N] [--reps R] [--max BYTES] [--only FIG,...] [--json FILE] */
#include <nvshmem.h>
#include <nvshmemx.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "devbench.cuh"

struct nvshmem_ops {
    static __device__ void p(long *d, long v, int pe) { nvshmem_long_p(d, v, pe); }
    static __device__ void quiet() { nvshmem_quiet(); }
    static __device__ void put(char *d, const char *s, size_t n, int pe) { nvshmem_putmem(d, s, n, pe); }
    static __device__ void get(char *d, const char *s, size_t n, int pe) { nvshmem_getmem(d, s, n, pe); }
    static __device__ long fadd(long *d, long v, int pe) { return nvshmem_long_atomic_fetch_add(d, v, pe); }
    static __device__ void wait_ge(long *f, long v) { nvshmem_long_wait_until(f, NVSHMEM_CMP_GE, v); }
    static __device__ void put_signal(char *d, const char *s, size_t n, uint64_t *sig, uint64_t v, int pe) {
        nvshmem_putmem_signal(d, s, n, sig, v, NVSHMEM_SIGNAL_SET, pe);
    }
    static __device__ void sig_wait_ge(uint64_t *sig, uint64_t v) { nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, v); }
    static __device__ void put_nbi_block(char *d, const char *s, size_t n, int pe) {
        nvshmemx_putmem_nbi_block(d, s, n, pe);
    }
    static __device__ void put_nbi_warp(char *d, const char *s, size_t n, int pe) {
        nvshmemx_putmem_nbi_warp(d, s, n, pe);
    }
    /* NVSHMEM has no group quiet: the group's barrier, one thread's quiet (which completes the PE's puts), the
     * barrier again, as gshmem's shmemg_quiet_tg/_htg begin and end with the group's barrier */
    static __device__ void quiet_block() {
        __syncthreads();
        if (threadIdx.x == 0)
            nvshmem_quiet();
        __syncthreads();
    }
    static __device__ void quiet_warp() {
        __syncwarp();
        if (threadIdx.x % 32 == 0)
            nvshmem_quiet();
        __syncwarp();
    }
};

/* the job's file: rank 0 writes the unique ID; every rank uses the barrier and the broadcast slot */
struct job_file {
    int ready; /* rank 0 has written uid */
    int count, gen;
    long value;
    nvshmemx_uniqueid_t uid;
};

static void backoff(int k) { /* spin, yield, then sleep up to 100 us: the PEs may share few cores */
    if (k < 64)
        return;
    if (k < 128) {
        sched_yield();
        return;
    }
    struct timespec ts = {0, k < 1000 ? 1000L * (k / 128) : 100000L};
    nanosleep(&ts, nullptr);
}

struct nvshmem_host : devbench::host_if {
    job_file *jf = nullptr;
    void barrier() override {
        int g = __atomic_load_n(&jf->gen, __ATOMIC_ACQUIRE);
        if (__atomic_add_fetch(&jf->count, 1, __ATOMIC_ACQ_REL) == npes) {
            __atomic_store_n(&jf->count, 0, __ATOMIC_RELAXED);
            __atomic_add_fetch(&jf->gen, 1, __ATOMIC_RELEASE);
            return;
        }
        for (int k = 0; __atomic_load_n(&jf->gen, __ATOMIC_ACQUIRE) == g; k++)
            backoff(k);
    }
    long share(long v) override {
        if (me == 0)
            __atomic_store_n(&jf->value, v, __ATOMIC_RELAXED);
        barrier();
        v = __atomic_load_n(&jf->value, __ATOMIC_RELAXED);
        barrier(); /* before PE 0 may write the next value */
        return v;
    }
    void put_on_stream(void *d, const void *s, size_t n, int pe, cudaStream_t st) override {
        nvshmemx_putmem_on_stream(d, s, n, pe, st);
        nvshmemx_quiet_on_stream(st); /* complete at the target, as gshmem's on-stream put is */
    }
};

static int env_int(const char *name, int dflt) {
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

/* rank 0 creates the file under a temporary name and renames it (the others never see it half made); the others
 * wait for it (60 s) and for the ID in it */
static job_file *open_job_file(int rank, const char *jobid) {
    char path[512], tmp[560];
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(path, sizeof path, "%s/nvshmem-perf-dev-%s", dir, jobid);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = -1;
    if (rank == 0) {
        fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || ftruncate(fd, sizeof(job_file)) != 0) {
            fprintf(stderr, "nvshmem-perf-dev: %s: %s\n", tmp, strerror(errno));
            exit(1);
        }
    } else {
        for (int k = 0; (fd = open(path, O_RDWR)) < 0; k++) {
            if (k > 60000) {
                fprintf(stderr, "nvshmem-perf-dev: rank %d: no %s from rank 0 after 60 s\n", rank, path);
                exit(1);
            }
            struct timespec ts = {0, 1000000L};
            nanosleep(&ts, nullptr);
        }
    }
    void *m = mmap(nullptr, sizeof(job_file), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        perror("nvshmem-perf-dev: mmap");
        exit(1);
    }
    job_file *jf = (job_file *)m;
    if (rank == 0) {
        nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
        if (nvshmemx_get_uniqueid(&id) != 0) {
            fprintf(stderr, "nvshmem-perf-dev: nvshmemx_get_uniqueid failed\n");
            exit(1);
        }
        memcpy(&jf->uid, &id, sizeof id);
        __atomic_store_n(&jf->ready, 1, __ATOMIC_RELEASE);
        if (rename(tmp, path) != 0) {
            fprintf(stderr, "nvshmem-perf-dev: rename %s: %s\n", tmp, strerror(errno));
            exit(1);
        }
    } else {
        for (int k = 0; !__atomic_load_n(&jf->ready, __ATOMIC_ACQUIRE); k++)
            backoff(k);
    }
    return jf;
}

int main(int argc, char **argv) {
    devbench::opts o;
    if (devbench::parse(argc, argv, o, "oshrun -np 2 nvshmem-perf-dev"))
        return 2;
    int rank = env_int("GSHMEM_RANK", 0), size = env_int("GSHMEM_SIZE", 1);
    const char *jobid = getenv("GSHMEM_JOBID");
    if (size < 2 || !jobid || !*jobid) {
        fprintf(stderr, "nvshmem-perf-dev: start it with gshmem's oshrun -np 2 (it takes rank, size and job from "
                        "GSHMEM_RANK, GSHMEM_SIZE and GSHMEM_JOBID)\n");
        return 2;
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        if (rank == 0)
            printf("SKIP: nvshmem-perf-dev needs a CUDA GPU\n");
        return 77;
    }
    cudaSetDevice(rank % ndev); /* (the unique-ID bootstrap takes the current device) */
    /* one node, no network: the bootstrap on loopback, no remote transport, no NCCL (the caller may override) */
    setenv("NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME", "lo", 0);
    setenv("NVSHMEM_REMOTE_TRANSPORT", "none", 0);
    setenv("NVSHMEM_DISABLE_NCCL", "1", 0);
    nvshmem_host h;
    h.me = rank;
    h.npes = size;
    h.jf = open_job_file(rank, jobid);
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    nvshmemx_set_attr_uniqueid_args(rank, size, &h.jf->uid, &attr);
    nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
    if (nvshmem_my_pe() != rank || nvshmem_n_pes() != size) {
        fprintf(stderr, "nvshmem-perf-dev: NVSHMEM numbers this PE %d of %d, oshrun %d of %d\n", nvshmem_my_pe(),
                nvshmem_n_pes(), rank, size);
        return 1;
    }
    devbench::dev_sym s;
    s.half = devbench::buf_half(o);
    s.flag = (long *)nvshmem_calloc(1, devbench::flag_bytes);
    s.sig = (uint64_t *)nvshmem_calloc(1, devbench::sig_bytes);
    s.buf = (char *)nvshmem_calloc(2, s.half);
    if (!s.flag || !s.sig || !s.buf) {
        fprintf(stderr, "nvshmem-perf-dev: PE %d: nvshmem_calloc of %zu bytes failed (NVSHMEM_SYMMETRIC_SIZE)\n", rank,
                2 * s.half);
        return 1;
    }
    static cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, rank % ndev);
    static char impl[NVSHMEM_MAX_NAME_LEN + 32];
    int major = 0, minor = 0;
    nvshmem_info_get_version(&major, &minor);
    snprintf(impl, sizeof impl, "NVSHMEM %d.%d.%d (spec %d.%d)", NVSHMEM_VENDOR_MAJOR_VERSION,
             NVSHMEM_VENDOR_MINOR_VERSION, NVSHMEM_VENDOR_PATCH_VERSION, major, minor);
    h.impl = impl;
    h.device = prop.name;
    devbench::run_all<nvshmem_ops>(h, s, o);
    nvshmem_free(s.buf);
    nvshmem_free(s.sig);
    nvshmem_free(s.flag);
    nvshmem_finalize();
    h.barrier();
    if (rank == 0) {
        char path[512];
        snprintf(path, sizeof path, "%s/nvshmem-perf-dev-%s", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
                 jobid);
        unlink(path);
    }
    return 0;
}

/* scaling-probe.c - what one PE costs as the job grows: init time, memory (RSS, PSS), descriptors and threads after
 * init and after it has talked to every other PE; PE 0 prints one CSV row for docs/scaling.md's model
 * (bench/scaling.sh). Public OpenSHMEM API only (plus Linux /proc), so the same file builds with any implementation's
 * oshcc. */
#include <dirent.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { INIT_S, RSS_KIB, PSS_KIB, FDS_INIT, FDS_ALL, THREADS, TOUCH_S, NSTAT };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long count_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    long n = 0;
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n - 3; /* ".", ".." and the DIR's own descriptor */
}

/* a "Name:   123 kB" field of a /proc/self file, or -1 */
static long proc_field(const char *file, const char *name) {
    char line[256];
    long v = -1;
    size_t len = strlen(name);
    FILE *f = fopen(file, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, name, len) && line[len] == ':') {
            v = atol(line + len + 1);
            break;
        }
    fclose(f);
    return v;
}

static double stat_buf[NSTAT], all_stats[NSTAT * 8192];
static long psync[SHMEM_ALLTOALL_SYNC_SIZE];

int main(void) {
    double t0 = now();
    shmem_init();
    double t1 = now();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n > 8192) {
        if (me == 0)
            fprintf(stderr, "scaling-probe: at most 8192 PEs\n");
        shmem_global_exit(2);
    }
    stat_buf[INIT_S] = t1 - t0;
    stat_buf[FDS_INIT] = (double)count_fds();

    /* talk to every PE: a put and an atomic each, then an alltoall (what makes a connection-on-demand transport
     * open everything it will ever open) */
    long *cell = shmem_calloc((size_t)n, sizeof(long));
    long *src = shmem_malloc((size_t)n * sizeof(long)), *dst = shmem_malloc((size_t)n * sizeof(long));
    for (int i = 0; i < n; i++)
        src[i] = me;
    for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    double t2 = now();
    for (int k = 1; k < n; k++) {
        int pe = (me + k) % n;
        shmem_long_p(&cell[me], me, pe);
        shmem_long_atomic_add(&cell[me], 1, pe);
    }
    shmem_quiet();
#if SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION >= 105
    shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, 1);
#else
    shmem_alltoall64(dst, src, 1, 0, 0, n, psync);
#endif
    shmem_barrier_all();
    stat_buf[TOUCH_S] = now() - t2;
    stat_buf[FDS_ALL] = (double)count_fds();
    stat_buf[RSS_KIB] = (double)proc_field("/proc/self/status", "VmRSS");
    stat_buf[PSS_KIB] = (double)proc_field("/proc/self/smaps_rollup", "Pss");
    stat_buf[THREADS] = (double)proc_field("/proc/self/status", "Threads");
    for (int i = 0; i < n; i++)
        if (dst[i] != i || (i != me && cell[i] != i + 1)) {
            fprintf(stderr, "scaling-probe: PE %d: wrong data from PE %d\n", me, i);
            shmem_global_exit(1);
        }

    shmem_barrier_all();
    for (int pe = 0; pe < n && me == 0; pe++)
        shmem_getmem(&all_stats[NSTAT * pe], stat_buf, sizeof stat_buf, pe);
    if (me == 0) {
        double mx[NSTAT] = {0}, sum[NSTAT] = {0};
        for (int pe = 0; pe < n; pe++)
            for (int s = 0; s < NSTAT; s++) {
                double v = all_stats[NSTAT * pe + s];
                sum[s] += v;
                if (v > mx[s])
                    mx[s] = v;
            }
        /* npes, slowest init, mean RSS/PSS per PE (KiB), node PSS (MiB), most descriptors after init and after
         * touching all, threads, time to touch all */
        printf("%d,%.3f,%.0f,%.0f,%.1f,%.0f,%.0f,%.0f,%.3f\n", n, mx[INIT_S], sum[RSS_KIB] / n, sum[PSS_KIB] / n,
               sum[PSS_KIB] / 1024.0, mx[FDS_INIT], mx[FDS_ALL], mx[THREADS], mx[TOUCH_S]);
    }
    shmem_free(dst);
    shmem_free(src);
    shmem_free(cell);
    shmem_finalize();
    return 0;
}

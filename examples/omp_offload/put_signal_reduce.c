/* put_signal_reduce.c - OpenSHMEM on device data from standard OpenMP offload code: a vector filled on the device goes
 * to the next PE with put-with-signal, which sums it on its device, and a sum reduction joins the PEs - on symmetric
 * device memory reached through `map` and use_device_ptr, with no staging copy (docs/omp.md). Run with
 * SHMEM_SYMMETRIC_PARTITION1=SIZE=1M:KIND=LIBOMP; without an offload device it runs on the host fallback. */
#include <omp.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>

#define N 4096
#define PART 1

/* The program's own variables, as an OpenMP program has them; static data is symmetric too, which the host fallback
 * (target regions on the host, every variable its own device copy) relies on */
static double src_h[N], dst_h[N], part_h[1], total_h[1];
static uint64_t arrived;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    double *src = src_h, *dst = dst_h, *part = part_h, *total = total_h;

    /* symmetric device storage behind each variable: `map` finds it present, so nothing is staged */
    shmemx_omp_map(src, sizeof src_h, PART);
    shmemx_omp_map(dst, sizeof dst_h, PART);
    shmemx_omp_map(part, sizeof part_h, PART);
    shmemx_omp_map(total, sizeof total_h, PART);

#pragma omp target data map(alloc : src [0:N], dst [0:N], part [0:1], total [0:1])
    {
#pragma omp target teams distribute parallel for
        for (int i = 0; i < N; i++)
            src[i] = (double)me * N + i;

            /* the device addresses are symmetric: OpenSHMEM moves device memory to device memory */
#pragma omp target data use_device_ptr(src, dst)
        shmem_putmem_signal(dst, src, N * sizeof(double), &arrived, 1, SHMEM_SIGNAL_SET, next);
        shmem_signal_wait_until(&arrived, SHMEM_CMP_EQ, 1);

        double s = 0;
#pragma omp target teams distribute parallel for reduction(+ : s) map(tofrom : s)
        for (int i = 0; i < N; i++)
            s += dst[i];
#pragma omp target map(to : s)
        part[0] = s;

#pragma omp target data use_device_ptr(part, total)
        shmem_double_sum_reduce(SHMEM_TEAM_WORLD, total, part, 1);

#pragma omp target update from(dst [0:N], total [0:1])
    }

    /* PE prev's vector arrived; the total is the sum of every PE's vector: sum over k < npes*N of k */
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += dst_h[i] != (double)prev * N + i;
    double want = (double)npes * N * ((double)npes * N - 1) / 2;
    bad += total_h[0] != want;
    shmem_barrier_all();
    shmemx_omp_unmap(total);
    shmemx_omp_unmap(part);
    shmemx_omp_unmap(dst);
    shmemx_omp_unmap(src);
    if (me == 0)
        printf("put_signal_reduce: %d PEs, %s: %s (total %.0f)\n", npes,
               omp_get_num_devices() > 0 ? "OpenMP offload device" : "host fallback", bad ? "FAILED" : "ok",
               total_h[0]);
    shmem_finalize();
    return bad != 0;
}

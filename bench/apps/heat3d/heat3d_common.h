/* heat3d_common.h - what the heat3d forms and their serial check share: the slab split of the grid, the initial
 * state, and one plane of the 7-point update, so the distributed and serial runs do the same arithmetic. */
#ifndef GSHMEM_APP_HEAT3D_COMMON_H
#define GSHMEM_APP_HEAT3D_COMMON_H
#include <stddef.h>

#ifdef __cplusplus
#define HEAT_RESTRICT __restrict__
#else
#define HEAT_RESTRICT restrict
#endif

/* PE p's planes: n / npes each, one more for the first n % npes PEs */
static inline void heat_slab(long n, int npes, int p, long *nz, long *z0) {
    long b = n / npes, r = n % npes;
    *nz = b + (p < r);
    if (z0)
        *z0 = p * b + (p < r ? p : r);
}

/* a lumpy, deterministic initial state (every point differs from its neighbours, so a misplaced plane shows) */
static inline void heat_init_plane(double *u, long n, long z) {
    for (long y = 0; y < n; y++)
        for (long x = 0; x < n; x++)
            u[y * n + x] = (double)((x * 31 + y * 17 + z * 7) % 23) / 23.0;
}

/* out = c + alpha * (sum of the 6 neighbours - 6 c), periodic in x and y; m and p are the planes below and above */
static inline void heat_plane(double *HEAT_RESTRICT out, const double *HEAT_RESTRICT m, const double *HEAT_RESTRICT c,
                              const double *HEAT_RESTRICT p, long n, double alpha) {
    for (long y = 0; y < n; y++) {
        const double *cy = c + y * n, *cm = c + (y ? y - 1 : n - 1) * n, *cp = c + (y + 1 < n ? y + 1 : 0) * n;
        const double *my = m + y * n, *py = p + y * n;
        double *o = out + y * n;
        o[0] = cy[0] + alpha * ((cy[n - 1] + cy[1]) + (cm[0] + cp[0]) + (my[0] + py[0]) - 6.0 * cy[0]);
        for (long x = 1; x < n - 1; x++)
            o[x] = cy[x] + alpha * ((cy[x - 1] + cy[x + 1]) + (cm[x] + cp[x]) + (my[x] + py[x]) - 6.0 * cy[x]);
        o[n - 1] = cy[n - 1] +
                   alpha * ((cy[n - 2] + cy[0]) + (cm[n - 1] + cp[n - 1]) + (my[n - 1] + py[n - 1]) - 6.0 * cy[n - 1]);
    }
}

#endif

/* test_copy.c - shmemi_copy (the shared-memory path's copy) gives memcpy's result for every size around its vector
 * range's edges and every relative alignment within 64 bytes, and touches nothing outside the destination. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy.h"

int main(void) {
    enum { CAP = (2 << 20) + 256 };
    unsigned char *src = malloc(CAP), *dst = malloc(CAP), *want = malloc(CAP);
    if (!src || !dst || !want)
        return 1;
    for (size_t i = 0; i < CAP; i++)
        src[i] = (unsigned char)(i * 131 + 7);
    static const size_t sizes[] = {0,    1,    127,        128,           129,     2047,          2048,   2049,
                                   4096, 8191, 65536 + 77, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 2 << 20};
    int fails = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int so = 0; so < 64; so += 7)
            for (int dof = 0; dof < 64; dof += 5) {
                size_t n = sizes[k];
                memset(dst, 0xee, n + 128);
                memset(want, 0xee, n + 128);
                memcpy(want + dof, src + so, n);
                shmemi_copy(dst + dof, src + so, n);
                if (memcmp(dst, want, n + 128) && fails++ < 10)
                    printf("FAIL: %zu bytes, source offset %d, destination offset %d\n", n, so, dof);
            }
    printf("test_copy: %s (vector copy %s)\n", fails ? "FAILED" : "passed",
#if defined(__x86_64__) && defined(__GNUC__)
           shmemi_copy_have_vec ? "in use" : "not available"
#else
           "not built"
#endif
    );
    free(src), free(dst), free(want);
    return fails != 0;
}

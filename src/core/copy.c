/* copy.c - the vector copy behind shmemi_copy (copy.h): 128 bytes a turn with unaligned 32-byte loads and stores,
 * which keep their speed whatever the relative alignment; AVX2 where the CPU has it (checked once, at load). */
#include "copy.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

int shmemi_copy_have_vec;

__attribute__((constructor)) static void copy_probe(void) {
    __builtin_cpu_init();
    shmemi_copy_have_vec = __builtin_cpu_supports("avx2");
}

__attribute__((target("avx2"))) void shmemi_copy_vec(void *dst, const void *src, size_t n) {
    char *d = dst;
    const char *s = src;
    size_t i = 0;
    for (; i + 128 <= n; i += 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 64));
        __m256i e = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 96));
        _mm256_storeu_si256((__m256i *)(void *)(d + i), a);
        _mm256_storeu_si256((__m256i *)(void *)(d + i + 32), b);
        _mm256_storeu_si256((__m256i *)(void *)(d + i + 64), c);
        _mm256_storeu_si256((__m256i *)(void *)(d + i + 96), e);
    }
    memcpy(d + i, s + i, n - i); /* under 128 bytes: not the slow case */
}
#endif

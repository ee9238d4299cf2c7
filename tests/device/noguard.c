/* noguard.c - LD_PRELOAD for tests: madvise refuses MADV_GUARD_INSTALL, as Linux before 6.13 does, so that the
 * emulated GPU's thread stacks take mprotect guards and the mapping budget of older kernels on any kernel. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

int madvise(void *addr, size_t len, int advice) {
    static int (*real)(void *, size_t, int);
    if (advice == 102) { /* MADV_GUARD_INSTALL */
        errno = EINVAL;
        return -1;
    }
    if (!real)
        real = (int (*)(void *, size_t, int))dlsym(RTLD_NEXT, "madvise");
    return real(addr, len, advice);
}

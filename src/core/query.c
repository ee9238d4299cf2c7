/* query.c - the routines that only read the runtime's state: which PE, how many, what is reachable, shmem_ptr, the
 * library's name and version. */
#include <string.h>

#include "state.h"

struct shmemi_state shmemi_rt = {.my_pe = 0, .n_pes = 0};

int shmem_my_pe(void) { return shmemi_rt.init_state == 1 ? shmemi_rt.my_pe : -1; }
int shmem_n_pes(void) { return shmemi_rt.init_state == 1 ? shmemi_rt.n_pes : -1; }
int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }

/* Every PE of the job is reachable (mapped, or through the network transport). */
int shmem_pe_accessible(int pe) { return shmemi_rt.init_state == 1 && pe >= 0 && pe < shmemi_rt.n_pes; }

int shmem_addr_accessible(const void *addr, int pe) {
    if (!shmem_pe_accessible(pe))
        return 0;
    size_t off;
    return shmemi_find_seg(addr, &off) != NULL;
}

void *shmem_ptr(const void *dest, int pe) {
    if (!shmem_pe_accessible(pe))
        return NULL;
    size_t off;
    struct shmemi_seg *s = shmemi_find_seg(dest, &off);
    return s && s->peer[pe] ? s->peer[pe] + off : NULL;
}

void shmem_query_initialized(int *initialized) {
    if (initialized)
        *initialized = shmemi_rt.init_state == 1;
}

void shmem_pcontrol(int level, ...) {}

void shmem_info_get_version(int *major, int *minor) {
    if (major)
        *major = SHMEM_MAJOR_VERSION;
    if (minor)
        *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name) {
    if (name) {
        strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
        name[SHMEM_MAX_NAME_LEN - 1] = '\0';
    }
}

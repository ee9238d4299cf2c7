/* ofi_none.c - the transport entry points of a build without libfabric: a job that needs the network says so. */
#include <stdio.h>

#include "transport/ofi/ofi.h"

int shmemi_ofi_up;

int shmemi_ofi_open(char *err, size_t errlen) {
    snprintf(err, errlen,
             "some PEs are not on this node (or SHMEM_TRANSPORT=ofi is set), but this gshmem was built without "
             "libfabric; install libfabric-dev and rebuild, or run every PE on one node with SHMEM_TRANSPORT=auto");
    return -1;
}
int shmemi_ofi_connect(const void *cards, size_t stride, char *err, size_t errlen) {
    return shmemi_ofi_open(err, errlen);
}
size_t shmemi_ofi_card_bytes(void) { return 0; }
void shmemi_ofi_card(void *out) {}
void shmemi_ofi_fini(void) {}
void shmemi_ofi_regions_unlink(void) {}
const char *shmemi_ofi_describe(void) { return NULL; }
void shmemi_ofi_put(shmem_ctx_t ctx, struct shmemi_seg *s, size_t off, const void *src, size_t len, int pe, int nbi) {}
void shmemi_ofi_get(shmem_ctx_t ctx, struct shmemi_seg *s, size_t off, void *dst, size_t len, int pe, int nbi) {}
uint64_t shmemi_ofi_amo(shmem_ctx_t ctx, int op, struct shmemi_seg *s, size_t off, uint64_t value, uint64_t cond,
                        size_t size, int pe) {
    return 0;
}
void shmemi_ofi_put_signal(shmem_ctx_t ctx, struct shmemi_seg *ds, size_t doff, const void *src, size_t len,
                           struct shmemi_seg *ss, size_t soff, uint64_t signal, int sig_op, int pe) {}
void shmemi_ofi_coll_put(struct shmemi_seg *s, size_t off, const void *src, size_t len, int pe) {}
void shmemi_ofi_coll_signal(size_t off, int pe) {}
void shmemi_ofi_coll_done(void) {}
void shmemi_ofi_coll_put_signal(struct shmemi_seg *s, size_t off, const void *src, size_t len, size_t sig, int pe) {}
void shmemi_ofi_quiet(shmem_ctx_t ctx) {}
void shmemi_ofi_fence(shmem_ctx_t ctx) {}
void shmemi_ofi_quiet_all(void) {}
int shmemi_ofi_progress(void) { return 0; }
int shmemi_ofi_fabric_atomics(void) { return 0; }
int shmemi_ofi_gpu_reachable(const struct shmemi_seg *s) {
    (void)s;
    return 0;
}
void shmemi_ofi_driving(int how) {}
int shmemi_ofi_probe_post(int pe, size_t off, size_t len) { return 0; }
int shmemi_ofi_probe_poll(int pe, void *out, size_t len, uint64_t *since) { return -1; }
int shmemi_ofi_stall_limit(void) { return 0; }
const char *shmemi_ofi_peer_addr(int pe, char *buf, size_t len) {
    snprintf(buf, len, "address unknown");
    return buf;
}
void shmemi_ofi_ctx_create(struct gshmem_ctx *c) { c->net = NULL; }
void shmemi_ofi_ctx_destroy(struct gshmem_ctx *c) {}

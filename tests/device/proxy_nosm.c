/* proxy_nosm.c - the proxy serves a kernel that holds every SM: on a stand-in GPU driver (fake CUDA or HIP, where no
 * kernel of ours can run) this program plays the kernel, writing requests into the ring exactly as the device library
 * does, while the fake refuses every kernel launch (fakegpu_hold_sms). Puts and gets between GPU heaps of this node,
 * small enough for SHMEM_GPU_COPY_CUTOVER's copy kernels, a quiet, a fence, and over libfabric a non-blocking fetching
 * atomic whose old value the proxy writes into GPU memory: each must be served without a kernel of the library's. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>
#include <shmemg.h>

#include "ring_client.h"

#define CHECK(c, ...)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            printf("FAIL PE %d line %d: ", shmem_my_pe(), __LINE__);                                                   \
            printf(__VA_ARGS__);                                                                                       \
            printf("\n");                                                                                              \
            fflush(stdout);                                                                                            \
            shmem_global_exit(1);                                                                                      \
        }                                                                                                              \
    } while (0)

static uint64_t request(struct shmemgi_req r) { return ring_request(r, 0); }

static void hold(void (*h)(int), int on) {
    if (h)
        h(on);
}

int main(void) {
    ring_client_init();
    int me = shmem_my_pe(), np = shmem_n_pes(), peer = (me + 1) % np;
    CHECK(got && st.ring, "the library did not hand over the device state");
    /* the fake driver's switch (loaded by the GPU backend), where there is one */
    void (*holder)(int) = NULL;
    const char *libs[] = {"libcuda.so.1", "libamdhip64.so", "libze_loader.so.1"};
    for (int i = 0; i < 3 && !holder; i++) {
        void *h = dlopen(libs[i], RTLD_NOW | RTLD_NOLOAD);
        if (h)
            holder = (void (*)(int))dlsym(h, "fakegpu_hold_sms");
    }
    CHECK(holder, "no stand-in driver with fakegpu_hold_sms is loaded (run with a fake GPU driver)");

    enum { N = 256 };
    char *d = shmemg_malloc(4 * N); /* [0, N): written by the peer; [N, 2N): the source; [2N, 3N): got; [3N]: fetched */
    long *counter = shmem_malloc(sizeof(long));
    char pat[N], back[N];
    for (int i = 0; i < N; i++)
        pat[i] = (char)(me * 31 + i);
    shmem_putmem(d + N, pat, N, me);
    *counter = 100 * me;
    shmem_barrier_all();

    hold(holder, 1);
    struct shmemgi_req r = {0};
    r.op = SHMEMGI_OP_PUT; /* a blocking put to the peer's GPU heap: a copy the copy engine must do */
    r.pe = peer;
    r.dst = (uint64_t)(uintptr_t)d;
    r.src = (uint64_t)(uintptr_t)(d + N);
    r.len = N;
    r.wait = 1;
    request(r);
    r.op = SHMEMGI_OP_GET; /* and back what the peer holds as its source */
    r.dst = (uint64_t)(uintptr_t)(d + 2 * N);
    r.src = (uint64_t)(uintptr_t)(d + N);
    request(r);
    memset(&r, 0, sizeof r);
    r.op = SHMEMGI_OP_FENCE;
    r.pe = -1;
    request(r);
    int net = shmem_ptr(counter, peer) == NULL && peer != me; /* over libfabric: the network does the atomic */
    if (net) {
        r.op = SHMEMGI_OP_AMO; /* non-blocking fetch-add: the old value into GPU memory by the proxy */
        r.amo = SHMEMGI_AMO_FETCH_ADD;
        r.size = 8;
        r.pe = peer;
        r.dst = (uint64_t)(uintptr_t)counter;
        r.src = (uint64_t)(uintptr_t)(d + 3 * N);
        r.value = 1;
        request(r);
    }
    memset(&r, 0, sizeof r);
    r.op = SHMEMGI_OP_QUIET;
    r.pe = -1;
    r.wait = 1;
    request(r);
    hold(holder, 0);

    shmem_barrier_all();
    shmem_getmem(back, d, N, me);
    int from = (me + np - 1) % np;
    for (int i = 0; i < N; i++)
        CHECK(back[i] == (char)(from * 31 + i), "byte %d put by PE %d: %d", i, from, back[i]);
    shmem_getmem(back, d + 2 * N, N, me);
    for (int i = 0; i < N; i++)
        CHECK(back[i] == (char)(peer * 31 + i), "byte %d got from PE %d: %d", i, peer, back[i]);
    if (net) {
        long old = 0;
        shmem_getmem(&old, d + 3 * N, sizeof old, me);
        CHECK(old == 100 * peer, "fetched %ld from PE %d's counter, expected %d", old, peer, 100 * peer);
        CHECK(*counter == 100 * me + 1, "counter %ld, expected %d", *counter, 100 * me + 1);
    }
    shmem_barrier_all();
    if (me == 0)
        printf("proxy_nosm: ok (%d PEs%s)\n", np, net ? ", over libfabric" : "");
    shmem_free(counter);
    shmemg_free(d);
    shmem_finalize();
    return 0;
}

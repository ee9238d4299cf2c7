/* proxy_report.c - a kernel's misuse report as a GPU's kernel hands it over (the error slot in host memory, which the
 * proxy prints before it ends the job), played by this program on a stand-in GPU driver: the line must say what the
 * misuse's fields mean for its kind, and nothing else. Usage: proxy_report ctx|sigop (the last PE reports). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <shmem.h>
#include <shmemg.h>

#include "ring_client.h"

int main(int argc, char **argv) {
    int ctx = argc > 1 && !strcmp(argv[1], "ctx"), sigop = argc > 1 && !strcmp(argv[1], "sigop");
    if (!ctx && !sigop) {
        fprintf(stderr, "usage: proxy_report ctx|sigop\n");
        return 2;
    }
    ring_client_init();
    int me = shmem_my_pe();
    if (!st.err) {
        printf("FAIL PE %d: the library did not hand over the device state\n", me);
        shmem_global_exit(1);
    }
    shmem_barrier_all();
    if (me == shmem_n_pes() - 1) { /* what the device library's fail() writes: the fields, then the flag */
        struct shmemgi_derror *e = st.err;
        const char *fn = ctx ? "shmemg_ctx_putmem" : "shmemg_putmem_signal";
        e->what = ctx ? SHMEMGI_ERR_CTX : SHMEMGI_ERR_SIGOP;
        e->pe = ctx ? -1 : 0;
        e->addr = ctx ? (uint64_t)(uintptr_t)SHMEM_CTX_DEFAULT : (uint64_t)st.seg[0].base;
        e->len = ctx ? 0 : 7;
        memcpy(e->fn, fn, strlen(fn) + 1);
        __atomic_store_n(&e->flag, 1, __ATOMIC_RELEASE);
        for (;;) /* as the kernel does: the proxy ends the job */
            sleep(1);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}

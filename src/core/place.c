/* place.c - where this PE runs and which devices it takes: the cores it is bound to (by oshrun, mpirun or the
 * application), and the GPU and NIC nearest them among those the drivers offer (src/topo), for SHMEM_INFO. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state.h"
#include "topo/topo.h"

int shmemi_place_cpu(void) {
    cpu_set_t set;
    const char *how = "not bound";
    int cpu = -1;
    if (*shmemi_env.boot_bind && !gtopo_cpus_parse(shmemi_env.boot_bind, &set)) {
        how = "placed by oshrun";
    } else if (!sched_getaffinity(0, sizeof set, &set) && CPU_COUNT(&set) < sysconf(_SC_NPROCESSORS_ONLN)) {
        how = "bound";
    } else {
        CPU_ZERO(&set);
        if (!sched_getaffinity(0, sizeof set, &set))
            how = "not bound: any of";
    }
    for (int c = 0; c < CPU_SETSIZE && cpu < 0 && strncmp(how, "not", 3); c++)
        if (CPU_ISSET(c, &set))
            cpu = c;
    char cores[64];
    gtopo_cpus_str(&set, cores, sizeof cores);
    snprintf(shmemi_rt.place_cores, sizeof shmemi_rt.place_cores, "cores %s (%s)", cores, how);
    return cpu;
}

int shmemi_pick_near(int n, const char *const *busid, const char *const *names, const char *what) {
    int cpu[256], np = 0, me = 0;
    for (int pe = 0; pe < shmemi_rt.n_pes && np < 256; pe++) {
        if (!shmemi_rt.same_host || !shmemi_rt.same_host[pe])
            continue;
        if (pe == shmemi_rt.my_pe)
            me = np;
        cpu[np++] = shmemi_rt.place_cpu ? shmemi_rt.place_cpu[pe] : -1;
    }
    if (!np)
        cpu[np++] = -1;
    int near, i = gtopo_pick(n, busid, cpu, np, me, &near);
    char name[64];
    if (names)
        snprintf(name, sizeof name, "%s", names[i]);
    else
        snprintf(name, sizeof name, "device %d of %d", i, n);
    char *out = !strcmp(what, "GPU") ? shmemi_rt.place_gpu : shmemi_rt.place_nic;
    snprintf(out, sizeof shmemi_rt.place_gpu, "%s%s%s%s", name, busid && busid[i] ? " at " : "",
             busid && busid[i] ? busid[i] : "",
             near > 0   ? " (near this PE's cores)"
             : near < 0 ? ""
                        : " (none is near this PE's cores)");
    return i;
}

void shmemi_place_print(FILE *f) {
    fprintf(f, "gshmem: PE %d: %s; GPU %s; NIC %s%s%s\n", shmemi_rt.my_pe, shmemi_rt.place_cores,
            shmemi_rt.place_gpu[0] ? shmemi_rt.place_gpu : "none",
            shmemi_rt.place_nic[0] ? shmemi_rt.place_nic : "none (this node only)",
            shmemi_rt.place_proxy[0] ? "; proxy thread " : "", shmemi_rt.place_proxy);
}

int shmemi_place_helper_core(char *why, size_t len) {
    cpu_set_t mine;
    int first = shmemi_rt.place_cpu ? shmemi_rt.place_cpu[shmemi_rt.my_pe] : -1;
    if (first < 0 || sched_getaffinity(0, sizeof mine, &mine)) {
        snprintf(why, len, "placed by the scheduler (this PE is not bound)");
        return -1;
    }
    if (CPU_COUNT(&mine) > 1) { /* bound to several: the last of them, away from where the main thread starts */
        int c = -1;
        for (int i = 0; i < CPU_SETSIZE; i++)
            if (CPU_ISSET(i, &mine))
                c = i;
        snprintf(why, len, "on core %d, the last of this PE's", c);
        return c;
    }
    /* bound to one core: a core of the node that no PE is bound to, the k-th for this PE's k-th place on the node */
    cpu_set_t taken;
    CPU_ZERO(&taken);
    int k = 0;
    for (int pe = 0; pe < shmemi_rt.n_pes; pe++) {
        if (pe != shmemi_rt.my_pe && (!shmemi_rt.same_host || !shmemi_rt.same_host[pe]))
            continue;
        if (pe < shmemi_rt.my_pe)
            k++;
        if (shmemi_rt.place_cpu[pe] >= 0 && shmemi_rt.place_cpu[pe] < CPU_SETSIZE)
            CPU_SET(shmemi_rt.place_cpu[pe], &taken);
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (int c = 0; c < online && c < CPU_SETSIZE; c++)
        if (!CPU_ISSET(c, &taken) && k-- == 0) {
            snprintf(why, len, "on core %d, which no PE of this node is bound to", c);
            return c;
        }
    snprintf(why, len, "on core %d beside the PE's main thread (no core of the node is free for it)", first);
    return -1;
}

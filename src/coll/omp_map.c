/* omp_map.c - shmemx_omp_map/shmemx_omp_unmap: a symmetric object of a KIND=LIBOMP partition stands behind an
 * OpenMP program's host variable, so `target data map(...)` and use_device_ptr/addr reach symmetric device memory. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "coll/coll.h"
#include "mem/mem.h"
#include "omp/omp.h"
#include "shmemx.h"

/* The live mappings, so that unmap knows what map did (association, object); few, and map/unmap are collective */
struct omp_map {
    struct omp_map *next;
    void *host, *obj; /* obj: the partition's object, NULL when host_ptr itself serves (host fallback) */
    int dev;          /* the OpenMP device it is associated on, -1: none */
};
static struct omp_map *maps;
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;

static struct shmemi_seg *partition(int id, const char *fn) {
    for (int i = 0; i < shmemi_rt.nsegs; i++)
        if (shmemi_rt.segs[i].role == SHMEMI_SEG_PARTITION && shmemi_rt.segs[i].part_id == id)
            return &shmemi_rt.segs[i];
    shmemi_fatal(fn,
                 "partition %d is not defined; set SHMEM_SYMMETRIC_PARTITION%d=SIZE=<bytes>:KIND=LIBOMP for every PE",
                 id, id);
}

/* host_ptr[0, size) lies in one symmetric segment (a global, or from shmem_malloc) */
static int symmetric(const void *p, size_t size) {
    size_t off;
    const struct shmemi_seg *s = shmemi_find_seg(p, &off);
    return s && size <= s->size - off;
}

void *shmemx_omp_map(void *host_ptr, size_t size, int partition_id) {
    const char *fn = "shmemx_omp_map";
    shmemi_check_init(fn);
    if (!host_ptr || !size)
        shmemi_fatal(fn, "host_ptr must be the host object (not NULL) and size its length in bytes (not 0)");
    struct shmemi_seg *s = partition(partition_id, fn);
    int dev = shmemi_partition_omp_device(partition_id);
    if (s->kind == SHMEMI_MEM_DEVICE && dev < 0)
        shmemi_fatal(fn,
                     "partition %d is KIND=DEVICE memory, which the OpenMP runtime does not know; declare it "
                     "KIND=LIBOMP so it comes from omp_target_alloc",
                     partition_id);
    struct omp_map *m = calloc(1, sizeof *m);
    if (!m)
        shmemi_fatal(fn, "out of memory");
    m->host = host_ptr;
    m->dev = -1;
    /* The host fallback (no offload device) runs target regions on the host with every variable mapped to itself:
     * a symmetric host_ptr is then the symmetric object already, and anything else would not be what map reaches */
    if (dev < 0 && symmetric(host_ptr, size)) {
        shmem_barrier_all(); /* collective on every path, as the allocation is */
    } else {
        m->obj = shmemi_seg_alloc(s, size, 0, fn);
        if (!m->obj) {
            free(m);
            return NULL; /* the partition is full (shmemi_seg_exhausted said so) */
        }
        if (dev >= 0) {
            int rc = shmemi_omp_associate(host_ptr, m->obj, size, dev);
            if (rc)
                shmemi_fatal(fn,
                             "omp_target_associate_ptr(%p, %p, %zu, 0, %d) failed (%d): host_ptr may already be "
                             "mapped on that device (unmap it, or leave the enclosing target data region, first)",
                             host_ptr, m->obj, size, dev, rc);
            m->dev = dev;
        }
    }
    pthread_mutex_lock(&maps_lock);
    m->next = maps;
    maps = m;
    pthread_mutex_unlock(&maps_lock);
    return m->obj ? m->obj : host_ptr;
}

void shmemx_omp_unmap(void *host_ptr) {
    const char *fn = "shmemx_omp_unmap";
    shmemi_check_init(fn);
    pthread_mutex_lock(&maps_lock);
    struct omp_map **pp = &maps, *m;
    while ((m = *pp) && m->host != host_ptr)
        pp = &m->next;
    if (m)
        *pp = m->next;
    pthread_mutex_unlock(&maps_lock);
    if (!m)
        shmemi_fatal(fn, "%p was not mapped by shmemx_omp_map (or was unmapped already)", host_ptr);
    /* every PE leaves its target regions before the object goes: the free's barrier comes first */
    shmem_barrier_all();
    if (m->dev >= 0) {
        int rc = shmemi_omp_disassociate(host_ptr, m->dev);
        if (rc)
            shmemi_fatal(fn, "omp_target_disassociate_ptr(%p, %d) failed (%d)%s", host_ptr, m->dev, rc,
                         rc == EINVAL ? ": is a target data region that maps it still open?" : "");
    }
    if (m->obj)
        shmemi_seg_free(m->obj, fn);
    else
        shmem_barrier_all();
    free(m);
}

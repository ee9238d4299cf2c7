/* mem.h - symmetric segments (static data, the heaps, partitions, the control block) and their allocation. */
#ifndef GSHMEM_MEM_H
#define GSHMEM_MEM_H

#include "state.h"

/* The segments, in steps around shmem_init's exchanges (runtime/init.c packs what each PE tells the others into one
 * blob per exchange; blobs are `stride` bytes apart, rank order), each 0 or -1 with a message naming the setting.
 * room: what this PE sees free (room_bytes of it), for the exchange. create: this PE's segments; rooms NULL (a
 * host-only job, whose one exchange carries the segments too): the heap sized from this PE's node alone, else from
 * every PE's room (a job with GPUs, after an exchange of the rooms: the same decision on every PE). room_check:
 * whether every node can back the heap and partitions of each of its PEs, from every PE's room (a host-only job's,
 * after its exchange; create checks it where it has every room). desc: this PE's segments described (desc_bytes).
 * agree: every PE's descriptions compared; a difference fails on every PE with the same message; automatic heaps
 * sized by each PE's node are then used to the least of them. map: every PE maps its node peers' segments. unlink:
 * their names go, once every node peer has mapped them (after a synchronization that follows map on every PE:
 * shmem_init's last barrier). Every PE reaches the end of create and of agree, failed or not, so shmem_init can
 * report a failure there once. */
SHMEMI_HIDDEN size_t shmemi_segments_room_bytes(void);
SHMEMI_HIDDEN void shmemi_segments_room(void *out);
SHMEMI_HIDDEN int shmemi_segments_create(const void *rooms, size_t stride, char *err, size_t errlen);
SHMEMI_HIDDEN int shmemi_segments_room_check(const void *rooms, size_t stride, char *err, size_t errlen);
SHMEMI_HIDDEN size_t shmemi_segments_desc_bytes(void);
SHMEMI_HIDDEN void shmemi_segments_desc(void *out);
SHMEMI_HIDDEN int shmemi_segments_agree(const void *descs, size_t stride, char *err, size_t errlen);
SHMEMI_HIDDEN int shmemi_segments_map(char *err, size_t errlen);
SHMEMI_HIDDEN void shmemi_segments_unlink(void);
/* The heap SHMEM_SYMMETRIC_SIZE=auto proposes for each PE when node_pes PEs share this node (the job takes the
 * least over its PEs) */
SHMEMI_HIDDEN size_t shmemi_heap_auto(int node_pes);
SHMEMI_HIDDEN void shmemi_segments_destroy(void);
/* Removes every /dev/shm name of this PE in this job (segments' until shmem_init unlinks them, the emulated GPU's),
 * for a PE whose launcher is gone; safe from another thread at any time once the job id is set. */
SHMEMI_HIDDEN void shmemi_segments_unlink_names(void);
/* After shmemi_segments_create: why some PE needs the network to reach a node peer's GPU memory (shmemi_rt.net_for_gpu;
 * the first such pair this PE knows of), or NULL when this PE does not */
SHMEMI_HIDDEN const char *shmemi_gpu_peers_why_net(void);
/* 1 when two of these PEs of this node (start + i * stride, or pes[i]) do not map each other's GPU memory: every
 * member answers the same */
SHMEMI_HIDDEN int shmemi_gpu_unmapped_among(int start, int stride, int size, const int *pes);
/* Whether node PE pe is in this PE's group of PEs whose GPUs all map each other's memory (SHMEM_DEVICE_TEAM_SHARED):
 * the whole node, unless some GPUs lack peer access to others */
SHMEMI_HIDDEN int shmemi_gpu_group_member(int pe);
/* Where partition id went at shmem_init ("host memory", "KIND=LIBOMP: GPU memory of OpenMP device 0 of 1", ...),
 * NULL before; and, for a KIND=LIBOMP partition on an offload device, that OpenMP device (else -1) */
SHMEMI_HIDDEN const char *shmemi_partition_where(int id);
SHMEMI_HIDDEN int shmemi_partition_omp_device(int id);
#define SHMEMI_ALLOC_ALIGN                                                                                             \
    64 /* the least alignment of a block: max_align_t, and a cache line against false sharing                          \
        */
/* A block of segment s for this PE alone: every PE making the same calls gets the same offset (the collective
 * routines put barriers around it: coll/alloc.c) */
SHMEMI_HIDDEN void *shmemi_seg_alloc_local(struct shmemi_seg *s, size_t size, size_t align, const char *fn);
SHMEMI_HIDDEN void shmemi_seg_exhausted(const struct shmemi_seg *s, const char *fn, size_t size);
/* Host segments in /dev/shm: whether blocks handed out are reserved (not huge pages nor GPU memory; the same on every
 * PE), and the reservation of [off, off + len) of this PE's copy, so that touching those pages later cannot fail
 * (SIGBUS): 0 (also where this PE's file system cannot reserve), or the errno of fallocate (ENOSPC: /dev/shm is
 * full). */
SHMEMI_HIDDEN int shmemi_seg_reserves(const struct shmemi_seg *s);
SHMEMI_HIDDEN int shmemi_seg_reserve(struct shmemi_seg *s, size_t off, size_t len);
/* Gives back what the last shmemi_seg_reserve of s added (its block was refused: another PE could not reserve) */
SHMEMI_HIDDEN void shmemi_seg_unreserve(struct shmemi_seg *s);
/* The line for an aligned allocation refused for its alignment (not a power of two, or more than the base's) */
SHMEMI_HIDDEN void shmemi_seg_misaligned(const struct shmemi_seg *s, const char *fn, size_t alignment, size_t size);
/* The line for an allocation that some PE could not reserve (err: its errno), printed by the lowest such PE */
SHMEMI_HIDDEN void shmemi_seg_unbacked(const struct shmemi_seg *s, const char *fn, size_t size, int err);

#endif

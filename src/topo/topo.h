/* topo.h - the node's topology (hwloc, loaded at run time): which cores are near each GPU, NIC and NUMA node, so
 * PEs can take the devices nearest their cores and oshrun can place PEs. Self-contained: oshrun compiles it too. */
#ifndef GSHMEM_TOPO_H
#define GSHMEM_TOPO_H

#include <sched.h>
#include <stddef.h>

/* Loads the topology once (HWLOC_XMLFILE, when set, replaces this machine's: for tests of other nodes' shapes).
 * 0: loaded; -1: none (no hwloc at build or run time, or it failed), with why. */
int gtopo_load(char *why, size_t whylen);
/* 1: the loaded topology is this machine's (binding to its cores is possible); 0: another node's (an XML file) */
int gtopo_thissystem(void);
/* NUMA nodes, and the cores of node i */
int gtopo_numa_count(void);
int gtopo_numa_cpus(int i, cpu_set_t *set);
/* PCI devices of one class (GTOPO_GPU: display and processing accelerators; GTOPO_NIC: network), in bus order:
 * their count, and device i's PCI address ("dddd:bb:dd.f") and the cores near it */
enum gtopo_class { GTOPO_GPU, GTOPO_NIC };
int gtopo_dev_count(enum gtopo_class c);
int gtopo_dev(enum gtopo_class c, int i, char *busid, size_t len, cpu_set_t *near);
/* The cores near the PCI device at busid (lower-case "dddd:bb:dd.f"): 0, or -1 when the topology does not have it */
int gtopo_pci_cpus(const char *busid, cpu_set_t *set);

/* Which of n devices (busid[i], or NULL when unknown) the PE numbered `me` of `npes` PEs sharing the node takes,
 * where cpu[j] is a core PE j runs on: a device near the PE's core, spreading the PEs near the same devices over them
 * in PE order; with no device near (or no topology), me % n. *near says whether the pick is near (1), not (0) or
 * unknown (-1). */
int gtopo_pick(int n, const char *const *busid, const int *cpu, int npes, int me, int *near);

/* "0-3,8" for a CPU set */
void gtopo_cpus_str(const cpu_set_t *set, char *buf, size_t len);
/* Parses "0-3,8" into set: 0, or -1 when malformed */
int gtopo_cpus_parse(const char *s, cpu_set_t *set);

#endif

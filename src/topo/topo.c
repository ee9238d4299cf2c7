/* topo.c - the node's topology from hwloc, which is loaded at run time (dlopen) so one build runs where hwloc is
 * missing; hwloc.h is needed at build time only for the layout of its objects. Walks objects by hand: hwloc's
 * inline helpers would link against it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "topo/topo.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gtopo_cpus_str(const cpu_set_t *set, char *buf, size_t len) {
    size_t at = 0;
    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && at < len; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
            e++;
        at += (size_t)snprintf(buf + at, len - at, e > c ? "%s%d-%d" : "%s%d", at ? "," : "", c, e);
        c = e;
    }
}

int gtopo_cpus_parse(const char *s, cpu_set_t *set) {
    CPU_ZERO(set);
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s || a < 0 || a >= CPU_SETSIZE)
            return -1;
        s = end;
        if (*s == '-') {
            b = strtol(s + 1, &end, 10);
            if (end == s + 1 || b < a || b >= CPU_SETSIZE)
                return -1;
            s = end;
        }
        for (long c = a; c <= b; c++)
            CPU_SET((int)c, set);
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    return CPU_COUNT(set) ? 0 : -1;
}

#ifdef GSHMEM_HAVE_HWLOC
#include <hwloc.h>

#define HWLOC_SYMBOLS(X)                                                                                               \
    X("hwloc_topology_init", int, (hwloc_topology_t *), init)                                                          \
    X("hwloc_topology_set_io_types_filter", int, (hwloc_topology_t, enum hwloc_type_filter_e), io_filter)              \
    X("hwloc_topology_load", int, (hwloc_topology_t), load)                                                            \
    X("hwloc_topology_destroy", void, (hwloc_topology_t), destroy)                                                     \
    X("hwloc_topology_is_thissystem", int, (hwloc_topology_t), thissystem)                                             \
    X("hwloc_get_nbobjs_by_depth", unsigned, (hwloc_topology_t, int), nbobjs)                                          \
    X("hwloc_get_obj_by_depth", hwloc_obj_t, (hwloc_topology_t, int, unsigned), obj_by_depth)                          \
    X("hwloc_bitmap_first", int, (hwloc_const_bitmap_t), bm_first)                                                     \
    X("hwloc_bitmap_next", int, (hwloc_const_bitmap_t, int), bm_next)

static struct {
#define X(sym, ret, args, field) ret(*field) args;
    HWLOC_SYMBOLS(X)
#undef X
} hw;
static hwloc_topology_t topo;
static int state; /* 0 not tried, 1 loaded, -1 failed */
static char fail[160];

int gtopo_load(char *why, size_t whylen) {
    if (!state) {
        state = -1;
        void *lib = dlopen("libhwloc.so.15", RTLD_NOW | RTLD_LOCAL);
        if (!lib)
            snprintf(fail, sizeof fail, "hwloc cannot be loaded (libhwloc.so.15: %s)", dlerror());
#define X(sym, ret, args, field)                                                                                       \
    if (lib && !(*(void **)&hw.field = dlsym(lib, sym))) {                                                             \
        snprintf(fail, sizeof fail, "hwloc lacks %s (not hwloc 2?)", sym);                                             \
        dlclose(lib);                                                                                                  \
        lib = NULL;                                                                                                    \
    }
        HWLOC_SYMBOLS(X)
#undef X
        if (lib && (hw.init(&topo) || hw.io_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) || hw.load(topo))) {
            snprintf(fail, sizeof fail, "hwloc could not load the topology%s",
                     getenv("HWLOC_XMLFILE") ? " (HWLOC_XMLFILE)" : "");
            lib = NULL; /* (kept loaded: hwloc may have registered components) */
        } else if (lib) {
            state = 1;
        }
    }
    if (state < 0 && why)
        snprintf(why, whylen, "%s", fail);
    return state > 0 ? 0 : -1;
}

int gtopo_thissystem(void) { return gtopo_load(NULL, 0) == 0 && hw.thissystem(topo); }

static void to_set(hwloc_const_cpuset_t b, cpu_set_t *set) {
    CPU_ZERO(set);
    for (int c = b ? hw.bm_first(b) : -1; c >= 0 && c < CPU_SETSIZE; c = hw.bm_next(b, c))
        CPU_SET(c, set);
}

int gtopo_numa_count(void) { return gtopo_load(NULL, 0) ? 0 : (int)hw.nbobjs(topo, HWLOC_TYPE_DEPTH_NUMANODE); }

int gtopo_numa_cpus(int i, cpu_set_t *set) {
    hwloc_obj_t o = i < gtopo_numa_count() ? hw.obj_by_depth(topo, HWLOC_TYPE_DEPTH_NUMANODE, (unsigned)i) : NULL;
    if (!o)
        return -1;
    to_set(o->cpuset, set);
    return 0;
}

/* the cores of the first ancestor that has some (I/O objects have none) */
static void near_cpus(hwloc_obj_t o, cpu_set_t *set) {
    while (o && !o->cpuset)
        o = o->parent;
    to_set(o ? o->cpuset : NULL, set);
}

static int in_class(hwloc_obj_t o, enum gtopo_class c) {
    unsigned cls = o->attr->pcidev.class_id >> 8;
    return c == GTOPO_GPU ? cls == 0x03 || cls == 0x12 : cls == 0x02;
}

static hwloc_obj_t pci(int k) { return hw.obj_by_depth(topo, HWLOC_TYPE_DEPTH_PCI_DEVICE, (unsigned)k); }
static int npci(void) { return gtopo_load(NULL, 0) ? 0 : (int)hw.nbobjs(topo, HWLOC_TYPE_DEPTH_PCI_DEVICE); }

static void busid_of(hwloc_obj_t o, char *b, size_t len) {
    snprintf(b, len, "%04x:%02x:%02x.%x", o->attr->pcidev.domain, o->attr->pcidev.bus, o->attr->pcidev.dev,
             o->attr->pcidev.func);
}

int gtopo_dev_count(enum gtopo_class c) {
    int n = 0;
    for (int k = 0; k < npci(); k++)
        n += in_class(pci(k), c);
    return n;
}

int gtopo_dev(enum gtopo_class c, int i, char *busid, size_t len, cpu_set_t *near) {
    for (int k = 0; k < npci(); k++) {
        hwloc_obj_t o = pci(k);
        if (!in_class(o, c) || i--)
            continue;
        busid_of(o, busid, len);
        near_cpus(o, near);
        return 0;
    }
    return -1;
}

int gtopo_pci_cpus(const char *busid, cpu_set_t *set) {
    char b[32];
    for (int k = 0; k < npci(); k++) {
        busid_of(pci(k), b, sizeof b);
        if (!strcasecmp(b, busid)) {
            near_cpus(pci(k), set);
            return 0;
        }
    }
    return -1;
}
#else
int gtopo_load(char *why, size_t whylen) {
    if (why)
        snprintf(why, whylen, "built without hwloc (no hwloc.h)");
    return -1;
}
int gtopo_thissystem(void) { return 0; }
int gtopo_numa_count(void) { return 0; }
int gtopo_numa_cpus(int i, cpu_set_t *set) { return -1; }
int gtopo_dev_count(enum gtopo_class c) { return 0; }
int gtopo_dev(enum gtopo_class c, int i, char *busid, size_t len, cpu_set_t *near) { return -1; }
int gtopo_pci_cpus(const char *busid, cpu_set_t *set) { return -1; }
#endif

/* near[i]: the devices whose cores include `cpu` (all of them when none does, or nothing is known) */
static int near_set(int n, const char *const *busid, int cpu, unsigned char *near) {
    int any = 0;
    for (int i = 0; i < n; i++) {
        cpu_set_t s;
        near[i] = busid[i] && cpu >= 0 && !gtopo_pci_cpus(busid[i], &s) && CPU_ISSET(cpu, &s);
        any |= near[i];
    }
    if (!any)
        memset(near, 1, (size_t)n);
    return any;
}

int gtopo_pick(int n, const char *const *busid, const int *cpu, int npes, int me, int *near) {
    *near = -1;
    if (n <= 1 || gtopo_load(NULL, 0))
        return n > 0 ? me % n : 0;
    unsigned char mine[64], theirs[64];
    if (n > 64)
        return me % n;
    int any = near_set(n, busid, cpu[me], mine);
    int k = 0; /* PEs before me near exactly the same devices: they take the first ones */
    for (int j = 0; j < me; j++) {
        near_set(n, busid, cpu[j], theirs);
        k += !memcmp(mine, theirs, (size_t)n);
    }
    int m = 0;
    for (int i = 0; i < n; i++)
        m += mine[i];
    k %= m;
    for (int i = 0; i < n; i++)
        if (mine[i] && !k--) {
            *near = any;
            return i;
        }
    return me % n;
}

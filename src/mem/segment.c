/* segment.c - symmetric segments: static data (.data/.bss remapped onto shared memory), the default heap,
 * partitions, the GPU heap and the internal control segment; each is exported to and mapped by every PE on the node
 * (shared memory for host segments, the GPU layer's IPC for GPU ones). */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <link.h>
#include <linux/memfd.h>
#include <linux/mempolicy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "gpu/gtl.h"
#include "mem/buddy.h"
#include "mem/mem.h"
#include "omp/omp.h"
#include "state.h"

#define HEAP_MIN_BLOCK 64

static int errf(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int errf(char *err, size_t len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

static void shm_name(char *buf, size_t len, int pe, const char *tag) {
    snprintf(buf, len, "/gshmem-%s-%d-%s", shmemi_rt.jobid, pe, tag);
}

/* n rounded up to a multiple of pg (a power of two); 0 where that does not fit in a size_t */
static size_t round_up(size_t n, size_t pg) { return n > SIZE_MAX - (pg - 1) ? 0 : (n + pg - 1) & ~(pg - 1); }

/* Creates this PE's shared-memory object for a segment, owner-only, sized `len`; var names what sized it. The
 * messages leave out the object's name, which holds the PE number: every PE failing alike says it alike, once. */
static int create_object(const char *name, size_t len, const char *var, char *err, size_t errlen) {
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, S_IRUSR | S_IWUSR);
    if (fd < 0)
        return errf(err, errlen, "%s: cannot create an object in /dev/shm: %s", var, strerror(errno));
    if (ftruncate(fd, (off_t)len)) {
        int e = errno;
        close(fd);
        shm_unlink(name);
        return errf(err, errlen, "%s: cannot size an object in /dev/shm to %zu bytes: %s", var, len, strerror(e));
    }
    return fd;
}

/* ---- huge pages and NUMA placement of host partitions (PGSIZE=, POLICY=) ---- */

/* free pages of size pg the kernel holds in reserve, or -1 when it has no pool of that size */
static long huge_free(size_t pg) {
    char path[96], buf[32];
    snprintf(path, sizeof path, "/sys/kernel/mm/hugepages/hugepages-%zukB/free_hugepages", pg >> 10);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return strtol(buf, NULL, 10);
}

/* A huge-page object: hugetlbfs memory (memfd) that peers open through /proc/<pid>/fd/<fd> while the owner keeps the
 * descriptor, until every peer has mapped it. */
static int create_huge(const char *name, size_t len, size_t pg, const char *var, char *err, size_t errlen) {
    long avail = huge_free(pg);
    if (avail < 0)
        return errf(err, errlen,
                    "%s: this system has no %zu KiB huge pages (no /sys/kernel/mm/hugepages/hugepages-%zukB)", var,
                    pg >> 10, pg >> 10);
    unsigned shift = (unsigned)__builtin_ctzll(pg);
    int fd = (int)syscall(SYS_memfd_create, name + 1, MFD_CLOEXEC | MFD_HUGETLB | (shift << MFD_HUGE_SHIFT));
    if (fd < 0)
        return errf(err, errlen, "%s: cannot create huge-page memory: %s", var, strerror(errno));
    if (ftruncate(fd, (off_t)len)) {
        int e = errno;
        close(fd);
        return errf(err, errlen, "%s: cannot size huge-page memory to %zu bytes: %s", var, len, strerror(e));
    }
    return fd;
}

static int mempolicy_mode(int policy) {
    switch (policy) {
    case SHMEMI_POLICY_INTERLEAVED: return MPOL_INTERLEAVE;
    case SHMEMI_POLICY_BIND: return MPOL_BIND;
    case SHMEMI_POLICY_PREFERRED: return MPOL_PREFERRED;
    default: return MPOL_DEFAULT;
    }
}

/* Applies the partition's POLICY to its pages before any is touched (tmpfs keeps the policy with the object, so
 * pages a peer faults in through its own mapping follow it too). */
static int apply_policy(void *m, size_t len, const struct shmemi_partition_cfg *c, char *err, size_t errlen) {
    if (c->policy == SHMEMI_POLICY_DEFAULT)
        return 0;
    unsigned long allowed[SHMEMI_MAX_NUMA / (8 * sizeof(unsigned long)) + 16] = {0};
    if (syscall(SYS_get_mempolicy, NULL, allowed, (unsigned long)(sizeof allowed * 8), NULL, MPOL_F_MEMS_ALLOWED))
        return errf(err, errlen, "%s: cannot read this PE's NUMA nodes: %s", c->text, strerror(errno));
    uint64_t mine = (uint64_t)allowed[0];
    if (sizeof(unsigned long) < 8)
        mine |= (uint64_t)allowed[1] << 32;
    uint64_t want = c->nodes ? c->nodes : mine;
    if (want & ~mine) {
        int bad = __builtin_ctzll(want & ~mine);
        char have[160] = "";
        for (int k = 0, n = 0; k < SHMEMI_MAX_NUMA; k++)
            if (mine >> k & 1)
                n += snprintf(have + n, sizeof have - (size_t)n, "%s%d", n ? "," : "", k);
        return errf(err, errlen, "%s: NUMA node %d is not one this PE may use (its nodes: %s)", c->text, bad, have);
    }
    unsigned long mask[SHMEMI_MAX_NUMA / (8 * sizeof(unsigned long)) + 1] = {0};
    memcpy(mask, &want, sizeof want);
    if (syscall(SYS_mbind, m, len, mempolicy_mode(c->policy), mask, (unsigned long)SHMEMI_MAX_NUMA + 1, 0))
        return errf(err, errlen, "%s: mbind failed: %s", c->text, strerror(errno));
    return 0;
}

/* ---- static data: find the executable's writable PT_LOAD (.data, .bss, and the RELRO part before them) ---- */
struct exe_rw {
    uintptr_t start, end;             /* page-rounded */
    uintptr_t relro_start, relro_end; /* page-rounded inward, as ld.so protects it */
    int found;
};

static int find_exe_rw(struct dl_phdr_info *info, size_t size, void *arg) {
    struct exe_rw *rw = arg;
    (void)size;
    /* the first object reported is the main program */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && !rw->found) {
            rw->start = a & ~(uintptr_t)(shmemi_rt.page - 1);
            rw->end = (a + ph->p_memsz + shmemi_rt.page - 1) & ~(uintptr_t)(shmemi_rt.page - 1);
            rw->found = 1;
        } else if (ph->p_type == PT_GNU_RELRO) {
            rw->relro_start = a & ~(uintptr_t)(shmemi_rt.page - 1);
            rw->relro_end = (a + ph->p_memsz) & ~(uintptr_t)(shmemi_rt.page - 1);
        }
    }
    return 1;
}

/* Moves the executable's .data/.bss onto a shared-memory object at the same addresses, so peers can map them and
 * static/global variables work for every operation. Nothing may write to these pages between the copy and the
 * remap: this runs single-threaded inside shmem_init, with no library state in them (the library is a separate
 * object; in a static link its state lives in the same pages, so we avoid writing globals here). */
static int remap_static(struct shmemi_seg *s, char *err, size_t errlen) {
    struct exe_rw rw = {0};
    dl_iterate_phdr(find_exe_rw, &rw);
    if (!rw.found)
        return errf(err, errlen, "cannot find the program's data segment");
    size_t len = rw.end - rw.start;
    char name[160];
    shm_name(name, sizeof name, shmemi_rt.my_pe, "static");
    int fd = create_object(name, len, "the program's static data", err, errlen);
    if (fd < 0)
        return -1;
    /* warm up the calls used below so no lazy binding writes a GOT entry of ours after the copy */
    void *probe = mmap(NULL, shmemi_rt.page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (probe != MAP_FAILED)
        munmap(probe, shmemi_rt.page);
    mprotect((void *)rw.start, 0, PROT_READ | PROT_WRITE);
    for (size_t done = 0; done < len;) {
        /* the raw system call: sanitizer interceptors would flag the redzones between globals */
        ssize_t w = syscall(SYS_pwrite64, fd, (const char *)rw.start + done, len - done, (off_t)done);
        if (w <= 0) {
            int e = errno;
            close(fd);
            shm_unlink(name);
            return errf(err, errlen, "cannot copy static data to shared memory: %s", strerror(e));
        }
        done += (size_t)w;
    }
    void *m = mmap((void *)rw.start, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return errf(err, errlen, "cannot remap static data onto shared memory: %s", strerror(errno));
    if (rw.relro_end > rw.relro_start && rw.relro_start >= rw.start && rw.relro_end <= rw.end)
        mprotect((void *)rw.relro_start, rw.relro_end - rw.relro_start, PROT_READ);
    s->base = (char *)rw.start;
    s->share_fd = -1;
    s->base_align = shmemi_rt.page;
    s->size = len;
    s->map_size = len;
    return 0;
}

/* ---- reserving host segments' pages as they are handed out ----
 * The objects are sparse (mapped MAP_NORESERVE), so a large heap costs nothing until used; but a page that /dev/shm
 * has no room for when it is first touched kills the PE touching it with SIGBUS, long after shmem_malloc said yes.
 * So the allocation routines reserve the pages of each block they hand out (fallocate on the object: tmpfs allocates
 * them, or says ENOSPC and takes back what it allocated), and every PE's routine returns NULL when some PE could
 * not. Reserving pages already reserved costs a walk over them (0.36 s for a GiB here), so it is done once per
 * grain of 2 MiB, the grain whole (a little past the block, within the segment); freed blocks keep their pages. */
#define GRAIN_SHIFT 21
static struct backing {
    int fd;                /* this PE's object, -1: nothing to reserve (huge pages, GPU memory, not tmpfs) */
    unsigned char *grains; /* bit per grain: reserved */
    size_t new_lo, new_hi; /* the grains the last reservation added, [lo, hi), to give back if others failed */
} backing[SHMEMI_MAX_SEGS];

/* fallocate of [off, off + len); 0 or errno */
static int reserve_range(int fd, size_t off, size_t len) {
    int rc;
    do /* tmpfs gives up with EINTR on any signal, oshrun's forwarded ones included */
        rc = fallocate(fd, 0, (off_t)off, (off_t)len);
    while (rc && errno == EINTR);
    return rc ? errno : 0;
}

/* s's index among the user segments, or -1 (the control block) */
static ptrdiff_t user_index(const struct shmemi_seg *s) {
    uintptr_t a = (uintptr_t)s, lo = (uintptr_t)shmemi_rt.segs;
    return a >= lo && a < lo + sizeof shmemi_rt.segs ? (ptrdiff_t)((a - lo) / sizeof *s) : -1;
}

static struct backing *backing_of(const struct shmemi_seg *s) {
    ptrdiff_t i = user_index(s);
    return i >= 0 && i < SHMEMI_MAX_SEGS && backing[i].fd >= 0 ? &backing[i] : NULL;
}

/* by the segment's kind, the same on every PE (whether this PE can reserve is not: its allocations must still end
 * in the same collective as the others') */
int shmemi_seg_reserves(const struct shmemi_seg *s) {
    ptrdiff_t i = user_index(s);
    return i >= 0 && i < shmemi_rt.nsegs && s->kind != SHMEMI_MEM_DEVICE && s->role != SHMEMI_SEG_STATIC &&
           s->pgsize == shmemi_rt.page;
}

static void mark(struct backing *b, size_t lo, size_t hi, int on) {
    for (size_t k = lo; k < hi; k++)
        b->grains[k >> 3] =
            (unsigned char)(on ? b->grains[k >> 3] | 1u << (k & 7) : b->grains[k >> 3] & ~(1u << (k & 7)));
}

int shmemi_seg_reserve(struct shmemi_seg *s, size_t off, size_t len) {
    struct backing *b = backing_of(s);
    if (b)
        b->new_lo = b->new_hi = 0;
    if (!b || !len)
        return 0;
    size_t last = (off + len - 1) >> GRAIN_SHIFT;
    for (size_t g = off >> GRAIN_SHIFT; g <= last; g++) {
        if (b->grains[g >> 3] >> (g & 7) & 1)
            continue;
        size_t e = g; /* one call for the run of grains not yet reserved */
        while (e < last && !(b->grains[(e + 1) >> 3] >> ((e + 1) & 7) & 1))
            e++;
        size_t lo = g << GRAIN_SHIFT, hi = (e + 1) << GRAIN_SHIFT;
        int rc = reserve_range(b->fd, lo, (hi < s->map_size ? hi : s->map_size) - lo);
        if (rc == EOPNOTSUPP || rc == ENOSYS) { /* not tmpfs: nothing to reserve with, as before */
            shmemi_debug("the %s: /dev/shm cannot reserve pages (%s): allocations are not reserved", s->name,
                         strerror(rc));
            close(b->fd);
            b->fd = -1;
            return 0;
        }
        if (rc) {
            shmemi_seg_unreserve(s);
            return rc;
        }
        mark(b, g, e + 1, 1);
        /* the grains a block did not have are its own (every live block's grains are reserved): what this call
         * added lies between the first and the last it added, and is no other live block's */
        if (b->new_lo == b->new_hi)
            b->new_lo = g;
        b->new_hi = e + 1;
        g = e;
    }
    return 0;
}

void shmemi_seg_unreserve(struct shmemi_seg *s) {
    struct backing *b = backing_of(s);
    if (!b || b->new_lo == b->new_hi)
        return;
    size_t lo = b->new_lo << GRAIN_SHIFT, hi = b->new_hi << GRAIN_SHIFT;
    if (hi > s->map_size)
        hi = s->map_size;
    if (!fallocate(b->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)lo, (off_t)(hi - lo)))
        mark(b, b->new_lo, b->new_hi, 0);
    b->new_lo = b->new_hi = 0;
}

/* Keeps the object of user segment s to reserve its pages later; the control block is reserved whole now (0, or
 * errno). Takes fd. */
static int keep_backing(struct shmemi_seg *s, int fd, size_t len) {
    ptrdiff_t i = user_index(s);
    if (i < 0 || i >= SHMEMI_MAX_SEGS) {
        int rc = reserve_range(fd, 0, len);
        close(fd);
        return rc == EOPNOTSUPP || rc == ENOSYS ? 0 : rc;
    }
    backing[i].grains = calloc(((len + ((size_t)1 << GRAIN_SHIFT) - 1) >> GRAIN_SHIFT) / 8 + 1, 1);
    if (!backing[i].grains) {
        close(fd);
        return 0; /* (not reserved, as before: the heap is too large to count its grains) */
    }
    backing[i].fd = fd;
    return 0;
}

/* A host segment of `size` usable bytes in shared memory. var names the setting that sized it, for messages; pc is
 * the partition's settings (page size, placement), NULL for the others. */
static int create_anon(struct shmemi_seg *s, const char *tag, size_t size, const char *var,
                       const struct shmemi_partition_cfg *pc, char *err, size_t errlen) {
    char name[160];
    shm_name(name, sizeof name, shmemi_rt.my_pe, tag);
    size_t pg = shmemi_rt.page;
    if (pc && pc->pgsize && pc->pgsize != shmemi_rt.page) {
        if (pc->pgsize != (size_t)2 << 20 && pc->pgsize != (size_t)1 << 30)
            return errf(err, errlen,
                        "%s: PGSIZE must be the base page size (%zu), 2M or 1G (huge pages); other sizes are not "
                        "page sizes of this system",
                        var, shmemi_rt.page);
        pg = pc->pgsize;
    }
    size_t len = round_up(size ? size : 1, pg);
    /* Buddy blocks are aligned relative to the segment start; aligning the start itself to the largest block
     * (capped at 1 GiB) makes shmem_align's alignment hold for absolute addresses too. */
    size_t align = pg;
    while (len && align < ((size_t)1 << 30) && align * 2 <= len)
        align *= 2;
    if (!len || len > SIZE_MAX - align)
        return errf(err, errlen,
                    "%s: %zu bytes cannot be mapped (rounded up to whole pages, it does not fit this "
                    "machine's addresses)",
                    var, size);
    int huge = pg != shmemi_rt.page;
    int fd = huge ? create_huge(name, len, pg, var, err, errlen) : create_object(name, len, var, err, errlen);
    if (fd < 0)
        return -1;
    void *m = MAP_FAILED;
    int e = 0;
    char *r = mmap(NULL, len + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r != MAP_FAILED) {
        char *a = (char *)(((uintptr_t)r + align - 1) & ~(uintptr_t)(align - 1));
        /* huge pages are reserved when mapped (no MAP_NORESERVE), so a short pool fails here, not with a SIGBUS on
         * first touch */
        m = mmap(a, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | (huge ? 0 : MAP_NORESERVE), fd, 0);
        e = errno;
        if (m == MAP_FAILED)
            munmap(r, len + align);
        else {
            if (a > r)
                munmap(r, (size_t)(a - r));
            if (a + len < r + len + align)
                munmap(a + len, (size_t)(r + len + align - (a + len)));
        }
    } else {
        e = errno;
    }
    if (m == MAP_FAILED) {
        close(fd);
        if (!huge)
            shm_unlink(name);
        if (huge)
            return errf(err, errlen,
                        "%s: cannot map %zu bytes of %zu KiB huge pages: %s; the system holds %ld free pages of that "
                        "size (reserve more in /sys/kernel/mm/hugepages/hugepages-%zukB/nr_hugepages, or drop PGSIZE)",
                        var, len, pg >> 10, strerror(e), huge_free(pg), pg >> 10);
        return errf(err, errlen, "%s: cannot map %zu bytes of shared memory for the %s: %s", var, len, s->name,
                    strerror(e));
    }
    if (pc && apply_policy(m, len, pc, err, errlen)) {
        munmap(m, len);
        close(fd);
        if (!huge)
            shm_unlink(name);
        return -1;
    }
    if (huge && pc->policy != SHMEMI_POLICY_DEFAULT) /* hugetlbfs keeps no policy with the object: place them now */
        for (size_t o = 0; o < len; o += pg)
            ((volatile char *)m)[o] = 0;
    if (huge) {
        s->share_fd = fd; /* peers open it through /proc until they have mapped it */
    } else {
        s->share_fd = -1;
        int rc = keep_backing(s, fd, len);
        if (rc) {
            munmap(m, len);
            shm_unlink(name);
            return errf(err, errlen, "%s: /dev/shm has no room for %zu bytes for the %s: %s", var, len, s->name,
                        strerror(rc));
        }
    }
    s->base = m;
    s->base_align = align;
    s->size = size;
    s->map_size = len;
    s->pgsize = pg;
    return 0;
}

/* A GPU segment: device memory from the GPU layer, its bookkeeping (the buddy allocator) in host memory. As for
 * host segments (create_anon), the base is aligned to the largest buddy block, here capped at GPU_BASE_ALIGN: the
 * allocation is that much longer and the segment starts at the first aligned address in it. */
#define GPU_PAGE ((size_t)2 << 20)
#define GPU_BASE_ALIGN ((size_t)32 << 20)
/* KIND=LIBOMP GPU segments (by segment index): 1 + the OpenMP device whose omp_target_alloc gave dev_raw, which
 * omp_target_free must then take back; 0: the GPU layer allocated it */
static int omp_owned[SHMEMI_MAX_SEGS];

/* omp_dev >= 0: the memory comes from the OpenMP runtime (omp_target_alloc on that device), and the GPU layer must
 * know it as its own device memory, since only then can peers import it and the network register it; var names
 * the partition's setting for messages. */
static int create_device(struct shmemi_seg *s, size_t size, int omp_dev, const char *var, char *err, size_t errlen) {
    size_t len = (size + GPU_PAGE - 1) & ~(GPU_PAGE - 1), align = GPU_PAGE;
    while (align < GPU_BASE_ALIGN && align * 2 <= len)
        align *= 2;
    size_t total = len + (align > GPU_PAGE ? align : 0);
    void *p;
    if (omp_dev >= 0) {
        if (!(p = shmemi_omp_alloc(total, omp_dev)))
            return errf(err, errlen, "%s: omp_target_alloc(%zu, %d) returned NULL (out of device memory?)", var, total,
                        omp_dev);
        if (shmemi_gtl_kind(p) != GTL_MEM_DEVICE) {
            shmemi_omp_free(p, omp_dev);
            return errf(err, errlen,
                        "%s: OpenMP device %d gives memory that the GPU layer (%s backend) does not know as device "
                        "memory, so other PEs could not map it nor the network register it; choose the backend of "
                        "that device with SHMEM_GPU, or another device with OMP_DEVICE=<n>",
                        var, omp_dev, shmemi_gtl->name);
        }
    } else if (shmemi_gtl->alloc(total, &p))
        return errf(err, errlen,
                    "cannot allocate %zu bytes of GPU memory for the %s (%s); set a smaller "
                    "SHMEM_SYMMETRIC_SIZE_DEVICE",
                    total, s->name, shmemi_gtl->name);
    char *raw = p, *base = (char *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
    if (base + len > raw + total) { /* the driver gave less than GPU_PAGE alignment: keep what it gave */
        base = raw;
        align = (uintptr_t)raw & (~(uintptr_t)raw + 1);
    }
    s->dev_raw = raw;
    s->share_fd = -1;
    s->dev_len = total;
    s->base = base;
    s->base_align = align;
    s->size = size;
    s->map_size = len;
    s->kind = SHMEMI_MEM_DEVICE;
    return 0;
}

/* Maps every node-local peer's copy of a GPU segment through the GPU layer's IPC. */
static int import_device(struct shmemi_seg *s, char *err, size_t errlen) {
    /* the IPC handle names the whole allocation; the segment starts lead bytes into it (each PE its own lead) */
    struct dev_ipc {
        struct gtl_ipc h;
        uint64_t lead;
    } mine, *all = calloc((size_t)shmemi_rt.n_pes, sizeof *all);
    s->peer = calloc((size_t)shmemi_rt.n_pes, sizeof *s->peer);
    s->peer_raw = calloc((size_t)shmemi_rt.n_pes, sizeof *s->peer_raw);
    if (!s->peer || !s->peer_raw || !all) {
        free(all);
        return errf(err, errlen, "out of memory");
    }
    memset(&mine, 0, sizeof mine);
    mine.lead = (uint64_t)(s->base - s->dev_raw);
    if (shmemi_gtl->ipc_export(s->dev_raw, s->dev_len, &mine.h)) {
        free(all);
        return errf(err, errlen, "cannot export the %s for IPC (%s)", s->name, shmemi_gtl->name);
    }
    if (shmemb_allgather(&mine, all, sizeof mine)) {
        free(all);
        return errf(err, errlen, "bootstrap allgather failed");
    }
    for (int pe = 0; pe < shmemi_rt.n_pes; pe++) {
        void *m;
        unsigned char *g = &shmemi_rt.gpu_peer[pe];
        if (pe == shmemi_rt.my_pe) {
            s->peer[pe] = s->base;
        } else if (!shmemi_rt.local[pe] || !(*g & SHMEMI_GPU_PEER_ACCESS)) {
            continue; /* another node, or a GPU without peer access to this PE's: the network reaches it */
        } else if (all[pe].lead + s->map_size > s->dev_len) {
            free(all);
            return errf(err, errlen, "PE %d's %s is not where its IPC handle says (%s)", pe, s->name, shmemi_gtl->name);
        } else if (shmemi_gtl->ipc_import(&all[pe].h, s->dev_len, &m)) {
            /* the driver said the GPUs reach each other (or could not say), the import says not: the network
             * reaches it (shmemi_gpu_peers_agree checks that it can) */
            shmemi_debug("cannot map PE %d's %s through %s IPC: it goes through the network", pe, s->name,
                         shmemi_gtl->name);
            *g = (unsigned char)((*g & ~(SHMEMI_GPU_PEER_ACCESS | SHMEMI_GPU_PEER_ATOMICS)) | SHMEMI_GPU_PEER_FAILED);
        } else {
            s->peer_raw[pe] = m;
            s->peer[pe] = (char *)m + all[pe].lead;
        }
    }
    free(all);
    return 0;
}

/* ---- node peers' GPU memory this PE does not map, or cannot update atomically ---- */
static char net_why[300]; /* the first such peer, for the message when the network that would reach it cannot start */
static uint64_t *gpu_mapped; /* [n_pes] node GPUs whose PEs' GPU segments each PE maps (bits of GPUs it knows not) */
static uint64_t gpu_group = ~0ULL; /* the node GPUs whose PEs and this one map each other's GPU memory, all pairs */

/* After the GPU segments are mapped, collectively: which PEs map the GPU memory of which GPUs' PEs (collectives on GPU
 * buffers choose their paths by it, the same on every member), and whether some PE needs the network for a node
 * peer's GPU memory: one it could not map, or one whose atomics its GPU cannot do atomically (their owner applies them
 * then, as the network's staged messages). Masks over the node's GPUs (shmemi_gtl_peer_dev), 64 at most. */
static int gpu_peers_agree(char *err, size_t errlen) {
    int n = shmemi_rt.n_pes, me = shmemi_rt.my_pe;
    struct card {
        uint64_t mapped; /* node GPUs whose PEs' GPU segments this PE maps, every one of them */
        uint64_t known;  /* node GPUs some PE of which is on this node (so a clear bit of mapped means something) */
        int32_t need_net, pad;
    } mine = {0, 0, 0, 0}, *all = calloc((size_t)n, sizeof *all);
    if (!all)
        return errf(err, errlen, "out of memory");
    net_why[0] = '\0';
    for (int pe = 0; pe < n; pe++) {
        int d = shmemi_gtl_peer_dev(pe);
        if (!shmemi_rt.local[pe] || d < 0)
            continue;
        mine.known |= 1ULL << d;
        mine.mapped |= 1ULL << d;
    }
    for (int pe = 0; pe < n; pe++) {
        unsigned g = shmemi_rt.gpu_peer[pe];
        int d = shmemi_gtl_peer_dev(pe);
        if (!shmemi_rt.local[pe] || pe == me)
            continue;
        if (!(g & SHMEMI_GPU_PEER_ACCESS) && d >= 0)
            mine.mapped &= ~(1ULL << d);
        if (!(g & SHMEMI_GPU_PEER_ATOMICS) && !mine.need_net) {
            mine.need_net = 1;
            snprintf(net_why, sizeof net_why,
                     "PE %d's GPU %s PE %d's (%s), so PE %d reaches PE %d's GPU memory through the network", me,
                     g & SHMEMI_GPU_PEER_FAILED   ? "could not map the memory of"
                     : g & SHMEMI_GPU_PEER_ACCESS ? "has no native atomics on the memory of"
                                                  : "has no peer access to",
                     pe,
                     g & SHMEMI_GPU_PEER_HIDDEN ? "a GPU not visible to this PE, whose link the driver cannot tell"
                                                : "GPUs of this node",
                     me, pe);
        }
    }
    if (shmemb_allgather(&mine, all, sizeof mine)) {
        free(all);
        return errf(err, errlen, "bootstrap allgather of the PEs' GPU mappings failed");
    }
    free(gpu_mapped);
    if (!(gpu_mapped = malloc((size_t)n * sizeof *gpu_mapped))) {
        free(all);
        return errf(err, errlen, "out of memory");
    }
    shmemi_rt.net_for_gpu = 0;
    for (int pe = 0; pe < n; pe++) {
        shmemi_rt.net_for_gpu |= all[pe].need_net;
        gpu_mapped[pe] = all[pe].mapped | ~all[pe].known;
    }
    free(all);
    /* GPU x maps GPU y when each PE on x maps every PE on y; the node's GPUs then fall into groups that map each
     * other, taken greedily in the node's order (the same on every PE), and this PE's is the one its GPU is in */
    uint64_t maps[64], done = 0;
    for (int d = 0; d < 64; d++)
        maps[d] = ~0ULL;
    for (int pe = 0; pe < n; pe++) {
        int d = shmemi_gtl_peer_dev(pe);
        if (shmemi_rt.local[pe] && d >= 0)
            maps[d] &= gpu_mapped[pe];
    }
    int md = shmemi_gtl_peer_dev(me);
    gpu_group = ~0ULL;
    for (int d = 0; d < 64 && md >= 0; d++) {
        if (done >> d & 1)
            continue;
        uint64_t g = 1ULL << d;
        for (int e = d + 1; e < 64; e++)
            if (!(done >> e & 1) && (maps[e] & g) == g) {
                int all_reach = 1;
                for (int x = 0; x < 64 && all_reach; x++)
                    all_reach = !(g >> x & 1) || (maps[x] >> e & 1);
                if (all_reach)
                    g |= 1ULL << e;
            }
        done |= g;
        if (g >> md & 1)
            gpu_group = g;
    }
    return 0;
}

int shmemi_gpu_group_member(int pe) {
    int d = shmemi_gtl_peer_dev(pe);
    return shmemi_rt.local[pe] && (d < 0 || (gpu_group >> d & 1));
}

const char *shmemi_gpu_peers_why_net(void) { return net_why[0] ? net_why : NULL; }

int shmemi_gpu_unmapped_among(int start, int stride, int size, const int *pes) {
    uint64_t gpus = 0, mapped = ~0ULL;
    for (int i = 0; gpu_mapped && i < size; i++) {
        int pe = pes ? pes[i] : start + i * stride, d = shmemi_gtl_peer_dev(pe);
        if (d >= 0) {
            gpus |= 1ULL << d;
            mapped &= gpu_mapped[pe];
        }
    }
    return (gpus & ~mapped) != 0;
}

struct seg_desc {
    uint64_t size, map_size, base_align;
    int32_t role, part_id, kind;
    int32_t autosized;     /* the heap: sized by auto from this PE's node alone (agree takes the least) */
    int32_t pid, share_fd; /* huge-page segments: where peers open the object (/proc/<pid>/fd/<share_fd>) */
};

static const char *seg_tag(const struct shmemi_seg *s, char *buf, size_t len) {
    switch (s->role) {
    case SHMEMI_SEG_HEAP: return "heap";
    case SHMEMI_SEG_STATIC: return "static";
    case SHMEMI_SEG_INTERNAL: return "ctl";
    default: snprintf(buf, len, "part%d", s->part_id); return buf;
    }
}

/* Maps every node-local peer's copy of a segment; d[pe] is the peer's description of it (stride apart). */
static int map_peers(struct shmemi_seg *s, const struct seg_desc *d, size_t stride, char *err, size_t errlen) {
    s->peer = calloc((size_t)shmemi_rt.n_pes, sizeof *s->peer);
    s->peer_map = calloc((size_t)shmemi_rt.n_pes, sizeof *s->peer_map);
    if (!s->peer || !s->peer_map)
        return errf(err, errlen, "out of memory");
    char tagbuf[32];
    const char *tag = seg_tag(s, tagbuf, sizeof tagbuf);
    for (int pe = 0; pe < shmemi_rt.n_pes; pe++) {
        if (pe == shmemi_rt.my_pe) {
            s->peer[pe] = s->base;
            s->peer_map[pe] = s->map_size;
            continue;
        }
        if (!shmemi_rt.local[pe])
            continue; /* another node (or SHMEM_TRANSPORT=ofi): reached through the network transport */
        char name[160];
        const struct seg_desc *pd = d + (size_t)pe * stride;
        int fd;
        if (pd->share_fd >= 0) {
            snprintf(name, sizeof name, "/proc/%d/fd/%d", (int)pd->pid, (int)pd->share_fd);
            fd = open(name, O_RDWR | O_CLOEXEC);
        } else {
            shm_name(name, sizeof name, pe, tag);
            fd = shm_open(name, O_RDWR, 0);
        }
        if (fd < 0)
            return errf(err, errlen, "cannot open PE %d's %s (%s): %s", pe, s->name, name, strerror(errno));
        /* the peer's whole object: an automatic heap is as large as its own node allowed, which may be more than
         * the job uses (agree) */
        size_t len = (size_t)pd->map_size;
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | (pd->share_fd >= 0 ? 0 : MAP_NORESERVE), fd, 0);
        close(fd);
        if (m == MAP_FAILED)
            return errf(err, errlen, "cannot map PE %d's %s: %s", pe, s->name, strerror(errno));
        s->peer[pe] = m;
        s->peer_map[pe] = len;
    }
    return 0;
}

void shmemi_segments_unlink_names(void) {
    char prefix[128];
    int n = snprintf(prefix, sizeof prefix, "gshmem-%s-%d-", shmemi_rt.jobid, shmemi_rt.my_pe);
    if (!shmemi_rt.jobid[0] || n <= 0 || (size_t)n >= sizeof prefix)
        return;
    DIR *d = opendir("/dev/shm"); /* where shm_open keeps its names on Linux */
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, prefix, (size_t)n))
            unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
}

static void unlink_own(struct shmemi_seg *s) {
    char name[160], tagbuf[32];
    shm_name(name, sizeof name, shmemi_rt.my_pe, seg_tag(s, tagbuf, sizeof tagbuf));
    shm_unlink(name);
}

static char part_names[SHMEMI_MAX_PARTITIONS][32];
/* where each partition went ("GPU memory", "host memory (no OpenMP offload device)"), for SHMEM_INFO */
static char part_where[SHMEMI_MAX_PARTITIONS][200];

/* SHMEM_GPU_PIN_HOST: the host segments users address (heap, static data, host partitions), this PE's copies and
 * the mapped peers', registered with the GPU driver, so GPU copies to and from them run from pinned memory.
 * pinned[si][pe]: that copy is registered (undone before it is unmapped). */
static unsigned char *pinned[SHMEMI_MAX_SEGS];

static int pin_host(char *err, size_t errlen) {
    size_t bytes = 0;
    for (int si = 0; si < shmemi_rt.nsegs; si++) {
        struct shmemi_seg *s = &shmemi_rt.segs[si];
        if (s->kind == SHMEMI_MEM_DEVICE)
            continue;
        if (!(pinned[si] = calloc((size_t)shmemi_rt.n_pes, 1)))
            return errf(err, errlen, "out of memory");
        for (int pe = 0; pe < shmemi_rt.n_pes; pe++) {
            if (!s->peer[pe])
                continue;
            size_t len = s->peer_map ? s->peer_map[pe] : s->map_size;
            int rc = shmemi_gtl->host_register(s->peer[pe], len);
            if (rc == SHMEMI_GTL_NO_PIN)
                return errf(err, errlen,
                            "SHMEM_GPU_PIN_HOST=1: the GPU driver (%s) cannot pin host memory it did not allocate; "
                            "leave SHMEM_GPU_PIN_HOST unset",
                            shmemi_gtl->name);
            if (rc)
                return errf(err, errlen,
                            "SHMEM_GPU_PIN_HOST=1: the GPU driver (%s) cannot pin the %s of PE %d (%zu bytes at %p); "
                            "make SHMEM_SYMMETRIC_SIZE smaller or leave SHMEM_GPU_PIN_HOST unset",
                            shmemi_gtl->name, s->name, pe, len, (void *)s->peer[pe]);
            pinned[si][pe] = 1;
            bytes += len;
        }
    }
    shmemi_debug("host segments pinned for the GPU: %zu bytes (this PE's and mapped peers' copies)", bytes);
    return 0;
}

static void unpin_host(int si, struct shmemi_seg *s) {
    for (int pe = 0; pinned[si] && pe < shmemi_rt.n_pes; pe++)
        if (pinned[si][pe] && shmemi_gtl->host_unregister(s->peer[pe]))
            shmemi_fatal("shmem_finalize", "the GPU driver (%s) cannot unpin the %s of PE %d", shmemi_gtl->name,
                         s->name, pe);
    free(pinned[si]);
    pinned[si] = NULL;
}

/* ---- what the node can back ----
 * Host segments are objects in /dev/shm (tmpfs), sparse until touched: a page that /dev/shm has no room for when a PE
 * first touches it kills that PE with SIGBUS, long after shmem_init and shmem_malloc said yes. The PEs of a node
 * create their objects at the same time, so the room one PE sees free is every node PE's: it is divided among them. */
struct room {
    uint64_t free; /* bytes free in /dev/shm, UINT64_MAX when it cannot be read */
    uint64_t phys; /* the node's physical memory */
    int32_t node_pes, pad;
};

static struct room room_here(int node_pes) {
    struct room r = {UINT64_MAX, (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE),
                     node_pes > 0 ? node_pes : 1, 0};
    struct statvfs v;
    if (!statvfs("/dev/shm", &v))
        r.free = (uint64_t)v.f_bavail * v.f_frsize;
    return r;
}

/* whether a partition is an object in /dev/shm: host memory of base pages (huge pages come from the kernel's own
 * pool, GPU memory from the GPU) */
static int in_dev_shm(const struct shmemi_partition_cfg *c) {
    int dev;
    char why[160];
    return c->kind != SHMEMI_KIND_DEVICE && (!c->pgsize || c->pgsize == (size_t)sysconf(_SC_PAGESIZE)) &&
           (c->kind != SHMEMI_KIND_LIBOMP || shmemi_omp_place(c->omp_device, &dev, why, sizeof why) == 0);
}

/* the /dev/shm each PE's partitions take */
static size_t host_part_bytes(void) {
    size_t sum = 0;
    for (int i = 0; i < shmemi_npartitions; i++) {
        size_t r = round_up(shmemi_partitions[i].size, (size_t)sysconf(_SC_PAGESIZE));
        if (in_dev_shm(&shmemi_partitions[i]))
            sum = r && sum <= SIZE_MAX - r ? sum + r : SIZE_MAX;
    }
    return sum;
}

/* SHMEM_SYMMETRIC_SIZE=auto: programs such as ISx shmem_malloc a GiB without checking for NULL, so the default heap
 * is large: half of what the node could back, shared among its PEs, leaves room for everything else, and 512 MiB
 * at least where the PE's whole share allows it. Never more than that share (less the partitions): the heap is
 * reserved only as shmem_malloc hands it out, and a heap larger than /dev/shm could hold would be found out by a
 * SIGBUS. Rounded down to 64 MiB (to 1 MiB below that); 0: no room for a heap. */
#define HEAP_AUTO_MIN ((size_t)512 << 20)
#define HEAP_AUTO_MAX ((size_t)8 << 30)
static size_t auto_heap(const struct room *r, size_t parts) {
    uint64_t cap = (r->free < r->phys ? r->free : r->phys) / (uint64_t)r->node_pes;
    cap = cap > parts ? cap - parts : 0;
    uint64_t m = cap / 2;
    m = m < HEAP_AUTO_MIN ? HEAP_AUTO_MIN : m > HEAP_AUTO_MAX ? HEAP_AUTO_MAX : m;
    if (m > cap)
        m = cap;
    return (size_t)(m & ~(uint64_t)((m >= (64u << 20) ? 64u << 20 : 1u << 20) - 1));
}

size_t shmemi_heap_auto(int node_pes) {
    struct room r = room_here(node_pes);
    return auto_heap(&r, host_part_bytes());
}

static const char *mib(uint64_t n, char *buf, size_t len) {
    if (n >= (1u << 20))
        snprintf(buf, len, "%llu MiB", (unsigned long long)(n >> 20));
    else
        snprintf(buf, len, "%llu bytes", (unsigned long long)n);
    return buf;
}

size_t shmemi_segments_room_bytes(void) { return sizeof(struct room); }

/* what this PE told the others it sees: an automatic heap sized before the exchange is sized from this very room, so
 * that the least heap agree takes is the one heap_size_checked finds from the rooms exchanged */
static struct room my_room;
/* the heap was sized by SHMEM_SYMMETRIC_SIZE=auto (its description says so: agree then takes the least) */
static int heap_auto;

/* bytes of /dev/shm that this job's objects hold (node peers' segments made before this PE looked) */
static uint64_t job_shm_bytes(void) {
    char prefix[128];
    int n = snprintf(prefix, sizeof prefix, "gshmem-%s-", shmemi_rt.jobid);
    uint64_t sum = 0;
    DIR *d = n > 0 && (size_t)n < sizeof prefix ? opendir("/dev/shm") : NULL;
    if (!d)
        return 0;
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, prefix, (size_t)n) && !fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW))
            sum += (uint64_t)st.st_blocks * 512u;
    closedir(d);
    return sum;
}

void shmemi_segments_room(void *out) {
    /* A host-only job's PEs make their segments with no exchange before, so the node peers quicker than this one
     * may have taken some of /dev/shm already (the control block, static data): that is room this job has, as it was
     * when no PE had begun. Counted before /dev/shm is asked, so that what peers take in between is not counted. */
    uint64_t ours = job_shm_bytes();
    my_room = room_here(shmemi_rt.node_pes);
    if (my_room.free != UINT64_MAX)
        my_room.free += ours;
    memcpy(out, &my_room, sizeof my_room);
}

/* How the heap was sized, for messages: the variable as the user wrote it, or auto's choice on this PE's node */
static void heap_var(char *buf, size_t len, size_t heap) {
    if (shmemi_env.symmetric_size)
        snprintf(buf, len, "SHMEM_SYMMETRIC_SIZE=%s", shmemi_env_raw("SHMEM_SYMMETRIC_SIZE"));
    else
        snprintf(buf, len, "SHMEM_SYMMETRIC_SIZE=auto (%zu MiB here)", heap >> 20);
}

/* The heap's size (SHMEM_SYMMETRIC_SIZE, or auto's choice), and whether every node can back the heap and the host
 * partitions of each of its PEs, from what every PE saw (rooms: from shmem_init's exchange), so every PE decides
 * alike (the least over the job) and a refusal reads the same on every PE. heapvar gets how the heap was sized. */
static int heap_size_checked(const void *rooms, size_t stride, size_t *out, char *heapvar, size_t hvlen, char *err,
                             size_t errlen) {
    int n = shmemi_rt.n_pes;
    struct room mine = room_here(shmemi_rt.node_pes), *all = calloc((size_t)n, sizeof *all);
    if (!all)
        return errf(err, errlen, "out of memory");
    for (int pe = 0; pe < n; pe++)
        memcpy(&all[pe], (const char *)rooms + (size_t)pe * stride, sizeof *all);
    size_t parts = host_part_bytes(), heap = shmemi_env.symmetric_size;
    int w = -1; /* the PE with the least room per PE in /dev/shm */
    for (int pe = 0; pe < n; pe++) {
        size_t a = auto_heap(&all[pe], parts);
        if (!shmemi_env.symmetric_size && (pe == 0 || a < heap))
            heap = a;
        if (all[pe].free != UINT64_MAX &&
            (w < 0 || all[pe].free / (uint64_t)all[pe].node_pes < all[w].free / (uint64_t)all[w].node_pes))
            w = pe;
    }
    struct room r = w >= 0 ? all[w] : mine;
    free(all);
    heap_var(heapvar, hvlen, heap);
    *out = heap;
    uint64_t each = (uint64_t)heap + parts, share = r.free / (uint64_t)r.node_pes;
    if (w < 0 || (heap && each >= heap && each <= share))
        return 0;
    char where[48] = "this node", a[32], b[32], c[32], d[32], vars[400], fix[160];
    if (r.node_pes < n)
        snprintf(where, sizeof where, "PE %d's node", w);
    if (!heap && parts < share) /* auto found no room left for a heap beside the partitions */
        return errf(err, errlen,
                    "SHMEM_SYMMETRIC_SIZE=auto: /dev/shm has %s free for the %d PEs of %s (%s per PE%s%s), too "
                    "little for a symmetric heap; remove what other jobs left there (ls /dev/shm), make it larger "
                    "(mount -o remount,size=<size> /dev/shm) or run fewer PEs on a node",
                    mib(r.free, a, sizeof a), r.node_pes, where, mib(share, b, sizeof b),
                    parts ? ", less the partitions' " : "", parts ? mib(parts, c, sizeof c) : "");
    /* the settings that ask for more than there is: the heap's where it was set, and the partitions in /dev/shm */
    size_t k = 0;
    vars[0] = '\0';
    if (shmemi_env.symmetric_size)
        k += (size_t)snprintf(vars, sizeof vars, "%s", heapvar);
    for (int i = 0; i < shmemi_npartitions && k < sizeof vars; i++)
        if (in_dev_shm(&shmemi_partitions[i]))
            k += (size_t)snprintf(vars + k, sizeof vars - k, "%s%s", k ? ", " : "", shmemi_partitions[i].text);
    uint64_t most = share > parts ? share - parts : 0; /* the largest heap that fits */
    if (shmemi_env.symmetric_size && most >= (1u << 20))
        snprintf(fix, sizeof fix, "Set SHMEM_SYMMETRIC_SIZE to at most %lluM%s", (unsigned long long)(most >> 20),
                 parts ? " (or make the partitions smaller)" : "");
    else if (shmemi_env.symmetric_size && most >= 64)
        snprintf(fix, sizeof fix, "Set SHMEM_SYMMETRIC_SIZE to at most %llu%s", (unsigned long long)most,
                 parts ? " (or make the partitions smaller)" : "");
    else
        snprintf(fix, sizeof fix, "Make the partitions smaller (%s per PE at most, %s)", mib(share, d, sizeof d),
                 shmemi_env.symmetric_size ? "with the heap" : "with room left for the heap");
    char parts_of[112] = "";
    if (parts && heap)
        snprintf(parts_of, sizeof parts_of, " (the heap %s, the partitions %s)", mib(heap, b, sizeof b),
                 mib(parts, c, sizeof c));
    else if (parts)
        snprintf(parts_of, sizeof parts_of, " for its partitions, leaving nothing for the heap");
    return errf(err, errlen,
                "%s: each of the %d PEs of %s needs %s of shared memory%s, but /dev/shm has %s free, %s per PE; a PE "
                "would die of SIGBUS when it touched memory /dev/shm cannot back. %s, or make /dev/shm larger (mount "
                "-o remount,size=<size> /dev/shm)",
                vars, r.node_pes, where, each >= heap ? mib(each, a, sizeof a) : "more than 16 EiB", parts_of,
                mib(r.free, c, sizeof c), mib(share, d, sizeof d), fix);
}

int shmemi_segments_create(const void *rooms, size_t stride, char *err, size_t errlen) {
    shmemi_rt.page = (size_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < SHMEMI_MAX_SEGS; i++)
        backing[i] = (struct backing){.fd = -1};
    int n = 0;
    struct shmemi_seg *heap = &shmemi_rt.segs[n++];
    heap->role = SHMEMI_SEG_HEAP;
    heap->name = "symmetric heap";
    char heapvar[96];
    size_t heap_size = 0;
    heap_auto = !shmemi_env.symmetric_size;
    if (rooms) {
        if (heap_size_checked(rooms, stride, &heap_size, heapvar, sizeof heapvar, err, errlen))
            return -1;
    } else {
        /* sized from this PE's node alone, before any exchange: whether every node can back it, and the least
         * automatic heap, come once every PE's room and segments are in (shmemi_segments_room_check, agree) */
        heap_size = heap_auto ? auto_heap(&my_room, host_part_bytes()) : shmemi_env.symmetric_size;
        heap_var(heapvar, sizeof heapvar, heap_size);
    }
    shmemi_debug("the symmetric heap: %s", heapvar);
    if (create_anon(heap, "heap", heap_size, heapvar, NULL, err, errlen))
        return -1;
    if (shmemi_buddy_create(&heap->alloc, heap->size, HEAP_MIN_BLOCK))
        return errf(err, errlen, "%s: cannot create the heap allocator (out of memory?)", heapvar);

    struct shmemi_seg *st = &shmemi_rt.segs[n++];
    st->role = SHMEMI_SEG_STATIC;
    st->name = "static data";
    if (remap_static(st, err, errlen))
        return -1;

    for (int i = 0; i < shmemi_npartitions; i++) {
        const struct shmemi_partition_cfg *c = &shmemi_partitions[i];
        if (c->kind == SHMEMI_KIND_DEVICE && !shmemi_gtl)
            return errf(err, errlen,
                        "SHMEM_SYMMETRIC_PARTITION%d: KIND=DEVICE needs GPU support, which is off (%s); use "
                        "KIND=HOST or remove the variable",
                        c->id, shmemi_rt.gpu_why);
        struct shmemi_seg *p = &shmemi_rt.segs[n++];
        p->role = SHMEMI_SEG_PARTITION;
        p->part_id = c->id;
        snprintf(part_names[i], sizeof part_names[i], "partition %d", c->id);
        p->name = part_names[i];
        char tag[32];
        snprintf(tag, sizeof tag, "part%d", c->id);
        omp_owned[n - 1] = 0;
        int omp_dev = -1, kind = c->kind;
        if (kind == SHMEMI_KIND_LIBOMP) { /* an offload device: GPU memory like KIND=DEVICE; none: host memory */
            char why[160];
            int r = shmemi_omp_place(c->omp_device, &omp_dev, why, sizeof why);
            if (r < 0)
                return errf(err, errlen, "%s: %s", c->text, why);
            if (r > 0 && !shmemi_gtl)
                return errf(err, errlen,
                            "%s: the partition would be on %s, but GPU support is off (%s), so other PEs could not "
                            "reach it",
                            c->text, why, shmemi_rt.gpu_why);
            snprintf(part_where[i], sizeof part_where[i], "KIND=LIBOMP: %s%s", r > 0 ? "GPU memory of " : "", why);
            kind = r > 0 ? SHMEMI_KIND_DEVICE : SHMEMI_KIND_HOST;
            omp_owned[n - 1] = r > 0 ? omp_dev + 1 : 0;
        } else {
            snprintf(part_where[i], sizeof part_where[i], "%s",
                     kind == SHMEMI_KIND_DEVICE ? "KIND=DEVICE: GPU memory" : "host memory");
        }
        if (kind == SHMEMI_KIND_DEVICE ? create_device(p, c->size, omp_owned[n - 1] - 1, c->text, err, errlen)
                                       : create_anon(p, tag, c->size, c->text, kind == c->kind ? c : NULL, err, errlen))
            return -1;
        if (shmemi_buddy_create(&p->alloc, p->size, HEAP_MIN_BLOCK))
            return errf(err, errlen, "cannot create the allocator of partition %d", c->id);
    }
    shmemi_rt.dev_heap = -1;
    if (shmemi_gtl) {
        struct shmemi_seg *d = &shmemi_rt.segs[n];
        d->role = SHMEMI_SEG_DEVICE_HEAP;
        d->name = "GPU symmetric heap";
        size_t size = shmemi_env.symmetric_size_device   ? shmemi_env.symmetric_size_device
                      : shmemi_env.device_symmetric_size ? shmemi_env.device_symmetric_size
                                                         : (size_t)1 << 30;
        if (create_device(d, size, -1, "SHMEM_SYMMETRIC_SIZE_DEVICE", err, errlen))
            return -1;
        if (shmemi_buddy_create(&d->alloc, d->size, HEAP_MIN_BLOCK))
            return errf(err, errlen, "cannot create the GPU heap allocator");
        shmemi_rt.dev_heap = n++;
    }
    shmemi_rt.nsegs = n;

    struct shmemi_seg *in = &shmemi_rt.internal;
    in->role = SHMEMI_SEG_INTERNAL;
    in->name = "control block";
    return create_anon(in, "ctl", sizeof(struct shmemi_ctl), "the control block", NULL, err, errlen);
}

/* every PE's description of each segment, from shmemi_segments_agree to shmemi_segments_map */
static struct seg_desc *descs;

/* Room for every segment a PE may have, so that the exchange has the same length on every PE even where their
 * segments differ (which agree then says) */
size_t shmemi_segments_desc_bytes(void) { return sizeof(struct seg_desc) * (SHMEMI_MAX_SEGS + 1); }

void shmemi_segments_desc(void *out) {
    int n = shmemi_rt.nsegs, nall = n + 1;
    struct seg_desc *mine = out;
    memset(out, 0, shmemi_segments_desc_bytes());
    for (int i = 0; i < nall; i++) {
        struct shmemi_seg *s = i < n ? &shmemi_rt.segs[i] : &shmemi_rt.internal;
        mine[i] = (struct seg_desc){s->size,
                                    s->map_size,
                                    s->base_align,
                                    s->role,
                                    s->part_id,
                                    s->kind,
                                    s->role == SHMEMI_SEG_HEAP && heap_auto,
                                    (int32_t)getpid(),
                                    s->share_fd};
    }
}

int shmemi_segments_agree(const void *blobs, size_t stride, char *err, size_t errlen) {
    /* every PE must have the same segments: a mismatch means different environments or programs */
    int n = shmemi_rt.nsegs, nall = n + 1;
    struct shmemi_seg *in = &shmemi_rt.internal;
    free(descs);
    struct seg_desc *all = descs = calloc((size_t)shmemi_rt.n_pes * (size_t)nall, sizeof *all);
    if (!all)
        return errf(err, errlen, "out of memory");
    for (int pe = 0; pe < shmemi_rt.n_pes; pe++)
        memcpy(&all[(size_t)pe * (size_t)nall], (const char *)blobs + (size_t)pe * stride, sizeof *all * (size_t)nall);
    free(shmemi_rt.pids);
    if (!(shmemi_rt.pids = calloc((size_t)shmemi_rt.n_pes, sizeof *shmemi_rt.pids)))
        return errf(err, errlen, "out of memory");
    for (int pe = 0; pe < shmemi_rt.n_pes; pe++)
        shmemi_rt.pids[pe] = all[(size_t)pe * (size_t)nall].pid;
    /* each PE is held against PE 0 (not against itself), so that every PE finds the same first difference and
     * words it alike: shmem_init then prints it once for the job */
    for (int pe = 1; pe < shmemi_rt.n_pes; pe++)
        for (int i = 0; i < nall; i++) {
            const struct seg_desc *d = &all[(size_t)pe * (size_t)nall + (size_t)i], *z = &all[i];
            const struct shmemi_seg *s = i < n ? &shmemi_rt.segs[i] : in;
            int both_auto = d->autosized && z->autosized; /* sized by each PE's node: the least is taken below */
            if ((d->size != z->size && !both_auto) || d->role != z->role || d->part_id != z->part_id)
                return errf(err, errlen,
                            "the %s is %llu bytes on PE 0 but %llu bytes on PE %d: every PE must run the same "
                            "program with the same SHMEM_SYMMETRIC_SIZE and SHMEM_SYMMETRIC_PARTITION* settings",
                            s->name, (unsigned long long)z->size, (unsigned long long)d->size, pe);
            if (d->kind != z->kind) /* a KIND=LIBOMP partition on an offload device there, not here */
                return errf(err, errlen,
                            "the %s is %s memory on PE 0 but %s memory on PE %d: every PE must have the same kind of "
                            "device for it (an OpenMP offload device for KIND=LIBOMP partitions)",
                            s->name, z->kind == SHMEMI_MEM_DEVICE ? "GPU" : "host",
                            d->kind == SHMEMI_MEM_DEVICE ? "GPU" : "host", pe);
        }
    for (int pe = 0; pe < shmemi_rt.n_pes; pe++)
        for (int i = 0; i < nall; i++) {
            struct shmemi_seg *s = i < n ? &shmemi_rt.segs[i] : in;
            const struct seg_desc *d = &all[(size_t)pe * (size_t)nall + (size_t)i];
            if (d->base_align < s->base_align) /* allocation decisions must be the same everywhere: the least */
                s->base_align = d->base_align;
        }
    /* An automatic heap is as large as its own node allows (a host-only job sizes it before its one exchange): the
     * job uses the least, which is what auto gives from the least room (heap_size_checked), on every PE. Only the
     * usable size shrinks; the object, its mapping and its registration keep their length. Nothing is allocated
     * yet, so the allocator starts anew. */
    struct shmemi_seg *heap = &shmemi_rt.segs[0];
    size_t least = heap->size, own = heap->size;
    for (int pe = 0; n > 0 && heap->role == SHMEMI_SEG_HEAP && pe < shmemi_rt.n_pes; pe++)
        if (all[(size_t)pe * (size_t)nall].size < least)
            least = (size_t)all[(size_t)pe * (size_t)nall].size;
    if (least < heap->size) {
        shmemi_buddy_destroy(heap->alloc);
        heap->alloc = NULL;
        heap->size = least;
        if (shmemi_buddy_create(&heap->alloc, least, HEAP_MIN_BLOCK))
            return errf(err, errlen, "cannot create the heap allocator (out of memory?)");
        shmemi_debug("the symmetric heap: %zu MiB, the least any PE's node allows (this PE's: %zu MiB)", least >> 20,
                     own >> 20);
    }
    return 0;
}

int shmemi_segments_room_check(const void *rooms, size_t stride, char *err, size_t errlen) {
    char heapvar[96];
    size_t heap;
    return heap_size_checked(rooms, stride, &heap, heapvar, sizeof heapvar, err, errlen);
}

int shmemi_segments_map(char *err, size_t errlen) {
    int n = shmemi_rt.nsegs, nall = n + 1;
    struct shmemi_seg *in = &shmemi_rt.internal, *heap = &shmemi_rt.segs[0], *st = &shmemi_rt.segs[1];
    struct seg_desc *all = descs;
    descs = NULL;
    for (int i = 0; i < nall; i++) {
        struct shmemi_seg *s = i < n ? &shmemi_rt.segs[i] : in;
        if (s->kind == SHMEMI_MEM_DEVICE ? import_device(s, err, errlen)
                                         : map_peers(s, all + i, (size_t)nall, err, errlen)) {
            free(all);
            return -1;
        }
    }
    free(all);
    shmemi_rt.ctl = (struct shmemi_ctl **)(void *)in->peer;
    if (shmemi_gtl && gpu_peers_agree(err, errlen))
        return -1;
    if (shmemi_gtl && shmemi_env.gpu_pin_host && pin_host(err, errlen))
        return -1;
    shmemi_debug("segments: heap %zu B at %p, static %zu B at %p, %d partition%s", heap->size, (void *)heap->base,
                 st->size, (void *)st->base, shmemi_npartitions, shmemi_npartitions == 1 ? "" : "s");
    return 0;
}

void shmemi_segments_unlink(void) {
    int n = shmemi_rt.nsegs, nall = n + 1;
    struct shmemi_seg *in = &shmemi_rt.internal;
    for (int i = 0; i < nall; i++) {
        struct shmemi_seg *s = i < n ? &shmemi_rt.segs[i] : in;
        if (s->kind == SHMEMI_MEM_DEVICE) {
            shmemi_gtl->ipc_done(s->dev_raw);
        } else if (s->share_fd >= 0) {
            close(s->share_fd);
            s->share_fd = -1;
        } else {
            unlink_own(s);
        }
    }
}

void shmemi_segments_destroy(void) {
    free(gpu_mapped);
    gpu_mapped = NULL;
    for (int i = 0; i <= shmemi_rt.nsegs; i++) {
        struct shmemi_seg *s = i < shmemi_rt.nsegs ? &shmemi_rt.segs[i] : &shmemi_rt.internal;
        if (i < shmemi_rt.nsegs)
            unpin_host(i, s); /* before anything is unmapped */
        if (s->kind == SHMEMI_MEM_DEVICE) {
            for (int pe = 0; s->peer_raw && pe < shmemi_rt.n_pes; pe++)
                if (pe != shmemi_rt.my_pe && s->peer_raw[pe])
                    shmemi_gtl->ipc_close(s->peer_raw[pe], s->dev_len);
            shmemi_gtl_forget(s->dev_raw);
            if (i < shmemi_rt.nsegs && omp_owned[i])
                shmemi_omp_free(s->dev_raw, omp_owned[i] - 1);
            else
                shmemi_gtl->free(s->dev_raw, s->dev_len);
            free(s->peer_raw);
            s->peer_raw = NULL;
            s->base = s->dev_raw = NULL;
        } else if (s->peer) {
            for (int pe = 0; pe < shmemi_rt.n_pes; pe++)
                if (pe != shmemi_rt.my_pe && s->peer[pe])
                    munmap(s->peer[pe], s->peer_map ? s->peer_map[pe] : s->map_size);
            free(s->peer_map);
            s->peer_map = NULL;
        }
        /* our own static data stays mapped: the program keeps using its globals after shmem_finalize */
        if (s->role != SHMEMI_SEG_STATIC && s->base && s->role != SHMEMI_SEG_INTERNAL)
            munmap(s->base, s->map_size);
        if (s->alloc)
            shmemi_buddy_destroy(s->alloc);
        if (i < shmemi_rt.nsegs && backing[i].fd >= 0)
            close(backing[i].fd);
        if (i < shmemi_rt.nsegs) {
            free(backing[i].grains);
            backing[i] = (struct backing){.fd = -1};
        }
    }
    /* the control segment is kept: a late peer may still ring our bell while it finishes */
}

void *shmemi_seg_alloc_local(struct shmemi_seg *s, size_t size, size_t align, const char *fn) {
    void *p = NULL;
    if (size) {
        size_t off;
        if (!shmemi_buddy_alloc(s->alloc, size, align < SHMEMI_ALLOC_ALIGN ? SHMEMI_ALLOC_ALIGN : align, &off))
            p = s->base + off;
        else
            shmemi_seg_exhausted(s, fn, size);
    }
    return p;
}

/* A NULL from an allocation is easy to miss (ISx never checks): one line per PE says which request, how big the
 * segment is and what sets its size (SHMEM_WARN_HEAP_EXHAUSTED=0 silences it). */
void shmemi_seg_exhausted(const struct shmemi_seg *s, const char *fn, size_t size) {
    static int said;
    char var[64];
    if (s->role == SHMEMI_SEG_PARTITION)
        snprintf(var, sizeof var, "SHMEM_SYMMETRIC_PARTITION%d=SIZE=...", s->part_id);
    else
        snprintf(var, sizeof var, "%s",
                 s->role == SHMEMI_SEG_DEVICE_HEAP ? "SHMEM_SYMMETRIC_SIZE_DEVICE" : "SHMEM_SYMMETRIC_SIZE");
    if (!shmemi_env.heap_warn || said) {
        shmemi_debug("%s(%zu): the %s is exhausted (%zu bytes free)", fn, size, s->name,
                     shmemi_buddy_bytes_free(s->alloc));
        return;
    }
    said = 1;
    fprintf(stderr,
            "gshmem: PE %d: %s(%zu bytes) returns NULL: the %s (%zu MiB, %zu bytes free) is exhausted; set %s larger "
            "(SHMEM_WARN_HEAP_EXHAUSTED=0 silences this line)\n",
            shmemi_rt.my_pe, fn, size, s->name, s->size >> 20, shmemi_buddy_bytes_free(s->alloc), var);
}

/* A NULL for an alignment that cannot be had says why, as exhaustion does. Every PE passes the same arguments (the
 * call is collective), so PE 0 speaks for the job, once. */
void shmemi_seg_misaligned(const struct shmemi_seg *s, const char *fn, size_t alignment, size_t size) {
    static int said;
    char why[160];
    if (!alignment || alignment & (alignment - 1))
        snprintf(why, sizeof why, "the alignment must be a power of two (1, 2, 4, ... up to %zu)", s->base_align);
    else
        snprintf(why, sizeof why,
                 "the %s's base is aligned to %zu bytes, and a block to more than that cannot be promised", s->name,
                 s->base_align);
    if (!shmemi_env.heap_warn || said || shmemi_rt.my_pe != 0) {
        shmemi_debug("%s(%zu, %zu) returns NULL: %s", fn, alignment, size, why);
        return;
    }
    said = 1;
    fprintf(stderr,
            "gshmem: PE 0: %s(%zu, %zu bytes) returns NULL on every PE: %s (SHMEM_WARN_HEAP_EXHAUSTED=0 "
            "silences this line)\n",
            fn, alignment, size, why);
}

/* Said by the lowest PE whose reservation failed (they all return NULL): which request, the room left, what uses
 * it. SHMEM_WARN_HEAP_EXHAUSTED=0 silences it, as it does exhaustion. */
void shmemi_seg_unbacked(const struct shmemi_seg *s, const char *fn, size_t size, int err) {
    struct room r = room_here(shmemi_rt.node_pes);
    char a[32];
    if (!shmemi_env.heap_warn) {
        shmemi_debug("%s(%zu): /dev/shm cannot back it: %s", fn, size, strerror(err));
        return;
    }
    fprintf(stderr,
            "gshmem: PE %d: %s(%zu bytes) returns NULL on every PE: /dev/shm cannot back it on this PE's node (%s; "
            "%s free for %d PEs), since other jobs or files took room there after shmem_init; free some (ls -l "
            "/dev/shm) or allocate less (SHMEM_WARN_HEAP_EXHAUSTED=0 silences this line)\n",
            shmemi_rt.my_pe, fn, size, strerror(err), r.free == UINT64_MAX ? "?" : mib(r.free, a, sizeof a),
            r.node_pes);
}

const char *shmemi_partition_where(int id) {
    for (int i = 0; i < shmemi_npartitions; i++)
        if (shmemi_partitions[i].id == id && part_where[i][0])
            return part_where[i];
    return NULL;
}

int shmemi_partition_omp_device(int id) {
    for (int i = 0; i < shmemi_rt.nsegs; i++)
        if (shmemi_rt.segs[i].role == SHMEMI_SEG_PARTITION && shmemi_rt.segs[i].part_id == id)
            return omp_owned[i] - 1;
    return -1;
}

/* init.c - library setup and teardown, PE queries, shmem_ptr/accessibility, and the predefined context and team
 * objects behind SHMEM_CTX_DEFAULT, SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED. */
#include <dlfcn.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bootstrap/bootstrap.h"
#include "coll/coll.h"
#include "device/device.h"
#include "gpu/gtl.h"
#include "mem/mem.h"
#include "omp/omp.h"
#include "runtime/runtime.h"
#include "shmemg.h"
#include "topo/topo.h"
#include "transport/ofi/ofi.h"

/* msg NULL: this PE said why already */
static __attribute__((noreturn)) void init_fail(const char *fn, const char *msg) {
    if (msg)
        fprintf(stderr, "gshmem: %s failed%s%d: %s\n", fn, shmemi_rt.n_pes ? " on PE " : "",
                shmemi_rt.n_pes ? shmemi_rt.my_pe : 0, msg);
    fflush(stderr);
    if (shmemi_rt.n_pes) {
        shmemi_ofi_regions_unlink();
        shmemi_segments_unlink_names(); /* (those of the segments no peer needs any more, when init stops) */
        shmemb_abort(1, NULL);
    }
    exit(1);
}

/* Some PE's GPU cannot map, or update atomically, a node peer's GPU memory, and the network that would carry those
 * operations to the owner cannot start: say which pair, what is missing, and what would help. */
static const char *gpu_net_why(char *msg, size_t len, const char *net_err) {
    const char *why = shmemi_gpu_peers_why_net();
    snprintf(msg, len,
             "%s%s, but the network cannot start (%s). Either build gshmem with libfabric (or make it loadable: "
             "GSHMEM_WITH_OFI, SHMEM_OFI_PROVIDER=shm suits one node), or run the PEs that exchange GPU memory on "
             "GPUs with peer access and native atomics between them (nvidia-smi topo -p2p rw / -p2p a; one GPU for "
             "all of them works too: several PEs may share one), or keep symmetric objects that other PEs access in "
             "host memory (no SHMEM_SYMMETRIC_SIZE_DEVICE, no KIND=DEVICE partitions)",
             why ? why : "another PE's GPU cannot map, or update atomically, the GPU memory of a PE of its node",
             why ? "" : " (its own message says which)", net_err);
    return msg;
}

static __attribute__((noreturn)) void gpu_net_fail(const char *fn, const char *net_err) {
    char msg[1400];
    init_fail(fn, gpu_net_why(msg, sizeof msg, net_err));
}

/* What heads every PE's blob in shmem_init's exchanges: whether and how (a hash of the message) it failed, at which
 * step, and what the first exchange carries besides segment.c's and the network's parts (after it) */
struct boot_head {
    uint64_t fail; /* FNV-1a of the failure's message, 0: none */
    int32_t step;  /* the step of shmem_init it failed at (1, 2, 3: see do_init), 0: none */
    int32_t cpu;   /* first exchange: the core it runs on (shmemi_place_cpu) */
    int32_t lead;  /* first exchange: the lowest PE of its node */
    int32_t plan;  /* first exchange: 1, a host-only job's one exchange; 2, a job that may use GPUs (gpu_wanted) */
};

static uint64_t msg_hash(const char *msg) {
    uint64_t h = 14695981039346656037ull; /* FNV-1a */
    for (const char *c = msg; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return h | 1; /* 0 is "no failure" */
}

/* the earliest step any PE failed at (heads: every PE's, stride bytes apart), 0: none failed */
static int init_low_step(const void *heads, size_t stride) {
    int low = 0;
    for (int pe = 0; pe < shmemi_rt.n_pes; pe++) {
        const struct boot_head *h = (const void *)((const char *)heads + (size_t)pe * stride);
        if (h->fail && (!low || h->step < low))
            low = h->step;
    }
    return low;
}

/* The end of a failed shmem_init once every PE knows who failed and how (heads: every PE's, stride bytes apart). Every
 * PE would otherwise print the same line, N lines for one bad setting, so a failing PE prints its line only when no
 * lower PE failed with the same message: once for the job, while a PE that fails alone, or differently, still says
 * why. Only the failures of the earliest step any PE failed at count (a PE that failed earlier skipped the later
 * steps). Then every PE leaves with status 1, after the lines are out. Returns only when no PE failed. */
static void init_check_heads(const char *fn, const char *msg, int step, const void *heads, size_t stride) {
    const struct boot_head *h;
    int n = shmemi_rt.n_pes, low = init_low_step(heads, stride);
    if (!low)
        return;
    uint64_t mine = msg && step == low ? msg_hash(msg) : 0;
    int first = -1, speak = mine != 0;
    for (int pe = 0; pe < n; pe++) {
        h = (const void *)((const char *)heads + (size_t)pe * stride);
        uint64_t f = h->fail && h->step == low ? h->fail : 0;
        if (f && first < 0)
            first = pe;
        if (pe < shmemi_rt.my_pe && f == mine)
            speak = 0;
    }
    if (speak)
        fprintf(stderr, "gshmem: PE %d: %s: %s\n", shmemi_rt.my_pe, fn, msg);
    fflush(stderr);
    shmemi_ofi_regions_unlink();
    shmemi_segments_unlink_names(); /* (a host-only job makes its segments before its exchange) */
    shmemb_barrier();               /* the lines first: the launcher ends the job at the first PE that leaves */
    if (shmemi_rt.my_pe == first)   /* it spoke: the launcher names it as the one that ended the job */
        shmemb_abort(1, NULL);
    /* the others wait to be ended with it, quietly (a barrier it never joined would fail with a line of its own
     * under PMIx), and leave by themselves should no launcher end them */
    for (int ms = 0; ms < 5000; ms += 10)
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    exit(1);
}

/* A check every PE makes at the same point of shmem_init, where nothing else is exchanged (GPU set-up, the network
 * of a job with GPUs): msg is this PE's failure, or NULL. One exchange of the heads, then init_check_heads. */
static void init_check_all(const char *fn, const char *msg) {
    struct boot_head mine = {msg ? msg_hash(msg) : 0, msg ? 1 : 0, 0, 0, 0};
    struct boot_head *all = calloc((size_t)shmemi_rt.n_pes, sizeof *all);
    if (!all || shmemb_allgather(&mine, all, sizeof mine))
        init_fail(fn, msg ? msg : "bootstrap allgather failed");
    init_check_heads(fn, msg, mine.step, all, sizeof *all);
    free(all);
}

/* A failure every PE finds alike from what they all exchanged (their segments differ): PE 0 says it for the job and
 * ends it, with no exchange of its own; the others wait to be ended with it, and leave by themselves should no
 * launcher end them. */
static __attribute__((noreturn)) void init_fail_alike(const char *fn, const char *msg) {
    shmemi_ofi_regions_unlink();
    shmemi_segments_unlink_names();
    if (shmemi_rt.my_pe == 0) {
        fprintf(stderr, "gshmem: PE 0: %s: %s\n", fn, msg);
        fflush(stderr);
        shmemb_abort(1, NULL);
    }
    for (int ms = 0; ms < 5000; ms += 10)
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    exit(1);
}

/* Whether this job may use GPUs, from what every PE knows alike before any exchange: the program's flags and the
 * settings (a KIND=LIBOMP partition counts whether or not this PE's OpenMP runtime has an offload device: that is
 * its own). gpu_setup starts GPU support only where this holds; a job where it does not has one exchange. */
static int gpu_wanted(int host_init, int kernel_init) {
    int parts = 0;
    for (int i = 0; i < shmemi_npartitions; i++)
        parts |= shmemi_partitions[i].kind == SHMEMI_KIND_DEVICE || shmemi_partitions[i].kind == SHMEMI_KIND_LIBOMP;
    return strcmp(shmemi_env.gpu, "none") &&
           (host_init || kernel_init || strcmp(shmemi_env.gpu, "auto") || parts || shmemi_env.device_aware ||
            shmemi_env.symmetric_size_device || shmemi_env.device_symmetric_size);
}

/* GPU support: on when the program or the environment asks for it and every PE has it (segments must match). */
static void gpu_setup(int host_init, int kernel_init, const char *fn) {
    int dev_part = 0;
    for (int i = 0; i < shmemi_npartitions; i++) {
        const struct shmemi_partition_cfg *c = &shmemi_partitions[i];
        int omp_dev; /* a KIND=LIBOMP partition is GPU memory when the program has an OpenMP offload device */
        char why[160];
        dev_part |= c->kind == SHMEMI_KIND_DEVICE ||
                    (c->kind == SHMEMI_KIND_LIBOMP && shmemi_omp_place(c->omp_device, &omp_dev, why, sizeof why) > 0);
    }
    int named = strcmp(shmemi_env.gpu, "auto") && strcmp(shmemi_env.gpu, "none");
    int want = host_init || kernel_init || named || dev_part || shmemi_env.device_aware ||
               shmemi_env.symmetric_size_device || shmemi_env.device_symmetric_size;
    shmemi_rt.dev_heap = -1;
    shmemi_rt.gpu_cpu_max = 0;
    if (!want || !strcmp(shmemi_env.gpu, "none")) {
        snprintf(shmemi_rt.gpu_why, sizeof shmemi_rt.gpu_why, "%s",
                 want ? "SHMEM_GPU=none"
                      : "not requested: shmem_init_thread with SHMEM_DEVICE_HOST_INIT, SHMEM_SYMMETRIC_SIZE_DEVICE, "
                        "SHMEM_ENABLE_DEVICE_AWARENESS=1, a KIND=DEVICE partition or a KIND=LIBOMP one on an "
                        "OpenMP offload device turns it on");
        return;
    }
    int local_rank = 0;
    for (int pe = 0; pe < shmemi_rt.my_pe; pe++)
        local_rank += shmemi_rt.local[pe];
    char why[640] = "";
    int ok = !shmemi_gtl_init(local_rank, shmemi_rt.nlocal, why, sizeof why);
    int *all = calloc((size_t)shmemi_rt.n_pes, sizeof *all);
    if (!all || shmemb_allgather(&ok, all, sizeof ok))
        init_fail(fn, "bootstrap allgather failed");
    int bad = -1;
    for (int pe = 0; pe < shmemi_rt.n_pes && bad < 0; pe++)
        if (!all[pe])
            bad = pe;
    free(all);
    if (bad >= 0) {
        if (ok) {
            shmemi_gtl_fini();
            snprintf(why, sizeof why, "PE %d has no GPU support", bad);
        }
        snprintf(shmemi_rt.gpu_why, sizeof shmemi_rt.gpu_why, "%s", why);
        if (named) {
            char msg[800];
            snprintf(msg, sizeof msg, "SHMEM_GPU=%s, but GPU support cannot start: %s", shmemi_env.gpu, why);
            /* the PEs whose GPU failed say why (an exclusive device fails all but the PE that took it first: the
             * reason is theirs), each reason once; the others follow quietly */
            init_check_all(fn, ok ? NULL : msg);
            init_fail(fn, msg); /* (not reached: a PE failed) */
        }
        shmemi_debug("GPU support off: %s", why);
        return; /* KIND=DEVICE partitions then stop init with this reason (segment.c) */
    }
    if (shmemi_gtl_peers(why, sizeof why)) {
        char msg[800];
        snprintf(msg, sizeof msg, "GPU support cannot start: %s", why);
        init_fail(fn, msg);
    }
    shmemi_rt.gpu = 1;
    char picked[sizeof shmemi_rt.place_gpu];
    snprintf(picked, sizeof picked, "%s", shmemi_rt.place_gpu);
    snprintf(shmemi_rt.place_gpu, sizeof shmemi_rt.place_gpu, "%.16s %.100s", shmemi_gtl->name,
             picked[0] ? picked : "(the device the application made current, or its only one)");
    size_t cpu_max = shmemi_gtl_coherent_setup(why, sizeof why);
    init_check_all(fn, cpu_max == (size_t)-1 ? why : NULL); /* SHMEM_GPU_COHERENT=1 on every PE's GPU: said once */
    shmemi_rt.gpu_cpu_max = cpu_max;
    shmemi_rt.dev_local = shmemi_env.device_aware || host_init || kernel_init;
    shmemi_rt.gpu_provided = host_init;
    shmemi_debug("GPU support on: %s", shmemi_gtl_describe());
}

/* The pretend node of PE r (SHMEM_TEST_NODE_SIZE blocks, or SHMEM_TEST_NODES' list, repeated) */
static long test_node(int r) {
    if (shmemi_env.node_size)
        return r / shmemi_env.node_size;
    const char *t = shmemi_env.test_nodes;
    int n = 1;
    for (const char *c = t; *c; c++)
        n += *c == ',';
    for (int k = r % n; k > 0; k--)
        t = strchr(t, ',') + 1;
    return strtol(t, NULL, 10);
}

/* A hybrid MPI + OpenSHMEM program started by gshmem's oshrun: MPI finds no launcher, so every PE would be an MPI
 * job of its own and the program would run wrongly (each rank 0 of 1). mpirun serves both (gshmem takes its PEs from
 * it through PMIx, ranks and PEs agree): say so in one line rather than run it. */
static void mpi_under_oshrun(const struct shmemb_info *info, const char *fn) {
    if (strcmp(info->name, "local") || info->size < 2 || shmemi_env.oshrun_mpi || !dlsym(RTLD_DEFAULT, "MPI_Init"))
        return;
    if (info->rank == 0)
        fprintf(stderr,
                "gshmem: %s: this program uses MPI too (MPI_Init is linked in), which gshmem's oshrun does not "
                "start: each of the %d PEs would be an MPI job of one. Launch it with `mpirun -np %d ...` instead "
                "(gshmem then takes its PEs from mpirun, and ranks and PEs agree); SHMEM_OSHRUN_MPI=1 runs it here "
                "anyway\n",
                fn, info->size, info->size);
    fflush(stderr);
    shmemb_barrier(); /* the line first, then the job ends */
    shmemb_abort(1, NULL);
}

static void do_init(int requested, const char *fn) {
    if (shmemi_rt.init_state == 1)
        return; /* repeated initialization is allowed and has no effect */
    if (shmemi_rt.init_state == 2)
        shmemi_fatal(fn, "the library cannot be initialized again after shmem_finalize");
    char err[768];
    /* a bad value is reported once the bootstrap is up (the reader keeps the bootstrap's rows however bad the
     * others are), so that it comes once for the job and names the PE */
    int env_bad = shmemi_env_read(err, sizeof err) != 0;
    struct shmemb_info info = {0};
    if (shmemb_init(&info)) {
        if (env_bad)
            fprintf(stderr, "gshmem: %s: %s\n", fn, err);
        exit(1); /* the bootstrap said why */
    }
    shmemi_rt.my_pe = info.rank;
    shmemi_rt.n_pes = info.size;
    shmemi_abort_setup();
    if (info.rank == 0 && shmemi_env.warn_unknown) { /* every PE has the same environment: PE 0 speaks for them */
        char prefix[64];
        snprintf(prefix, sizeof prefix, "gshmem: PE 0: %s: ", fn);
        shmemi_env_unknown(stderr, prefix, " [SHMEM_WARN_UNKNOWN_ENV=0 hides these]");
        fflush(stderr);
    }
    snprintf(shmemi_rt.jobid, sizeof shmemi_rt.jobid, "%s", info.jobid);
    shmemi_watch_setup();
    int gpu_bits = requested & (SHMEM_DEVICE_HOST_INIT | SHMEM_DEVICE_KERNEL_INIT);
    requested &= ~(SHMEM_DEVICE_HOST_INIT | SHMEM_DEVICE_KERNEL_INIT);
    shmemi_rt.thread_level = requested < SHMEM_THREAD_SINGLE     ? SHMEM_THREAD_SINGLE
                             : requested > SHMEM_THREAD_MULTIPLE ? SHMEM_THREAD_MULTIPLE
                                                                 : requested;
    /* Start-up exchanges through the launcher, each one round trip of every PE (oshrun's socket, a PMIx fence) that
     * grows with the job; each PE's contributions go in one blob headed by whether it failed so far (a bad setting,
     * its segments, the network's start are then said once for the job with no exchange of their own). A host-only
     * job has ONE: each PE's failure, core, node lead, the room it sees in /dev/shm, its segments' descriptions and,
     * where the network is needed, its card (address, keys and bases of its registered segments). Its segments exist
     * before the exchange because each PE sizes them from what it knows alone: SHMEM_SYMMETRIC_SIZE=auto from its own
     * node's room and its PE count there (known from the launcher). Whether every node can back every PE's heap, and
     * the least automatic heap that the job then uses, come from the rooms and descriptions exchanged, the same
     * decision and message on every PE (a heap larger than the least is used only up to it; peers map it whole). Its
     * network opens before the exchange too, so the NIC of a node with several is picked from this PE's cores and its
     * rank among its node's PEs (their cores are not known yet). A job that may use GPUs (gpu_wanted: decided from the
     * program's flags and the settings, the same on every PE) has a second exchange as before: GPU support needs
     * every PE's placement to pick its device, and the segments need GPU support (the GPU heap, KIND=DEVICE and
     * KIND=LIBOMP partitions), so they are sized from every PE's room and described after it; it has GPU exchanges
     * of its own besides (GPU support on every PE, peer mappings), and opens the network after its segments are
     * mapped (which GPU memory it must register depends on them), its card in an exchange of its own. The first blob
     * has the same length either way and says which way the PE goes: PEs set up differently are told so. */
    struct boot_head *head;
    int two = gpu_wanted(gpu_bits & SHMEM_DEVICE_HOST_INIT, gpu_bits & SHMEM_DEVICE_KERNEL_INIT), remote = 0;
    size_t at_room = sizeof *head, at_desc = at_room + shmemi_segments_room_bytes();
    size_t at_card = at_desc + shmemi_segments_desc_bytes(), len1 = at_card + shmemi_ofi_card_bytes();
    char *mine1 = calloc(1, len1), *all1 = calloc((size_t)info.size, len1);
    if (!mine1 || !all1)
        init_fail(fn, "out of memory");
    head = (void *)mine1;
    head->plan = two ? 2 : 1;
    int force_net = !strcmp(shmemi_env.transport, "ofi"), block = shmemi_env.node_size || *shmemi_env.test_nodes;
    if (env_bad) { /* the settings this PE would go on with are not the ones asked for */
        head->fail = msg_hash(err);
        head->step = 1;
    } else {
        /* who is mapped: the node-local PEs (all of them under oshrun), only this one under SHMEM_TRANSPORT=ofi, those
         * of this PE's block under SHMEM_TEST_NODE_SIZE */
        shmemi_rt.local = calloc((size_t)info.size, 1);
        if (!shmemi_rt.local)
            init_fail(fn, "out of memory");
        for (int i = 0; i < (info.local_ranks ? info.nlocal : info.size); i++) {
            int r = info.local_ranks ? info.local_ranks[i] : i;
            if (r >= 0 && r < info.size && (!force_net || r == info.rank) &&
                (!block || test_node(r) == test_node(info.rank)))
                shmemi_rt.local[r] = 1;
        }
        shmemi_rt.local[info.rank] = 1;
        free(shmemi_rt.same_host);
        if (!(shmemi_rt.same_host = calloc((size_t)info.size, 1)))
            init_fail(fn, "out of memory");
        for (int i = 0; i < (info.local_ranks ? info.nlocal : info.size); i++) {
            int r = info.local_ranks ? info.local_ranks[i] : i;
            if (r >= 0 && r < info.size)
                shmemi_rt.same_host[r] = 1;
        }
        shmemi_rt.nlocal = 0;
        for (int i = 0; i < info.size; i++)
            shmemi_rt.nlocal += shmemi_rt.local[i];
        if (shmemi_rt.nlocal < info.size && !strcmp(shmemi_env.transport, "shm")) {
            snprintf(err, sizeof err,
                     "SHMEM_TRANSPORT=shm, but %d of the %d PEs %s on other nodes; unset it (or set auto) so %s "
                     "reached through libfabric",
                     info.size - shmemi_rt.nlocal, info.size, info.size - shmemi_rt.nlocal == 1 ? "is" : "are",
                     info.size - shmemi_rt.nlocal == 1 ? "it is" : "they are");
            init_fail(fn, err);
        }
        cpu_set_t set;
        int cpus = sched_getaffinity(0, sizeof set, &set) ? 1 : CPU_COUNT(&set);
        if (shmemi_env.boot_cpus > cpus) /* oshrun bound this PE to one of them */
            cpus = (int)shmemi_env.boot_cpus;
        /* PEs of this node share its CPUs (under SHMEM_TRANSPORT=ofi or SHMEM_TEST_NODE_SIZE on one machine too: count
         * them all then) */
        int here = force_net || block ? (info.local_ranks ? info.nlocal : info.size) : shmemi_rt.nlocal;
        shmemi_rt.node_pes = here;
        shmemi_rt.oversubscribed = here > cpus;
        shmemi_rt.wait_spin = shmemi_env.wait_spin >= 0  ? (unsigned long)shmemi_env.wait_spin
                              : shmemi_rt.oversubscribed ? 20
                                                         : 2000;
        /* where every PE runs, so each takes the GPU and NIC nearest its cores, spread over the PEs near the same
         * ones; and who shares a node with whom, for collectives in two levels */
        head->cpu = shmemi_place_cpu();
        while (!shmemi_rt.local[head->lead])
            head->lead++;
        shmemi_segments_room(mine1 + at_room);
        remote = shmemi_rt.nlocal < info.size;
        if (!two) {
            gpu_setup(0, 0, fn); /* (GPU support not wanted: says why, with no exchange) */
            free(shmemi_rt.place_cpu);
            if (!(shmemi_rt.place_cpu = malloc((size_t)info.size * sizeof(int))))
                init_fail(fn, "out of memory");
            /* until the exchange says where they run, this node's PEs count as placed like this one (the NIC) */
            for (int pe = 0; pe < info.size; pe++)
                shmemi_rt.place_cpu[pe] = head->cpu;
            shmemi_rt.place_gpu[0] = shmemi_rt.place_nic[0] = '\0';
            /* a setting no PE can honour (a size, a page size, a NUMA node, a provider or a domain that is not
             * there) fails alike on every PE: said once */
            if (shmemi_segments_create(NULL, 0, err, sizeof err)) {
                head->step = 2;
            } else {
                shmemi_segments_desc(mine1 + at_desc);
                if (remote && shmemi_ofi_open(err, sizeof err))
                    head->step = 3;
                else if (remote)
                    shmemi_ofi_card(mine1 + at_card);
            }
            head->fail = head->step ? msg_hash(err) : 0;
        }
    }
    if (shmemb_allgather(mine1, all1, len1))
        init_fail(fn, head->step ? err : "bootstrap allgather failed");
    /* a bad setting first (a PE that has one went no further); then whether every PE goes the same way */
    if (init_low_step(all1, len1) == 1)
        init_check_heads(fn, head->step ? err : NULL, head->step, all1, len1);
    for (int pe = 1; pe < info.size; pe++) {
        const struct boot_head *h = (const void *)(all1 + (size_t)pe * len1), *h0 = (const void *)all1;
        if (h->plan != h0->plan) {
            snprintf(err, sizeof err,
                     "PE 0 %s GPUs but PE %d %s: every PE must run the same program (shmem_init_thread's "
                     "SHMEM_DEVICE_* bits) with the same GPU settings (SHMEM_GPU, SHMEM_SYMMETRIC_SIZE_DEVICE, "
                     "SHMEM_ENABLE_DEVICE_AWARENESS, KIND=DEVICE and KIND=LIBOMP partitions)",
                     h0->plan == 2 ? "may use" : "uses no", pe, h->plan == 2 ? "may use them" : "uses none");
            init_fail_alike(fn, err);
        }
    }
    if (!two) {
        /* whether every node can back its PEs' heaps and partitions: before the failures it may have caused */
        char room_err[768];
        if (shmemi_segments_room_check(all1 + at_room, len1, room_err, sizeof room_err))
            init_fail_alike(fn, room_err);
        init_check_heads(fn, head->step ? err : NULL, head->step, all1, len1);
    }
    free(mine1);
    mpi_under_oshrun(&info, fn);
    free(shmemi_rt.place_cpu);
    free(shmemi_rt.node_of);
    shmemi_rt.node_of = NULL;
    if (two)
        shmemi_rt.place_gpu[0] = shmemi_rt.place_nic[0] = '\0';
    if (!(shmemi_rt.place_cpu = malloc((size_t)info.size * sizeof(int))) ||
        (remote && !(shmemi_rt.node_of = malloc((size_t)info.size * sizeof(int)))))
        init_fail(fn, "out of memory");
    for (int pe = 0; pe < info.size; pe++) {
        const struct boot_head *h = (const void *)(all1 + (size_t)pe * len1);
        shmemi_rt.place_cpu[pe] = h->cpu;
        if (remote)
            shmemi_rt.node_of[pe] = h->lead;
    }
    char *all2 = NULL;
    size_t len2 = 0, descs = shmemi_segments_desc_bytes();
    int early_net = remote;
    if (!two) {
        if (shmemi_segments_agree(all1 + at_desc, len1, err, sizeof err))
            init_fail_alike(fn, err);
    } else {
        gpu_setup(gpu_bits & SHMEM_DEVICE_HOST_INIT, gpu_bits & SHMEM_DEVICE_KERNEL_INIT, fn);
        /* the second exchange; the network of a job whose GPU support did not start opens before it, so that its
         * card rides in it */
        early_net = remote && !shmemi_gtl;
        size_t card = early_net ? shmemi_ofi_card_bytes() : 0;
        len2 = sizeof *head + descs + card;
        char *mine2 = calloc(1, len2);
        if (!mine2 || !(all2 = calloc((size_t)info.size, len2)))
            init_fail(fn, "out of memory");
        head = (void *)mine2;
        if (shmemi_segments_create(all1 + at_room, len1, err, sizeof err)) {
            head->step = 1;
        } else {
            shmemi_segments_desc(mine2 + sizeof *head);
            if (early_net && shmemi_ofi_open(err, sizeof err))
                head->step = 2;
            else if (early_net)
                shmemi_ofi_card(mine2 + sizeof *head + descs);
        }
        head->fail = head->step ? msg_hash(err) : 0;
        if (shmemb_allgather(mine2, all2, len2))
            init_fail(fn, head->step ? err : "bootstrap allgather failed");
        init_check_heads(fn, head->step ? err : NULL, head->step, all2, len2);
        free(mine2);
        if (shmemi_segments_agree(all2 + sizeof *head, len2, err, sizeof err))
            init_fail_alike(fn, err);
    }
    if (shmemi_segments_map(err, sizeof err))
        init_fail(fn, err);
    /* the network: for other nodes, and for GPU memory of this node's PEs that some PE's GPU cannot map, or not
     * update atomically (src/mem: then it registers no GPU memory, and each PE applies what comes for its own) */
    shmemi_rt.net_for_gpu &= !remote;
    if (remote || shmemi_rt.net_for_gpu) {
        char msg[1400];
        if (!early_net) {
            /* every PE opens the network, or fails to, before any exchange: a provider or domain that is not there
             * (SHMEM_OFI_PROVIDER, SHMEM_OFI_DOMAIN) is said once for the job */
            int bad = shmemi_ofi_open(err, sizeof err) != 0;
            init_check_all(fn, !bad ? NULL : remote ? err : gpu_net_why(msg, sizeof msg, err));
        }
        const void *cards = !early_net ? NULL : two ? all2 + sizeof *head + descs : all1 + at_card;
        if (shmemi_ofi_connect(cards, two ? len2 : len1, err, sizeof err)) {
            if (remote)
                init_fail(fn, err);
            gpu_net_fail(fn, err);
        }
        if (!remote && shmemi_rt.dev_heap >= 0 && !shmemi_ofi_gpu_reachable(&shmemi_rt.segs[shmemi_rt.dev_heap]))
            gpu_net_fail(fn, "its provider carries no messages in order (FI_MSG, FI_ORDER_SAS) for each PE to apply "
                             "what comes for its GPU memory");
        /* only the network's own atomics make CPU atomics on mapped memory non-atomic: not the messages that carry
         * operations on GPU memory to their owner */
        shmemi_rt.amo_net = remote && shmemi_ofi_fabric_atomics();
    }
    free(all1);
    free(all2);
    shmemi_teams_init();
    shmemi_rt.init_state = 1;
    shmemi_rt.kernel_provided = 0;
    if (gpu_bits & SHMEM_DEVICE_KERNEL_INIT) {
        /* every PE must agree: a PE whose kernels cannot communicate would hang the others' */
        char why[256] = "";
        int ok = shmemi_rt.gpu && !shmemi_device_init(why, sizeof why), all_ok = ok;
        int *all = calloc((size_t)shmemi_rt.n_pes, sizeof *all);
        if (!all || shmemb_allgather(&ok, all, sizeof ok))
            init_fail(fn, "bootstrap allgather failed");
        for (int pe = 0; pe < shmemi_rt.n_pes; pe++)
            all_ok &= all[pe];
        free(all);
        if (all_ok)
            shmemi_rt.kernel_provided = 1;
        else {
            if (ok)
                shmemi_device_fini();
            shmemi_debug("SHMEM_DEVICE_KERNEL_INIT not provided: %s", why[0] ? why : "another PE cannot provide it");
        }
    }
    shmemi_exit_setup(); /* a PE that ends without shmem_finalize (exit.c) */
    if (shmemi_rt.my_pe == 0 && (shmemi_env.version || shmemi_env.info))
        printf("gshmem %s (OpenSHMEM %d.%d), %d PE%s, bootstrap %s\n", GSHMEM_VERSION_STRING, SHMEM_MAJOR_VERSION,
               SHMEM_MINOR_VERSION, shmemi_rt.n_pes, shmemi_rt.n_pes == 1 ? "" : "s", info.name);
    if (shmemi_rt.my_pe == 0 && shmemi_env.info) {
        shmemi_info_print(stdout);
        fflush(stdout);
    }
    if (shmemi_env.info) { /* each PE's placement, after PE 0's report */
        shmemi_barrier_internal();
        shmemi_place_print(stdout);
        if (shmemi_rt.gpu)
            shmemi_gpu_peers_print(stdout);
        fflush(stdout);
    }
    shmemi_barrier_internal();
    /* every node peer has mapped this PE's segments (each maps before it joins that barrier): their names go now,
     * so that a crash later leaves nothing in /dev/shm (no bootstrap barrier of their own for it) */
    shmemi_segments_unlink();
    shmemi_debug("shmem_init: %u bootstrap exchanges", shmemb_rounds());
}

void shmem_init(void) { do_init(SHMEM_THREAD_SINGLE, "shmem_init"); }

int shmem_init_thread(int requested, int *provided) {
    do_init(requested, "shmem_init_thread");
    /* GPU bits come back only for what works: HOST_INIT with GPU support on; KERNEL_INIT with kernel-side
     * communication up on every PE */
    if (provided)
        *provided = shmemi_rt.thread_level | (shmemi_rt.gpu_provided ? SHMEM_DEVICE_HOST_INIT : 0) |
                    (shmemi_rt.kernel_provided ? SHMEM_DEVICE_KERNEL_INIT : 0);
    return 0;
}

void shmem_query_thread(int *provided) {
    shmemi_check_init("shmem_query_thread");
    if (provided)
        *provided = shmemi_rt.thread_level;
}

void start_pes(int npes) { do_init(SHMEM_THREAD_SINGLE, "start_pes"); }

void shmemi_finalize(int implicit) {
    /* Once only, even re-entered: a provider library's signal handler (libfabric's psm loads libinfinipath, whose
     * SIGTERM handler calls exit) can run our exit hook while this PE is halfway through this one, and the
     * synchronization would then run on a transport already closed (a segfault where the job was being torn down). */
    static int begun;
    if (shmemi_rt.init_state != 1 || __atomic_exchange_n(&begun, 1, __ATOMIC_ACQ_REL))
        return;
    shmemi_device_quiesce(implicit ? "shmem_finalize (at exit)" : "shmem_finalize"); /* kernels end first */
    shmem_quiet();
    shmemi_device_fini(); /* the proxy serves what kernels left in the ring, then stops */
    shmemi_rt.kernel_provided = 0;
    shmemi_finalize_sync(implicit); /* not a barrier_all: it must not pair with one the program runs elsewhere */
    shmemi_ofi_fini();
    shmemi_segments_destroy();
    shmemi_gtl_fini();
    shmemi_rt.gpu = shmemi_rt.dev_local = 0;
    shmemi_rt.nsegs = 0;
    free(shmemi_rt.node_of);
    shmemi_rt.node_of = NULL;
    free(shmemi_rt.same_host);
    shmemi_rt.same_host = NULL;
    free(shmemi_rt.place_cpu);
    shmemi_rt.place_cpu = NULL;
    free(shmemi_rt.gpu_peer);
    shmemi_rt.gpu_peer = NULL;
    shmemi_rt.net_for_gpu = 0;
    shmemi_rt.init_state = 2;
    fflush(stdout);
    shmemb_finalize();
}

void shmem_finalize(void) { shmemi_finalize(0); }

void shmem_global_exit(int status) {
    fflush(stdout);
    fflush(stderr);
    if (shmemi_rt.init_state == 1) {
        shmemi_ofi_regions_unlink(); /* the launcher may stop the others by signal; this PE leaves by _exit */
        shmemb_abort(status, NULL);
    }
    exit(status);
}

/* the version, and what this build can use */
static void build_print(FILE *f) {
    fprintf(f, "gshmem %s — OpenSHMEM %d.%d\n", GSHMEM_VERSION_STRING, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    fprintf(
        f,
        "Build: transports shm (intra-node)%s; bootstrap %s; GPU backends: cuda, hip, ze (drivers loaded at run time), "
        "emulate (testing)\n",
#ifdef GSHMEM_HAVE_OFI
        ", ofi (libfabric, between nodes; loaded when a job needs it)",
#else
        "; no libfabric (one node only)",
#endif
        shmemb_backends());
    const char *ofi = shmemi_ofi_describe();
    if (ofi)
        fprintf(f, "Network transport in use: libfabric %s\n", ofi);
}

static void topo_print(FILE *f) {
    char why[160];
    if (gtopo_load(why, sizeof why))
        fprintf(f, "Topology: unknown — %s; each PE takes GPU and NIC number (its rank on the node) mod their count\n",
                why); /* (why has parentheses of its own) */
    else
        fprintf(f,
                "Topology: hwloc%s: %d NUMA node%s, %d GPU%s, %d NIC%s on PCI; each PE takes the GPU and NIC nearest "
                "its cores (SHMEM_INFO=1 prints every PE's)\n",
                gtopo_thissystem() ? "" : " (HWLOC_XMLFILE: another node's)", gtopo_numa_count(),
                gtopo_numa_count() == 1 ? "" : "s", gtopo_dev_count(GTOPO_GPU),
                gtopo_dev_count(GTOPO_GPU) == 1 ? "" : "s", gtopo_dev_count(GTOPO_NIC),
                gtopo_dev_count(GTOPO_NIC) == 1 ? "" : "s");
}

static const char *human(size_t n, char *buf, size_t len) {
    if (n && !(n & (((size_t)1 << 30) - 1)))
        snprintf(buf, len, "%zu GiB", n >> 30);
    else if (n && !(n & (((size_t)1 << 20) - 1)))
        snprintf(buf, len, "%zu MiB", n >> 20);
    else
        snprintf(buf, len, "%zu bytes", n);
    return buf;
}

/* shmem_info's default: what a newcomer asks first, in a dozen lines: the version and build, the GPU backend a job
 * would take (or why none), the heap a job here would get (what auto comes to on this machine), the settings the
 * environment changes, and its variables gshmem does not read; shmem_info --all prints shmemi_info_print's whole
 * report. */
void shmemi_info_brief(FILE *f) {
    build_print(f);
    shmemi_gpu_info_print(f, 1);
    char a[32], b[32];
    if (shmemi_env.symmetric_size) {
        fprintf(f, "Symmetric heap: %s per PE (SHMEM_SYMMETRIC_SIZE=%s)\n",
                human(shmemi_env.symmetric_size, a, sizeof a), shmemi_env_raw("SHMEM_SYMMETRIC_SIZE"));
    } else {
        cpu_set_t set;
        int cpus = sched_getaffinity(0, sizeof set, &set) ? 1 : CPU_COUNT(&set);
        size_t one = shmemi_heap_auto(1), each = shmemi_heap_auto(cpus);
        if (cpus > 1 && each != one)
            fprintf(f,
                    "Symmetric heap: %s per PE alone on this node, %s each for %d PEs (one per CPU) "
                    "(SHMEM_SYMMETRIC_SIZE=auto)\n",
                    human(one, a, sizeof a), human(each, b, sizeof b), cpus);
        else
            fprintf(f, "Symmetric heap: %s per PE with up to %d PE%s on this node (SHMEM_SYMMETRIC_SIZE=auto)\n",
                    human(one, a, sizeof a), cpus, cpus == 1 ? "" : "s");
    }
    if (shmemi_npartitions)
        fprintf(f, "Symmetric partitions: %d (shmem_info --all says where each goes)\n", shmemi_npartitions);
    topo_print(f);
    shmemi_env_print_set(f, "Set in the environment: ");
    shmemi_env_unknown(f, "Not read: ", "");
    fprintf(f, "Every variable with its value and meaning: shmem_info --all (docs/ENV.md: shmem_info --markdown)\n");
}

void shmemi_info_print(FILE *f) {
    build_print(f);
    shmemi_gpu_info_print(f, 0);
    topo_print(f);
    if (shmemi_npartitions) {
        char omp[200];
        shmemi_omp_describe(omp, sizeof omp);
        fprintf(f, "Symmetric partitions%s (OpenMP: %s):\n", shmemi_rt.init_state == 1 ? "" : " (placed at shmem_init)",
                omp);
        for (int i = 0; i < shmemi_npartitions; i++) {
            const char *w = shmemi_partition_where(shmemi_partitions[i].id);
            fprintf(f, "  partition %d: %zu bytes, %s\n", shmemi_partitions[i].id, shmemi_partitions[i].size,
                    w                                                 ? w
                    : shmemi_partitions[i].kind == SHMEMI_KIND_LIBOMP ? "KIND=LIBOMP: decided at shmem_init of an "
                                                                        "OpenMP program (SHMEM_INFO=1 shows it there)"
                    : shmemi_partitions[i].kind == SHMEMI_KIND_DEVICE ? "KIND=DEVICE: GPU memory"
                                                                      : "host memory");
        }
    }
    fprintf(f, "Environment variables (current value, default):\n");
    shmemi_env_print(f, 1);
    shmemi_env_unknown(f, "Not read: ", "");
}

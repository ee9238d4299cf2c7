/* ofi_init.c - the libfabric transport's start and end: libfabric loaded, the provider picked, fabric, domain, AV
 * and endpoint 0 opened, cards exchanged, peers inserted; finalize; the out-of-descriptors hint. */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "gpu/gtl.h"
#include "transport/ofi/ofi_int.h"

/* the few functions of libfabric looked up at load (see ofi_int.h why) */
struct shmemt_ofi_lf shmemt_ofi_lf;

int shmemi_ofi_up;

struct shmemt_ofi_state shmemt_ofi = {.wait_fd = -1, .stop_pipe = {-1, -1}};

/* Descriptors this process had open before the transport opened anything, and once it was up (-1: not yet). */
static int fds_before = -1, fds_up = -1;

static int fds_open(void) {
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n - 3; /* less ".", ".." and the directory's own */
}

static void limit_str(rlim_t v, char *buf, size_t len) {
    if (v == RLIM_INFINITY)
        snprintf(buf, len, "unlimited");
    else
        snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* A provider that runs out of descriptors fails in whichever call needed the next one (a post that connects to a new
 * peer, the progress thread's pipe, an endpoint's queue) with "Too many open files" alone; the job should say which
 * limit to raise and to what. One socket per peer reached over the network, plus what the process had open with the
 * transport up; before it was up, what it had open before plus a guess at the provider's own (its epoll and pipe
 * descriptors, a listening socket). With 8-12 PEs here a PE had 19 open once up over net, 22 over tcp;ofi_rxm. */
#define PROVIDER_FDS 16
const char *shmemt_ofi_fd_hint(int rc, char *buf, size_t len) {
    *buf = 0;
    if ((rc < 0 ? -rc : rc) != FI_EMFILE)
        return buf;
    struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
    getrlimit(RLIMIT_NOFILE, &rl);
    char soft[24], hard[24];
    limit_str(rl.rlim_cur, soft, sizeof soft);
    limit_str(rl.rlim_max, hard, sizeof hard);
    int peers = shmemi_rt.n_pes - (shmemi_rt.nlocal > 0 ? shmemi_rt.nlocal : 1);
    int own = fds_up >= 0 ? fds_up : fds_before >= 0 ? fds_before + PROVIDER_FDS : PROVIDER_FDS;
    /* (a margin: rxm keeps two sockets to a peer that connected to this PE while it connected to the peer) */
    long need = (long)own + peers + 4 + peers / 4;
    if (rl.rlim_cur != RLIM_INFINITY && (rlim_t)need <= rl.rlim_cur) /* out all the same: the estimate is short */
        need = 2 * (long)rl.rlim_cur;
    snprintf(buf, len,
             "; this PE is out of file descriptors (ulimit -n: soft %s, hard %s) and needs about %ld: one per peer it "
             "reaches over the network (%d), about %d of its own (the program's, the launcher's and the provider's) "
             "and a margin; raise the limit before starting the job (ulimit -n %ld or more%s)",
             soft, hard, need, peers, own, need,
             rl.rlim_max != RLIM_INFINITY && (rlim_t)need > rl.rlim_max ? ", past the hard limit: ask the administrator"
                                                                        : "");
    return buf;
}

int shmemt_ofi_fds_exhausted(void) {
    int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd >= 0)
        close(fd);
    return fd < 0 && errno == EMFILE;
}

static int load_libfabric(char *err, size_t errlen) {
    if (shmemt_ofi_lf.dl)
        return 0;
    void *dl = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        char hint[400];
        int e = errno;
        snprintf(err, errlen,
                 "libfabric transport: cannot load libfabric.so.1 (%s)%s; install libfabric (Debian: libfabric1), or "
                 "run every PE on one node",
                 dlerror(), shmemt_ofi_fd_hint(e == EMFILE ? e : 0, hint, sizeof hint));
        return -1;
    }
    *(void **)&shmemt_ofi_lf.getinfo = dlsym(dl, "fi_getinfo");
    *(void **)&shmemt_ofi_lf.freeinfo = dlsym(dl, "fi_freeinfo");
    *(void **)&shmemt_ofi_lf.dupinfo = dlsym(dl, "fi_dupinfo");
    *(void **)&shmemt_ofi_lf.fabric = dlsym(dl, "fi_fabric");
    *(void **)&shmemt_ofi_lf.strerror = dlsym(dl, "fi_strerror");
    if (!shmemt_ofi_lf.getinfo || !shmemt_ofi_lf.freeinfo || !shmemt_ofi_lf.dupinfo || !shmemt_ofi_lf.fabric ||
        !shmemt_ofi_lf.strerror) {
        snprintf(err, errlen, "libfabric transport: libfabric.so.1 lacks fi_getinfo/fi_fabric/...: too old?");
        dlclose(dl);
        return -1;
    }
    shmemt_ofi_lf.dl = dl;
    return 0;
}

const char *shmemi_ofi_peer_addr(int pe, char *buf, size_t len) {
    char raw[ADDR_MAX];
    size_t rawlen = sizeof raw, n = len;
    if (!shmemi_ofi_up || fi_av_lookup(shmemt_ofi.av, shmemt_ofi.addr[pe], raw, &rawlen) || rawlen > sizeof raw)
        snprintf(buf, len, "address unknown");
    else
        fi_av_straddr(shmemt_ofi.av, raw, buf, &n);
    return buf;
}

/* ---- setup ---- */
static int queue_can_sleep(void) {
    struct fi_cq_attr a = {.format = FI_CQ_FORMAT_CONTEXT, .size = 1, .wait_obj = FI_WAIT_FD};
    struct fid_cq *q;
    int fd = -1;
    if (fi_cq_open(shmemt_ofi.domain, &a, &q, NULL))
        return 0;
    int ok = fi_control(&q->fid, FI_GETWAIT, &fd) == 0 && fd >= 0;
    fi_close(&q->fid);
    return ok;
}

static struct fi_info *hints_for(uint64_t caps, const char *want, int mr_local) {
    struct fi_info *h = fi_allocinfo();
    if (!h)
        return NULL;
    h->caps = caps;
    h->mode = FI_CONTEXT;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | (mr_local ? FI_MR_LOCAL : 0);
    if (shmemt_ofi.hmem) { /* only GPU segments are registered as GPU memory; local buffers stay host memory */
        h->caps |= FI_HMEM;
        h->domain_attr->mr_mode |= FI_MR_HMEM;
    }
    h->domain_attr->threading = FI_THREAD_SAFE;
    h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    h->tx_attr->msg_order = FI_ORDER_RMA_RAW | FI_ORDER_RMA_WAW | FI_ORDER_ATOMIC_RAW | FI_ORDER_ATOMIC_WAW;
    if (*want)
        h->fabric_attr->prov_name = strdup(want);
    if (*shmemi_env.ofi_domain)
        h->domain_attr->name = strdup(shmemi_env.ofi_domain);
    return h;
}

/* The provider's NICs (its domains): the one nearest this PE's cores (src/topo, from the NICs' PCI addresses),
 * spread over the PEs near the same ones, unless SHMEM_OFI_DOMAIN names one; recorded for SHMEM_INFO. */
static void pick_near_nic(void) {
    const char *prov = shmemt_ofi.info->fabric_attr->prov_name;
    struct fi_info *cand[16];
    char ids[16][32];
    const char *busid[16], *names[16];
    int n = 0;
    for (struct fi_info *f = shmemt_ofi.info; f && n < 16; f = f->next) {
        int seen = strcmp(f->fabric_attr->prov_name, prov) || !f->domain_attr->name;
        for (int k = 0; k < n && !seen; k++)
            seen = !strcmp(names[k], f->domain_attr->name);
        if (seen)
            continue;
        cand[n] = f;
        names[n] = f->domain_attr->name;
        busid[n] = NULL;
        if (f->nic && f->nic->bus_attr && f->nic->bus_attr->bus_type == FI_BUS_PCI) {
            const struct fi_pci_attr *a = &f->nic->bus_attr->attr.pci;
            snprintf(ids[n], sizeof ids[n], "%04x:%02x:%02x.%x", a->domain_id, a->bus_id, a->device_id, a->function_id);
            busid[n] = ids[n];
        }
        n++;
    }
    int known = 0;
    for (int i = 0; i < n; i++)
        known += busid[i] != NULL;
    if (n < 2 || !known) { /* (domains without a PCI address, e.g. tcp's interfaces: the provider's first, as before) */
        snprintf(shmemi_rt.place_nic, sizeof shmemi_rt.place_nic, "%s", n ? names[0] : prov);
        return;
    }
    int i = shmemi_pick_near(n, busid, names, "NIC");
    if (i > 0) {
        struct fi_info *pick = fi_dupinfo(cand[i]);
        if (pick) {
            fi_freeinfo(shmemt_ofi.info);
            shmemt_ofi.info = pick;
        }
    }
}

/* pick_provider without (mr_local 0: returns 1 when there is none) or with FI_MR_LOCAL allowed (mr_local 1: when none
 * fits, says which capability the named provider lacks and returns -1) */
static int pick_provider_as(const char *want, int mr_local, char *err, size_t errlen) {
    struct fi_info *h =
        hints_for(FI_RMA | FI_ATOMIC | FI_MSG | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE, want, mr_local);
    if (!h)
        return snprintf(err, errlen, "libfabric transport: out of memory"), -1;
    int rc = fi_getinfo(OFI_VERSION, NULL, NULL, 0, h, &shmemt_ofi.info);
    if (rc == 0 && shmemt_ofi.info) {
        shmemt_ofi.ordered = 1;
    } else {
        h->tx_attr->msg_order = 0; /* an unordered provider works too: fence and put-with-signal then wait */
        rc = fi_getinfo(OFI_VERSION, NULL, NULL, 0, h, &shmemt_ofi.info);
    }
    if (rc ||
        !shmemt_ofi.info) { /* no fabric atomics: atomics become messages, which must follow the writes in order */
        h->caps &= ~(uint64_t)FI_ATOMIC;
        h->tx_attr->msg_order = FI_ORDER_RMA_RAW | FI_ORDER_RMA_WAW | FI_ORDER_SAW | FI_ORDER_SAS;
        rc = fi_getinfo(OFI_VERSION, NULL, NULL, 0, h, &shmemt_ofi.info);
        if (rc == 0 && shmemt_ofi.info)
            shmemt_ofi.ordered = 1;
    }
    if (rc == 0 && shmemt_ofi.info && *shmemi_env.ofi_domain) {
        /* layered providers (tcp;ofi_rxm) may not filter on the domain hint: pick it from the list */
        struct fi_info *pick = NULL;
        char names[256] = "";
        for (struct fi_info *f = shmemt_ofi.info; f && !pick; f = f->next) {
            if (f->domain_attr->name && !strcmp(f->domain_attr->name, shmemi_env.ofi_domain))
                pick = fi_dupinfo(f);
            else if (f->domain_attr->name && !strstr(names, f->domain_attr->name) &&
                     strlen(names) + strlen(f->domain_attr->name) + 3 < sizeof names)
                strcat(strcat(names, " "), f->domain_attr->name);
        }
        fi_freeinfo(shmemt_ofi.info);
        shmemt_ofi.info = pick;
        if (!pick && !mr_local) {
            fi_freeinfo(h);
            return 1;
        }
        if (!pick) {
            snprintf(err, errlen, "libfabric transport: SHMEM_OFI_DOMAIN=%s is not a domain of provider %s (it has:%s)",
                     shmemi_env.ofi_domain, *want ? want : "(any)", names);
            fi_freeinfo(h);
            return -1;
        }
    }
    if (rc == 0 && shmemt_ofi.info && !*shmemi_env.ofi_domain)
        pick_near_nic();
    if ((rc == 0 && shmemt_ofi.info) || !mr_local) {
        fi_freeinfo(h);
        return rc == 0 && shmemt_ofi.info ? 0 : 1;
    }
    const char *prov = *want ? want : "(any)";
    /* diagnose: which of the requirements fails? */
    struct {
        uint64_t caps;
        int rdm;
        const char *lack;
    } probe[] = {
        {0, 0, "is not available on this machine (see fi_info -l)"},
        {0, 1, "has no reliable datagram endpoints (FI_EP_RDM)"},
        {FI_RMA, 1, "has no one-sided transfers (FI_RMA) on reliable datagram endpoints"},
        {FI_RMA | FI_MSG, 1, "has neither fabric atomics (FI_ATOMIC) nor messages (FI_MSG)"},
    };
    const char *lack = "does not offer what gshmem needs (FI_EP_RDM, FI_RMA, FI_ATOMIC or ordered FI_MSG, memory "
                       "registration without FI_MR_ENDPOINT)";
    for (size_t i = 0; i < sizeof probe / sizeof probe[0]; i++) {
        struct fi_info *p = fi_allocinfo(), *got = NULL;
        if (!p)
            break;
        p->caps = probe[i].caps;
        if (probe[i].rdm)
            p->ep_attr->type = FI_EP_RDM;
        p->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_LOCAL;
        if (*want)
            p->fabric_attr->prov_name = strdup(want);
        if (*shmemi_env.ofi_domain)
            p->domain_attr->name = strdup(shmemi_env.ofi_domain);
        int r = fi_getinfo(OFI_VERSION, NULL, NULL, 0, p, &got);
        fi_freeinfo(p);
        if (got)
            fi_freeinfo(got);
        if (r || !got) {
            lack = probe[i].lack;
            break;
        }
    }
    snprintf(err, errlen,
             "libfabric transport: provider %s%s%s %s (libfabric error: %s); set SHMEM_OFI_PROVIDER to one that has "
             "them, e.g. tcp, or SHMEM_TRANSPORT=shm to run on one node",
             prov, *shmemi_env.ofi_domain ? " on domain " : "", shmemi_env.ofi_domain, lack, fi_strerror(-rc));
    fi_freeinfo(h);
    return -1;
}

/* Finds a provider: first one that leaves local buffers alone, else one that needs them registered (FI_MR_LOCAL:
 * verbs, efa). When none fits, says which capability the named provider lacks. */
static int pick_provider(const char *want, char *err, size_t errlen) {
    int rc = pick_provider_as(want, 0, err, errlen);
    return rc == 1 ? pick_provider_as(want, 1, err, errlen) : rc;
}

static void check_atomics(void) {
    for (int big = 0; big < 2; big++)
        for (int op = 0; op <= SHMEMI_AMO_XOR; op++) {
            enum fi_datatype dt = big ? FI_UINT64 : FI_UINT32;
            size_t count = 0;
            int rc;
            switch (shmemt_ofi_amo_map[op].kind) {
            case K_WRITE: rc = fi_atomicvalid(shmemt_ofi.ep0.ep, dt, shmemt_ofi_amo_map[op].op, &count); break;
            case K_FETCH: rc = fi_fetch_atomicvalid(shmemt_ofi.ep0.ep, dt, shmemt_ofi_amo_map[op].op, &count); break;
            default: rc = fi_compare_atomicvalid(shmemt_ofi.ep0.ep, dt, FI_CSWAP, &count);
            }
            shmemt_ofi.amo_ok[big][op] = rc == 0 && count >= 1;
        }
}

/* Signal handlers are the program's. Debian's libfabric links the PSM providers' libraries, and the constructor of
 * libinfinipath (loaded with them) replaces the handlers of SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGINT and SIGTERM by
 * its own, which prints a backtrace and calls exit(): a program's own handlers were lost once the network transport
 * started, and a PE that oshrun told to stop (SIGTERM, when another PE failed) ran its atexit handlers, shmem_finalize
 * included, instead of stopping. What the provider libraries change while the transport starts is put back. */
#define SIG_KEPT 32 /* the standard signals; glibc keeps some of the real-time ones for itself */
static void signals_save(struct sigaction *saved) {
    for (int sig = 1; sig < SIG_KEPT; sig++)
        if (sigaction(sig, NULL, &saved[sig]))
            saved[sig].sa_handler = SIG_ERR; /* (no such signal: nothing to put back) */
}

static void signals_restore(const struct sigaction *saved) {
    for (int sig = 1; sig < SIG_KEPT; sig++) {
        struct sigaction now;
        if (saved[sig].sa_handler == SIG_ERR || sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &now))
            continue;
        if (now.sa_handler != saved[sig].sa_handler || now.sa_flags != saved[sig].sa_flags) {
            shmemi_debug("libfabric transport: signal %d's handler was changed by a provider library: put back", sig);
            sigaction(sig, &saved[sig], NULL);
        }
    }
}

static int ofi_open(char *err, size_t errlen);
static int ofi_connect(const void *cards, size_t stride, char *err, size_t errlen);
/* what this PE tells the others, from ofi_open to ofi_connect */
static struct ofi_card card;

size_t shmemi_ofi_card_bytes(void) { return sizeof card; }

void shmemi_ofi_card(void *out) { memcpy(out, &card, sizeof card); }

int shmemi_ofi_open(char *err, size_t errlen) {
    struct sigaction saved[SIG_KEPT];
    signals_save(saved);
    int rc = ofi_open(err, errlen);
    signals_restore(saved);
    return rc;
}

int shmemi_ofi_connect(const void *cards, size_t stride, char *err, size_t errlen) {
    struct sigaction saved[SIG_KEPT];
    signals_save(saved);
    int rc = ofi_connect(cards, stride, err, errlen);
    signals_restore(saved);
    if (rc == 0)
        shmemt_ofi_regions_guard();
    return rc;
}

/* rxm over tcp shares one receive queue among all of a PE's connections (FI_OFI_RXM_USE_SRX's default on tcp) and,
 * left to itself, posts 4,096 buffers of FI_OFI_RXM_BUFFER_SIZE (16 KiB) on it when the endpoint is enabled: 64 MiB
 * written per PE before any traffic, 0.04 s of its 0.19 s of CPU at init here (perf: memset and page faults under
 * fi_enable), and 92 MiB resident where 41 would do. 1,024 buffers are one chunk of rxm's receive pool, which it
 * allocates whole anyway; they are shared by every peer, and the provider holds back what finds no buffer posted
 * (TCP's own flow control). Set only when the job asks for tcp, the variable is unset and the shared queue is not
 * turned off (then the depth is per connection, 128 by default), and only before libfabric starts in this process
 * (it reads its variables once). */
static void rxm_receive_depth(const char *want) {
    const char *srx = shmemi_env_lib("FI_OFI_RXM_USE_SRX");
    /* libfabric reads 0/1, on/off, true/false, yes/no, and a value it cannot read leaves the queue off; gshmem's
     * reader also takes y/n, which would count here as read */
    int on = 1;
    if (srx && shmemi_parse_bool(srx, &on))
        on = 0;
    if (strstr(want, "tcp") && on && shmemi_env_lib_default("FI_OFI_RXM_MSG_RX_SIZE", "1024"))
        shmemi_debug("libfabric transport: FI_OFI_RXM_MSG_RX_SIZE=1024 (rxm's shared receive queue; 4096 by default)");
}

static int ofi_open(char *err, size_t errlen) {
    int n = shmemi_rt.n_pes, rc;
    memset(&card, 0, sizeof card);
    rxm_receive_depth(shmemi_env.ofi_provider);
    if (load_libfabric(err, errlen))
        return -1;
    shmemt_ofi_ticks_start();
    fds_before = fds_open();
    fds_up = -1;
    /* GPU memory that the provider must register as such (CUDA): a provider with FI_HMEM if there is one, else
     * without (GPU segments are then out of the network's reach) */
    shmemt_ofi.hmem = shmemi_rt.gpu && shmemi_gtl && shmemi_gtl->net_iface != FI_HMEM_SYSTEM && !shmemi_rt.net_for_gpu;
retry:
    if (shmemt_ofi.hmem && pick_provider(shmemi_env.ofi_provider, err, errlen)) {
        shmemi_debug("libfabric transport: no provider with FI_HMEM (%s): GPU memory is not reachable over the network",
                     err);
        shmemt_ofi.hmem = 0;
        shmemt_ofi.info = NULL;
    }
    if (!shmemt_ofi.info && pick_provider(shmemi_env.ofi_provider, err, errlen))
        return -1;
    if (!*shmemi_env.ofi_provider && !strcmp(shmemt_ofi.info->fabric_attr->prov_name, "tcp;ofi_rxm")) {
        /* Left to choose, libfabric 1.17 puts rxm over tcp first, but its net provider is the faster way over TCP
         * (get 1.10x OSHMEM/UCX's latency vs 1.39x, fetch-add 1.11x vs 1.66x) and takes private endpoints: prefer
         * it when it serves the same need. SHMEM_OFI_PROVIDER=tcp still picks rxm. */
        struct fi_info *rxm = shmemt_ofi.info;
        int rxm_ordered = shmemt_ofi.ordered;
        char ignored[256];
        shmemt_ofi.info = NULL;
        if (pick_provider("net", ignored, sizeof ignored) == 0) {
            fi_freeinfo(rxm);
        } else {
            shmemt_ofi.info = rxm;
            shmemt_ofi.ordered = rxm_ordered;
        }
    }
    struct fi_info *i = shmemt_ofi.info;
    shmemt_ofi.mr_local = (i->domain_attr->mr_mode & FI_MR_LOCAL) || shmemi_env.ofi_mr_local;
    shmemt_ofi.tmp_key = (uint64_t)NSEG + 1; /* (the segments' requested keys are 1..NSEG) */
    shmemt_ofi_net_gen++;
    shmemt_ofi.max_msg = i->ep_attr->max_msg_size ? i->ep_attr->max_msg_size : ((size_t)1 << 30);
    if (shmemt_ofi.max_msg > ((size_t)1 << 30))
        shmemt_ofi.max_msg = (size_t)1 << 30;
    shmemt_ofi.inject = i->tx_attr->inject_size;
    if ((rc = fi_fabric(i->fabric_attr, &shmemt_ofi.fabric, NULL)) ||
        (rc = fi_domain(shmemt_ofi.fabric, i, &shmemt_ofi.domain, NULL))) {
        char hint[400];
        snprintf(err, errlen, "libfabric transport: cannot open provider %s: %s%s", i->fabric_attr->prov_name,
                 fi_strerror(-rc), shmemt_ofi_fd_hint(rc, hint, sizeof hint));
        return -1;
    }
    struct fi_av_attr ava = {.type = FI_AV_TABLE, .count = (size_t)n};
    if ((rc = fi_av_open(shmemt_ofi.domain, &ava, &shmemt_ofi.av, NULL))) {
        char hint[400];
        snprintf(err, errlen, "libfabric transport: fi_av_open: %s%s", fi_strerror(-rc),
                 shmemt_ofi_fd_hint(rc, hint, sizeof hint));
        return -1;
    }
    shmemt_ofi.sleep_queue = shmemi_env.ofi_progress && !strcmp(i->fabric_attr->prov_name, "net") && queue_can_sleep();
    if (shmemt_ofi_ep_open(&shmemt_ofi.ep0, shmemi_env.ofi_progress && !shmemt_ofi.sleep_queue, err, errlen))
        return -1;
    if (i->caps & FI_ATOMIC)
        check_atomics();
    if (!shmemt_ofi.amo_ok[0][SHMEMI_AMO_CSWAP] || !shmemt_ofi.amo_ok[1][SHMEMI_AMO_CSWAP]) {
        /* no compare-and-swap to build the rest on (net in libfabric 1.17 lists FI_ATOMIC but implements none):
         * atomics as messages, if the provider sends them in order after the writes */
        uint64_t need = FI_ORDER_SAW | FI_ORDER_SAS;
        if ((!(i->caps & FI_MSG) || (i->tx_attr->msg_order & need) != need ||
             i->tx_attr->inject_size < sizeof(struct am_msg)) &&
            shmemt_ofi.hmem) {
            /* FI_HMEM can cost a provider what it has without it (shm: atomics, inject): GPU memory then goes
             * through its owner (staged) on the provider as it is without FI_HMEM */
            shmemi_debug("libfabric transport: provider %s with FI_HMEM has no compare-and-swap nor ordered messages "
                         "with inject: trying again without FI_HMEM",
                         i->fabric_attr->prov_name);
            shmemt_ofi_ep_close(&shmemt_ofi.ep0);
            fi_close(&shmemt_ofi.av->fid);
            fi_close(&shmemt_ofi.domain->fid);
            fi_close(&shmemt_ofi.fabric->fid);
            fi_freeinfo(shmemt_ofi.info);
            shmemt_ofi.av = NULL;
            shmemt_ofi.domain = NULL;
            shmemt_ofi.fabric = NULL;
            shmemt_ofi.info = NULL;
            memset(shmemt_ofi.amo_ok, 0, sizeof shmemt_ofi.amo_ok);
            shmemt_ofi.hmem = 0;
            goto retry;
        }
        if (!(i->caps & FI_MSG) || (i->tx_attr->msg_order & need) != need ||
            i->tx_attr->inject_size < sizeof(struct am_msg)) {
            snprintf(err, errlen,
                     "libfabric transport: provider %s has no compare-and-swap on 32- and 64-bit integers "
                     "(fi_compare_atomicvalid FI_CSWAP), nor messages delivered in order after writes (FI_MSG, "
                     "FI_ORDER_SAW, FI_ORDER_SAS, inject >= %zu B) to carry atomics; pick another with "
                     "SHMEM_OFI_PROVIDER",
                     i->fabric_attr->prov_name, sizeof(struct am_msg));
            return -1;
        }
        shmemt_ofi.am = 1;
        if (shmemt_ofi_am_setup(i, err, errlen))
            return -1;
    } else if (shmemi_rt.gpu && (i->caps & FI_MSG) && (i->tx_attr->msg_order & FI_ORDER_SAS) &&
               i->tx_attr->inject_size >= sizeof(struct am_msg)) {
        /* messages, should a GPU segment stay out of the provider's reach (see staged) */
        if (shmemt_ofi_am_setup(i, err, errlen))
            return -1;
    }

    struct ofi_card *mine = &card;
    size_t alen = ADDR_MAX;
    if ((rc = fi_getname(&shmemt_ofi.ep0.ep->fid, mine->addr, &alen))) {
        snprintf(err, errlen, "libfabric transport: fi_getname: %s (address longer than %d bytes?)", fi_strerror(-rc),
                 ADDR_MAX);
        return -1;
    }
    mine->addrlen = (uint32_t)alen;
    mine->pid = getpid();
    return shmemt_ofi_mr_segs_open(i, mine, err, errlen);
}

/* cards: every PE's card, stride bytes apart, where shmem_init carried them in an exchange of its own; NULL: this
 * exchanges them (a job with GPUs opens the network after the segments' exchange) */
static int ofi_connect(const void *cards, size_t stride, char *err, size_t errlen) {
    int n = shmemi_rt.n_pes;
    struct fi_info *i = shmemt_ofi.info;
    struct ofi_card *all = calloc((size_t)n, sizeof *all);
    shmemt_ofi.addr = calloc((size_t)n, sizeof *shmemt_ofi.addr);
    if (!all || !shmemt_ofi.addr) {
        free(all);
        snprintf(err, errlen, "libfabric transport: out of memory");
        return -1;
    }
    if (cards) {
        for (int pe = 0; pe < n; pe++)
            memcpy(&all[pe], (const char *)cards + (size_t)pe * stride, sizeof *all);
    } else if (shmemb_allgather(&card, all, sizeof card)) {
        free(all);
        snprintf(err, errlen, "libfabric transport: bootstrap allgather of addresses failed");
        return -1;
    }
    if (shmemt_ofi_mr_segs_keys(all, n, err, errlen)) {
        free(all);
        return -1;
    }
    shmemt_ofi.gpu_ok = ~0ULL;
    for (int pe = 0; pe < n; pe++)
        shmemt_ofi.gpu_ok &= all[pe].gpu_ok;
    int *pids = calloc((size_t)n, sizeof *pids), np = 0;
    for (int pe = 0; pids && pe < n; pe++)
        if (pe != shmemi_rt.my_pe && shmemi_rt.same_host && shmemi_rt.same_host[pe] && all[pe].pid > 0)
            pids[np++] = (int)all[pe].pid;
    shmemt_ofi_npeer_pids = np;
    __atomic_store_n(&shmemt_ofi_peer_pids, pids, __ATOMIC_RELEASE);
    uint64_t gpu_segs = 0;
    for (int si = 0; si < shmemi_rt.nsegs && si < 64; si++)
        if (shmemi_rt.segs[si].kind == SHMEMI_MEM_DEVICE)
            gpu_segs |= 1ULL << si;
    shmemt_ofi.stage = shmemt_ofi.am_bufs && (gpu_segs & ~shmemt_ofi.gpu_ok);
    if (shmemt_ofi.stage)
        shmemt_ofi_stage_pin();
    if (gpu_segs & ~shmemt_ofi.gpu_ok)
        shmemi_debug("libfabric transport: GPU segments %s over the network through their owners' host memory",
                     shmemt_ofi.stage ? "reached" : "NOT reachable (no FI_MSG with FI_ORDER_SAS either)");
    for (int pe = 0; pe < n; pe++) {
        if (fi_av_insert(shmemt_ofi.av, all[pe].addr, 1, &shmemt_ofi.addr[pe], 0, NULL) != 1) {
            free(all);
            snprintf(err, errlen, "libfabric transport: cannot insert PE %d's address into the address vector", pe);
            return -1;
        }
    }
    free(all);
    if (!(shmemt_ofi_probes = calloc((size_t)n, sizeof *shmemt_ofi_probes))) {
        snprintf(err, errlen, "libfabric transport: out of memory");
        return -1;
    }
    if (shmemt_ofi.mr_local)
        shmemt_ofi_probes_mr = shmemt_ofi_lreg(shmemt_ofi_probes, (size_t)n * sizeof *shmemt_ofi_probes, FI_READ,
                                               "shmem_init (libfabric transport)");
    snprintf(shmemt_ofi.desc, sizeof shmemt_ofi.desc, "%s on %s (max message %zu B, inject %zu B, %s atomics%s)",
             i->fabric_attr->prov_name, i->domain_attr->name, shmemt_ofi.max_msg, shmemt_ofi.inject,
             shmemt_ofi.am                                ? "message"
             : shmemt_ofi.amo_ok[1][SHMEMI_AMO_FETCH_ADD] ? "native"
                                                          : "emulated",
             !shmemt_ofi.mr_local                      ? ""
             : (i->domain_attr->mr_mode & FI_MR_LOCAL) ? ", local buffers registered (FI_MR_LOCAL)"
                                                       : ", local buffers registered (SHMEM_OFI_MR_LOCAL)");

    if (shmemi_env.ofi_progress) {
        if (fi_control(&shmemt_ofi.ep0.cq->fid, FI_GETWAIT, &shmemt_ofi.wait_fd))
            shmemt_ofi.wait_fd = -1;
        if (shmemt_ofi_progress_start()) {
            char hint[400];
            snprintf(err, errlen, "libfabric transport: cannot start the progress thread: %s%s", strerror(errno),
                     shmemt_ofi_fd_hint(errno, hint, sizeof hint));
            return -1;
        }
    }
    shmemi_ofi_up = 1;
    fds_up = fds_open();
    shmemi_debug("libfabric transport up: %s, progress thread %s", shmemt_ofi.desc,
                 !shmemi_env.ofi_progress  ? "off"
                 : shmemt_ofi.sleep_queue  ? "sleeping on a queue of its own when idle"
                 : shmemt_ofi.wait_fd >= 0 ? "sleeping on the completion queue"
                                           : "polling");
    return 0;
}

const char *shmemi_ofi_describe(void) { return shmemi_ofi_up ? shmemt_ofi.desc : NULL; }

int shmemi_ofi_fabric_atomics(void) { return shmemi_ofi_up && !shmemt_ofi.am; }

void shmemi_ofi_fini(void) {
    if (!shmemi_ofi_up)
        return;
    /* Peers may still need this PE's progress until all are done: the quiet of a PE still in shmemi_ofi_quiet_all
     * waits for us to answer its flush message or serve its read-back, and the bootstrap barrier drives nothing. So
     * without a progress thread, one runs for the barrier (a polling one: no wait descriptor was asked for). */
    if (!shmemt_ofi.progress_on && shmemt_ofi_progress_start())
        shmemi_fatal("shmem_finalize", "cannot start a thread to serve peers while they finish: %s", strerror(errno));
    shmemi_ofi_quiet_all();
    shmemb_barrier();
    shmemt_ofi_progress_stop();
    if (shmemt_ofi_am_nfly)
        shmemt_ofi_am_fly_reap(NULL, 1); /* the GPU reads the receive buffers until its copies are done */
    shmemt_ofi_ctx_eps_close();
    shmemt_ofi_ep_close(&shmemt_ofi.ep0);
    shmemt_ofi_regions_unguard();
    shmemt_ofi_stage_unpin();
    shmemt_ofi_scratch_close_all();
    if (shmemt_ofi_probes_mr)
        shmemt_ofi_lclose(shmemt_ofi_probes_mr);
    shmemt_ofi_probes_mr = NULL;
    free(shmemt_ofi_probes);
    shmemt_ofi_probes = NULL;
    if (shmemt_ofi.am_mr)
        shmemt_ofi_lclose(shmemt_ofi.am_mr);
    shmemt_ofi.am_mr = NULL;
    if (shmemt_ofi.am_bufs)
        munmap(shmemt_ofi.am_bufs, shmemt_ofi_am_bufs_bytes);
    shmemt_ofi.am_bufs = NULL;
    shmemt_ofi_am_nlater = 0;
    shmemt_ofi.am = shmemt_ofi.stage = 0;
    shmemt_ofi_mr_segs_close();
    if (shmemt_ofi.av)
        fi_close(&shmemt_ofi.av->fid);
    if (shmemt_ofi.domain)
        fi_close(&shmemt_ofi.domain->fid);
    if (shmemt_ofi.fabric)
        fi_close(&shmemt_ofi.fabric->fid);
    fi_freeinfo(shmemt_ofi.info);
    free(shmemt_ofi.addr);
    shmemt_ofi.info = NULL;
    shmemi_ofi_up = 0;
}

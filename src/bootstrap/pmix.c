/* pmix.c - the PMIx bootstrap: PEs started by a PMIx launcher (Open MPI's mpirun, prterun, srun --mpi=pmix) learn
 * their rank, the job size and the PEs of their node from PMIx, and exchange blobs with Put/Commit/Fence/Get.
 * libpmix is loaded with dlopen when this backend is chosen: the library needs only pmix.h to build, and a build with
 * PMIx still runs under oshrun (or as a singleton) on machines without libpmix. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/backend.h"

#ifndef GSHMEM_HAVE_PMIX

/* built without pmix.h: the dispatcher sees available = 0 and never calls these */
static int nopmix_init(struct shmemb_info *info) {
    shmemb_say("gshmem: this gshmem was built without PMIx support");
    return -1;
}
static int nopmix_allgather(const void *in, void *out, size_t len) { return -1; }
static int nopmix_barrier(void) { return -1; }
static int nopmix_finalize(void) { return 0; }
static void __attribute__((noreturn)) nopmix_abort(int code, const char *msg) {
    if (msg && *msg)
        shmemb_say("gshmem: %s", msg);
    _exit(code);
}

const struct shmemb_ops shmemb_pmix_ops = {
    .name = "pmix",
    .available = 0,
    .init = nopmix_init,
    .allgather = nopmix_allgather,
    .barrier = nopmix_barrier,
    .finalize = nopmix_finalize,
    .abort = nopmix_abort,
    .exit_abort = nopmix_abort,
};

#else

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>

#include <pmix.h>

#include "core/env.h"

#ifndef GSHMEM_PMIX_LIBDIR
#define GSHMEM_PMIX_LIBDIR "" /* where configure found libpmix; tried after the soname */
#endif
#define JOBID_TAIL 24 /* nspace characters kept in the job id, after 'p' and 8 hex digits of its hash */

/* Every libpmix entry point used, resolved by dlopen. All exist since PMIx 2 (soname libpmix.so.2 ever since);
 * PMIx_Value_destruct and PMIx_Info_load (behind PMIX_VALUE_RELEASE and PMIX_INFO_LOAD in newer headers) are
 * avoided on purpose so that an older libpmix than the headers still loads. */
#define PMIX_SYMBOLS(X)                                                                                                \
    X(PMIx_Init)                                                                                                       \
    X(PMIx_Finalize)                                                                                                   \
    X(PMIx_Abort)                                                                                                      \
    X(PMIx_Put)                                                                                                        \
    X(PMIx_Commit)                                                                                                     \
    X(PMIx_Fence)                                                                                                      \
    X(PMIx_Get)                                                                                                        \
    X(PMIx_Error_string)                                                                                               \
    X(PMIx_Register_event_handler)

static struct {
#define X(f) __typeof__(f) *f;
    PMIX_SYMBOLS(X)
#undef X
} px;

static struct {
    void *lib;
    pmix_proc_t me;
    int rank, size;
    int state;                 /* 0 before init, 1 up, 2 finalized */
    unsigned round;            /* allgathers so far: each one puts its blob under its own key */
    int *local;                /* local_ranks */
    int orte;                  /* started by Open MPI's mpirun before 5.0 (ORTE): see pmix_abort */
    pthread_mutex_t coll_lock; /* one collective at a time, so every PE uses the same key for the same round */
} pm = {.coll_lock = PTHREAD_MUTEX_INITIALIZER};

static int failed(const char *call, pmix_status_t rc) {
    /* what mpirun's fence returns to the survivors when a PE dies or leaves during it */
    int gone = rc == PMIX_ERR_PARTIAL_SUCCESS || rc == PMIX_ERR_LOST_CONNECTION || rc == PMIX_ERR_UNREACH;
    shmemb_say("gshmem: PE %d: %s failed: %s (%d)%s", pm.rank, call, px.PMIx_Error_string(rc), (int)rc,
               gone ? ": another PE left the job, or the launcher is gone" : "");
    return -1;
}

static int load_pmix(void) {
    static const char *const names[] = {"libpmix.so.2", GSHMEM_PMIX_LIBDIR "/libpmix.so.2",
                                        GSHMEM_PMIX_LIBDIR "/libpmix.so"};
    char first_err[512] = "";
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !pm.lib; i++) {
        if (i > 0 && !GSHMEM_PMIX_LIBDIR[0])
            break;
        /* RTLD_GLOBAL: libpmix dlopens its own plugins, which expect its symbols to be visible */
        pm.lib = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
        if (!pm.lib && i == 0)
            snprintf(first_err, sizeof first_err, "%s", dlerror());
    }
    if (!pm.lib) {
        shmemb_say("gshmem: the PMIx bootstrap (mpirun, prterun, srun --mpi=pmix) needs libpmix, which cannot be "
                   "loaded (%s); install libpmix2, or add the directory of libpmix.so.2 to LD_LIBRARY_PATH",
                   first_err);
        return -1;
    }
#define X(f)                                                                                                           \
    {                                                                                                                  \
        void *sym = dlsym(pm.lib, #f);                                                                                 \
        if (!sym) {                                                                                                    \
            shmemb_say("gshmem: the libpmix found has no %s; it is too old for gshmem (PMIx 2 or newer is needed)",    \
                       #f);                                                                                            \
            return -1;                                                                                                 \
        }                                                                                                              \
        memcpy(&px.f, &sym, sizeof sym);                                                                               \
    }
    PMIX_SYMBOLS(X)
#undef X
    return 0;
}

/* PMIx_Value_destruct would be the tidy way; these are the only types this file asks for */
static void value_free(pmix_value_t *v) {
    if (!v)
        return;
    if (v->type == PMIX_STRING)
        free(v->data.string);
    else if (v->type == PMIX_BYTE_OBJECT)
        free(v->data.bo.bytes);
    free(v);
}

static int value_count(const pmix_value_t *v, unsigned long long *out) {
    switch (v->type) {
    case PMIX_UINT32: *out = v->data.uint32; return 0;
    case PMIX_UINT64: *out = v->data.uint64; return 0;
    case PMIX_SIZE: *out = v->data.size; return 0;
    case PMIX_UINT: *out = v->data.uint; return 0;
    case PMIX_INT:
        if (v->data.integer < 0)
            return -1;
        *out = (unsigned long long)v->data.integer;
        return 0;
    case PMIX_INT32:
        if (v->data.int32 < 0)
            return -1;
        *out = (unsigned long long)v->data.int32;
        return 0;
    default: return -1;
    }
}

/* PMIX_LOCAL_PEERS is "r,r,..." (ranges "a-b" accepted too); returns the ranks ascending, without repeats, with this
 * PE in them, or -1 on a malformed list. */
static int parse_local_peers(const char *s) {
    unsigned char *on = calloc((size_t)pm.size, 1);
    if (!on)
        return -1;
    const char *p = s;
    while (*p) {
        char *end;
        unsigned long a = strtoul(p, &end, 10), b = a;
        if (end == p)
            goto bad;
        p = end;
        if (*p == '-') {
            b = strtoul(p + 1, &end, 10);
            if (end == p + 1)
                goto bad;
            p = end;
        }
        if (a > b || b >= (unsigned long)pm.size)
            goto bad;
        for (unsigned long r = a; r <= b; r++)
            on[r] = 1;
        if (*p == ',')
            p++;
        else if (*p)
            goto bad;
    }
    on[pm.rank] = 1;
    int n = 0;
    for (int r = 0; r < pm.size; r++)
        n += on[r];
    pm.local = malloc(sizeof *pm.local * (size_t)n);
    if (!pm.local)
        goto bad;
    n = 0;
    for (int r = 0; r < pm.size; r++)
        if (on[r])
            pm.local[n++] = r;
    free(on);
    return n;
bad:
    free(on);
    return -1;
}

/* Which PEs share this node: PMIx locality, not host names (which need not be unique or resolvable). */
static int find_local_peers(const pmix_proc_t *job) {
    pmix_value_t *v = NULL;
    pmix_status_t rc = px.PMIx_Get(job, PMIX_LOCAL_PEERS, NULL, 0, &v);
    int n = -1;
    if (rc == PMIX_SUCCESS && v->type == PMIX_STRING && v->data.string)
        n = parse_local_peers(v->data.string);
    if (n < 0) {
        /* alone is safe: nothing is mapped that might not be there; the network reaches the others */
        shmemb_say("gshmem: PE %d: the launcher did not say which PEs share this node (PMIx_Get(PMIX_LOCAL_PEERS): "
                   "%s%s); treating every other PE as remote",
                   pm.rank, rc == PMIX_SUCCESS ? "unexpected value" : px.PMIx_Error_string(rc),
                   rc == PMIX_SUCCESS && v->type == PMIX_STRING ? "" : " or not a string");
        free(pm.local);
        pm.local = malloc(sizeof *pm.local);
        if (!pm.local) {
            value_free(v);
            return -1;
        }
        pm.local[0] = pm.rank;
        n = 1;
    }
    value_free(v);
    return n;
}

/* The nspace is unique per job but may be long and hold any characters (Slurm: "slurm.pmix.123.0", prterun:
 * "prterun-host-4242@1"); shared-memory names want short and plain. The hash keeps sanitizing and shortening from
 * making two jobs' ids equal; the readable tail is for people looking at /dev/shm. */
static void make_jobid(char *out, size_t outlen, const char *nspace) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *c = nspace; *c; c++)
        h = (h ^ (unsigned char)*c) * 16777619u;
    size_t n = strlen(nspace);
    const char *tail = n > JOBID_TAIL ? nspace + n - JOBID_TAIL : nspace;
    char clean[JOBID_TAIL + 1];
    size_t k = 0;
    for (; tail[k]; k++) {
        char c = tail[k];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
        clean[k] = ok ? c : '_';
    }
    clean[k] = '\0';
    snprintf(out, outlen, "p%08x%s%s", (unsigned)h, k ? "-" : "", clean);
}

/* PMIx raises this in a client whose server (the launcher's daemon on this node) has gone. */
static void lost_server(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[], size_t ninfo,
                        pmix_info_t *results, size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                        void *cbdata) {
    (void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    if (!shmemb_watch_is_quiet()) {
        char how[96];
        snprintf(how, sizeof how, "PMIx reports %s (%d)", px.PMIx_Error_string(status), (int)status);
        shmemb_launcher_gone(how);
    }
    if (cbfunc) /* (finalize or abort: the server went first) the next handler may have its say */
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* PMIx 2 and 3 return nothing from the registration, and some of them call this without looking for NULL */
static void lost_server_registered(pmix_status_t status, size_t ref, void *cbdata) {
    (void)ref, (void)cbdata;
    if (status != PMIX_SUCCESS && shmemi_env.debug)
        shmemb_say("gshmem: PE %d: PMIx_Register_event_handler(lost connection): %s (%d); the parent process is "
                   "watched alone",
                   pm.rank, px.PMIx_Error_string(status), (int)status);
}

/* The launcher's process on this node is this PE's parent (mpirun or prterun themselves, orted, prted, slurmstepd):
 * the watch looks at it and at PMIx's lost-connection event, so that a PE does not outlive a killed launcher. */
static void watch_launcher(void) {
    pid_t parent = getppid();
    char path[48], name[32] = "";
    snprintf(path, sizeof path, "/proc/%d/comm", (int)parent);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, name, sizeof name - 1);
        close(fd);
        name[n > 0 ? n : 0] = '\0';
        name[strcspn(name, "\n")] = '\0';
    }
    shmemb_watch_who(pm.rank, name[0] ? name : "PMIx launcher", parent);
    /* the code's value changed in PMIx 4 (the old name stays, deprecated, with the old value): both */
    pmix_status_t codes[2];
    size_t ncodes = 0;
#ifdef PMIX_ERR_LOST_CONNECTION
    codes[ncodes++] = PMIX_ERR_LOST_CONNECTION;
#endif
#ifdef PMIX_ERR_LOST_CONNECTION_TO_SERVER
    if (ncodes == 0 || codes[0] != PMIX_ERR_LOST_CONNECTION_TO_SERVER)
        codes[ncodes++] = PMIX_ERR_LOST_CONNECTION_TO_SERVER;
#endif
    if (ncodes) /* (no codes would mean every event); its return value is the callback's to tell */
        px.PMIx_Register_event_handler(codes, ncodes, NULL, 0, lost_server, lost_server_registered, NULL);
    if (parent > 1)
        shmemb_watch_start(-1, 1);
}

static int pmix_init(struct shmemb_info *info) {
    if (pm.state != 0) {
        shmemb_say("gshmem: the bootstrap was started twice (shmem_init after shmem_finalize is not supported)");
        return -1;
    }
    if (load_pmix())
        return -1;
    pmix_status_t rc = px.PMIx_Init(&pm.me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        shmemb_say("gshmem: PMIx_Init failed: %s (%d): no PMIx launcher answers (a PE must be started by mpirun, "
                   "prterun or srun --mpi=pmix itself, not by one of the job's processes)",
                   px.PMIx_Error_string(rc), (int)rc);
        return -1;
    }
    pm.rank = (int)pm.me.rank; /* for messages from here on */
    pm.orte = shmemb_launcher_var("OMPI_MCA_orte_hnp_uri");

    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, pm.me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    unsigned long long size = 0;
    rc = px.PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) {
        failed("PMIx_Get(PMIX_JOB_SIZE)", rc);
        goto err_init;
    }
    if (value_count(v, &size) || size < 1 || size > INT32_MAX || pm.me.rank >= size) {
        shmemb_say("gshmem: PMIx gives rank %u and a job size (PMIX_JOB_SIZE) of type %d that is not a number of "
                   "PEs above the rank",
                   (unsigned)pm.me.rank, (int)v->type);
        value_free(v);
        goto err_init;
    }
    value_free(v);
    pm.size = (int)size;

    int nlocal = find_local_peers(&job);
    if (nlocal < 0) {
        shmemb_say("gshmem: PE %d: out of memory for the list of this node's PEs", pm.rank);
        goto err_init;
    }
    pm.state = 1;
    info->rank = pm.rank;
    info->size = pm.size;
    make_jobid(info->jobid, sizeof info->jobid, pm.me.nspace);
    info->name = "pmix";
    info->nlocal = nlocal;
    info->local_ranks = pm.local;
    watch_launcher();
    if (shmemi_env.debug)
        shmemb_say("gshmem: PE %d of %d: PMIx bootstrap, namespace %s (job %s), %d PE%s on this node", pm.rank, pm.size,
                   pm.me.nspace, info->jobid, nlocal, nlocal == 1 ? "" : "s");
    return 0;

err_init:
    px.PMIx_Finalize(NULL, 0);
    return -1;
}

static int check_up(const char *what) {
    if (pm.state == 1)
        return 0;
    shmemb_say("gshmem: bootstrap %s called %s", what, pm.state == 0 ? "before shmem_init" : "after shmem_finalize");
    return -1;
}

static int pmix_barrier(void) {
    if (check_up("barrier"))
        return -1;
    pthread_mutex_lock(&pm.coll_lock);
    pmix_status_t rc = px.PMIx_Fence(NULL, 0, NULL, 0);
    pthread_mutex_unlock(&pm.coll_lock);
    return rc == PMIX_SUCCESS ? 0 : failed("PMIx_Fence", rc);
}

static int pmix_allgather(const void *in, void *out, size_t len) {
    if (check_up("allgather"))
        return -1;
    if (len == 0)
        return pmix_barrier();
    if (len > SIZE_MAX / (size_t)pm.size) {
        shmemb_say("gshmem: PE %d: bootstrap allgather of %zu bytes from each of %d PEs does not fit in memory",
                   pm.rank, len, pm.size);
        return -1;
    }
    int ret = -1;
    pthread_mutex_lock(&pm.coll_lock);
    char key[64];
    unsigned round = pm.round++;
    snprintf(key, sizeof key, "gshmem.ag.%u", round);
    /* Put copies the blob, so `in` may lie inside `out` (in place) */
    pmix_value_t val = {.type = PMIX_BYTE_OBJECT};
    val.data.bo.bytes = (char *)in;
    val.data.bo.size = len;
    pmix_status_t rc = px.PMIx_Put(PMIX_GLOBAL, key, &val);
    if (rc != PMIX_SUCCESS) {
        failed("PMIx_Put", rc);
        goto out;
    }
    rc = px.PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        failed("PMIx_Commit", rc);
        goto out;
    }
    pmix_info_t collect;
    memset(&collect, 0, sizeof collect);
    snprintf(collect.key, sizeof collect.key, "%s", PMIX_COLLECT_DATA);
    collect.value.type = PMIX_BOOL;
    collect.value.data.flag = true;
    rc = px.PMIx_Fence(NULL, 0, &collect, 1);
    if (rc != PMIX_SUCCESS) {
        failed("PMIx_Fence(PMIX_COLLECT_DATA)", rc);
        goto out;
    }
    memmove((char *)out + (size_t)pm.rank * len, in, len);
    for (int r = 0; r < pm.size; r++) {
        if (r == pm.rank)
            continue;
        pmix_proc_t peer;
        PMIX_LOAD_PROCID(&peer, pm.me.nspace, (pmix_rank_t)r);
        pmix_value_t *v = NULL;
        rc = px.PMIx_Get(&peer, key, NULL, 0, &v);
        if (rc != PMIX_SUCCESS) {
            char what[96];
            snprintf(what, sizeof what, "PMIx_Get(%s) of PE %d", key, r);
            failed(what, rc);
            goto out;
        }
        if (v->type != PMIX_BYTE_OBJECT || v->data.bo.size != len) {
            shmemb_say("gshmem: PE %d: bootstrap allgather %u: PE %d gave %zu bytes, this PE %zu (every PE must give "
                       "the same length)",
                       pm.rank, round, r, v->type == PMIX_BYTE_OBJECT ? v->data.bo.size : (size_t)0, len);
            value_free(v);
            goto out;
        }
        memcpy((char *)out + (size_t)r * len, v->data.bo.bytes, len);
        value_free(v);
    }
    ret = 0;
out:
    pthread_mutex_unlock(&pm.coll_lock);
    return ret;
}

static int pmix_finalize(void) {
    if (pm.state != 1)
        return 0;
    pm.state = 2;
    pthread_mutex_lock(&pm.coll_lock);
    pmix_status_t rc = px.PMIx_Finalize(NULL, 0);
    pthread_mutex_unlock(&pm.coll_lock);
    return rc == PMIX_SUCCESS ? 0 : failed("PMIx_Finalize", rc);
}

static void __attribute__((noreturn)) pmix_abort(int code, const char *msg) {
    /* said here, as oshrun says it: mpirun does not print the message given to PMIx_Abort */
    char why[128];
    snprintf(why, sizeof why, "PE %d ended the job with status %d (shmem_global_exit, or the error it reported above)",
             pm.rank, code);
    if (msg && *msg)
        shmemb_say("gshmem: PE %d: %s", pm.rank, msg);
    else if (code != 0)
        shmemb_say("gshmem: %s", why);
    /* ORTE (Open MPI 4.x's mpirun) hangs or crashes when a process calls PMIx_Abort while others wait in a fence
     * (an init-time allgather), yet it reliably ends the whole job with the status of the first process that exits
     * non-zero. Status 0 still needs PMIx_Abort: exiting 0 would leave the others waiting. */
    if (pm.state == 1 && !(pm.orte && code != 0)) {
        /* NULL procs: the whole namespace. The launcher kills every PE; if it answers instead, leave anyway. */
        pmix_status_t rc = px.PMIx_Abort(code, msg && *msg ? msg : why, NULL, 0);
        if (rc != PMIX_SUCCESS)
            failed("PMIx_Abort", rc);
    }
    _exit(code);
}

const struct shmemb_ops shmemb_pmix_ops = {
    .name = "pmix",
    .available = 1,
    .init = pmix_init,
    .allgather = pmix_allgather,
    .barrier = pmix_barrier,
    .finalize = pmix_finalize,
    .abort = pmix_abort,
    .exit_abort = pmix_abort, /* mpirun and srun end the job as they see fit */
};

#endif

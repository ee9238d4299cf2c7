/* ofi_regions.c - the /dev/shm regions of libfabric's shm provider: noted when an endpoint opens, removed on the ways
 * out that never close them (global exit, fatal errors, signals), and those of peers already gone by the rest. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "transport/ofi/ofi_int.h"

/* ---- the shm provider's /dev/shm regions ----
 * libfabric's shm provider keeps each endpoint in a /dev/shm region "<pid>:<n>:<n>" (16 MiB) that only closing the
 * endpoint removes. The provider's own clean-up on a signal is among the handlers put back below (signals_restore),
 * and a PE that ends the job (shmem_global_exit, a fatal error: _exit) or that the launcher stops (mpirun's and
 * srun's SIGTERM) never closes it. oshrun removes what its PEs leave; under other launchers each PE removes its own:
 * the names are read from /dev/shm when an endpoint opens, and removed on those ways out and on the signals whose
 * default action ends the process, where that action is still in place at start-up (a program's handler stays). */
#define REGIONS_MAX 16
static char regions[REGIONS_MAX][64];
static int nregions;
static pid_t regions_pid;
static const int region_sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE};
#define NREGION_SIGS (int)(sizeof region_sigs / sizeof region_sigs[0])
static struct sigaction region_prev[NREGION_SIGS];
static int region_guarded[NREGION_SIGS];

/* Peers on this machine (their pids, from the address exchange), for a PE on its way out: the regions of a peer that
 * is already gone (SIGKILL, the out-of-memory killer) have nobody else to remove them, and the launcher then stops the
 * rest of the job (mpirun's SIGTERM), so those that remain remove them. */
int *shmemt_ofi_peer_pids;
int shmemt_ofi_npeer_pids;

/* async-signal-safe: raw getdents64 and unlinkat, no allocation */
static void regions_sweep_dead_peers(void) {
    const int *pids = __atomic_load_n(&shmemt_ofi_peer_pids, __ATOMIC_ACQUIRE);
    if (!pids)
        return;
    int dfd = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return;
    _Alignas(8) char buf[4096];
    long got;
    while ((got = syscall(SYS_getdents64, dfd, buf, sizeof buf)) > 0)
        for (long off = 0; off < got;) {
            struct {
                uint64_t ino;
                int64_t off;
                unsigned short reclen;
                unsigned char type;
                char name[];
            } *de = (void *)(buf + off);
            off += de->reclen;
            /* "<pid>:<n>:<n>" of a peer that no longer exists */
            const char *c = de->name;
            long pid = 0;
            while (*c >= '0' && *c <= '9' && pid < INT_MAX / 10)
                pid = pid * 10 + (*c++ - '0');
            if (c == de->name || *c != ':')
                continue;
            int colons = 0, digits = 1;
            for (const char *d = c; *d; d++)
                colons += *d == ':', digits &= (*d == ':' || (*d >= '0' && *d <= '9'));
            int k = 0;
            while (k < shmemt_ofi_npeer_pids && pids[k] != pid)
                k++;
            struct stat st;
            if (colons != 2 || !digits || k == shmemt_ofi_npeer_pids || !(kill((pid_t)pid, 0) && errno == ESRCH) ||
                fstatat(dfd, de->name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
                continue;
            unlinkat(dfd, de->name, 0);
        }
    close(dfd);
}

void shmemt_ofi_regions_note(void) {
    char pre[24];
    int np = snprintf(pre, sizeof pre, "%d:", (int)getpid());
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    regions_pid = getpid();
    for (struct dirent *de; (de = readdir(d));) {
        struct stat st;
        char path[sizeof regions[0]];
        if (strncmp(de->d_name, pre, (size_t)np) || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
            !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
            snprintf(path, sizeof path, "/dev/shm/%s", de->d_name) >= (int)sizeof path)
            continue;
        int n = __atomic_load_n(&nregions, __ATOMIC_RELAXED), k = 0;
        while (k < n && strcmp(regions[k], path))
            k++;
        if (k == n && n < REGIONS_MAX) {
            memcpy(regions[n], path, sizeof path);
            __atomic_store_n(&nregions, n + 1, __ATOMIC_RELEASE); /* a signal handler may read the list meanwhile */
            shmemi_debug("libfabric transport: the provider keeps this endpoint in %s", path);
        }
    }
    closedir(d);
}

/* async-signal-safe; only in the process that opened them (not a child forked without exec) */
void shmemi_ofi_regions_unlink(void) {
    if (getpid() != regions_pid)
        return;
    int saved = errno;
    int n = __atomic_exchange_n(&nregions, 0, __ATOMIC_ACQ_REL);
    for (int k = 0; k < n; k++)
        unlink(regions[k]);
    regions_sweep_dead_peers();
    errno = saved;
}

static void regions_on_signal(int sig) {
    int saved = errno;
    shmemi_ofi_regions_unlink();
    for (int k = 0; k < NREGION_SIGS; k++)
        if (region_sigs[k] == sig)
            sigaction(sig, &region_prev[k], NULL);
    errno = saved;
    raise(sig); /* delivered on return (the signal is blocked in its handler), to the action that was in place */
}

void shmemt_ofi_regions_guard(void) {
    if (!__atomic_load_n(&nregions, __ATOMIC_ACQUIRE))
        return;
    struct sigaction sa = {.sa_handler = regions_on_signal};
    sigemptyset(&sa.sa_mask);
    for (int k = 0; k < NREGION_SIGS; k++) {
        struct sigaction now;
        if (region_guarded[k] || sigaction(region_sigs[k], NULL, &now) || now.sa_handler != SIG_DFL)
            continue;
        region_guarded[k] = !sigaction(region_sigs[k], &sa, &region_prev[k]);
    }
}

void shmemt_ofi_regions_unguard(void) {
    __atomic_store_n(&nregions, 0, __ATOMIC_RELEASE); /* closed with their endpoints */
    free(__atomic_exchange_n(&shmemt_ofi_peer_pids, NULL, __ATOMIC_ACQ_REL));
    shmemt_ofi_npeer_pids = 0;
    for (int k = 0; k < NREGION_SIGS; k++) {
        struct sigaction now;
        if (region_guarded[k] && !sigaction(region_sigs[k], NULL, &now) && now.sa_handler == regions_on_signal)
            sigaction(region_sigs[k], &region_prev[k], NULL);
        region_guarded[k] = 0;
    }
}

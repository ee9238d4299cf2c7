/* local.c - the local bootstrap: a PE started by oshrun talks to it over the socket GSHMEM_BOOT_FD names; a program
 * started without a launcher runs as a singleton (PE 0 of 1).  Blocking I/O: the bootstrap is used only at start-up,
 * in finalize and on abort, never on a hot path. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/backend.h"
#include "core/env.h"

#include "bootstrap/local_proto.h"

#define ABORT_WAIT_MS 5000 /* how long an aborting PE waits for oshrun to kill it (oshrun escalates after 2 s) */
#define JOBID_MAX 40       /* leaves room in shmemb_info.jobid and in segment names */

static struct {
    int fd; /* -1: singleton, or not connected */
    int rank, size;
    int state; /* 0 before init, 1 up, 2 finalized */
    int singleton;
    pthread_mutex_t coll_lock; /* one collective at a time */
    pthread_mutex_t send_lock; /* whole messages on the wire; abort may come from another thread mid-collective */
    int *ranks;                /* 0..size-1: every PE of oshrun is on this machine */
    pid_t launcher;            /* oshrun's process */
    int pdeath_off;            /* oshrun's PR_SET_PDEATHSIG is off while the watch runs (shmem_init to finalize) */
} boot = {.fd = -1, .coll_lock = PTHREAD_MUTEX_INITIALIZER, .send_lock = PTHREAD_MUTEX_INITIALIZER};

static void local_abort(int code, const char *msg) __attribute__((noreturn));

static void __attribute__((noreturn)) lost_launcher(const char *what, int err) {
    char how[160];
    snprintf(how, sizeof how, "its connection to it broke while %s: %s", what,
             err ? strerror(err) : "connection closed");
    shmemb_launcher_gone(how);
}

/* Returns 0, or an errno value when the socket is broken. */
static int send_msg(uint32_t type, uint32_t arg, const void *body, size_t len) {
    struct boot_hdr h = {.type = type, .arg = arg, .len = len};
    struct iovec iov[2] = {{.iov_base = &h, .iov_len = sizeof h}, {.iov_base = (void *)body, .iov_len = len}};
    struct msghdr mh = {.msg_iov = iov, .msg_iovlen = len ? 2 : 1};
    while (mh.msg_iovlen > 0) {
        ssize_t n = sendmsg(boot.fd, &mh, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        while (mh.msg_iovlen > 0 && (size_t)n >= mh.msg_iov[0].iov_len) { /* short write: skip what went out */
            n -= (ssize_t)mh.msg_iov[0].iov_len;
            mh.msg_iov++;
            mh.msg_iovlen--;
        }
        if (mh.msg_iovlen > 0) {
            mh.msg_iov[0].iov_base = (char *)mh.msg_iov[0].iov_base + n;
            mh.msg_iov[0].iov_len -= (size_t)n;
        }
    }
    return 0;
}

static int recv_all(void *buf, size_t len) {
    char *p = buf;
    while (len > 0) {
        ssize_t n = read(boot.fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static void send_or_die(uint32_t type, uint32_t arg, const void *body, size_t len, const char *what) {
    pthread_mutex_lock(&boot.send_lock);
    int e = send_msg(type, arg, body, len);
    pthread_mutex_unlock(&boot.send_lock);
    if (e)
        lost_launcher(what, e);
}

/* Receives one message of `type` carrying exactly `len` bytes into buf. */
static void recv_or_die(uint32_t type, void *buf, size_t len, const char *what) {
    struct boot_hdr h;
    int e = recv_all(&h, sizeof h);
    if (e)
        lost_launcher(what, e > 0 ? e : 0);
    if (h.type != type || h.len != len) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "bootstrap protocol error while %s: oshrun sent type %u with %llu bytes, expected "
                 "type %u with %zu",
                 what, (unsigned)h.type, (unsigned long long)h.len, (unsigned)type, len);
        local_abort(1, msg);
    }
    e = recv_all(buf, len);
    if (e)
        lost_launcher(what, e > 0 ? e : 0);
}

static int jobid_ok(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > JOBID_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '-' || s[i] == '_' || s[i] == '.'))
            return 0;
    return 1;
}

static int init_singleton(struct shmemb_info *info) {
    static const int rank0 = 0;
    uint32_t rnd = 0;
    if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != sizeof rnd) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        rnd = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec;
    }
    boot.singleton = 1;
    boot.rank = 0;
    boot.size = 1;
    boot.state = 1;
    info->rank = 0;
    info->size = 1;
    snprintf(info->jobid, sizeof info->jobid, "s%d-%08x", (int)getpid(), rnd);
    info->name = "singleton";
    info->nlocal = 1;
    info->local_ranks = &rank0;
    return 0;
}

static int local_init(struct shmemb_info *info) {
    long fd = shmemi_env.boot_fd, rank = shmemi_env.boot_rank, size = shmemi_env.boot_size;
    const char *jobid = shmemi_env.boot_jobid ? shmemi_env.boot_jobid : "";

    if (boot.state != 0) {
        shmemb_say("gshmem: the bootstrap was started twice (shmem_init after shmem_finalize is not supported)");
        return -1;
    }
    if (fd < 0) {
        /* no launcher: a singleton, unless the environment says otherwise */
        if ((size < 0 || size == 1) && (rank == -1 || rank == 0))
            return init_singleton(info);
        if (size < 0)
            shmemb_say(
                "gshmem: GSHMEM_RANK=%ld is set but GSHMEM_SIZE and GSHMEM_BOOT_FD are not; start the program with "
                "oshrun, or unset GSHMEM_RANK",
                rank);
        else
            shmemb_say(
                "gshmem: GSHMEM_SIZE=%ld is set but GSHMEM_BOOT_FD is not, so this process cannot reach its launcher; "
                "start the program with 'oshrun -np N', or unset GSHMEM_SIZE and GSHMEM_RANK",
                size);
        return -1;
    }
    if (size < 1 || size > INT32_MAX) {
        shmemb_say(
            "gshmem: GSHMEM_BOOT_FD=%ld is set but GSHMEM_SIZE=%ld is not a number of PEs (1 or more); was the program "
            "started by oshrun?",
            fd, size);
        return -1;
    }
    if (rank < 0 || rank >= size) {
        shmemb_say(
            "gshmem: GSHMEM_RANK=%ld is out of range for GSHMEM_SIZE=%ld (0 <= GSHMEM_RANK < GSHMEM_SIZE); was the "
            "program started by oshrun?",
            rank, size);
        return -1;
    }
    if (!jobid_ok(jobid)) {
        shmemb_say(
            "gshmem: GSHMEM_JOBID='%s' is not a job id (1 to %d characters from A-Z a-z 0-9 - _ .); was the program "
            "started by oshrun?",
            jobid, JOBID_MAX);
        return -1;
    }
    struct stat st;
    if (fd > INT32_MAX || fstat((int)fd, &st) != 0 || !S_ISSOCK(st.st_mode)) {
        shmemb_say(
            "gshmem: GSHMEM_BOOT_FD=%ld is not an open socket: this process has oshrun's environment but not its "
            "connection (was it started by a PE rather than by oshrun?)",
            fd);
        return -1;
    }
    boot.ranks = malloc(sizeof *boot.ranks * (size_t)size);
    if (!boot.ranks) {
        shmemb_say("gshmem: out of memory for the list of %ld PEs", size);
        return -1;
    }
    for (long r = 0; r < size; r++)
        boot.ranks[r] = (int)r;
    boot.fd = (int)fd;
    boot.rank = (int)rank;
    boot.size = (int)size;
    /* the socketpair's other end is oshrun's: its credentials name oshrun's process, even when a wrapper (sh -c)
     * stands between it and this PE */
    struct ucred cred;
    socklen_t credlen = sizeof cred;
    pid_t launcher = getsockopt(boot.fd, SOL_SOCKET, SO_PEERCRED, &cred, &credlen) == 0 ? cred.pid : 0;
    boot.launcher = launcher;
    shmemb_watch_who(boot.rank, "oshrun", launcher);
    /* programs this PE starts must not inherit the connection; blocking I/O is what the code below expects */
    fcntl(boot.fd, F_SETFD, fcntl(boot.fd, F_GETFD) | FD_CLOEXEC);
    fcntl(boot.fd, F_SETFL, fcntl(boot.fd, F_GETFL) & ~O_NONBLOCK);

    int32_t hello[4] = {(int32_t)BOOT_PROTO_VERSION, boot.rank, boot.size, (int32_t)getpid()};
    pthread_mutex_lock(&boot.coll_lock);
    send_or_die(BOOT_HELLO, 0, hello, sizeof hello, "starting up");
    recv_or_die(BOOT_HELLO_OK, NULL, 0, "starting up");
    pthread_mutex_unlock(&boot.coll_lock);
    boot.state = 1;
    /* oshrun's SIGKILL at its death (for programs without gshmem) would come before the watch's line and cleanup */
    int sig = 0;
    if (shmemb_watch_start(boot.fd, launcher > 0 && getppid() == launcher) == 0 && launcher > 0 &&
        getppid() == launcher && prctl(PR_GET_PDEATHSIG, &sig) == 0 && sig == SIGKILL)
        boot.pdeath_off = prctl(PR_SET_PDEATHSIG, 0) == 0;
    info->rank = boot.rank;
    info->size = boot.size;
    snprintf(info->jobid, sizeof info->jobid, "%s", jobid);
    info->name = "local";
    info->nlocal = boot.size;
    info->local_ranks = boot.ranks;
    if (shmemi_env.debug)
        shmemb_say("gshmem: PE %d of %d: local bootstrap connected to oshrun, job %s", boot.rank, boot.size, jobid);
    return 0;
}

static int local_allgather(const void *in, void *out, size_t len) {
    if (boot.state != 1) {
        shmemb_say("gshmem: bootstrap allgather called %s",
                   boot.state == 0 ? "before shmem_init" : "after shmem_finalize");
        return -1;
    }
    if (boot.singleton) {
        if (len)
            memmove(out, in, len);
        return 0;
    }
    if (len > BOOT_MAX_BLOB) {
        shmemb_say("gshmem: bootstrap allgather of %zu bytes per PE exceeds the limit of %u", len, BOOT_MAX_BLOB);
        return -1;
    }
    pthread_mutex_lock(&boot.coll_lock);
    /* `in` may lie inside `out` (in place): it is sent before anything is received */
    send_or_die(BOOT_ALLGATHER, 0, in, len, "exchanging start-up data");
    recv_or_die(BOOT_ALLGATHER_REPLY, out, len * (size_t)boot.size, "exchanging start-up data");
    pthread_mutex_unlock(&boot.coll_lock);
    return 0;
}

static int local_barrier(void) { return local_allgather(NULL, NULL, 0); }

static int local_finalize(void) {
    if (boot.state != 1)
        return 0;
    boot.state = 2;
    if (boot.singleton)
        return 0;
    pthread_mutex_lock(&boot.coll_lock);
    pthread_mutex_lock(&boot.send_lock);
    (void)send_msg(BOOT_FINALIZE, 0, NULL, 0); /* if oshrun is gone there is nobody to tell */
    close(boot.fd);
    boot.fd = -1;
    pthread_mutex_unlock(&boot.send_lock);
    pthread_mutex_unlock(&boot.coll_lock);
    if (boot.pdeath_off) { /* the watch has stopped: a PE that runs on past finalize still ends with oshrun */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != boot.launcher) /* (it ended meanwhile: what the signal would have done) */
            raise(SIGKILL);
    }
    return 0;
}

/* type: ABORT, or EXIT (oshrun lets the other PEs settle first) */
static void __attribute__((noreturn)) end_job(uint32_t type, int code, const char *msg) {
    size_t len = msg ? strnlen(msg, BOOT_MAX_ABORT_MSG - 1) : 0;
    int told = 0;
    if (boot.state == 1 && !boot.singleton) {
        /* another thread may hold the lock while blocked in a collective: the lock only guards whole messages, so
         * waiting for it is short; do not wait forever if that thread is stuck mid-message */
        struct timespec dl;
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_sec += 1;
        int locked = pthread_mutex_timedlock(&boot.send_lock, &dl) == 0;
        told = send_msg(type, (uint32_t)code, msg, len) == 0;
        if (locked)
            pthread_mutex_unlock(&boot.send_lock);
    }
    if (!told) {
        if (len)
            shmemb_say("gshmem: PE %d: %.*s", boot.rank, (int)len, msg);
        _exit(code);
    }
    /* oshrun prints the message and kills every PE, this one included; wait for that so all PEs end together */
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        long waited = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
        if (waited >= ABORT_WAIT_MS)
            break;
        struct pollfd pf = {.fd = boot.fd, .events = POLLIN};
        int rc = poll(&pf, 1, (int)(ABORT_WAIT_MS - waited));
        if (rc > 0) {
            char c;
            if (read(boot.fd, &c, 1) == 0)
                break; /* oshrun is gone */
        }
    }
    _exit(code);
}

static void local_abort(int code, const char *msg) { end_job(BOOT_ABORT, code, msg); }

static void __attribute__((noreturn)) local_exit_abort(int code, const char *msg) { end_job(BOOT_EXIT, code, msg); }

const struct shmemb_ops shmemb_local_ops = {
    .name = "local",
    .available = 1,
    .init = local_init,
    .allgather = local_allgather,
    .barrier = local_barrier,
    .finalize = local_finalize,
    .abort = local_abort,
    .exit_abort = local_exit_abort,
};

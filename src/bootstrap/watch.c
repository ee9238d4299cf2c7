/* watch.c - a PE ends itself when its launcher is gone (killed, crashed), instead of running on with parent 1: a thread
 * sleeps in poll() on what ends with the launcher and, when it does, says so in one line and exits after cleanup. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bootstrap/backend.h"

#define PID_POLL_MS 1000 /* without pidfds (Linux < 5.3): how often the launcher's process is looked at */

/* What is watched: a pidfd of the launcher's process (readable once it has ended) and the launcher's end of a
 * connection (closed by the kernel when it dies). Without pidfds, once a second: whether this process's parent
 * changed, where the launcher is the parent, else, once the connection closed, whether the launcher's process ended.
 * While the launcher lives the thread never wakes (with pidfds). */
static struct {
    pthread_t thread;
    int running;
    int stop[2];  /* written by shmemb_watch_stop */
    int fd;       /* the launcher's connection, -1: none (or its launcher closed it on purpose) */
    int pidfd;    /* -1: none */
    pid_t pid;    /* the launcher's process */
    pid_t ppid;   /* the parent to look at without a pidfd, 0: none */
    int pid_poll; /* no pidfd, not the parent, and the connection closed: look at the process once a second */
    int rank;
    char name[32];
    int quiet;     /* leaving on purpose (finalize, abort): the launcher may end first, and that is fine */
    int gone_once; /* one line, one exit, however many signs come at once */
    void (*cleanup)(void);
} w = {.stop = {-1, -1}, .fd = -1, .pidfd = -1};

void shmemb_watch_cleanup(void (*cleanup)(void)) { __atomic_store_n(&w.cleanup, cleanup, __ATOMIC_RELEASE); }

void shmemb_watch_quiet(void) { __atomic_store_n(&w.quiet, 1, __ATOMIC_RELEASE); }

int shmemb_watch_is_quiet(void) { return __atomic_load_n(&w.quiet, __ATOMIC_ACQUIRE); }

/* ESRCH, or a zombie waiting to be reaped: it will never answer again (comm/liveness.c asks the same of PEs) */
static int process_ended(pid_t pid) {
    if (pid <= 0)
        return 0;
    if (kill(pid, 0) && errno == ESRCH)
        return 1;
    char path[48], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')'); /* the command name may hold anything: the state follows the last ')' */
    return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

void shmemb_launcher_gone(const char *how) {
    if (__atomic_exchange_n(&w.gone_once, 1, __ATOMIC_ACQ_REL)) {
        for (;;) /* another thread is already on its way out */
            pause();
    }
    /* first the cleanup: with the launcher gone its pipes are too, and a PE's stderr may be one of them */
    void (*cleanup)(void) = __atomic_load_n(&w.cleanup, __ATOMIC_ACQUIRE);
    if (cleanup)
        cleanup();
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, NULL);
    char who[64];
    if (w.pid > 0)
        snprintf(who, sizeof who, "%s (pid %d)", w.name[0] ? w.name : "process", (int)w.pid);
    else
        snprintf(who, sizeof who, "%s", w.name[0] ? w.name : "process");
    shmemb_say("gshmem: PE %d: its launcher %s is gone (%s); this PE ends too, with exit status 1", w.rank, who, how);
    _exit(1);
}

static void *watch_main(void *arg) {
    (void)arg;
    for (;;) {
        struct pollfd pf[3] = {{.fd = w.stop[0], .events = POLLIN}};
        nfds_t n = 1;
        int ifd = -1, ipid = -1;
        if (w.fd >= 0) {
            ifd = (int)n;
            pf[n++] = (struct pollfd){.fd = w.fd, .events = POLLRDHUP};
        }
        if (w.pidfd >= 0) {
            ipid = (int)n;
            pf[n++] = (struct pollfd){.fd = w.pidfd, .events = POLLIN};
        }
        int tmo = w.pidfd < 0 && (w.ppid > 0 || w.pid_poll) ? PID_POLL_MS : -1;
        if (n == 1 && tmo < 0)
            return NULL; /* nothing left to watch */
        int rc = poll(pf, n, tmo);
        if (rc < 0 && errno != EINTR)
            return NULL;
        if (pf[0].revents || __atomic_load_n(&w.quiet, __ATOMIC_ACQUIRE))
            return NULL;
        if (ipid >= 0 && (pf[ipid].revents & (POLLIN | POLLHUP | POLLERR)))
            shmemb_launcher_gone("its process ended");
        if (ifd >= 0 && (pf[ifd].revents & (POLLRDHUP | POLLHUP | POLLERR))) {
            /* The kernel closes a dying process's files before it becomes a zombie, and a living launcher closes a
             * connection itself when it ends the job (and this PE with it): the process decides, not the socket. */
            w.fd = -1;
            w.pid_poll = w.pidfd < 0 && w.ppid <= 0;
        }
        if (w.pidfd < 0 && w.ppid > 0 && getppid() != w.ppid)
            shmemb_launcher_gone("this PE's parent process ended");
        if (w.pid_poll && process_ended(w.pid))
            shmemb_launcher_gone("the connection to it closed, and its process ended");
    }
}

void shmemb_watch_who(int rank, const char *name, pid_t pid) {
    w.rank = rank;
    w.pid = pid;
    snprintf(w.name, sizeof w.name, "%s", name ? name : "");
}

int shmemb_watch_start(int fd, int parent) {
    pid_t pid = w.pid;
    w.fd = fd;
    w.ppid = parent && pid > 1 && getppid() == pid ? pid : 0;
#ifdef SYS_pidfd_open
    if (pid > 1)
        w.pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
    if ((parent && pid > 1 && getppid() != pid) || (pid > 1 && process_ended(pid)))
        shmemb_launcher_gone("before this PE started watching it");
    if (w.fd < 0 && w.pidfd < 0 && w.ppid <= 0)
        return -1; /* nothing to watch (the launcher is not this process's parent, and no pidfd) */
    if (pipe2(w.stop, O_CLOEXEC))
        goto err_pipe;
    /* the thread takes none of the program's signals (they stay the program's to handle) */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int e = pthread_create(&w.thread, NULL, watch_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (e)
        goto err_thread;
    pthread_setname_np(w.thread, "gshmem-watch");
    w.running = 1;
    return 0;

err_thread:
    close(w.stop[0]);
    close(w.stop[1]);
    w.stop[0] = w.stop[1] = -1;
err_pipe:
    if (w.pidfd >= 0)
        close(w.pidfd);
    w.pidfd = -1;
    return -1;
}

void shmemb_watch_stop(void) {
    shmemb_watch_quiet();
    if (!w.running)
        return;
    w.running = 0;
    char c = 1;
    ssize_t n = write(w.stop[1], &c, 1);
    (void)n;
    pthread_join(w.thread, NULL);
    close(w.stop[0]);
    close(w.stop[1]);
    w.stop[0] = w.stop[1] = -1;
    if (w.pidfd >= 0)
        close(w.pidfd);
    w.pidfd = -1;
    w.fd = -1;
}

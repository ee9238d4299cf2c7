/* signals_kept.c - shmem_init leaves the program's signal handlers alone: handlers installed before it are still
 * there after it (and run), and signals left at their default keep its effect, over every transport. (Debian's
 * libfabric loads libinfinipath, whose constructor installs handlers of its own for SIGSEGV, SIGINT, SIGTERM and
 * others, which call exit().) A signal whose default ends the process may get the library's clean-up handler (it
 * removes the libfabric shm provider's /dev/shm regions, then re-raises): a forked child raising it must still die
 * of it. */
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ftest.h"

/* whether the default action of sig is to end the process */
static int ends_process(int sig) {
    switch (sig) {
    case SIGCHLD:
    case SIGCONT:
    case SIGURG:
    case SIGWINCH:
    case SIGSTOP:
    case SIGTSTP:
    case SIGTTIN:
    case SIGTTOU: return 0;
    default: return 1;
    }
}

/* a child of this process raising sig dies of it */
static int dies_of(int sig) {
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        raise(sig);
        _exit(0);
    }
    int st;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == sig;
}

static volatile sig_atomic_t got_term, got_int;
static void on_term(int sig) { got_term = sig; }
static void on_int(int sig) { got_int = sig; }

int main(void) {
    struct sigaction before[32], act;
    memset(&act, 0, sizeof act);
    act.sa_handler = on_term;
    sigaction(SIGTERM, &act, NULL);
    act.sa_handler = on_int;
    sigaction(SIGINT, &act, NULL);
    for (int sig = 1; sig < 32; sig++)
        if (sigaction(sig, NULL, &before[sig]))
            before[sig].sa_handler = SIG_ERR;

    shmem_init();
    for (int sig = 1; sig < 32; sig++) {
        struct sigaction now;
        if (before[sig].sa_handler == SIG_ERR || sigaction(sig, NULL, &now) || now.sa_handler == before[sig].sa_handler)
            continue;
        if (before[sig].sa_handler == SIG_DFL && ends_process(sig)) {
            CHECK(dies_of(sig), "signal %d (%s): at its default before shmem_init, it no longer ends the process", sig,
                  strsignal(sig));
            continue;
        }
        CHECK(now.sa_handler == before[sig].sa_handler,
              "signal %d (%s): its handler changed in shmem_init (%p, was %p)", sig, strsignal(sig),
              (void *)now.sa_handler, (void *)before[sig].sa_handler);
    }
    /* the program's own handlers still run */
    raise(SIGTERM);
    raise(SIGINT);
    CHECK(got_term == SIGTERM, "SIGTERM did not reach the program's handler");
    CHECK(got_int == SIGINT, "SIGINT did not reach the program's handler");
    return ftest_finish("signals_kept");
}

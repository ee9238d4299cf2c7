/* signals_kept.c - shmem_init leaves the program's signal handlers alone: handlers installed before it are still
 * there after it (and run), and signals left at their default stay so, over every transport. (Debian's libfabric
 * loads libinfinipath, whose constructor installs handlers of its own for SIGSEGV, SIGINT, SIGTERM and others.) */
#include <signal.h>

#include "ftest.h"

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
        if (before[sig].sa_handler == SIG_ERR || sigaction(sig, NULL, &now))
            continue;
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

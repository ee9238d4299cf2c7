/* test_emu_stacks.c - the stacks of the emulated GPU's threads (src/device/emu/stacks.c): 32 resident blocks of 1024
 * threads take a bounded number of mappings, guards fault, stacks are reused, and where vm.max_map_count leaves too
 * few (guards by mprotect, as before Linux 6.13) a block waits for running blocks' stacks, or, if it could never
 * fit, the job ends naming vm.max_map_count. Each case runs in a process of its own (the pool is set up once). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "device/emu/emu.h"

static long count_maps(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    long n = 0;
    int c;
    if (!f)
        return -1;
    while ((c = getc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        printf("FAIL: " __VA_ARGS__);                                                                                  \
        printf("\n");                                                                                                  \
        fflush(stdout);                                                                                                \
        _exit(1);                                                                                                      \
    } while (0)

static char *held[40 * 1024];

/* 32 blocks of 1024 threads at once, each stack touched at both ends: few mappings with lightweight guards */
static void case_resident(void) {
    shmemi_emu_stacks_setup(1, 0);
    long before = count_maps();
    size_t len = shmemi_emu_stack_len(), pg = (size_t)sysconf(_SC_PAGESIZE);
    for (int b = 0; b < 32; b++)
        shmemi_emu_stacks_take(1024, held + b * 1024);
    for (int i = 0; i < 32 * 1024; i++) {
        held[i][pg] = 1;
        held[i][len - 1] = 1;
    }
    long during = count_maps();
    printf("  32 x 1024 stacks of %zu bytes: %ld mappings more\n", len, during - before);
    if (during - before > 32 * 1024 / 16)
        FAIL("32 x 1024 resident stacks took %ld mappings", during - before);
    for (int b = 0; b < 32; b++)
        shmemi_emu_stacks_give(1024, held + b * 1024);
    /* given back, they are handed out again: no new mappings */
    shmemi_emu_stacks_take(1024, held);
    if (count_maps() != during)
        FAIL("a block after 32 others mapped again: %ld mappings, %ld before", count_maps(), during);
}

/* the lowest page of a stack faults */
static void case_guard(int light) {
    shmemi_emu_stacks_setup(light, 0);
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    signal(SIGSEGV, SIG_DFL); /* the fault ends the process (under AddressSanitizer its handler would exit 1) */
    shmemi_emu_stacks_take(2, held);
    held[1][pg] = 1;     /* the stack's last byte before its guard: writable */
    held[1][pg - 1] = 1; /* its guard */
    FAIL("writing a stack's guard page did not fault");
}

static volatile int taken;
static void *late_block(void *arg) {
    (void)arg;
    shmemi_emu_stacks_take(1024, held + 1024);
    taken = 1;
    return NULL;
}

/* guards by mprotect (two mappings a stack) under a small vm.max_map_count: room for one block of 1024 at a time */
static void case_budget(void) {
    long now = count_maps();
    shmemi_emu_stacks_setup(0, now + 4000);
    unsigned fit = shmemi_emu_stacks_blocks(1);
    printf("  vm.max_map_count %ld (%ld in use): %u stacks guarded by mprotect\n", now + 4000, now, fit);
    if (fit < 1024 || fit >= 2048)
        FAIL("%u stacks fit, expected room for one block of 1024 and not two", fit);
    shmemi_emu_stacks_take(1024, held);
    long during = count_maps();
    if (during > now + 4000 - 100)
        FAIL("1024 stacks left %ld of vm.max_map_count's %ld mappings", now + 4000 - during, now + 4000);
    pthread_t t;
    pthread_create(&t, NULL, late_block, NULL);
    struct timespec ts = {0, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
    if (taken)
        FAIL("a second block of 1024 got stacks while the first held all there is room for");
    shmemi_emu_stacks_give(1024, held);
    pthread_join(t, NULL);
    if (!taken)
        FAIL("the second block did not get the first one's stacks");
    /* the second block reuses the first one's stacks and maps at most the rest of the room (the slack: the allocator's
     * and the second thread's own mappings, about 50 more under AddressSanitizer) */
    if (count_maps() - now > 2 * (long)fit + 128)
        FAIL("%ld mappings more for %u stacks", count_maps() - now, fit);
}

/* a block that could never fit */
static void case_too_big(void) {
    shmemi_emu_stacks_setup(0, count_maps() + 1000);
    shmemi_emu_stacks_take(1024, held);
    FAIL("a block of 1024 threads got stacks under vm.max_map_count = in use + 1000");
}

/* runs a case in a child: its exit status, and its stderr in err */
static int run(void (*fn)(void), int arg, void (*fn1)(int), char *err, size_t errlen) {
    int p[2];
    if (pipe(p))
        return -1;
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        dup2(p[1], 2);
        close(p[0]);
        if (fn)
            fn();
        else
            fn1(arg);
        fflush(stdout);
        _exit(0);
    }
    close(p[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < errlen && (r = read(p[0], err + n, errlen - 1 - n)) > 0)
        n += (size_t)r;
    err[n] = 0;
    close(p[0]);
    int st = 0;
    waitpid(c, &st, 0);
    return st;
}

int main(void) {
    char err[2048];
    int fails = 0, st;
    static const char *names[] = {"mprotect", "lightweight"};

    /* lightweight guards: where Linux has them (6.13) */
    int light = shmemi_emu_stacks_light();
    printf("lightweight guard pages (MADV_GUARD_INSTALL): %s\n", light ? "yes" : "no, guards by mprotect");
    if (light) {
        st = run(case_resident, 0, NULL, err, sizeof err);
        if (!WIFEXITED(st) || WEXITSTATUS(st)) {
            printf("FAIL: resident stacks (status %#x) %s\n", st, err);
            fails++;
        } else
            printf("ok: 32 resident blocks of 1024 threads\n");
    }
    for (int l = 0; l <= light; l++) {
        st = run(NULL, l, case_guard, err, sizeof err);
        if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSEGV) {
            printf("FAIL: guards by %s: a write to a guard page did not fault (status %#x)\n", names[l], st);
            fails++;
        } else
            printf("ok: guards by %s fault\n", names[l]);
    }
    st = run(case_budget, 0, NULL, err, sizeof err);
    if (!WIFEXITED(st) || WEXITSTATUS(st)) {
        printf("FAIL: a block waits for stacks (status %#x) %s\n", st, err);
        fails++;
    } else
        printf("ok: under a small vm.max_map_count a block waits for another's stacks\n");
    st = run(case_too_big, 0, NULL, err, sizeof err);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 1 ||
        !strstr(err, "a block of 1024 threads needs a stack for each, and this process may map only") ||
        !strstr(err, "is too low (each stack costs two mappings") ||
        !strstr(err, "raise it (sysctl -w vm.max_map_count=N)")) {
        printf("FAIL: a block that never fits: status %#x, message: %s\n", st, err);
        fails++;
    } else
        printf("ok: a block that never fits: %s", err);
    printf("test_emu_stacks: %s\n", fails ? "FAILED" : "passed");
    return fails != 0;
}

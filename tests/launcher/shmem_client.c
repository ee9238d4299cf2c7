/* shmem_client.c - the launcher scenarios of boot_client through the public API, against the whole library:
 * shmem_init, barriers, a put around the ring, shmem_global_exit, crashes after init.  Usage: shmem_client MODE [PE
 * [CODE]] */
#include <fcntl.h>
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static long env_long(const char *name) {
    size_t n = strlen(name);
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return strtol(*e + n + 1, NULL, 10);
    return -1;
}
static const char *env_str(const char *name) {
    size_t n = strlen(name);
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return *e + n + 1;
    return "none";
}

static int ring_dest;
static long flag;

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "ok";
    int target = argc > 2 ? atoi(argv[2]) : 1;
    int code = argc > 3 ? atoi(argv[3]) : 7;

    if (!strcmp(mode, "noinit-exit") && env_long("GSHMEM_RANK") == target)
        return 0;

    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    printf("PE %d of %d pid %d job %s backend api\n", me, n, (int)getpid(), env_str("GSHMEM_JOBID"));
    fflush(stdout);

    if (!strcmp(mode, "ok")) {
        int *buf = shmem_malloc(sizeof(int) * 1024);
        for (int it = 0; it < 50; it++) {
            shmem_int_p(&ring_dest, me * 1000 + it, (me + 1) % n);
            shmem_barrier_all();
            int want = ((me + n - 1) % n) * 1000 + it;
            if (ring_dest != want) {
                fprintf(stderr, "shmem_client: PE %d got %d, expected %d\n", me, ring_dest, want);
                return 3;
            }
            shmem_barrier_all();
        }
        shmem_free(buf);
        shmem_finalize();
        printf("PE %d done\n", me);
        return 0;
    }
    if (!strcmp(mode, "stopped-peer")) {
        /* target stops itself for `code` seconds (SIGSTOP, as a debugger holds a process) while PE 0 waits for its
         * signal, and a process PE 0 forks continues it: a PE held on this machine is not a lost one, however long
         * it stays silent, so the job ends normally */
        static int pid;
        static uint64_t sig;
        pid = (int)getpid();
        shmem_barrier_all();
        if (me == 0) {
            int tpid = shmem_int_g(&pid, target);
            pid_t helper = fork();
            if (helper == 0) {
                sleep((unsigned)code);
                kill(tpid, SIGCONT);
                _exit(0);
            }
            if (helper < 0)
                shmem_global_exit(3);
        }
        shmem_barrier_all();
        if (me == target) {
            raise(SIGSTOP);
            shmem_signal_set(&sig, 1, 0);
        }
        if (me == 0)
            shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
        shmem_finalize();
        printf("PE %d done\n", me);
        return 0;
    }
    shmem_barrier_all();
    if (!strcmp(mode, "last-words")) {
        /* the target fails at once (argv[4] tells the others when); the others print a line a moment later, on
         * their own way out: buffered stdout, flushed at exit */
        const char *file = argc > 4 ? argv[4] : "/nonexistent";
        if (me == target) {
            close(open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
            return code;
        }
        while (access(file, F_OK))
            usleep(10000);
        usleep(100000);
        printf("PE %d: last words\n", me);
        return 1;
    }
    if (me == target) {
        if (!strcmp(mode, "abort"))
            shmem_global_exit(code);
        if (!strcmp(mode, "segv")) {
            /* A sanitizer's handler (SA_SIGINFO) would turn the crash into exit(1): the default action instead. The
             * library's own (it removes the libfabric shm provider's regions, then re-raises) stays. */
            struct sigaction now;
            if (!sigaction(SIGSEGV, NULL, &now) && (now.sa_flags & SA_SIGINFO))
                signal(SIGSEGV, SIG_DFL);
            raise(SIGSEGV);
        }
        if (!strcmp(mode, "shmleak"))
            raise(SIGKILL);
        if (!strcmp(mode, "exit0"))
            _exit(0);
        if (!strcmp(mode, "exit5"))
            _exit(5);
        if (!strcmp(mode, "misuse"))
            shmem_int_p(&ring_dest, 1, n + 5); /* PE out of range: the library aborts */
        /* leaving early: the others are in a barrier, a wait or a collective that needed this PE */
        if (!strcmp(mode, "exit0-barrier") || !strcmp(mode, "exit0-wait"))
            exit(0);
        if (!strcmp(mode, "exit1-wait"))
            exit(1);
        if (!strcmp(mode, "_exit0-coll"))
            _exit(0);
    }
    if (!strcmp(mode, "exit0-wait") || !strcmp(mode, "exit1-wait")) {
        shmem_long_wait_until(&flag, SHMEM_CMP_NE, 0); /* the leaver was to set it */
        return 4;
    }
    if (!strcmp(mode, "_exit0-coll")) {
        static long src = 1, dst;
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &dst, &src, 1);
        return 4;
    }
    if (!strcmp(mode, "return-after-barrier")) {
        /* the last barrier, then the target returns from main (implicit finalize) while the others still work and
         * even write to it before their own shmem_finalize: the job ends normally */
        shmem_barrier_all();
        if (me == target)
            return 0;
        usleep(300000);
        shmem_long_p(&flag, me, target);
        shmem_quiet();
        shmem_finalize();
        printf("PE %d done\n", me);
        return 0;
    }
    if (!strcmp(mode, "hang"))
        for (;;)
            pause();
    if (!strcmp(mode, "finalize-hang")) { /* a PE that runs on past shmem_finalize */
        shmem_finalize();
        for (;;)
            pause();
    }
    if (!strcmp(mode, "orphan")) {
        /* the launcher is killed meanwhile: PE 0 computes, the target waits on a flag nobody sets, the others wait in
         * a barrier; none of them calls the library again by itself */
        if (me == 0 && me != target) {
            volatile unsigned long spin = 0;
            for (;;)
                spin++;
        }
        if (me == target)
            shmem_long_wait_until(&flag, SHMEM_CMP_NE, 0);
    }
    shmem_barrier_all(); /* the others wait here until oshrun tears them down */
    shmem_finalize();
    return 0;
}

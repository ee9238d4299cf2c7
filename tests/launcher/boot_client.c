/* boot_client.c - drives the local bootstrap (src/bootstrap/local.c, compiled in) without the rest of the library,
 * so oshrun's protocol, failure handling and cleanup are tested on their own.  Usage: boot_client MODE [PE [CODE]] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "core/env.h"

/* the library's env.c is not linked in: fill the fields the bootstrap reads from the environment here */
struct shmemi_env shmemi_env;
extern char **environ;

static const char *env(const char *name) {
    size_t n = strlen(name);
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}
static long env_long(const char *name) {
    const char *v = env(name);
    return v ? strtol(v, NULL, 10) : -1;
}

static int check(int cond, const char *what) {
    if (!cond) {
        fprintf(stderr, "boot_client: check failed: %s\n", what);
        exit(3);
    }
    return 0;
}

/* allgathers of several sizes, rank-specific contents, in place and not */
static void exchange(struct shmemb_info *in) {
    static const size_t sizes[] = {0, 1, 7, 64, 4096, 1 << 20};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t len = sizes[k];
        unsigned char *mine = malloc(len + 1), *all = malloc(len * (size_t)in->size + 1);
        for (size_t i = 0; i < len; i++)
            mine[i] = (unsigned char)(in->rank * 31 + i);
        check(shmemb_allgather(mine, all, len) == 0, "allgather returns 0");
        for (int r = 0; r < in->size; r++)
            for (size_t i = 0; i < len; i++)
                check(all[(size_t)r * len + i] == (unsigned char)(r * 31 + i), "allgather data");
        /* in place: my contribution already sits in my slot */
        memset(all, 0, len * (size_t)in->size);
        for (size_t i = 0; i < len; i++)
            all[(size_t)in->rank * len + i] = (unsigned char)(in->rank * 31 + i);
        check(shmemb_allgather(all + (size_t)in->rank * len, all, len) == 0, "in-place allgather returns 0");
        for (int r = 0; r < in->size; r++)
            for (size_t i = 0; i < len; i++)
                check(all[(size_t)r * len + i] == (unsigned char)(r * 31 + i), "in-place data");
        free(mine);
        free(all);
    }
    for (int i = 0; i < 200; i++)
        check(shmemb_barrier() == 0, "barrier returns 0");
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "ok";
    int target = argc > 2 ? atoi(argv[2]) : 1;
    int code = argc > 3 ? atoi(argv[3]) : 7;
    shmemi_env.boot_fd = env_long("GSHMEM_BOOT_FD");
    shmemi_env.boot_rank = env_long("GSHMEM_RANK");
    shmemi_env.boot_size = env_long("GSHMEM_SIZE");
    shmemi_env.boot_jobid = env("GSHMEM_JOBID") ? env("GSHMEM_JOBID") : "";
    shmemi_env.bootstrap = env("SHMEM_BOOTSTRAP"); /* NULL: auto */

    if (!strcmp(mode, "noinit-exit") && shmemi_env.boot_rank == target)
        return 0; /* leaves before "shmem_init" */

    struct shmemb_info info;
    if (shmemb_init(&info))
        return 1;
    printf("PE %d of %d pid %d job %s backend %s nlocal %d\n", info.rank, info.size, (int)getpid(), info.jobid,
           info.name, info.nlocal);
    fflush(stdout);
    check(info.rank >= 0 && info.rank < info.size, "rank in range");
    check(info.nlocal >= 1 && info.nlocal <= info.size && info.local_ranks != NULL, "nlocal in 1..size");
    int self = 0;
    for (int i = 0; i < info.nlocal; i++) {
        check(info.local_ranks[i] >= 0 && info.local_ranks[i] < info.size, "local rank in range");
        check(i == 0 || info.local_ranks[i] > info.local_ranks[i - 1], "local ranks ascending");
        self |= info.local_ranks[i] == info.rank;
    }
    check(self, "local ranks include this PE");

    if (!strcmp(mode, "ok") || !strcmp(mode, "singleton")) {
        exchange(&info);
        check(shmemb_finalize() == 0, "finalize returns 0");
        printf("PE %d done\n", info.rank);
        return 0;
    }
    check(shmemb_barrier() == 0, "barrier");
    if (!strcmp(mode, "shmleak") && info.rank == target) {
        /* what a PE killed half-way through creating its segments leaves behind */
        char path[128];
        snprintf(path, sizeof path, "/dev/shm/gshmem-%s-%d-heap", info.jobid, info.rank);
        FILE *f = fopen(path, "w");
        check(f != NULL, "create /dev/shm file");
        fclose(f);
        raise(SIGKILL);
    }
    if (info.rank == target) {
        if (!strcmp(mode, "abort"))
            shmemb_abort(code, NULL);
        if (!strcmp(mode, "abortmsg"))
            shmemb_abort(code, "boot_client: this PE found a fatal problem");
        if (!strcmp(mode, "segv")) {
            signal(SIGSEGV, SIG_DFL); /* a sanitizer would turn the crash into exit(1) */
            raise(SIGSEGV);
        }
        if (!strcmp(mode, "exit0"))
            _exit(0);
        if (!strcmp(mode, "exit5"))
            _exit(5);
        if (!strcmp(mode, "finalize-early")) {
            shmemb_finalize();
            return 0;
        }
    }
    if (!strcmp(mode, "nested") && info.rank == 0) {
        /* a program this PE starts inherits the environment but must not inherit the connection */
        char cmd[4200];
        snprintf(cmd, sizeof cmd,
                 "if [ -e /proc/$$/fd/%ld ]; then echo 'boot fd leaked'; else echo 'boot fd closed'; fi; exec '%s' ok",
                 shmemi_env.boot_fd, argv[0]);
        int st = system(cmd);
        printf("nested status %d\n", st);
        fflush(stdout);
    }
    if (!strcmp(mode, "hang")) {
        for (;;)
            pause();
    }
    shmemb_barrier(); /* the other PEs wait here until oshrun tears them down */
    shmemb_finalize();
    return 0;
}

/* tcp-floor.c - the loopback floor under a libfabric provider that runs over TCP sockets (tcp, net): one process
 * streams 1 MiB writes to another over 127.0.0.1, each pinned to its own CPU, as a 2-PE job is. Prints GB/s. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)

static void pin(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    if (sched_setaffinity(0, sizeof s, &s))
        perror("tcp-floor: sched_setaffinity (running unpinned)");
}

static int send_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

int main(int argc, char **argv) {
    long mib = argc > 1 ? atol(argv[1]) : 4096; /* MiB sent, in 1 MiB writes */
    int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    char *buf = malloc(MIB);
    if (!buf || mib <= 0)
        return 2;
    memset(buf, 1, MIB); /* (touched first, as a program's source buffer is) */
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) || getsockname(ls, (struct sockaddr *)&a, &al) ||
        listen(ls, 1)) {
        perror("tcp-floor: listen");
        return 1;
    }
    pid_t child = fork();
    if (child == 0) { /* the receiver, like the target PE: reads all, then answers one byte */
        pin(cpus > 1 ? 1 : 0);
        int c = accept(ls, NULL, NULL);
        size_t got = 0, want = (size_t)mib * MIB;
        while (c >= 0 && got < want) {
            ssize_t k = read(c, buf, MIB);
            if (k <= 0)
                _exit(1);
            got += (size_t)k;
        }
        _exit(c >= 0 && send_all(c, "x", 1) == 0 ? 0 : 1);
    }
    pin(0);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a)) {
        perror("tcp-floor: connect");
        return 1;
    }
    struct timespec t0, t1;
    char ack;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < mib; i++)
        if (send_all(s, buf, MIB))
            return 1;
    if (read(s, &ack, 1) != 1)
        return 1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    int st = 0;
    waitpid(child, &st, 0);
    double sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    printf("tcp-floor 1048576 %.3f GB/s\n", (double)mib * (double)MIB / sec / 1e9);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

/* lost_peer.c - run by lost_peer.sh under run_netns.sh (2 PEs, one per namespace): after a barrier, the PE of
 * namespace 1 takes the veth down for good and every PE waits in shmem_signal_wait_until for a signal that can no
 * longer come. Each wait must end with a message naming the PE on the other side of the link (issue 40, item 3).
 * Usage: lost_peer IP (the ip program, run as "IP link set dev $GSH_NETNS_IFACE down"). */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t sig;
static long go;

int main(int argc, char **argv) {
    const char *iface = getenv("GSH_NETNS_IFACE");
    if (argc != 2 || !iface) {
        fprintf(stderr, "lost_peer: run me as lost_peer IP under run_netns.sh\n");
        return 2;
    }
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n != 2) {
        fprintf(stderr, "lost_peer: needs 2 PEs (one per namespace), not %d\n", n);
        shmem_global_exit(2);
    }
    /* The link goes once PE 0 is past everything that needs an answer from PE 1 (the barrier, the quiet: it reads
     * back from PE 1), so that PE 0 waits in shmem_signal_wait_until with nothing in flight, connections up both
     * ways, as in a job that has run a while: its last put (go = 2) needs no answer */
    shmem_barrier_all();
    if (me == 0) {
        shmem_long_p(&go, 1, 1);
        shmem_quiet();
        shmem_long_p(&go, 2, 1);
    } else {
        shmem_long_wait_until(&go, SHMEM_CMP_EQ, 2);
        pid_t p = fork();
        if (p == 0) {
            execl(argv[1], argv[1], "link", "set", "dev", iface, "down", (char *)NULL);
            _exit(127);
        }
        int st = -1;
        if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st)) {
            fprintf(stderr, "lost_peer: '%s link set dev %s down' failed (status %d)\n", argv[1], iface, st);
            shmem_global_exit(4);
        }
    }
    printf("PE %d waits\n", me);
    fflush(stdout);
    shmem_signal_wait_until(&sig, SHMEM_CMP_NE, 0);
    printf("PE %d: a signal came, from nowhere\n", me);
    shmem_finalize();
    return 5;
}

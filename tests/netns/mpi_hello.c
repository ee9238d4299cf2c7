/* Smoke test for run_netns.sh that needs only MPI: every rank reports where it runs, rank 0 exchanges a small and a
 * 1 MiB message with every other rank and checks the data, and an allreduce checks that the ranks saw at least two
 * different hostnames when GSH_NETNS_PRIVATE=1 (run_netns.sh gives each namespace its own hostname unless
 * --shared-shm). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BIG (1 << 20)

int main(int argc, char **argv) {
    int rank, size, errors = 0;
    char host[256] = "";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gethostname(host, sizeof host - 1);
    printf("rank %d/%d on %s (GSH_NETNS_NS0=%s)\n", rank, size, host,
           getenv("GSH_NETNS_NS0") ? getenv("GSH_NETNS_NS0") : "unset");
    fflush(stdout);

    unsigned char *buf = malloc(BIG);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int peer = 1; peer < size; peer++) {
        if (rank == 0) {
            int v = 1000 + peer, back = -1;
            MPI_Send(&v, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
            MPI_Recv(&back, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (back != v + 1) {
                fprintf(stderr, "rank 0: bad reply %d from %d (expected %d)\n", back, peer, v + 1);
                errors++;
            }
            MPI_Recv(buf, BIG, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < BIG; i++)
                if (buf[i] != (unsigned char)(i * 7 + peer)) {
                    fprintf(stderr, "rank 0: byte %d from %d is %u\n", i, peer, buf[i]);
                    errors++;
                    break;
                }
        } else if (rank == peer) {
            int v;
            MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            v++;
            MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
            for (int i = 0; i < BIG; i++)
                buf[i] = (unsigned char)(i * 7 + peer);
            MPI_Send(buf, BIG, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
        }
    }
    free(buf);

    /* count distinct hostnames: compare with rank 0's */
    char host0[256];
    memcpy(host0, host, sizeof host0);
    MPI_Bcast(host0, sizeof host0, MPI_CHAR, 0, MPI_COMM_WORLD);
    int differs = strcmp(host0, host) != 0, ndiff = 0, nerr = 0;
    MPI_Allreduce(&differs, &ndiff, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&errors, &nerr, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int want_split = size > 1 && getenv("GSH_NETNS_PRIVATE") && atoi(getenv("GSH_NETNS_PRIVATE")) == 1;
    if (rank == 0) {
        printf("mpi_hello: %d ranks, %d not on rank 0's host, %d errors\n", size, ndiff, nerr);
        if (want_split && ndiff == 0) {
            fprintf(stderr, "mpi_hello: all ranks on one host, expected two\n");
            nerr++;
        }
    }
    MPI_Bcast(&nerr, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return nerr ? 1 : 0;
}

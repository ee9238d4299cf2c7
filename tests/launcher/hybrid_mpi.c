/* hybrid_mpi.c - an MPI + OpenSHMEM program (the specification's interoperability chapter): under mpirun, MPI ranks
 * and PEs must be the same processes in the same order; argv[1] "shmem-first" initializes OpenSHMEM before MPI. */
#include <mpi.h>
#include <shmem.h>
#include <stdio.h>
#include <string.h>

static long sum, mine;

int main(int argc, char **argv) {
    int shmem_first = argc > 1 && !strcmp(argv[1], "shmem-first");
    if (shmem_first)
        shmem_init();
    MPI_Init(&argc, &argv);
    if (!shmem_first)
        shmem_init();
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank != shmem_my_pe() || size != shmem_n_pes()) {
        printf("FAIL: MPI rank %d of %d is PE %d of %d\n", rank, size, shmem_my_pe(), shmem_n_pes());
        bad = 1;
    }
    /* one sum through each library over the same processes */
    long r = rank, msum = 0;
    MPI_Allreduce(&r, &msum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    mine = shmem_my_pe();
    shmem_barrier_all();
    shmem_long_atomic_add(&sum, mine, 0);
    shmem_barrier_all();
    long ssum = shmem_long_g(&sum, 0);
    if (msum != ssum || msum != (long)size * (size - 1) / 2) {
        printf("FAIL: rank %d: MPI sum %ld, OpenSHMEM sum %ld\n", rank, msum, ssum);
        bad = 1;
    }
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !anybad)
        printf("hybrid ok %d\n", size);
    shmem_finalize();
    MPI_Finalize();
    return anybad;
}

/* nv_misuse.cu MODE [DIR] - the NVSHMEM front end's checks end the job with a line naming the routine and the PE, and its
 * NVSHMEM's other initializations: "team" names a team that does not exist; "uid" initializes with a unique ID made by
 * rank 0 and handed to the others through a file in DIR (must run), "uid_rank" passes nvshmemx_set_attr_uniqueid_args ranks other than the
 * launcher's, "uid_differs" gives each PE its own ID (both must stop); "mpicomm" initializes with
 * NVSHMEMX_INIT_WITH_MPI_COMM (gshmem's launcher's PEs are the communicator's ranks) and must run. */
#include <nvshmem.h>
#include <nvshmemx.h>
#include <string.h>
#include <unistd.h>

#include "nv_common.h"

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    if (!strcmp(mode, "team")) {
        nvshmem_init();
        printf("%d\n", nvshmem_team_n_pes((nvshmem_team_t)42));
    } else if (!strncmp(mode, "uid", 3)) {
        /* the unique-ID bootstrap as MPI programs use it, with oshrun's rank and size standing in for MPI_Comm_rank and
         * MPI_Comm_size and a file for MPI_Bcast: rank 0 makes the ID, the others read it */
        int rank = atoi(getenv("GSHMEM_RANK")), nranks = atoi(getenv("GSHMEM_SIZE"));
        char path[256], tmp[300];
        snprintf(path, sizeof path, "%s/nv_uid.%s", argc > 2 ? argv[2] : "/tmp", getenv("GSHMEM_JOBID"));
        nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
        if (rank == 0 || !strcmp(mode, "uid_differs")) /* uid_differs: every PE makes its own */
            nvshmemx_get_uniqueid(&id);
        if (rank == 0 && strcmp(mode, "uid_differs")) {
            snprintf(tmp, sizeof tmp, "%s.tmp", path);
            FILE *f = fopen(tmp, "w");
            fwrite(&id, sizeof id, 1, f);
            fclose(f);
            rename(tmp, path);
        } else if (strcmp(mode, "uid_differs")) {
            FILE *f;
            while (!(f = fopen(path, "r")))
                usleep(2000);
            if (fread(&id, sizeof id, 1, f) != 1)
                return 1;
            fclose(f);
        }
        if (!strcmp(mode, "uid_rank"))
            rank = (rank + 1) % nranks; /* not the launcher's */
        nvshmemx_set_attr_uniqueid_args(rank, nranks, &id, &attr);
        int rc = nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
        nvshmem_barrier_all();
        if (nvshmem_my_pe() == 0)
            unlink(path);
        EXPECT(rc == 0 && nvshmem_my_pe() == rank && nvshmem_n_pes() == nranks, "init with a unique ID: rc %d", rc);
        printf("PE %d: %s\n", nvshmem_my_pe(), nv_fails ? "FAILED" : "ok");
        nvshmem_finalize();
        return nv_fails ? 1 : 0;
    } else if (!strcmp(mode, "mpicomm")) {
        int not_mpi = 0; /* gshmem does not read the communicator */
        attr.mpi_comm = &not_mpi;
        if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr))
            return 1;
        int *x = (int *)nvshmem_malloc(sizeof(int));
        nvshmem_int_p(x, nvshmem_my_pe(), (nvshmem_my_pe() + 1) % nvshmem_n_pes());
        nvshmem_barrier_all();
        int got = nvshmem_int_g(x, nvshmem_my_pe()), want = (nvshmem_my_pe() + nvshmem_n_pes() - 1) % nvshmem_n_pes();
        EXPECT(got == want, "got %d, expected %d", got, want);
        nvshmem_free(x);
        printf("PE %d: %s\n", nvshmem_my_pe(), nv_fails ? "FAILED" : "ok");
        nvshmem_finalize();
        return nv_fails ? 1 : 0;
    }
    nvshmem_finalize();
    return 0;
}

/* topo_place.c - which GPU and NIC each PE takes on a node it does not run on: under oshrun with HWLOC_XMLFILE naming
 * a 2-socket node with 2 GPUs and 2 NICs per socket, every PE must take a GPU and a NIC of its own socket, spread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "state.h"
#include "topo/topo.h"

static const char *const gpus[] = {"0000:41:00.0", "0000:42:00.0", "0000:c1:00.0", "0000:c2:00.0"};
static const char *const nics[] = {"0000:43:00.0", "0000:44:00.0", "0000:c3:00.0", "0000:c4:00.0"};
static const char *const nic_names[] = {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"};

int main(int argc, char **argv) {
    /* argv[1]: the GPU index every PE must take, PE r the r-th letter ("0123"); argv[2]: the same for NICs */
    if (argc != 3) {
        fprintf(stderr, "usage: topo_place GPUS NICS (expected picks, one digit per PE)\n");
        return 2;
    }
    char why[160];
    if (gtopo_load(why, sizeof why)) {
        printf("SKIP: %s\n", why);
        return 77;
    }
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), bad = 0;
    if ((int)strlen(argv[1]) != n || (int)strlen(argv[2]) != n) {
        fprintf(stderr, "topo_place: give one expected pick per PE (%d)\n", n);
        return 2;
    }
    int g = shmemi_pick_near(4, gpus, NULL, "GPU");
    int k = shmemi_pick_near(4, nics, nic_names, "NIC");
    cpu_set_t near;
    char cores[64];
    gtopo_pci_cpus(gpus[g], &near);
    gtopo_cpus_str(&near, cores, sizeof cores);
    if (g != argv[1][me] - '0' || k != argv[2][me] - '0') {
        fprintf(stderr, "FAIL: PE %d (%s) took GPU %d (%s, near cores %s) and NIC %d; expected GPU %c and NIC %c\n", me,
                shmemi_rt.place_cores, g, gpus[g], cores, k, argv[1][me], argv[2][me]);
        bad = 1;
    }
    shmemi_place_print(stdout);
    shmem_finalize();
    return bad;
}

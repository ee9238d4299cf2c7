/* rx_depth.c - what a PE holds after shmem_init over libfabric: the peak resident memory (VmHWM) and the value of
 * FI_OFI_RXM_MSG_RX_SIZE that libfabric was started with (gshmem sets it for rxm over tcp unless the user did;
 * run_rx_depth.sh checks both). Prints one line per PE: "PE <me> hwm_kib=<n> rx_size=<value|unset>". */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long hwm_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6))
            kib = strtol(line + 6, NULL, 10);
    fclose(f);
    return kib;
}

int main(void) {
    shmem_init();
    const char *v = getenv("FI_OFI_RXM_MSG_RX_SIZE");
    printf("PE %d hwm_kib=%ld rx_size=%s\n", shmem_my_pe(), hwm_kib(), v ? v : "unset");
    fflush(stdout);
    shmem_finalize();
    return 0;
}

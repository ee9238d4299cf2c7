/* fuzz_partition.c - libFuzzer target for shmemi_parse_partition: the input is "NAME\nVALUE" (or VALUE alone, for
 * SHMEM_SYMMETRIC_PARTITION1). Whatever it is, the parser must not overrun its buffers (the sanitizers watch), must
 * leave the output alone when it refuses and name the variable then, and what it accepts must hold together. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
    char *buf = malloc(len + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, len);
    buf[len] = '\0';
    const char *name = "SHMEM_SYMMETRIC_PARTITION1", *value = buf;
    char *nl = memchr(buf, '\n', len);
    if (nl) {
        *nl = '\0';
        name = buf;
        value = nl + 1;
    }
    struct shmemi_partition_cfg c, before;
    memset(&c, 0x5a, sizeof c);
    before = c;
    char err[256] = "";
    int rc = shmemi_parse_partition(name, value, &c, err, sizeof err);
    if (rc) {
        if (memcmp(&c, &before, sizeof c) || !err[0])
            abort();
        if (strlen(name) < 100 && !strstr(err, name))
            abort(); /* a refusal names the variable */
    } else {
        if (c.size < 64 || c.size > SIZE_MAX / 2 || (c.pgsize & (c.pgsize - 1)) || c.kind < 0 ||
            c.kind > SHMEMI_KIND_LIBOMP || c.policy < 0 || c.policy > 3 || c.id < 1 || c.id > 127)
            abort();
        if (c.policy == SHMEMI_POLICY_PREFERRED && (!c.nodes || (c.nodes & (c.nodes - 1))))
            abort(); /* PREFERRED names exactly one node */
        if (c.policy == SHMEMI_POLICY_BIND && !c.nodes)
            abort();
        if (c.policy == SHMEMI_POLICY_DEFAULT && c.nodes)
            abort();
        if ((c.kind == SHMEMI_KIND_DEVICE || c.kind == SHMEMI_KIND_LIBOMP) &&
            (c.pgsize || c.policy != SHMEMI_POLICY_DEFAULT))
            abort(); /* GPU memory: the driver places and pages it */
        if (strncmp(c.text, name, strlen(name) < sizeof c.text - 1 ? strlen(name) : sizeof c.text - 1))
            abort(); /* the text quotes the variable as written */
    }
    /* a message buffer of any size, none included, is never overrun */
    char tiny[3];
    shmemi_parse_partition(name, value, &c, tiny, sizeof tiny);
    shmemi_parse_partition(name, value, &c, NULL, 0);
    free(buf);
    return 0;
}

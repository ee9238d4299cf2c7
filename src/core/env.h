/* env.h - parsed configuration: one field per row of env.def, read once by shmemi_env_read().
 * getenv() is called in env.c and nowhere else. */
#ifndef GSHMEM_ENV_H
#define GSHMEM_ENV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SHMEMI_ENV_HIDDEN __attribute__((visibility("hidden")))

#define SHMEMI_ENV_CT_SIZE size_t
#define SHMEMI_ENV_CT_BOOL int
#define SHMEMI_ENV_CT_INT long
#define SHMEMI_ENV_CT_STRING const char *

struct shmemi_env {
#define X(field, name, type, def, lo, hi, vis, doc) SHMEMI_ENV_CT_##type field;
#include "env.def"
#undef X
};

/* Symmetric partitions: SHMEM_SYMMETRIC_PARTITION<ID>=SIZE=<size>[:PGSIZE=<size>][:KIND=<kind>][:POLICY=<p>]
 * [:OMP_DEVICE=<n>] (KIND=LIBOMP only)
 * POLICY (host partitions, applied with mbind): DEFAULT, INTERLEAVE[=<nodes>] (INTERLEAVED too), BIND=<nodes>,
 * PREFERRED=<node>; <nodes> is a list of NUMA node numbers and ranges below SHMEMI_MAX_NUMA, e.g. 0,2-3. */
#define SHMEMI_MAX_PARTITIONS 16
#define SHMEMI_MAX_NUMA 64
/* LIBOMP: omp_target_alloc on an OpenMP device at shmem_init (src/omp), then a GPU segment like DEVICE, or host
 * memory like HOST when the program has no offload device */
enum shmemi_part_kind { SHMEMI_KIND_DEFAULT, SHMEMI_KIND_HOST, SHMEMI_KIND_DEVICE, SHMEMI_KIND_LIBOMP };
enum shmemi_part_policy {
    SHMEMI_POLICY_DEFAULT,
    SHMEMI_POLICY_INTERLEAVED,
    SHMEMI_POLICY_BIND,
    SHMEMI_POLICY_PREFERRED
};
struct shmemi_partition_cfg {
    int id;
    size_t size;
    size_t pgsize;  /* 0 = system page size */
    int kind;       /* enum shmemi_part_kind */
    int omp_device; /* KIND=LIBOMP: OMP_DEVICE=<n>, the OpenMP device number; -1: omp_get_default_device() */
    int policy;     /* enum shmemi_part_policy */
    uint64_t nodes; /* the policy's NUMA nodes (bit n: node n); 0 with INTERLEAVE: every node this PE may use */
    char text[160]; /* NAME=VALUE as the user wrote it (cut short if longer), for messages */
};

SHMEMI_ENV_HIDDEN extern struct shmemi_env shmemi_env;
SHMEMI_ENV_HIDDEN extern struct shmemi_partition_cfg shmemi_partitions[SHMEMI_MAX_PARTITIONS];
SHMEMI_ENV_HIDDEN extern int shmemi_npartitions;

/* Reads and validates every variable. On a bad value writes one message naming the variable and the accepted
 * form into err (size errlen) and returns -1. */
SHMEMI_ENV_HIDDEN int shmemi_env_read(char *err, size_t errlen);
/* The value of variable NAME as the environment gave it at the last shmemi_env_read, NULL where the default holds:
 * for messages that must quote the user. */
SHMEMI_ENV_HIDDEN const char *shmemi_env_raw(const char *name);
/* Variables of the libraries gshmem loads (libfabric's FI_*, hwloc's HWLOC_*), which are theirs to document and
 * validate: gshmem only looks at them to fit its own choices to theirs, and sets a default before the library reads
 * them (never over a value the user gave). shmemi_env_lib returns NULL when unset; shmemi_env_lib_default returns 1
 * if it set NAME. */
SHMEMI_ENV_HIDDEN const char *shmemi_env_lib(const char *name);
SHMEMI_ENV_HIDDEN int shmemi_env_lib_default(const char *name, const char *value);
/* Parses "512M"-style sizes; returns 0 on success. Exposed for unit tests. */
SHMEMI_ENV_HIDDEN int shmemi_parse_size(const char *s, size_t *out);
SHMEMI_ENV_HIDDEN int shmemi_parse_bool(const char *s, int *out);
SHMEMI_ENV_HIDDEN int shmemi_parse_partition(const char *name, const char *value, struct shmemi_partition_cfg *out,
                                             char *err, size_t errlen);
/* Prints one line (prefix, text, suffix) for each SHMEM_*, GSHMEM_* or SMA_* variable of the environment that gshmem
 * does not read: another OpenSHMEM's (named as such, with gshmem's variable for the same setting where there is
 * one), or a misspelling (with the closest of gshmem's names). Returns how many. */
SHMEMI_ENV_HIDDEN int shmemi_env_unknown(FILE *f, const char *prefix, const char *suffix);
/* Prints lead and, on one line, every user setting the environment gives (NAME=value as written, partitions too);
 * returns how many. */
SHMEMI_ENV_HIDDEN int shmemi_env_print_set(FILE *f, const char *lead);
/* Prints the table (name, current value, default, description). show_launch: include LAUNCH rows. */
SHMEMI_ENV_HIDDEN void shmemi_env_print(FILE *f, int show_launch);
/* The same table as Markdown: docs/ENV.md is this output (a test checks they agree). */
SHMEMI_ENV_HIDDEN void shmemi_env_print_markdown(FILE *f);

#endif

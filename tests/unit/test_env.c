/* test_env.c - the configuration parsers of env.h (sizes, booleans, partition variables), shmemi_env_read's
 * contract that a bad value fails with a message naming the variable, and the lines about variables gshmem does not
 * read (shmemi_env_unknown). */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"

extern char **environ;

static int failures;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);                                   \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)
#define TiB ((size_t)1 << 40)

static void size_ok(const char *s, size_t want) {
    size_t v = 12345;
    int rc = shmemi_parse_size(s, &v);
    CHECK(rc == 0 && v == want, "parse_size(\"%s\") rc %d value %zu, expected %zu", s, rc, v, want);
}

static void size_bad(const char *s) {
    size_t v = 12345;
    int rc = shmemi_parse_size(s, &v);
    CHECK(rc == -1, "parse_size(\"%s\") accepted (rc %d, value %zu)", s, rc, v);
    CHECK(v == 12345, "parse_size(\"%s\") wrote its output on failure", s);
}

static void test_size(void) {
    size_ok("0", 0);
    size_ok("1", 1);
    size_ok("1048576", MiB);
    size_ok("512k", 512 * KiB);
    size_ok("512K", 512 * KiB);
    size_ok("64m", 64 * MiB);
    size_ok("64M", 64 * MiB);
    size_ok("2g", 2 * GiB);
    size_ok("2G", 2 * GiB);
    size_ok("1t", TiB);
    size_ok("3T", 3 * TiB);
    size_ok("4kb", 4 * KiB);
    size_ok("4KB", 4 * KiB);
    size_ok("4Kb", 4 * KiB);
    size_ok("16MB", 16 * MiB);
    size_ok("1GB", GiB);
    size_ok("100b", 100);
    size_ok("100B", 100);
    size_ok("007", 7);
    if (SIZE_MAX == UINT64_MAX) {
        size_ok("18446744073709551615", SIZE_MAX);
        size_ok("16777215T", (size_t)16777215 << 40);
        size_ok("17179869183G", (size_t)17179869183 << 30);
    }

    size_bad(NULL);
    size_bad("");
    size_bad("12q");
    size_bad("-1");
    size_bad("+1");
    size_bad("1.5G");
    size_bad("1,5G");
    size_bad("k");
    size_bad("K");
    size_bad("b");
    size_bad("G1");
    size_bad(" 12");
    size_bad("12 ");
    size_bad("12 M");
    size_bad("\t12");
    size_bad("12\n");
    size_bad("1kk");
    size_bad("1MG");
    size_bad("1bb");
    size_bad("1Bk");
    size_bad("1kib");
    size_bad("1KiB");
    size_bad("1e3");
    size_bad("0x10");
    /* Overflow, both of the digits and of the suffix shift. */
    size_bad("18446744073709551616");
    size_bad("99999999999999999999999999");
    size_bad("16777216T");
    size_bad("17179869184G");
    size_bad("17592186044416M");
    size_bad("18014398509481984k");
}

static void bool_ok(const char *s, int want) {
    int v = 42;
    int rc = shmemi_parse_bool(s, &v);
    CHECK(rc == 0 && v == want, "parse_bool(\"%s\") rc %d value %d, expected %d", s, rc, v, want);
}

static void bool_bad(const char *s) {
    int v = 42;
    int rc = shmemi_parse_bool(s, &v);
    CHECK(rc == -1, "parse_bool(\"%s\") accepted (rc %d, value %d)", s, rc, v);
    CHECK(v == 42, "parse_bool(\"%s\") wrote its output on failure", s);
}

static void test_bool(void) {
    static const char *const yes[] = {"1", "y", "Y", "yes", "YES", "Yes", "true", "TRUE", "True", "on", "ON", "On"};
    static const char *const no[] = {"0", "n", "N", "no", "NO", "No", "false", "FALSE", "False", "off", "OFF", "Off"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        bool_ok(yes[i], 1);
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        bool_ok(no[i], 0);
    static const char *const bad[] = {"",    "2",    "-1",  "01",     "10",       "ye", "yess", "tru", "of",
                                      "onn", " yes", "no ", "enable", "disabled", "t",  "f",    "x"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        bool_bad(bad[i]);
    bool_bad(NULL);
}

/* ---- partitions ---- */

static void part_ok_nodes(const char *name, const char *value, int id, size_t size, size_t pgsize, int kind, int policy,
                          uint64_t nodes) {
    struct shmemi_partition_cfg c;
    memset(&c, 0x5a, sizeof(c));
    char err[512] = "";
    int rc = shmemi_parse_partition(name, value, &c, err, sizeof(err));
    CHECK(rc == 0, "parse_partition(%s=%s) failed: rc %d, \"%s\"", name, value, rc, err);
    if (rc)
        return;
    CHECK(c.id == id, "%s=%s: id %d, expected %d", name, value, c.id, id);
    CHECK(c.size == size, "%s=%s: size %zu, expected %zu", name, value, c.size, size);
    CHECK(c.pgsize == pgsize, "%s=%s: pgsize %zu, expected %zu", name, value, c.pgsize, pgsize);
    CHECK(c.kind == kind, "%s=%s: kind %d, expected %d", name, value, c.kind, kind);
    CHECK(c.policy == policy, "%s=%s: policy %d, expected %d", name, value, c.policy, policy);
    CHECK(c.nodes == nodes, "%s=%s: nodes 0x%llx, expected 0x%llx", name, value, (unsigned long long)c.nodes,
          (unsigned long long)nodes);
    CHECK(strstr(c.text, name) && strstr(c.text, value), "%s=%s: text \"%s\" is not what the user wrote", name, value,
          c.text);
}
static void part_ok(const char *name, const char *value, int id, size_t size, size_t pgsize, int kind, int policy) {
    part_ok_nodes(name, value, id, size, pgsize, kind, policy, 0);
}

/* A rejected variable must say which variable it was, and must not fill in *out. */
static void part_bad(const char *name, const char *value) {
    struct shmemi_partition_cfg c;
    memset(&c, 0x5a, sizeof(c));
    struct shmemi_partition_cfg untouched = c;
    char err[512] = "";
    int rc = shmemi_parse_partition(name, value, &c, err, sizeof(err));
    CHECK(rc == -1, "parse_partition(%s=%s) accepted (rc %d)", name, value ? value : "(null)", rc);
    CHECK(strstr(err, name) != NULL, "parse_partition(%s=%s): message \"%s\" does not name the variable", name,
          value ? value : "(null)", err);
    CHECK(!memcmp(&c, &untouched, sizeof(c)), "parse_partition(%s=%s) wrote its output on failure", name,
          value ? value : "(null)");
}

/* A rejected value must say what the key accepts (issue 40): each of want, '|'-separated, is in the message, and
 * the whole form of the variable, which says nothing about the value, is not. */
static void part_says(const char *value, const char *want) {
    char err[512] = "", w[256];
    struct shmemi_partition_cfg c;
    int rc = shmemi_parse_partition("SHMEM_SYMMETRIC_PARTITION1", value, &c, err, sizeof err);
    CHECK(rc == -1, "parse_partition(SHMEM_SYMMETRIC_PARTITION1=%s) accepted", value);
    snprintf(w, sizeof w, "%s", want);
    for (char *t = strtok(w, "|"); t; t = strtok(NULL, "|"))
        CHECK(strstr(err, t) != NULL, "SHMEM_SYMMETRIC_PARTITION1=%s: message \"%s\" does not say \"%s\"", value, err,
              t);
    CHECK(!strstr(err, "PGSIZE=<size>"), "SHMEM_SYMMETRIC_PARTITION1=%s: message \"%s\" gives the whole form", value,
          err);
}

static void test_partition_messages(void) {
    part_says("SIZE=4M:PGSIZE=3M", "bad value '3M' for PGSIZE|the base page size|2M|1G");
    part_says("SIZE=4M:PGSIZE=0", "bad value '0' for PGSIZE|the base page size|2M|1G");
    part_says("SIZE=4M:POLICY=BIND=99", "bad value 'BIND=99' for POLICY|node 99|below 64");
    part_says("SIZE=4M:POLICY=INTERLEAVE=0-64", "node 64|below 64");
    part_says("SIZE=4M:POLICY=BIND=99999999999999999999999", "below 64");
    part_says("SIZE=4M:POLICY=BIND=3-1", "3-1|backwards");
    part_says("SIZE=4M:POLICY=BIND=0,", "ends with ','");
    part_says("SIZE=4M:POLICY=BIND", "BIND needs its nodes|BIND=<nodes>");
    part_says("SIZE=4M:POLICY=PREFERRED=0,1", "PREFERRED takes one node");
    part_says("SIZE=4M:POLICY=SPREAD", "bad value 'SPREAD' for POLICY|DEFAULT, INTERLEAVE[=<nodes>], BIND=<nodes>");
    part_says("SIZE=4M:KIND=TAPE", "bad value 'TAPE' for KIND|DEFAULT, HOST, DEVICE or LIBOMP");
    part_says("SIZE=63", "bad value '63' for SIZE|from 64 to");
    part_says("SIZE=4M:KIND=LIBOMP:OMP_DEVICE=x", "bad value 'x' for OMP_DEVICE|OpenMP device number");
    part_says("SIZE=4M:PGSIZE=4k:PGSIZE=2M", "PGSIZE is given twice");
}

static void test_partition(void) {
    const char *P1 = "SHMEM_SYMMETRIC_PARTITION1";
    part_ok(P1, "SIZE=1G", 1, GiB, 0, SHMEMI_KIND_DEFAULT, SHMEMI_POLICY_DEFAULT);
    part_ok("SHMEM_SYMMETRIC_PARTITION127", "SIZE=4096", 127, 4096, 0, SHMEMI_KIND_DEFAULT, SHMEMI_POLICY_DEFAULT);
    part_ok("SHMEM_SYMMETRIC_PARTITION42", "SIZE=64M:PGSIZE=2M", 42, 64 * MiB, 2 * MiB, SHMEMI_KIND_DEFAULT,
            SHMEMI_POLICY_DEFAULT);
    part_ok(P1, "SIZE=64M:KIND=DEVICE", 1, 64 * MiB, 0, SHMEMI_KIND_DEVICE, SHMEMI_POLICY_DEFAULT);
    part_ok(P1, "SIZE=64M:KIND=HOST", 1, 64 * MiB, 0, SHMEMI_KIND_HOST, SHMEMI_POLICY_DEFAULT);
    part_ok(P1, "SIZE=64M:KIND=DEFAULT", 1, 64 * MiB, 0, SHMEMI_KIND_DEFAULT, SHMEMI_POLICY_DEFAULT);
    part_ok(P1, "SIZE=1M:POLICY=INTERLEAVED", 1, MiB, 0, SHMEMI_KIND_DEFAULT, SHMEMI_POLICY_INTERLEAVED);
    part_ok(P1, "SIZE=1M:POLICY=INTERLEAVE", 1, MiB, 0, SHMEMI_KIND_DEFAULT, SHMEMI_POLICY_INTERLEAVED);
    part_ok_nodes(P1, "SIZE=1M:POLICY=INTERLEAVE=1-2", 1, MiB, 0, SHMEMI_KIND_DEFAULT, SHMEMI_POLICY_INTERLEAVED, 6);
    part_ok_nodes(P1, "SIZE=1M:POLICY=BIND=0", 1, MiB, 0, SHMEMI_KIND_DEFAULT, SHMEMI_POLICY_BIND, 1);
    part_ok_nodes(P1, "SIZE=1M:POLICY=bind=0,2-3", 1, MiB, 0, SHMEMI_KIND_DEFAULT, SHMEMI_POLICY_BIND, 0xd);
    part_ok_nodes(P1, "SIZE=1M:POLICY=BIND=63", 1, MiB, 0, SHMEMI_KIND_DEFAULT, SHMEMI_POLICY_BIND, (uint64_t)1 << 63);
    part_ok_nodes(P1, "SIZE=1M:POLICY=PREFERRED=1", 1, MiB, 0, SHMEMI_KIND_DEFAULT, SHMEMI_POLICY_PREFERRED, 2);
    part_ok(P1, "SIZE=1M:POLICY=DEFAULT", 1, MiB, 0, SHMEMI_KIND_DEFAULT, SHMEMI_POLICY_DEFAULT);
    part_ok_nodes("SHMEM_SYMMETRIC_PARTITION7", "SIZE=2G:PGSIZE=4k:KIND=HOST:POLICY=BIND=0", 7, 2 * GiB, 4 * KiB,
                  SHMEMI_KIND_HOST, SHMEMI_POLICY_BIND, 1);
    /* Keys in any order, SIZE included. */
    part_ok(P1, "KIND=DEVICE:SIZE=8M", 1, 8 * MiB, 0, SHMEMI_KIND_DEVICE, SHMEMI_POLICY_DEFAULT);
    part_ok_nodes(P1, "POLICY=PREFERRED=0:PGSIZE=64k:KIND=HOST:SIZE=3G", 1, 3 * GiB, 64 * KiB, SHMEMI_KIND_HOST,
                  SHMEMI_POLICY_PREFERRED, 1);
    part_ok(P1, "SIZE=64", 1, 64, 0, SHMEMI_KIND_DEFAULT, SHMEMI_POLICY_DEFAULT);
    /* KIND=LIBOMP (OMP too): the default OpenMP device, or OMP_DEVICE=<n> */
    part_ok(P1, "SIZE=8M:KIND=LIBOMP", 1, 8 * MiB, 0, SHMEMI_KIND_LIBOMP, SHMEMI_POLICY_DEFAULT);
    part_ok(P1, "SIZE=8M:KIND=omp", 1, 8 * MiB, 0, SHMEMI_KIND_LIBOMP, SHMEMI_POLICY_DEFAULT);
    {
        struct shmemi_partition_cfg c;
        char err[512] = "";
        CHECK(!shmemi_parse_partition(P1, "SIZE=8M:KIND=LIBOMP", &c, err, sizeof err) && c.omp_device == -1,
              "KIND=LIBOMP without OMP_DEVICE: device %d (%s), expected -1 (the default device)", c.omp_device, err);
        CHECK(!shmemi_parse_partition(P1, "OMP_DEVICE=3:SIZE=8M:KIND=LIBOMP", &c, err, sizeof err) && c.omp_device == 3,
              "OMP_DEVICE=3: device %d (%s)", c.omp_device, err);
    }
    part_ok(P1, "PGSIZE=1G:SIZE=16G", 1, 16 * GiB, GiB, SHMEMI_KIND_DEFAULT, SHMEMI_POLICY_DEFAULT);

    /* OMP_DEVICE: LIBOMP only, a number, once; PGSIZE and POLICY are the OpenMP runtime's business there */
    part_bad(P1, "SIZE=8M:OMP_DEVICE=1");
    part_bad(P1, "SIZE=8M:KIND=DEVICE:OMP_DEVICE=0");
    part_bad(P1, "SIZE=8M:KIND=LIBOMP:OMP_DEVICE=-1");
    part_bad(P1, "SIZE=8M:KIND=LIBOMP:OMP_DEVICE=x");
    part_bad(P1, "SIZE=8M:KIND=LIBOMP:OMP_DEVICE=");
    part_bad(P1, "SIZE=8M:KIND=LIBOMP:OMP_DEVICE=1:OMP_DEVICE=1");
    part_bad(P1, "SIZE=8M:KIND=LIBOMP:PGSIZE=2M");
    part_bad(P1, "SIZE=8M:KIND=OMP:POLICY=INTERLEAVE");
    part_bad(P1, "SIZE=8M:KIND=LIBOMPX");
    /* Bad names. */
    part_bad("SHMEM_SYMMETRIC_PARTITION0", "SIZE=1M");
    part_bad("SHMEM_SYMMETRIC_PARTITION128", "SIZE=1M");
    part_bad("SHMEM_SYMMETRIC_PARTITION1000", "SIZE=1M");
    part_bad("SHMEM_SYMMETRIC_PARTITION", "SIZE=1M");
    part_bad("SHMEM_SYMMETRIC_PARTITION-1", "SIZE=1M");
    part_bad("SHMEM_SYMMETRIC_PARTITION+1", "SIZE=1M");
    part_bad("SHMEM_SYMMETRIC_PARTITION1x", "SIZE=1M");
    part_bad("SHMEM_SYMMETRIC_PARTITIONX", "SIZE=1M");
    part_bad("SHMEM_SYMMETRIC_PARTITION 1", "SIZE=1M");
    part_bad("SHMEM_SYMMETRIC_SIZE", "SIZE=1M");

    /* Bad values: SIZE missing, unknown keys, bad values, malformed items. */
    part_bad(P1, "");
    part_bad(P1, NULL);
    part_bad(P1, "1G");
    part_bad(P1, "PGSIZE=4k");
    part_bad(P1, "KIND=HOST:POLICY=BIND");
    part_bad(P1, "SIZE=");
    part_bad(P1, "SIZE=12q");
    part_bad(P1, "SIZE=-1");
    part_bad(P1, "SIZE=1.5G");
    part_bad(P1, "SIZE=99999999999999999999999");
    part_bad(P1, "SIZE=1G:PGSIZE=");
    part_bad(P1, "SIZE=1G:PGSIZE=4q");
    part_bad(P1, "SIZE=1G:KIND=GPU");
    part_bad(P1, "SIZE=1G:KIND=");
    part_bad(P1, "SIZE=1G:KIND=HOSTX");
    part_bad(P1, "SIZE=1G:KIND=HOS");
    part_bad(P1, "SIZE=1G:POLICY=SPREAD");
    part_bad(P1, "SIZE=1G:POLICY=");
    part_bad(P1, "SIZE=1G:COLOR=RED");
    part_bad(P1, "SIZE=1G:SIZEX=1");
    part_bad(P1, "SIZE=1G:SIZ=1");
    part_bad(P1, "SIZE=1G:KIND");
    part_bad(P1, "SIZE=1G;KIND=HOST");
    part_bad(P1, "SIZE=1G::KIND=HOST");
    part_bad(P1, ":SIZE=1G");
    part_bad(P1, "SIZE 1G");
    /* sizes the allocator cannot hold, or that would wrap when rounded up to pages */
    part_bad(P1, "SIZE=0");
    part_bad(P1, "SIZE=63");
    part_bad(P1, "SIZE=18446744073709551615");
    part_bad(P1, "SIZE=9223372036854775808");
    part_bad(P1, "SIZE=8M:SIZE=1M");
    part_bad(P1, "SIZE=8M:PGSIZE=0");
    part_bad(P1, "SIZE=8M:PGSIZE=3k");
    part_bad(P1, "SIZE=8M:PGSIZE=4k:PGSIZE=2M");
    /* policies: nodes where they are needed, and only there */
    part_bad(P1, "SIZE=1M:POLICY=BIND");
    part_bad(P1, "SIZE=1M:POLICY=BIND=");
    part_bad(P1, "SIZE=1M:POLICY=BIND=0,");
    part_bad(P1, "SIZE=1M:POLICY=BIND=,0");
    part_bad(P1, "SIZE=1M:POLICY=BIND=3-1");
    part_bad(P1, "SIZE=1M:POLICY=BIND=64");
    part_bad(P1, "SIZE=1M:POLICY=BIND=0-64");
    part_bad(P1, "SIZE=1M:POLICY=BIND=x");
    part_bad(P1, "SIZE=1M:POLICY=BIND=-1");
    part_bad(P1, "SIZE=1M:POLICY=BIND=99999999999999999999");
    part_bad(P1, "SIZE=1M:POLICY=PREFERRED");
    part_bad(P1, "SIZE=1M:POLICY=PREFERRED=0,1");
    part_bad(P1, "SIZE=1M:POLICY=PREFERRED=0-1");
    part_bad(P1, "SIZE=1M:POLICY=DEFAULT=0");
    part_bad(P1, "SIZE=1M:POLICY=INTERLEAVE=");
    part_bad(P1, "SIZE=1M:POLICY=BIND=0:POLICY=DEFAULT");
    /* GPU partitions: the driver places and pages them */
    part_bad(P1, "SIZE=8M:KIND=DEVICE:PGSIZE=2M");
    part_bad(P1, "SIZE=8M:KIND=DEVICE:POLICY=BIND=0");
    part_bad(P1, "SIZE=8M:POLICY=INTERLEAVE:KIND=DEVICE");

    /* The message must survive a tiny or absent buffer without overrunning it. */
    char small[8];
    memset(small, 'x', sizeof(small));
    struct shmemi_partition_cfg c;
    CHECK(shmemi_parse_partition(P1, "SIZE=1G:COLOR=RED", &c, small, 4) == -1, "bad value accepted");
    CHECK(small[3] == '\0' && small[4] == 'x', "message overran a 4-byte buffer");
    CHECK(shmemi_parse_partition(P1, "SIZE=1G:COLOR=RED", &c, NULL, 0) == -1, "bad value accepted (no err)");
}

/* ---- shmemi_env_read ---- */

/* The test must not inherit the caller's settings (a developer shell may export SHMEM_DEBUG or partitions). */
static void clean_environment(void) {
#define X(field, name, type, def, lo, hi, vis, doc) unsetenv(name);
#include "env.def"
#undef X
    for (;;) {
        char name[256] = "";
        for (char **e = environ; e && *e; e++)
            if (!strncmp(*e, "SHMEM_SYMMETRIC_PARTITION", 25)) {
                size_t n = strcspn(*e, "=");
                if (n >= sizeof(name))
                    n = sizeof(name) - 1;
                memcpy(name, *e, n);
                name[n] = '\0';
                break;
            }
        if (!name[0])
            break;
        unsetenv(name);
    }
}

static void test_env_read(void) {
    char err[512];
    clean_environment();

    err[0] = '\0';
    int rc = shmemi_env_read(err, sizeof(err));
    CHECK(rc == 0, "env_read with a clean environment failed: \"%s\"", err);
    CHECK(shmemi_env.symmetric_size == 0, "default SHMEM_SYMMETRIC_SIZE is %zu, expected 0 (auto)",
          shmemi_env.symmetric_size);
    setenv("SHMEM_SYMMETRIC_SIZE", "auto", 1);
    rc = shmemi_env_read(err, sizeof(err));
    CHECK(rc == 0 && shmemi_env.symmetric_size == 0, "SHMEM_SYMMETRIC_SIZE=auto: rc %d size %zu (%s)", rc,
          shmemi_env.symmetric_size, rc ? err : "");
    setenv("SHMEM_SYMMETRIC_SIZE_DEVICE", "auto", 1); /* only the rows whose default is auto take it */
    rc = shmemi_env_read(err, sizeof(err));
    CHECK(rc == -1 && strstr(err, "SHMEM_SYMMETRIC_SIZE_DEVICE"), "SHMEM_SYMMETRIC_SIZE_DEVICE=auto accepted");
    unsetenv("SHMEM_SYMMETRIC_SIZE_DEVICE");
    CHECK(shmemi_npartitions == 0, "%d partitions from a clean environment", shmemi_npartitions);

    setenv("SHMEM_SYMMETRIC_SIZE", "12q", 1);
    err[0] = '\0';
    rc = shmemi_env_read(err, sizeof(err));
    CHECK(rc == -1, "SHMEM_SYMMETRIC_SIZE=12q accepted");
    CHECK(strstr(err, "SHMEM_SYMMETRIC_SIZE") != NULL, "message \"%s\" does not name SHMEM_SYMMETRIC_SIZE", err);
    printf("env_read message for SHMEM_SYMMETRIC_SIZE=12q: %s\n", err);

    setenv("SHMEM_SYMMETRIC_SIZE", "1G", 1);
    rc = shmemi_env_read(err, sizeof(err));
    CHECK(rc == 0 && shmemi_env.symmetric_size == GiB, "SHMEM_SYMMETRIC_SIZE=1G: rc %d size %zu (%s)", rc,
          shmemi_env.symmetric_size, rc ? err : "");

    setenv("SHMEM_DEBUG", "maybe", 1);
    err[0] = '\0';
    rc = shmemi_env_read(err, sizeof(err));
    CHECK(rc == -1 && strstr(err, "SHMEM_DEBUG"), "SHMEM_DEBUG=maybe: rc %d, \"%s\"", rc, err);
    setenv("SHMEM_DEBUG", "on", 1);
    rc = shmemi_env_read(err, sizeof(err));
    CHECK(rc == 0 && shmemi_env.debug == 1, "SHMEM_DEBUG=on: rc %d debug %d", rc, shmemi_env.debug);

    /* Ranges: refused with the value exactly as written, never wrapped or narrowed. */
    static const char *const refused[][2] = {
        {"SHMEM_OFI_STALL_TIMEOUT", "-4294967297"},
        {"SHMEM_OFI_STALL_TIMEOUT", "4294967296"},
        {"SHMEM_OFI_STALL_TIMEOUT", "-2"},
        {"SHMEM_OFI_CTX_ENDPOINTS", "4294967296"},
        {"SHMEM_OFI_CTX_ENDPOINTS", "2"},
        {"SHMEM_WAIT_SPIN", "-2"},
        {"SHMEM_WAIT_SPIN", "2147483648"},
        {"SHMEM_WAIT_YIELD", "-1"},
        {"SHMEM_DEVICE_MAX_CTX", "-1"},
        {"SHMEM_TEST_NODE_SIZE", "9223372036854775807"},
        {"SHMEM_SYMMETRIC_SIZE", "0"},
        {"SHMEM_SYMMETRIC_SIZE", "2"},
        {"SHMEM_SYMMETRIC_SIZE", "63"},
        {"SHMEM_SYMMETRIC_SIZE", "18446744073709551615"},
        {"SHMEM_SYMMETRIC_SIZE", "16777215T"},
        {"SHMEM_SYMMETRIC_SIZE_DEVICE", "9223372036854775808"},
        {"SHMEM_GPU_COPY_CUTOVER", "16777215T"},
        {"SHMEM_GPU", "cude"},
        {"SHMEM_DEVICE_PROXY_MUTATE", "fences"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        setenv(refused[i][0], refused[i][1], 1);
        err[0] = '\0';
        rc = shmemi_env_read(err, sizeof(err));
        CHECK(rc == -1 && strstr(err, refused[i][0]) && strstr(err, refused[i][1]),
              "%s=%s: rc %d, message \"%s\" (must refuse, naming the variable and the value as written)", refused[i][0],
              refused[i][1], rc, err);
        unsetenv(refused[i][0]);
    }
    static const char *const taken[][2] = {
        {"SHMEM_OFI_STALL_TIMEOUT", "2147483647"}, {"SHMEM_OFI_STALL_TIMEOUT", "-1"},
        {"SHMEM_OFI_CTX_ENDPOINTS", "-1"},         {"SHMEM_SYMMETRIC_SIZE", "64"},
        {"SHMEM_WAIT_SPIN", "2147483647"},
    };
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
        setenv(taken[i][0], taken[i][1], 1);
        rc = shmemi_env_read(err, sizeof(err));
        CHECK(rc == 0, "%s=%s refused: \"%s\"", taken[i][0], taken[i][1], err);
        CHECK(shmemi_env_raw(taken[i][0]) && !strcmp(shmemi_env_raw(taken[i][0]), taken[i][1]),
              "shmemi_env_raw(%s) is not the value as written", taken[i][0]);
        unsetenv(taken[i][0]);
    }
    CHECK(shmemi_env_read(err, sizeof(err)) == 0 && shmemi_env.ofi_stall_timeout == -1 &&
              shmemi_env_raw("SHMEM_OFI_STALL_TIMEOUT") == NULL,
          "defaults after unsetenv");

    /* Partitions come out sorted by ID whatever the environment's order, so every PE creates them alike. */
    setenv("SHMEM_SYMMETRIC_PARTITION9", "SIZE=4M:KIND=DEVICE", 1);
    setenv("SHMEM_SYMMETRIC_PARTITION2", "SIZE=1M", 1);
    rc = shmemi_env_read(err, sizeof(err));
    CHECK(rc == 0, "two partitions: \"%s\"", err);
    CHECK(shmemi_npartitions == 2, "%d partitions, expected 2", shmemi_npartitions);
    if (shmemi_npartitions == 2) {
        CHECK(shmemi_partitions[0].id == 2 && shmemi_partitions[0].size == MiB, "first partition id %d size %zu",
              shmemi_partitions[0].id, shmemi_partitions[0].size);
        CHECK(shmemi_partitions[1].id == 9 && shmemi_partitions[1].size == 4 * MiB &&
                  shmemi_partitions[1].kind == SHMEMI_KIND_DEVICE,
              "second partition id %d size %zu kind %d", shmemi_partitions[1].id, shmemi_partitions[1].size,
              shmemi_partitions[1].kind);
    }

    setenv("SHMEM_SYMMETRIC_PARTITION5", "SIZE=1M:KIND=TAPE", 1);
    err[0] = '\0';
    rc = shmemi_env_read(err, sizeof(err));
    CHECK(rc == -1 && strstr(err, "SHMEM_SYMMETRIC_PARTITION5"), "bad partition in env: rc %d, \"%s\"", rc, err);
    unsetenv("SHMEM_SYMMETRIC_PARTITION5");

    /* Two spellings of one ID would create the same partition twice. */
    setenv("SHMEM_SYMMETRIC_PARTITION02", "SIZE=1M", 1);
    err[0] = '\0';
    rc = shmemi_env_read(err, sizeof(err));
    CHECK(rc == -1 && strstr(err, "SHMEM_SYMMETRIC_PARTITION"), "duplicate partition ID: rc %d, \"%s\"", rc, err);
    unsetenv("SHMEM_SYMMETRIC_PARTITION02");

    clean_environment();
    rc = shmemi_env_read(err, sizeof(err));
    CHECK(rc == 0 && shmemi_npartitions == 0 && shmemi_env.symmetric_size == 0,
          "clean environment again: rc %d, %d partitions", rc, shmemi_npartitions);
}

/* A bad value leaves its row at the default but the rows after it are still read: shmem_init needs the bootstrap's
 * to report the value once for the job, from the PE that found it (issue 39). */
static void test_env_read_on(void) {
    char err[512] = "";
    clean_environment();
    setenv("SHMEM_SYMMETRIC_SIZE", "12q", 1);
    setenv("SHMEM_WAIT_SPIN", "-7", 1);
    setenv("SHMEM_DEBUG", "on", 1);
    setenv("SHMEM_BOOTSTRAP", "local", 1);
    setenv("GSHMEM_RANK", "3", 1);
    int rc = shmemi_env_read(err, sizeof(err));
    CHECK(rc == -1 && strstr(err, "SHMEM_SYMMETRIC_SIZE='12q'") && !strstr(err, "SHMEM_WAIT_SPIN"),
          "two bad values: rc %d, \"%s\" (must name the first)", rc, err);
    CHECK(shmemi_env.debug == 1 && !strcmp(shmemi_env.bootstrap, "local") && shmemi_env.boot_rank == 3,
          "rows after a bad one not read: debug %d bootstrap %s rank %ld", shmemi_env.debug, shmemi_env.bootstrap,
          shmemi_env.boot_rank);
    CHECK(shmemi_env.symmetric_size == 0 && shmemi_env.wait_spin == -1, "bad rows not left at their defaults");
    clean_environment();
}

/* the lines shmemi_env_unknown prints for the environment as it is now, in buf */
static int unknown_lines(char *buf, size_t len) {
    FILE *f = fmemopen(buf, len, "w");
    if (!f) {
        buf[0] = '\0';
        return -1;
    }
    int n = shmemi_env_unknown(f, "<", ">");
    fclose(f);
    int lines = 0;
    for (const char *c = buf; *c; c++)
        lines += *c == '\n';
    CHECK(lines == n, "%d variables but %d lines:\n%s", n, lines, buf);
    return n;
}

static void test_unknown(void) {
    char buf[8192];
    clean_environment();
    unsetenv("GSHMEM_RANK");
    unsetenv("SHMEM_SYMETRIC_SIZE");
    /* gshmem's own, oshrun's and partition variables are no one's misspelling; nor are other prefixes */
    setenv("SHMEM_DEBUG", "1", 1);
    setenv("GSHMEM_RANK", "0", 1);
    setenv("GSHMEM_JOBID", "x", 1);
    setenv("SHMEM_SYMMETRIC_PARTITION3", "SIZE=1M", 1);
    setenv("NVSHMEM_SYMMETRIC_SIZE", "1G", 1);
    setenv("XSHMEM_FOO", "1", 1);
    int n = unknown_lines(buf, sizeof buf);
    CHECK(n == 0, "a clean environment gave %d lines:\n%s", n, buf);

    static const char *const cases[][3] = {
        /* variable, what its line must say, what it must not */
        {"SHMEM_SYMETRIC_SIZE",
         "<SHMEM_SYMETRIC_SIZE: not a gshmem variable (ignored); did you mean "
         "SHMEM_SYMMETRIC_SIZE?>\n",
         NULL},
        {"SHMEM_DEBGU", "did you mean SHMEM_DEBUG?", NULL},                    /* two letters swapped */
        {"GSHMEM_SYMMETRIC_SIZE", "did you mean SHMEM_SYMMETRIC_SIZE?", NULL}, /* the launcher's prefix */
        {"SHMEM_SYMMETRIC_PARTITON2", "did you mean SHMEM_SYMMETRIC_PARTITION2?", NULL},
        {"SHMEM_SYMETRIC_PARTITION", "did you mean SHMEM_SYMMETRIC_PARTITION<ID>?", NULL},
        {"SHMEM_WAIT_SPINS", "did you mean SHMEM_WAIT_SPIN?", NULL},
        {"SHMEM_GPU_COPY_CUTOVR", "did you mean SHMEM_GPU_COPY_CUTOVER?", "SHMEM_DEVICE_COPY_CUTOVER"},
        {"SHMEM_SIZE", "not a gshmem variable", "GSHMEM_SIZE"}, /* oshrun's PE count is never a suggestion */
        {"SHMEM_FOO", "not a gshmem variable (ignored; shmem_info --all", "did you mean"},
        {"SHMEM_BARRIER_ALGORITHM", "a variable of Sandia OpenSHMEM, not read by gshmem (which has no such",
         "did you mean"},
        {"SHMEM_OFI_FABRIC", "a variable of Sandia OpenSHMEM", "did you mean"},
        {"SHMEM_OFI_USE_PROVIDER", "Sandia OpenSHMEM, not read by gshmem; gshmem's is SHMEM_OFI_PROVIDER", NULL},
        {"SHMEM_SYMMETRIC_HEAP_SIZE", "gshmem's is SHMEM_SYMMETRIC_SIZE", "did you mean"},
        {"SHMEM_ENV_DISPLAY", "Cray OpenSHMEMX, not read by gshmem; gshmem's is SHMEM_INFO", NULL},
        {"SMA_SYMMETRIC_SIZE", "the SMA_ spelling of SHMEM_SYMMETRIC_SIZE that other OpenSHMEMs read", NULL},
        {"SMA_BARRIER_ALGORITHM", "Sandia OpenSHMEM (its SMA_ spelling of SHMEM_BARRIER_ALGORITHM)", NULL},
        {"SMA_WHATEVER", "an SMA_ variable of another OpenSHMEM", "did you mean"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv(cases[i][0], "1", 1);
        n = unknown_lines(buf, sizeof buf);
        CHECK(n == 1 && strstr(buf, cases[i][1]) && (!cases[i][2] || !strstr(buf, cases[i][2])),
              "%s: %d lines, \"%s\" (must say \"%s\"%s%s)", cases[i][0], n, buf, cases[i][1],
              cases[i][2] ? " and not " : "", cases[i][2] ? cases[i][2] : "");
        unsetenv(cases[i][0]);
    }
    /* all at once: one line each, sorted by name whatever the environment's order */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        setenv(cases[i][0], "1", 1);
    n = unknown_lines(buf, sizeof buf);
    CHECK(n == (int)(sizeof cases / sizeof cases[0]), "%d lines for %zu variables", n, sizeof cases / sizeof cases[0]);
    const char *prev = buf;
    for (const char *l = strchr(buf, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
        CHECK(strcmp(prev, l + 1) < 0, "lines out of order at \"%.40s\"", l + 1);
        prev = l + 1;
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        unsetenv(cases[i][0]);
    unsetenv("GSHMEM_RANK");
    unsetenv("GSHMEM_JOBID");
    unsetenv("NVSHMEM_SYMMETRIC_SIZE");
    unsetenv("XSHMEM_FOO");
    clean_environment();
}

int main(void) {
    test_size();
    test_bool();
    test_partition();
    test_partition_messages();
    test_env_read();
    test_env_read_on();
    test_unknown();
    if (failures) {
        fprintf(stderr, "test_env: %d failures\n", failures);
        return 1;
    }
    printf("test_env: ok\n");
    return 0;
}

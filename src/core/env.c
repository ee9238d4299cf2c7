/* env.c - the one reader of the environment: parses every row of env.def (and the partition variables) once,
 * validates it, and prints the table for shmem_info / SHMEM_INFO. The only file in the library that calls getenv. */
#include "env.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

struct shmemi_env shmemi_env;
struct shmemi_partition_cfg shmemi_partitions[SHMEMI_MAX_PARTITIONS];
int shmemi_npartitions;

enum { T_SIZE, T_BOOL, T_INT, T_STRING };
enum { V_PUBLIC, V_LAUNCH };

struct row {
    const char *name;
    int type;
    const char *def;
    int vis;
    const char *doc;
    size_t offset;
};

static const struct row rows[] = {
#define X(field, name, type, def, vis, doc) {name, T_##type, def, V_##vis, doc, offsetof(struct shmemi_env, field)},
#include "env.def"
#undef X
};

static const char *const type_forms[] = {
    [T_SIZE] = "a byte count such as 1048576, 512k, 64M, 2G or 1T (suffixes are powers of 1024)",
    [T_BOOL] = "one of 1, 0, yes, no, true, false, on, off",
    [T_INT] = "a decimal integer",
    [T_STRING] = "a string",
};

int shmemi_parse_size(const char *s, size_t *out) {
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    uint64_t v = 0;
    const char *p = s;
    while (isdigit((unsigned char)*p)) {
        uint64_t d = (uint64_t)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
        p++;
    }
    unsigned shift = 0;
    switch (*p) {
    case 'k':
    case 'K':
        shift = 10;
        p++;
        break;
    case 'm':
    case 'M':
        shift = 20;
        p++;
        break;
    case 'g':
    case 'G':
        shift = 30;
        p++;
        break;
    case 't':
    case 'T':
        shift = 40;
        p++;
        break;
    default: break;
    }
    if (*p == 'b' || *p == 'B')
        p++;
    if (*p != '\0')
        return -1;
    if (shift && v > (UINT64_MAX >> shift))
        return -1;
    v <<= shift;
    if (v > SIZE_MAX)
        return -1;
    *out = (size_t)v;
    return 0;
}

int shmemi_parse_bool(const char *s, int *out) {
    static const char *const yes[] = {"1", "y", "yes", "true", "on"};
    static const char *const no[] = {"0", "n", "no", "false", "off"};
    if (!s)
        return -1;
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (!strcasecmp(s, yes[i])) {
            *out = 1;
            return 0;
        }
        if (!strcasecmp(s, no[i])) {
            *out = 0;
            return 0;
        }
    }
    return -1;
}

static int parse_long(const char *s, long *out) {
    char *end;
    if (!s || !*s)
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static int errf(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

#define PARTITION_PREFIX "SHMEM_SYMMETRIC_PARTITION"
#define PARTITION_FORM                                                                                                 \
    "SIZE=<size>[:PGSIZE=<size>][:KIND=DEFAULT|HOST|DEVICE][:POLICY=DEFAULT|INTERLEAVED|BIND|PREFERRED]"

static int match_word(const char *v, size_t len, const char *const *words, int n) {
    for (int i = 0; i < n; i++)
        if (strlen(words[i]) == len && !strncasecmp(v, words[i], len))
            return i;
    return -1;
}

int shmemi_parse_partition(const char *name, const char *value, struct shmemi_partition_cfg *out, char *err,
                           size_t errlen) {
    static const char *const kinds[] = {"DEFAULT", "HOST", "DEVICE"};
    static const char *const policies[] = {"DEFAULT", "INTERLEAVED", "BIND", "PREFERRED"};
    size_t plen = strlen(PARTITION_PREFIX);
    if (strncmp(name, PARTITION_PREFIX, plen))
        return errf(err, errlen, "%s: not a partition variable", name);
    long id;
    if (parse_long(name + plen, &id) || id < 1 || id > 127 || !isdigit((unsigned char)name[plen]))
        return errf(err, errlen, "%s: the partition ID after %s must be an integer from 1 to 127", name,
                    PARTITION_PREFIX);
    struct shmemi_partition_cfg c = {.id = (int)id};
    int have_size = 0;
    const char *p = value ? value : "";
    while (*p) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq)
            return errf(err, errlen, "%s=%s: expected KEY=VALUE items separated by ':', as in %s", name, value,
                        PARTITION_FORM);
        size_t klen = (size_t)(eq - p), vlen = len - klen - 1;
        char v[128];
        if (vlen >= sizeof v)
            return errf(err, errlen, "%s: value too long", name);
        memcpy(v, eq + 1, vlen);
        v[vlen] = '\0';
        int ok = 0;
        if (klen == 4 && !strncasecmp(p, "SIZE", 4)) {
            ok = !shmemi_parse_size(v, &c.size) && c.size > 0;
            have_size = ok;
        } else if (klen == 6 && !strncasecmp(p, "PGSIZE", 6)) {
            ok = !shmemi_parse_size(v, &c.pgsize) && c.pgsize > 0 && !(c.pgsize & (c.pgsize - 1));
        } else if (klen == 4 && !strncasecmp(p, "KIND", 4)) {
            c.kind = match_word(v, vlen, kinds, 3);
            ok = c.kind >= 0;
        } else if (klen == 6 && !strncasecmp(p, "POLICY", 6)) {
            c.policy = match_word(v, vlen, policies, 4);
            ok = c.policy >= 0;
        } else {
            return errf(err, errlen, "%s=%s: unknown key '%.*s'; accepted form: %s", name, value, (int)klen, p,
                        PARTITION_FORM);
        }
        if (!ok)
            return errf(err, errlen, "%s=%s: bad value '%s' for %.*s; accepted form: %s", name, value, v, (int)klen, p,
                        PARTITION_FORM);
        p = end ? end + 1 : p + len;
    }
    if (!have_size)
        return errf(err, errlen, "%s=%s: SIZE is required; accepted form: %s", name, value ? value : "",
                    PARTITION_FORM);
    *out = c;
    return 0;
}

static int parse_row(const struct row *r, const char *s, char *err, size_t errlen) {
    char *field = (char *)&shmemi_env + r->offset;
    int rc = 0;
    switch (r->type) {
    case T_SIZE: rc = shmemi_parse_size(s, (size_t *)(void *)field); break;
    case T_BOOL: rc = shmemi_parse_bool(s, (int *)(void *)field); break;
    case T_INT: rc = parse_long(s, (long *)(void *)field); break;
    case T_STRING: *(const char **)(void *)field = s; break;
    }
    if (rc)
        return errf(err, errlen, "%s='%s' is not valid: expected %s", r->name, s, type_forms[r->type]);
    return 0;
}

int shmemi_env_read(char *err, size_t errlen) {
    size_t n = sizeof rows / sizeof rows[0];
    for (size_t i = 0; i < n; i++) /* defaults first, so a bad value never leaves a field unset */
        if (parse_row(&rows[i], rows[i].def, err, errlen))
            return -1;
    for (size_t i = 0; i < n; i++) {
        const char *s = getenv(rows[i].name);
        if (s && parse_row(&rows[i], s, err, errlen))
            return -1;
    }
    if (shmemi_env.ofi_stall_timeout < -1)
        return errf(err, errlen, "SHMEM_OFI_STALL_TIMEOUT=%d is not valid: expected seconds, 0 (never) or -1 (auto)",
                    shmemi_env.ofi_stall_timeout);
    if (shmemi_env.ofi_ctx_ep < -1 || shmemi_env.ofi_ctx_ep > 1)
        return errf(err, errlen,
                    "SHMEM_OFI_CTX_ENDPOINTS=%d is not valid: expected 1 (own endpoints), 0 (shared) or -1 "
                    "(auto)",
                    shmemi_env.ofi_ctx_ep);
    if (shmemi_env.device_max_ctx < 0)
        return errf(err, errlen, "SHMEM_DEVICE_MAX_CTX=%d is not valid: expected a number of contexts, 0 or more",
                    shmemi_env.device_max_ctx);
    if (shmemi_env.wait_spin < -1 || shmemi_env.wait_yield < 0)
        return errf(err, errlen, "SHMEM_WAIT_SPIN must be -1 (auto) or >= 0 and SHMEM_WAIT_YIELD >= 0");
    if (strcmp(shmemi_env.transport, "auto") && strcmp(shmemi_env.transport, "shm") &&
        strcmp(shmemi_env.transport, "ofi"))
        return errf(err, errlen, "SHMEM_TRANSPORT='%s' is not valid: expected auto, shm or ofi", shmemi_env.transport);
    if (shmemi_env.node_size < 0 || (shmemi_env.node_size > 0 && strcmp(shmemi_env.transport, "auto")))
        return errf(err, errlen,
                    "SHMEM_TEST_NODE_SIZE=%d is not valid: expected 0 (off) or a PE count, with SHMEM_TRANSPORT=auto "
                    "(it is '%s')",
                    shmemi_env.node_size, shmemi_env.transport);
    if (*shmemi_env.test_nodes) {
        const char *t = shmemi_env.test_nodes;
        int ok = strcmp(shmemi_env.transport, "auto") == 0 && shmemi_env.node_size == 0 && *t != ',' &&
                 t[strlen(t) - 1] != ',' && !strstr(t, ",,");
        for (; ok && *t; t++)
            ok = (*t >= '0' && *t <= '9') || *t == ',';
        if (!ok)
            return errf(err, errlen,
                        "SHMEM_TEST_NODES='%s' is not valid: expected comma-separated node numbers (e.g. 0,1,0,1,1), "
                        "with SHMEM_TRANSPORT=auto and without SHMEM_TEST_NODE_SIZE",
                        shmemi_env.test_nodes);
    }
    if (strcmp(shmemi_env.gpu, "auto") && strcmp(shmemi_env.gpu, "cuda") && strcmp(shmemi_env.gpu, "none") &&
        strcmp(shmemi_env.gpu, "emulate") && strcmp(shmemi_env.gpu, "emulate-visible"))
        return errf(err, errlen, "SHMEM_GPU='%s' is not valid: expected auto, cuda, none, emulate or emulate-visible",
                    shmemi_env.gpu);
    if (shmemi_env.symmetric_size_device && shmemi_env.device_symmetric_size &&
        shmemi_env.symmetric_size_device != shmemi_env.device_symmetric_size)
        return errf(err, errlen,
                    "SHMEM_SYMMETRIC_SIZE_DEVICE=%zu and SHMEM_DEVICE_SYMMETRIC_SIZE=%zu name the same GPU heap but "
                    "disagree; set one of them",
                    shmemi_env.symmetric_size_device, shmemi_env.device_symmetric_size);
    if (strcmp(shmemi_env.bootstrap, "auto") && strcmp(shmemi_env.bootstrap, "local") &&
        strcmp(shmemi_env.bootstrap, "pmix"))
        return errf(err, errlen, "SHMEM_BOOTSTRAP='%s' is not valid: expected auto, local or pmix",
                    shmemi_env.bootstrap);

    shmemi_npartitions = 0;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, PARTITION_PREFIX, strlen(PARTITION_PREFIX)))
            continue;
        const char *eq = strchr(*e, '=');
        char name[96];
        size_t nl = eq ? (size_t)(eq - *e) : strlen(*e);
        if (nl >= sizeof name)
            return errf(err, errlen, "%.40s...: variable name too long", *e);
        memcpy(name, *e, nl);
        name[nl] = '\0';
        struct shmemi_partition_cfg c;
        if (shmemi_parse_partition(name, eq ? eq + 1 : "", &c, err, errlen))
            return -1;
        for (int i = 0; i < shmemi_npartitions; i++)
            if (shmemi_partitions[i].id == c.id)
                return errf(err, errlen, "%s: partition %d is defined twice", name, c.id);
        if (shmemi_npartitions == SHMEMI_MAX_PARTITIONS)
            return errf(err, errlen, "%s: at most %d partitions are supported", name, SHMEMI_MAX_PARTITIONS);
        shmemi_partitions[shmemi_npartitions++] = c;
    }
    /* environ order is arbitrary; every PE must create partitions in the same order */
    for (int i = 1; i < shmemi_npartitions; i++)
        for (int j = i; j > 0 && shmemi_partitions[j - 1].id > shmemi_partitions[j].id; j--) {
            struct shmemi_partition_cfg t = shmemi_partitions[j];
            shmemi_partitions[j] = shmemi_partitions[j - 1];
            shmemi_partitions[j - 1] = t;
        }
    return 0;
}

static void format_value(const struct row *r, char *buf, size_t len) {
    const char *field = (const char *)&shmemi_env + r->offset;
    switch (r->type) {
    case T_SIZE: snprintf(buf, len, "%zu", *(const size_t *)(const void *)field); break;
    case T_BOOL: snprintf(buf, len, "%d", *(const int *)(const void *)field); break;
    case T_INT: snprintf(buf, len, "%ld", *(const long *)(const void *)field); break;
    case T_STRING: snprintf(buf, len, "%s", *(const char *const *)(const void *)field); break;
    }
}

void shmemi_env_print(FILE *f, int show_launch) {
    size_t n = sizeof rows / sizeof rows[0];
    for (size_t i = 0; i < n; i++) {
        if (rows[i].vis == V_LAUNCH && !show_launch)
            continue;
        char val[64];
        format_value(&rows[i], val, sizeof val);
        fprintf(f, "  %-28s = %-12s (default %s%s)\n      %s\n", rows[i].name, val, rows[i].def,
                rows[i].vis == V_LAUNCH ? "; set by oshrun" : "", rows[i].doc);
    }
    fprintf(f, "  %-28s   %s\n      Extra symmetric segments; %d defined.\n", PARTITION_PREFIX "<ID>", PARTITION_FORM,
            shmemi_npartitions);
    for (int i = 0; i < shmemi_npartitions; i++)
        fprintf(f, "      partition %d: size %zu, page size %zu, kind %d, policy %d\n", shmemi_partitions[i].id,
                shmemi_partitions[i].size, shmemi_partitions[i].pgsize, shmemi_partitions[i].kind,
                shmemi_partitions[i].policy);
}

void shmemi_env_print_markdown(FILE *f) {
    static const char *const type_names[] = {
        [T_SIZE] = "size", [T_BOOL] = "bool", [T_INT] = "integer", [T_STRING] = "string"};
    fprintf(f, "# gshmem environment variables\n\nGenerated by `shmem_info --markdown` from `src/core/env.def`; "
               "do not edit.\n\n| Variable | Type | Default | Description |\n|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        fprintf(f, "| `%s` | %s | `%s` | %s%s |\n", rows[i].name, type_names[rows[i].type], rows[i].def,
                rows[i].vis == V_LAUNCH ? "(set by oshrun) " : "", rows[i].doc);
    fprintf(f,
            "| `%s<ID>` | partition | unset | Extra symmetric segment: `%s`; ID 1 to 127, at most %d "
            "partitions; allocate with `shmem_partition_malloc(size, ID)`. |\n",
            PARTITION_PREFIX, PARTITION_FORM, SHMEMI_MAX_PARTITIONS);
    fprintf(f, "\nSizes take k/M/G/T suffixes (powers of 1024). Booleans take 1/0, yes/no, true/false, "
               "on/off. A bad value stops `shmem_init` with a message naming the variable.\n");
}

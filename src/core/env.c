/* env.c - the one reader of the environment: parses every row of env.def (and the partition variables) once,
 * validates it, and prints the table for shmem_info / SHMEM_INFO. The only file in the library that calls getenv (also
 * for the variables of the libraries it loads: shmemi_env_lib), but for src/topo, which oshrun builds on its own. */
#include "env.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

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
    long long lo, hi; /* SIZE and INT: the accepted range */
    int vis;
    const char *doc;
    size_t offset;
};

static const struct row rows[] = {
#define X(field, name, type, def, lo, hi, vis, doc)                                                                    \
    {name, T_##type, def, (long long)(lo), (long long)(hi), V_##vis, doc, offsetof(struct shmemi_env, field)},
#include "env.def"
#undef X
};
#define NROWS (sizeof rows / sizeof rows[0])

/* each row's value as the environment gave it (NULL: the default), for messages that must quote the user */
static const char *raw[NROWS];

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

static int errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
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
    "SIZE=<size>[:PGSIZE=<size>][:KIND=DEFAULT|HOST|DEVICE|LIBOMP][:OMP_DEVICE=<n>][:POLICY=DEFAULT|"                  \
    "INTERLEAVE[=<nodes>]|BIND=<nodes>|PREFERRED=<node>]"

static int match_word(const char *v, size_t len, const char *const *words, int n) {
    for (int i = 0; i < n; i++)
        if (strlen(words[i]) == len && !strncasecmp(v, words[i], len))
            return i;
    return -1;
}

/* "0", "0,2", "1-3,5": NUMA node numbers below SHMEMI_MAX_NUMA; returns 0 and the mask, or -1 with why (a phrase
 * to follow the list) */
static int parse_nodes(const char *s, uint64_t *mask, char *why, size_t whylen) {
    uint64_t m = 0;
    if (!*s)
        return errf(why, whylen, "is empty");
    while (*s) {
        if (!isdigit((unsigned char)*s))
            return errf(why, whylen, "has '%s' where a node number belongs", s);
        char *end;
        errno = 0;
        unsigned long a = strtoul(s, &end, 10), b = a;
        if (*end == '-') {
            if (!isdigit((unsigned char)end[1]))
                return errf(why, whylen, "has a range without its end");
            b = strtoul(end + 1, &end, 10);
        }
        if (errno)
            return errf(why, whylen, "has a number too large to read: node numbers are below %d", SHMEMI_MAX_NUMA);
        if (a >= SHMEMI_MAX_NUMA || b >= SHMEMI_MAX_NUMA)
            return errf(why, whylen,
                        "names node %lu, but node numbers must be below %d (the most NUMA nodes gshmem "
                        "places memory on)",
                        a >= SHMEMI_MAX_NUMA ? a : b, SHMEMI_MAX_NUMA);
        if (b < a)
            return errf(why, whylen, "has the range %lu-%lu, which runs backwards", a, b);
        for (unsigned long k = a; k <= b; k++)
            m |= (uint64_t)1 << k;
        if (*end == ',' && !end[1])
            return errf(why, whylen, "ends with ','");
        if (*end == ',')
            end++;
        else if (*end)
            return errf(why, whylen, "has '%s' after a node number, where a ',' belongs", end);
        s = end;
    }
    *mask = m;
    return 0;
}

#define STR_(x) #x
#define STR(x) STR_(x)
#define POLICY_FORM                                                                                                    \
    "DEFAULT, INTERLEAVE[=<nodes>], BIND=<nodes> or PREFERRED=<node>, where <nodes> lists NUMA node numbers "          \
    "below " STR(SHMEMI_MAX_NUMA) " and ranges of them, such as 0,2-3"

/* POLICY's value: a word, then =<nodes> where the policy takes them; -1 with why */
static int parse_policy(const char *v, struct shmemi_partition_cfg *c, char *why, size_t whylen) {
    static const char *const words[] = {"DEFAULT", "INTERLEAVE", "INTERLEAVED", "BIND", "PREFERRED"};
    static const int codes[] = {SHMEMI_POLICY_DEFAULT, SHMEMI_POLICY_INTERLEAVED, SHMEMI_POLICY_INTERLEAVED,
                                SHMEMI_POLICY_BIND, SHMEMI_POLICY_PREFERRED};
    const char *eq = strchr(v, '=');
    int w = match_word(v, eq ? (size_t)(eq - v) : strlen(v), words, 5);
    if (w < 0)
        return errf(why, whylen, "accepted: " POLICY_FORM);
    c->policy = codes[w];
    c->nodes = 0;
    char nw[160];
    if (c->policy == SHMEMI_POLICY_DEFAULT)
        return eq ? errf(why, whylen, "DEFAULT takes no nodes; accepted: " POLICY_FORM) : 0;
    if (!eq && c->policy == SHMEMI_POLICY_INTERLEAVED)
        return 0;
    if (!eq)
        return errf(why, whylen, "%s needs its node%s; accepted: " POLICY_FORM, words[w], w == 3 ? "s" : "");
    if (parse_nodes(eq + 1, &c->nodes, nw, sizeof nw))
        return errf(why, whylen, "the node list '%s' %s", eq + 1, nw);
    if (c->policy == SHMEMI_POLICY_PREFERRED && (c->nodes & (c->nodes - 1)))
        return errf(why, whylen, "PREFERRED takes one node (BIND and INTERLEAVE take several)");
    return 0;
}

int shmemi_parse_partition(const char *name, const char *value, struct shmemi_partition_cfg *out, char *err,
                           size_t errlen) {
    /* OMP is LIBOMP's other name */
    static const char *const kinds[] = {"DEFAULT", "HOST", "DEVICE", "LIBOMP", "OMP"};
    size_t plen = strlen(PARTITION_PREFIX);
    if (strncmp(name, PARTITION_PREFIX, plen))
        return errf(err, errlen, "%s: not a partition variable", name);
    long id;
    if (parse_long(name + plen, &id) || id < 1 || id > 127 || !isdigit((unsigned char)name[plen]))
        return errf(err, errlen, "%s: the partition ID after %s must be an integer from 1 to 127", name,
                    PARTITION_PREFIX);
    struct shmemi_partition_cfg c = {.id = (int)id, .omp_device = -1};
    snprintf(c.text, sizeof c.text, "%s=%s", name, value ? value : "");
    int have_size = 0, have_pg = 0, have_pol = 0, have_dev = 0;
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
        char why[320] = ""; /* why the value is refused, with the values the key accepts */
        int *seen = NULL;
        if (klen == 4 && !strncasecmp(p, "SIZE", 4)) {
            /* the allocator's smallest block at least; at most half the address space, so rounding it up to
             * pages cannot wrap */
            seen = &have_size;
            if (shmemi_parse_size(v, &c.size) || c.size < 64 || c.size > SIZE_MAX / 2)
                snprintf(why, sizeof why,
                         "accepted: a byte count from 64 to %zu, with k/M/G/T suffixes (powers of 1024)", SIZE_MAX / 2);
        } else if (klen == 6 && !strncasecmp(p, "PGSIZE", 6)) {
            /* a power of two passes here (another machine's base page: 64k on some ARM systems); whether this one
             * has pages of that size is for shmem_init to say */
            seen = &have_pg;
            if (shmemi_parse_size(v, &c.pgsize) || !c.pgsize || (c.pgsize & (c.pgsize - 1)))
                snprintf(why, sizeof why,
                         "not a page size; accepted: the base page size (%ldk here), 2M or 1G (huge pages)",
                         sysconf(_SC_PAGESIZE) >> 10);
        } else if (klen == 4 && !strncasecmp(p, "KIND", 4)) {
            c.kind = match_word(v, vlen, kinds, 5);
            if (c.kind < 0)
                snprintf(why, sizeof why, "accepted: DEFAULT, HOST, DEVICE or LIBOMP (also spelt OMP)");
            if (c.kind == 4)
                c.kind = SHMEMI_KIND_LIBOMP;
        } else if (klen == 10 && !strncasecmp(p, "OMP_DEVICE", 10)) {
            long d = -1;
            seen = &have_dev;
            if (!isdigit((unsigned char)v[0]) || parse_long(v, &d) || d > 1 << 20)
                snprintf(why, sizeof why, "accepted: an OpenMP device number from 0 to %d", 1 << 20);
            c.omp_device = why[0] ? -1 : (int)d;
        } else if (klen == 6 && !strncasecmp(p, "POLICY", 6)) {
            seen = &have_pol;
            parse_policy(v, &c, why, sizeof why);
        } else {
            return errf(err, errlen, "%s=%s: unknown key '%.*s'; accepted form: %s", name, value, (int)klen, p,
                        PARTITION_FORM);
        }
        if (seen && *seen)
            return errf(err, errlen, "%s=%s: %.*s is given twice", name, value, (int)klen, p);
        if (seen)
            *seen = 1;
        if (why[0])
            return errf(err, errlen, "%s=%s: bad value '%s' for %.*s: %s", name, value, v, (int)klen, p, why);
        p = end ? end + 1 : p + len;
    }
    if (!have_size)
        return errf(err, errlen, "%s=%s: SIZE is required; accepted form: %s", name, value ? value : "",
                    PARTITION_FORM);
    /* a GPU partition's pages and placement are the GPU driver's (an OpenMP one's, the OpenMP runtime's): nothing
     * here could honour these */
    if ((c.kind == SHMEMI_KIND_DEVICE || c.kind == SHMEMI_KIND_LIBOMP) &&
        (c.pgsize || c.policy != SHMEMI_POLICY_DEFAULT))
        return errf(err, errlen, "%s=%s: %s does not apply to KIND=%s (%s places and pages that memory); remove it",
                    name, value, c.pgsize ? "PGSIZE" : "POLICY", c.kind == SHMEMI_KIND_DEVICE ? "DEVICE" : "LIBOMP",
                    c.kind == SHMEMI_KIND_DEVICE ? "the GPU driver" : "the OpenMP runtime");
    if (have_dev && c.kind != SHMEMI_KIND_LIBOMP)
        return errf(err, errlen, "%s=%s: OMP_DEVICE applies to KIND=LIBOMP only; remove it or add KIND=LIBOMP", name,
                    value);
    *out = c;
    return 0;
}

static int parse_row(const struct row *r, const char *s, char *err, size_t errlen) {
    char *field = (char *)&shmemi_env + r->offset;
    int rc = 0;
    switch (r->type) {
    case T_SIZE: {
        size_t v;
        if (!strcmp(r->def, "auto") && !strcmp(s, "auto")) { /* 0 stands for auto: the reader picks the size */
            *(size_t *)(void *)field = 0;
            break;
        }
        rc = shmemi_parse_size(s, &v);
        if (!rc && (v < (unsigned long long)r->lo || v > (unsigned long long)r->hi))
            return errf(err, errlen, "%s='%s' is out of range: expected a byte count from %lld to %lld", r->name, s,
                        r->lo, r->hi);
        if (!rc)
            *(size_t *)(void *)field = v;
        break;
    }
    case T_BOOL: rc = shmemi_parse_bool(s, (int *)(void *)field); break;
    case T_INT: {
        long v;
        rc = parse_long(s, &v);
        if (!rc && (v < r->lo || v > r->hi))
            return errf(err, errlen, "%s='%s' is out of range: expected an integer from %lld to %lld", r->name, s,
                        r->lo, r->hi);
        if (!rc)
            *(long *)(void *)field = v;
        break;
    }
    case T_STRING: *(const char **)(void *)field = s; break;
    }
    if (rc)
        return errf(err, errlen, "%s='%s' is not valid: expected %s", r->name, s, type_forms[r->type]);
    return 0;
}

const char *shmemi_env_raw(const char *name) {
    for (size_t i = 0; i < NROWS; i++)
        if (!strcmp(rows[i].name, name))
            return raw[i];
    return NULL;
}

const char *shmemi_env_lib(const char *name) { return getenv(name); }

int shmemi_env_lib_default(const char *name, const char *value) { return !getenv(name) && setenv(name, value, 0) == 0; }

/* the value as written, or the default's text */
static const char *raw_of(const char *name) {
    for (size_t i = 0; i < NROWS; i++)
        if (!strcmp(rows[i].name, name))
            return raw[i] ? raw[i] : rows[i].def;
    return "";
}

int shmemi_env_read(char *err, size_t errlen) {
    for (size_t i = 0; i < NROWS; i++) { /* defaults first, so a bad value never leaves a field unset */
        raw[i] = NULL;
        if (parse_row(&rows[i], rows[i].def, err, errlen))
            return -1;
    }
    /* every row is read even after a bad one (which keeps its default), so the bootstrap's rows are there for
     * shmem_init to start it and report the first bad value once for the job, with the PE that found it */
    int bad = 0;
    for (size_t i = 0; i < NROWS; i++) {
        const char *s = getenv(rows[i].name);
        if (s && parse_row(&rows[i], s, bad ? NULL : err, bad ? 0 : errlen)) {
            bad = 1;
            continue;
        }
        raw[i] = s;
    }
    if (bad)
        return -1;
    if (strcmp(shmemi_env.transport, "auto") && strcmp(shmemi_env.transport, "shm") &&
        strcmp(shmemi_env.transport, "ofi"))
        return errf(err, errlen, "SHMEM_TRANSPORT='%s' is not valid: expected auto, shm or ofi", shmemi_env.transport);
    if (shmemi_env.node_size > 0 && strcmp(shmemi_env.transport, "auto"))
        return errf(err, errlen,
                    "SHMEM_TEST_NODE_SIZE=%s is not valid with SHMEM_TRANSPORT=%s: pretend nodes need "
                    "SHMEM_TRANSPORT=auto",
                    raw_of("SHMEM_TEST_NODE_SIZE"), shmemi_env.transport);
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
    static const char *const gpus[] = {
        "auto", "cuda", "hip", "ze", "none", "emulate", "emulate-visible", "emulate-coherent"};
    int gpu_ok = 0;
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++)
        gpu_ok |= !strcmp(shmemi_env.gpu, gpus[i]);
    if (!gpu_ok)
        return errf(err, errlen,
                    "SHMEM_GPU='%s' is not valid: expected auto, cuda, hip, ze, none, emulate, emulate-visible or "
                    "emulate-coherent",
                    shmemi_env.gpu);
    if (strcmp(shmemi_env.gpu_coherent, "auto") && strcmp(shmemi_env.gpu_coherent, "0") &&
        strcmp(shmemi_env.gpu_coherent, "1"))
        return errf(err, errlen, "SHMEM_GPU_COHERENT='%s' is not valid: expected auto, 0 or 1",
                    shmemi_env.gpu_coherent);
    if (strcmp(shmemi_env.device_proxy_mutate, "none") && strcmp(shmemi_env.device_proxy_mutate, "fence") &&
        strcmp(shmemi_env.device_proxy_mutate, "quiet") && strcmp(shmemi_env.device_proxy_mutate, "completion"))
        return errf(err, errlen,
                    "SHMEM_DEVICE_PROXY_MUTATE='%s' is not valid: expected none, fence, quiet or completion (a "
                    "testing knob; leave it unset)",
                    shmemi_env.device_proxy_mutate);
    if (shmemi_env.symmetric_size_device && shmemi_env.device_symmetric_size &&
        shmemi_env.symmetric_size_device != shmemi_env.device_symmetric_size)
        return errf(err, errlen,
                    "SHMEM_SYMMETRIC_SIZE_DEVICE=%s and SHMEM_DEVICE_SYMMETRIC_SIZE=%s name the same GPU heap but "
                    "disagree; set one of them",
                    raw_of("SHMEM_SYMMETRIC_SIZE_DEVICE"), raw_of("SHMEM_DEVICE_SYMMETRIC_SIZE"));
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

/* ---- variables gshmem does not read ---- */

/* Names other OpenSHMEMs read (facts from their documentation: Sandia OpenSHMEM's variable table, which it also
 * reads as SMA_<name>; Cray OpenSHMEMX's intro_shmem(3); the OpenSHMEM reference implementation and SGI SHMEM), so
 * a job script carried over from one of them hears whose a variable is, and gshmem's variable for the same thing
 * where there is one, instead of a guessed misspelling. Variables both read alike (SHMEM_SYMMETRIC_SIZE,
 * SHMEM_OFI_PROVIDER...) are gshmem's rows and never reach this list. */
#define SOS "Sandia OpenSHMEM"
#define CRAY "Cray OpenSHMEMX"
static const struct {
    const char *name, *owner, *ours;
} foreign[] = {
    {"SHMEM_SYMMETRIC_HEAP_SIZE", "the OpenSHMEM reference implementation and SGI SHMEM", "SHMEM_SYMMETRIC_SIZE"},
    {"SHMEM_SYMMETRIC_HEAP_USE_HUGE_PAGES", SOS, NULL},
    {"SHMEM_SYMMETRIC_HEAP_PAGE_SIZE", SOS, NULL},
    {"SHMEM_SYMMETRIC_HEAP_USE_MALLOC", SOS, NULL},
    {"SHMEM_SYMMETRIC_HEAP_USE_DSMML", SOS, NULL},
    {"SHMEM_DISABLE_ASLR_CHECK", SOS, NULL},
    {"SHMEM_BOUNCE_SIZE", SOS, NULL},
    {"SHMEM_MAX_BOUNCE_BUFFERS", SOS, NULL},
    {"SHMEM_TRAP_ON_ABORT", SOS, NULL},
    {"SHMEM_COLL_CROSSOVER", SOS, NULL},
    {"SHMEM_COLL_SIZE_CROSSOVER", SOS, NULL},
    {"SHMEM_COLL_RADIX", SOS, NULL},
    {"SHMEM_BARRIER_ALGORITHM", SOS, NULL},
    {"SHMEM_HIER_BARRIER_THRESHOLD", SOS, NULL},
    {"SHMEM_HIER_BARRIER_DEBUG", SOS, NULL},
    {"SHMEM_BCAST_ALGORITHM", SOS, NULL},
    {"SHMEM_REDUCE_ALGORITHM", SOS, NULL},
    {"SHMEM_SCAN_ALGORITHM", SOS, NULL},
    {"SHMEM_COLLECT_ALGORITHM", SOS, NULL},
    {"SHMEM_FCOLLECT_ALGORITHM", SOS, NULL},
    {"SHMEM_BARRIERS_FLUSH", SOS, NULL},
    {"SHMEM_FLUSH_STREAM_ON_BARRIER", SOS, NULL},
    {"SHMEM_TEAMS_MAX", SOS, NULL},
    {"SHMEM_TEAM_SHARED_ONLY_SELF", SOS, NULL},
    {"SHMEM_DISABLE_TEAM_SHARED", SOS, NULL},
    {"SHMEM_CMA_PUT_MAX", SOS, NULL},
    {"SHMEM_CMA_GET_MAX", SOS, NULL},
    {"SHMEM_OFI_ATOMIC_CHECKS_WARN", SOS, NULL},
    {"SHMEM_OFI_FABRIC", SOS, NULL},
    {"SHMEM_OFI_USE_PROVIDER", SOS, "SHMEM_OFI_PROVIDER"},
    {"SHMEM_OFI_TX_POLL_LIMIT", SOS, NULL},
    {"SHMEM_OFI_RX_POLL_LIMIT", SOS, NULL},
    {"SHMEM_OFI_PUT_PIPELINE_DEPTH", SOS, NULL},
    {"SHMEM_OFI_STX_MAX", SOS, NULL},
    {"SHMEM_OFI_STX_AUTO", SOS, NULL},
    {"SHMEM_OFI_STX_NODE_MAX", SOS, NULL},
    {"SHMEM_OFI_STX_THRESHOLD", SOS, NULL},
    {"SHMEM_OFI_STX_ALLOCATOR", SOS, NULL},
    {"SHMEM_OFI_STX_SHARE_ALGORITHM", SOS, NULL},
    {"SHMEM_OFI_STX_DISABLE_PRIVATE", SOS, NULL},
    {"SHMEM_OFI_DISABLE_MULTIRAIL", SOS, NULL},
    {"SHMEM_OFI_DISABLE_SINGLE_EP", SOS, NULL},
    {"SHMEM_DISABLE_MULTIRAIL", SOS, NULL},
    {"SHMEM_PROGRESS_INTERVAL", SOS, NULL},
    {"SHMEM_MPI_THREAD_LEVEL", SOS, NULL},
    {"SHMEM_BACKTRACE", SOS, NULL},
    {"SHMEM_VERSION_DISPLAY", CRAY, "SHMEM_VERSION"},
    {"SHMEM_ENV_DISPLAY", CRAY, "SHMEM_INFO"},
    {"SHMEM_ABORT_ON_ERROR", CRAY, NULL},
    {"SHMEM_ERROR_FILE", CRAY, NULL},
    {"SHMEM_FREEMEM_THRESHOLD", CRAY, NULL},
    {"SHMEM_MEMINFO_DISPLAY", CRAY, NULL},
    {"SHMEM_OPTIMIZED_MEMCPY", CRAY, NULL},
    {"SHMEM_USE_DSMML", CRAY, NULL},
    {"SHMEM_USE_DSMML_SSHEAP", CRAY, NULL},
    {"SHMEM_ALLTOALL_BLOCK_SIZE", CRAY, NULL},
    {"SHMEM_ALLTOALL_SHORT_MSG", CRAY, NULL},
    {"SHMEM_ALLTOALL_SYMBUF_SIZE", CRAY, NULL},
    {"SHMEM_ALLTOALL_SYNC_FREQ", CRAY, NULL},
    {"SHMEM_ALLTOALL_USE_GETS", CRAY, NULL},
    {"SHMEM_ALLTOALLV_TSIZE_CHK", CRAY, NULL},
    {"SHMEM_COLL_OPT_OFF", CRAY, NULL},
    {"SHMEM_MASSIVE_BCAST_CUTOFF", CRAY, NULL},
    {"SHMEM_REDUCE_CUTOFF_SIZE", CRAY, NULL},
    {"SHMEM_TEAM_FREE_ASSO_CHILD", CRAY, NULL},
    {"SHMEM_TEAM_SMP_REDUCE", CRAY, NULL},
    {"SHMEM_TEAMS_MEM_OPT_LEVEL", CRAY, NULL},
    {"SHMEM_USE_LARGE_OPT_REDUCE", CRAY, NULL},
    {"SHMEM_USE_OPT_MASSIVE_BCAST", CRAY, NULL},
    {"SHMEM_USE_OPTIMIZED_VSMSG_BCAST", CRAY, NULL},
    {"SHMEM_THREAD_SAFETY", CRAY, NULL},
    {"SHMEM_MAX_CTX", CRAY, NULL},
    {"SHMEM_LOCALITY_ONNODE", CRAY, NULL},
    {"SHMEM_LOCALITY_OFFNODE", CRAY, NULL},
    {"SHMEM_SMP_SIZE_LIMIT", CRAY, NULL},
    {"SHMEM_USE_SMP", CRAY, NULL},
    {"SHMEM_OFI_FABRIC_DISPLAY", CRAY, NULL},
    {"SHMEM_OFI_PROVIDER_DISPLAY", CRAY, NULL},
    {"SHMEM_OFI_USE_PROV_NAME", CRAY, "SHMEM_OFI_PROVIDER"},
    {"SHMEM_OFI_USE_DOMAIN_NAME", CRAY, "SHMEM_OFI_DOMAIN"},
    {"SHMEM_OFI_USE_FABRIC_NAME", CRAY, NULL},
    {"SHMEM_OFI_GLOBAL_EXIT", CRAY, NULL},
    {"SHMEM_OFI_STARTUP_CONNECT", CRAY, NULL},
};
#undef SOS
#undef CRAY
#define NFOREIGN (sizeof foreign / sizeof foreign[0])

static int row_of(const char *name, size_t len) {
    for (size_t i = 0; i < NROWS; i++)
        if (strlen(rows[i].name) == len && !strncmp(rows[i].name, name, len))
            return (int)i;
    return -1;
}

static int foreign_of(const char *name, size_t len) {
    for (size_t i = 0; i < NFOREIGN; i++)
        if (strlen(foreign[i].name) == len && !strncmp(foreign[i].name, name, len))
            return (int)i;
    return -1;
}

/* Damerau-Levenshtein distance (optimal string alignment: insertions, deletions, substitutions and swaps of two
 * neighbours, the slips of typing), three rows of the table at a time; names longer than 95 characters are nobody's
 * misspelling and count as far. */
#define DIST_MAX 96
static int distance(const char *a, size_t la, const char *b, size_t lb) {
    if (la >= DIST_MAX || lb >= DIST_MAX)
        return DIST_MAX;
    int rows3[3][DIST_MAX], *two = rows3[0], *one = rows3[1], *cur = rows3[2];
    for (size_t j = 0; j <= lb; j++)
        one[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int sub = one[j - 1] + (a[i - 1] != b[j - 1]), del = one[j] + 1, ins = cur[j - 1] + 1;
            int m = sub < del ? sub : del;
            m = ins < m ? ins : m;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && two[j - 2] + 1 < m)
                m = two[j - 2] + 1;
            cur[j] = m;
        }
        int *t = two;
        two = one;
        one = cur;
        cur = t;
    }
    return one[lb];
}

/* The user-settable name closest to name[0..len) within a typing slip or two (more for longer names, whose
 * differences are relatively fewer), or NULL; out gets it, with <ID> for a partition variable's number. */
static const char *closest(const char *name, size_t len, char *out, size_t outlen) {
    int best = len <= 12 ? 2 : len <= 20 ? 3 : 4; /* the first distance that is too far */
    const char *pick = NULL;
    for (size_t i = 0; i < NROWS; i++) {
        if (rows[i].vis == V_LAUNCH) /* oshrun's (GSHMEM_SIZE is the job's PE count, not a heap size) */
            continue;
        int d = distance(name, len, rows[i].name, strlen(rows[i].name));
        if (d < best) {
            best = d;
            pick = rows[i].name;
        }
    }
    /* SHMEM_SYMMETRIC_PARTITON3: the partition prefix, the ID aside */
    size_t stem = len;
    while (stem > 0 && isdigit((unsigned char)name[stem - 1]))
        stem--;
    if (distance(name, stem, PARTITION_PREFIX, strlen(PARTITION_PREFIX)) < best) {
        snprintf(out, outlen, "%s%.*s", PARTITION_PREFIX, stem < len ? (int)(len - stem) : 4,
                 stem < len ? name + stem : "<ID>");
        return out;
    }
    if (pick)
        snprintf(out, outlen, "%s", pick);
    return pick ? out : NULL;
}

static int by_name(const void *a, const void *b) { /* NAME=VALUE entries, by NAME */
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    size_t lx = strcspn(x, "="), ly = strcspn(y, "=");
    int c = strncmp(x, y, lx < ly ? lx : ly);
    return c ? c : (lx > ly) - (lx < ly);
}

int shmemi_env_unknown(FILE *f, const char *prefix, const char *suffix) {
    size_t n = 0, cap = 0;
    const char **names = NULL;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "SHMEM_", 6) && strncmp(*e, "GSHMEM_", 7) && strncmp(*e, "SMA_", 4))
            continue;
        size_t len = strcspn(*e, "=");
        if (row_of(*e, len) >= 0 || !strncmp(*e, PARTITION_PREFIX, strlen(PARTITION_PREFIX)))
            continue; /* (partition variables are parsed, and refused with a message, by shmemi_env_read) */
        if (n == cap) {
            const char **more = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *names);
            if (!more)
                break;
            names = more;
        }
        names[n++] = *e;
    }
    if (n > 1) /* environ's order is the launcher's: sort, so every run of a job says it alike */
        qsort(names, n, sizeof *names, by_name);
    for (size_t k = 0; k < n; k++) {
        const char *v = names[k];
        int len = (int)strcspn(v, "=");
        char near[128];
        int fo = foreign_of(v, (size_t)len);
        char shmem[128] = "";
        size_t sl = 0;
        if (!strncmp(v, "SMA_", 4)) { /* other OpenSHMEMs read SHMEM_<name> also as SMA_<name> */
            snprintf(shmem, sizeof shmem, "SHMEM_%.*s", len - 4, v + 4);
            sl = strlen(shmem);
        }
        if (fo >= 0 && foreign[fo].ours)
            fprintf(f, "%s%.*s: a variable of %s, not read by gshmem; gshmem's is %s%s\n", prefix, len, v,
                    foreign[fo].owner, foreign[fo].ours, suffix);
        else if (fo >= 0)
            fprintf(f, "%s%.*s: a variable of %s, not read by gshmem (which has no such setting)%s\n", prefix, len, v,
                    foreign[fo].owner, suffix);
        else if (sl && row_of(shmem, sl) >= 0)
            fprintf(f, "%s%.*s: the SMA_ spelling of %s that other OpenSHMEMs read; gshmem reads only %s%s\n", prefix,
                    len, v, shmem, shmem, suffix);
        else if (sl && (fo = foreign_of(shmem, sl)) >= 0)
            fprintf(f, "%s%.*s: a variable of %s (its SMA_ spelling of %s), not read by gshmem%s\n", prefix, len, v,
                    foreign[fo].owner, shmem, suffix);
        else if (sl)
            fprintf(f,
                    "%s%.*s: an SMA_ variable of another OpenSHMEM (Sandia OpenSHMEM, Open MPI's OSHMEM), not read "
                    "by gshmem%s\n",
                    prefix, len, v, suffix);
        else if (closest(v, (size_t)len, near, sizeof near))
            fprintf(f, "%s%.*s: not a gshmem variable (ignored); did you mean %s?%s\n", prefix, len, v, near, suffix);
        else
            fprintf(f, "%s%.*s: not a gshmem variable (ignored; shmem_info --all lists gshmem's)%s\n", prefix, len, v,
                    suffix);
    }
    free(names);
    return (int)n;
}

static void format_value(const struct row *r, char *buf, size_t len) {
    const char *field = (const char *)&shmemi_env + r->offset;
    switch (r->type) {
    case T_SIZE:
        if (!strcmp(r->def, "auto") && !*(const size_t *)(const void *)field)
            snprintf(buf, len, "auto");
        else
            snprintf(buf, len, "%zu", *(const size_t *)(const void *)field);
        break;
    case T_BOOL: snprintf(buf, len, "%d", *(const int *)(const void *)field); break;
    case T_INT: snprintf(buf, len, "%ld", *(const long *)(const void *)field); break;
    case T_STRING: snprintf(buf, len, "%s", *(const char *const *)(const void *)field); break;
    }
}

int shmemi_env_print_set(FILE *f, const char *lead) {
    int n = 0;
    for (size_t i = 0; i < NROWS; i++)
        if (raw[i] && rows[i].vis == V_PUBLIC)
            fprintf(f, "%s%s=%s", n++ ? ", " : lead, rows[i].name, raw[i]);
    for (int i = 0; i < shmemi_npartitions; i++)
        fprintf(f, "%s%s", n++ ? ", " : lead, shmemi_partitions[i].text);
    if (n)
        fprintf(f, "\n");
    else
        fprintf(f, "%snone of gshmem's variables (every setting is its default)\n", lead);
    return n;
}

void shmemi_env_print(FILE *f, int show_launch) {
    for (size_t i = 0; i < NROWS; i++) {
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
        fprintf(f, "      partition %d: size %zu, page size %zu, kind %d, policy %d, nodes 0x%llx\n",
                shmemi_partitions[i].id, shmemi_partitions[i].size, shmemi_partitions[i].pgsize,
                shmemi_partitions[i].kind, shmemi_partitions[i].policy, (unsigned long long)shmemi_partitions[i].nodes);
}

void shmemi_env_print_markdown(FILE *f) {
    static const char *const type_names[] = {
        [T_SIZE] = "size", [T_BOOL] = "bool", [T_INT] = "integer", [T_STRING] = "string"};
    fprintf(f, "# gshmem environment variables\n\nGenerated by `shmem_info --markdown` from `src/core/env.def`; "
               "do not edit.\n\n| Variable | Type | Default | Accepted | Description |\n|---|---|---|---|---|\n");
    for (size_t i = 0; i < NROWS; i++) {
        char range[64] = "";
        if (rows[i].type == T_SIZE || rows[i].type == T_INT)
            snprintf(range, sizeof range, "%lld to %lld", rows[i].lo, rows[i].hi);
        fprintf(f, "| `%s` | %s | `%s` | %s | %s%s |\n", rows[i].name, type_names[rows[i].type], rows[i].def, range,
                rows[i].vis == V_LAUNCH ? "(set by oshrun) " : "", rows[i].doc);
    }
    fprintf(f,
            "| `%s<ID>` | partition | unset | `%s` | Extra symmetric segment; ID 1 to 127, at most %d partitions; "
            "allocate with `shmem_partition_malloc(size, ID)`. `SIZE`: 64 bytes or more. `PGSIZE` (host "
            "partitions): the base page size, or `2M` / `1G` for huge pages from the kernel's reserved pool "
            "(`/sys/kernel/mm/hugepages/hugepages-<kB>kB/nr_hugepages`; `shmem_init` fails naming the variable when "
            "the pool is short). `POLICY` (host partitions, applied with `mbind` before the pages are touched): "
            "`INTERLEAVE` (every node this PE may use, or `INTERLEAVE=<nodes>`), `BIND=<nodes>`, `PREFERRED=<node>`; "
            "nodes are NUMA node numbers and ranges such as `0,2-3`, below %d. `KIND=DEVICE` partitions refuse "
            "`PGSIZE` and `POLICY` (the GPU driver places and pages them). `KIND=LIBOMP` (or `OMP`): allocated with "
            "`omp_target_alloc` on the default OpenMP device (or `OMP_DEVICE=<n>`) of an OpenMP program, then GPU "
            "memory like `KIND=DEVICE`; host memory when the program has no offload device (docs/omp.md). |\n",
            PARTITION_PREFIX, PARTITION_FORM, SHMEMI_MAX_PARTITIONS, SHMEMI_MAX_NUMA);
    fprintf(f, "\nSizes take k/M/G/T suffixes (powers of 1024). Booleans take 1/0, yes/no, true/false, "
               "on/off. A bad value, or one outside the accepted range, stops `shmem_init` with a message naming the "
               "variable and quoting the value as written, printed once for the job by the lowest PE that found it "
               "(a PE that alone has it wrong says so itself). `SHMEM_*`, `GSHMEM_*` and `SMA_*` variables that are "
               "not in this table are named at `shmem_init` (`SHMEM_WARN_UNKNOWN_ENV`) and by `shmem_info`.\n");
}

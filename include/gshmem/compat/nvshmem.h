/* nvshmem.h - NVSHMEM's API over gshmem, so NVSHMEM programs build unchanged (-I<prefix>/include/gshmem/compat, or
 * oshcc --compat=nvshmem) and run on any vendor's GPU and on the CPU emulation. Written from NVSHMEM's public API
 * documentation (names, signatures, constants). Each routine is a static inline forward to gshmem's host API (shmem_*,
 * shmemg_malloc, shmemx_*_on_stream) or, in kernels, its device API (shmemg_*, shmemgx_*: _block is gshmem's _tg,
 * _warp its _htg); a name NVSHMEM gives both sides is __host__ __device__ and picks its side where it is compiled
 * (under the emulation, where it runs: in a kernel's thread or not). Integer teams, the unique-ID bootstrap and
 * registered buffers are kept by src/compat. What is not provided stops compilation naming the routine.
 * docs/porting.md says what maps one to one, what differs and what is missing. */
#ifndef GSHMEM_COMPAT_NVSHMEM_H
#define GSHMEM_COMPAT_NVSHMEM_H
#include <gshmem/compat/nvshmem_abi.h>
#include <shmem.h>
#include <shmemg.h>
#include <shmemx.h>
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
/* NVSHMEM's headers bring in the CUDA runtime's (and programs rely on it: cudaSetDevice in a host-only .cpp); the
 * emulation's comes with the emulated build, and a build without CUDA's headers goes on without them */
#if !defined(GSHMEM_EMULATE_GPU) && !defined(__HIPCC__) && defined(__has_include)
#if __has_include(<cuda_runtime.h>)
#include <cuda_runtime.h>
#endif
#endif
/* what OpenSHMEM deprecated and NVSHMEM kept (active-set reductions, short waits) forwards without a warning */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

#if defined(__CUDACC__) || defined(__HIPCC__) || defined(GSHMEM_EMULATE_GPU)
#ifndef __cplusplus
#error "nvshmem.h: GPU sources are C++"
#endif
#define NVSHMEMI_GPU_CODE 1 /* kernels may call the device side */
#endif

#if defined(__CUDACC__) || defined(__HIPCC__)
#define NVSHMEMI_HD static __host__ __device__ inline
#define NVSHMEMI_DEV static __device__ inline
#else
#define NVSHMEMI_HD static inline
#define NVSHMEMI_DEV static inline
#endif
#define NVSHMEMI_HOST static inline
/* NVSHMEMI_BOTH(device expression, host expression): the side this call is on */
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define NVSHMEMI_BOTH(d, h) (d)
#elif defined(GSHMEM_EMULATE_GPU)
#define NVSHMEMI_BOTH(d, h) (gshmem_emu_cur ? (d) : (h))
#else
#define NVSHMEMI_BOTH(d, h) (h)
#endif

/* ==== constants and types ==== */
#define NVSHMEM_MAJOR_VERSION 1 /* the OpenSHMEM version NVSHMEM names */
#define NVSHMEM_MINOR_VERSION 3
#define NVSHMEM_VENDOR_MAJOR_VERSION 3 /* the NVSHMEM API level this front end follows */
#define NVSHMEM_VENDOR_MINOR_VERSION 0
#define NVSHMEM_VENDOR_PATCH_VERSION 0
#define NVSHMEM_MAX_NAME_LEN 256
#define NVSHMEM_VENDOR_STRING "gshmem (NVSHMEM front end)"

enum { NVSHMEM_THREAD_SINGLE = 0, NVSHMEM_THREAD_FUNNELED, NVSHMEM_THREAD_SERIALIZED, NVSHMEM_THREAD_MULTIPLE };
/* NVSHMEM's comparison numbering differs from OpenSHMEM's in LE and GE */
enum nvshmemi_cmp_type {
    NVSHMEM_CMP_EQ = 0,
    NVSHMEM_CMP_NE = 1,
    NVSHMEM_CMP_GT = 2,
    NVSHMEM_CMP_LE = 3,
    NVSHMEM_CMP_LT = 4,
    NVSHMEM_CMP_GE = 5,
};
typedef enum { NVSHMEM_SIGNAL_SET = 9, NVSHMEM_SIGNAL_ADD = 10 } nvshmemx_signal_op_t;

typedef int32_t nvshmem_team_t;
typedef nvshmem_team_t nvshmemx_team_t;
#define NVSHMEM_TEAM_INVALID ((nvshmem_team_t)GSHMEMX_NV_TEAM_INVALID)
#define NVSHMEM_TEAM_WORLD ((nvshmem_team_t)GSHMEMX_NV_TEAM_WORLD)
#define NVSHMEM_TEAM_WORLD_INDEX GSHMEMX_NV_TEAM_WORLD
#define NVSHMEM_TEAM_SHARED ((nvshmem_team_t)GSHMEMX_NV_TEAM_SHARED)
#define NVSHMEMX_TEAM_NODE ((nvshmem_team_t)GSHMEMX_NV_TEAM_NODE)
#define NVSHMEMX_TEAM_SAME_MYPE_NODE ((nvshmem_team_t)GSHMEMX_NV_TEAM_SAME_MYPE_NODE)
#define NVSHMEM_TEAMS_MIN GSHMEMX_NV_TEAMS_MIN
#define NVSHMEM_TEAM_NUM_CONTEXTS SHMEM_TEAM_NUM_CONTEXTS
typedef struct {
    int num_contexts;
} nvshmem_team_config_t;

enum {
    NVSHMEMX_INIT_THREAD_PES = GSHMEMX_NV_INIT_THREAD_PES,
    NVSHMEMX_INIT_WITH_MPI_COMM = GSHMEMX_NV_INIT_WITH_MPI_COMM,
    NVSHMEMX_INIT_WITH_SHMEM = GSHMEMX_NV_INIT_WITH_SHMEM,
    NVSHMEMX_INIT_WITH_UNIQUEID = GSHMEMX_NV_INIT_WITH_UNIQUEID,
};
enum { NVSHMEM_STATUS_NOT_INITIALIZED = 0, NVSHMEM_STATUS_IS_BOOTSTRAPPED, NVSHMEM_STATUS_IS_INITIALIZED };
/* what the nvshmemx_ routines that report an outcome return (NVSHMEM's nvshmemx_status values) */
enum nvshmemx_status {
    NVSHMEMX_SUCCESS = 0,
    NVSHMEMX_ERROR_INVALID_VALUE,
    NVSHMEMX_ERROR_OUT_OF_MEMORY,
    NVSHMEMX_ERROR_NOT_SUPPORTED,
    NVSHMEMX_ERROR_SYMMETRY,
    NVSHMEMX_ERROR_GPU_NOT_SELECTED,
    NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED,
    NVSHMEMX_ERROR_INTERNAL,
    NVSHMEMX_ERROR_SENTINEL = 0x7fffffff
};
static inline const char *nvshmemx_status_string(int status) {
    static const char *const names[] = {"NVSHMEMX_SUCCESS",
                                        "NVSHMEMX_ERROR_INVALID_VALUE",
                                        "NVSHMEMX_ERROR_OUT_OF_MEMORY",
                                        "NVSHMEMX_ERROR_NOT_SUPPORTED",
                                        "NVSHMEMX_ERROR_SYMMETRY",
                                        "NVSHMEMX_ERROR_GPU_NOT_SELECTED",
                                        "NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED",
                                        "NVSHMEMX_ERROR_INTERNAL"};
    return status >= 0 && status < (int)(sizeof names / sizeof names[0]) ? names[status] : "NVSHMEMX_ERROR_<unknown>";
}
#define NVSHMEM_UNIQUEID_BYTES 124
typedef struct {
    int version;
    char internal[NVSHMEM_UNIQUEID_BYTES];
} nvshmemx_uniqueid_t;
#define NVSHMEMX_UNIQUEID_INITIALIZER {1, {0}}
typedef struct {
    int version;
    nvshmemx_uniqueid_t *id;
    int myrank, nranks;
} nvshmemx_uniqueid_args_t;
typedef struct {
    int version;
    nvshmemx_uniqueid_args_t uid_args;
} nvshmemx_init_args_t;
typedef struct {
    int version;
    void *mpi_comm; /* a pointer to the MPI communicator (NVSHMEMX_INIT_WITH_MPI_COMM) */
    nvshmemx_init_args_t args;
} nvshmemx_init_attr_t;
#define NVSHMEMX_INIT_ATTR_INITIALIZER {1, NULL, {1, {1, NULL, -1, -1}}}

/* the comparison and signal operators as gshmem numbers them; a value NVSHMEM does not define stays one gshmem
 * refuses (OpenSHMEM's own 0/1 signal operators too, a porting slip), so its check names the routine */
NVSHMEMI_HD int nvshmemi_cmp(int c) { return c == NVSHMEM_CMP_LE ? SHMEM_CMP_LE : c == NVSHMEM_CMP_GE ? SHMEM_CMP_GE : c; }
NVSHMEMI_HD int nvshmemi_sigop(int op) {
    return op == NVSHMEM_SIGNAL_SET ? SHMEM_SIGNAL_SET
           : op == NVSHMEM_SIGNAL_ADD ? SHMEM_SIGNAL_ADD
           : (op == SHMEM_SIGNAL_SET || op == SHMEM_SIGNAL_ADD) ? 100 + op
                                                                : op;
}

/* ==== type lists (NVSHMEM's TYPENAME tables; half and bfloat16, C++ only, are nvshmemx_gpu.h's reductions) ==== */
#define NVSHMEMI_RMA_TYPES(X)                                                                                          \
    X(float, float)                                                                                                    \
    X(double, double) X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)                    \
        X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                 \
            X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16)                 \
                X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32)          \
                    X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
#define NVSHMEMI_AMO_TYPES(X)                                                                                          \
    X(int, int)                                                                                                        \
    X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) \
        X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)                    \
            X(ptrdiff_t, ptrdiff)
#define NVSHMEMI_AMO_EXT_TYPES(X) X(float, float) X(double, double)
#define NVSHMEMI_AMO_BIT_TYPES(X)                                                                                      \
    X(unsigned int, uint)                                                                                              \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32)   \
        X(uint64_t, uint64)
#define NVSHMEMI_P2P_TYPES(X)                                                                                          \
    X(short, short)                                                                                                    \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort) X(unsigned int, uint)                   \
        X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64)                   \
            X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
/* reductions: arithmetic (sum, prod, min, max) and bitwise (and, or, xor) */
#define NVSHMEMI_ARITH_TYPES(X)                                                                                        \
    X(short, short)                                                                                                    \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort) X(unsigned int, uint)                   \
        X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)   \
            X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64)            \
                X(size_t, size) X(float, float) X(double, double)
#define NVSHMEMI_BIT_TYPES(X)                                                                                          \
    X(unsigned char, uchar)                                                                                            \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)           \
        X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16)    \
            X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)

/* ==== host only: setup, memory, teams ==== */
NVSHMEMI_HOST void nvshmem_init(void) {
    if (gshmemx_nv_init(0, SHMEM_THREAD_MULTIPLE, NULL, NULL, NULL, 0, -1, -1))
        shmem_global_exit(1);
}
NVSHMEMI_HOST int nvshmem_init_thread(int requested, int *provided) {
    return gshmemx_nv_init(0, requested, provided, NULL, NULL, 0, -1, -1);
}
NVSHMEMI_HOST void nvshmem_query_thread(int *provided) { shmem_query_thread(provided); }
NVSHMEMI_HOST int nvshmemx_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr) {
    const nvshmemx_uniqueid_args_t *u = attr ? &attr->args.uid_args : NULL;
    return gshmemx_nv_init(flags ? flags : 0u, SHMEM_THREAD_MULTIPLE, NULL, attr ? attr->mpi_comm : NULL,
                           u && u->id ? (const void *)u->id->internal : NULL, NVSHMEM_UNIQUEID_BYTES,
                           u ? u->myrank : -1,
                           u ? u->nranks : -1);
}
NVSHMEMI_HOST int nvshmemx_init_status(void) {
    int i = 0;
    shmem_query_initialized(&i);
    return i ? NVSHMEM_STATUS_IS_INITIALIZED : NVSHMEM_STATUS_NOT_INITIALIZED;
}
/* Under gshmem the launcher already gives each PE its rank: the ID only proves every PE got the same one */
NVSHMEMI_HOST int nvshmemx_get_uniqueid(nvshmemx_uniqueid_t *id) {
    if (!id)
        return NVSHMEMX_ERROR_INVALID_VALUE;
    id->version = 1;
    return gshmemx_nv_get_uniqueid(id->internal, sizeof id->internal);
}
NVSHMEMI_HOST int nvshmemx_set_attr_uniqueid_args(const int myrank, const int nranks, const nvshmemx_uniqueid_t *id,
                                                  nvshmemx_init_attr_t *attr) {
    if (!attr || !id || myrank < 0 || nranks <= 0 || myrank >= nranks)
        return NVSHMEMX_ERROR_INVALID_VALUE;
    attr->args.uid_args.id = (nvshmemx_uniqueid_t *)id;
    attr->args.uid_args.myrank = myrank;
    attr->args.uid_args.nranks = nranks;
    return 0;
}
NVSHMEMI_HOST void nvshmem_finalize(void) { gshmemx_nv_finalize(); }
NVSHMEMI_HOST void nvshmem_global_exit(int status) { shmem_global_exit(status); }
NVSHMEMI_HOST void nvshmem_info_get_version(int *major, int *minor) {
    *major = NVSHMEM_MAJOR_VERSION;
    *minor = NVSHMEM_MINOR_VERSION;
}
NVSHMEMI_HOST void nvshmem_info_get_name(char *name) {
    const char *s = NVSHMEM_VENDOR_STRING;
    size_t i = 0;
    for (; s[i] && i + 1 < NVSHMEM_MAX_NAME_LEN; i++)
        name[i] = s[i];
    name[i] = 0;
}
NVSHMEMI_HOST void nvshmemx_vendor_get_version_info(int *major, int *minor, int *patch) {
    *major = NVSHMEM_VENDOR_MAJOR_VERSION;
    *minor = NVSHMEM_VENDOR_MINOR_VERSION;
    *patch = NVSHMEM_VENDOR_PATCH_VERSION;
}
/* the symmetric heap of NVSHMEM is GPU memory: gshmem's GPU symmetric heap */
NVSHMEMI_HOST void *nvshmem_malloc(size_t size) { return shmemg_malloc(size); }
NVSHMEMI_HOST void *nvshmem_calloc(size_t count, size_t size) { return shmemg_calloc(count, size); }
NVSHMEMI_HOST void *nvshmem_align(size_t alignment, size_t size) { return shmemg_align(alignment, size); }
NVSHMEMI_HOST void nvshmem_free(void *ptr) { shmemg_free(ptr); }
NVSHMEMI_HOST int nvshmemx_buffer_register(void *addr, size_t length) { return gshmemx_nv_buffer_register(addr, length); }
NVSHMEMI_HOST int nvshmemx_buffer_unregister(void *addr) { return gshmemx_nv_buffer_unregister(addr); }
NVSHMEMI_HOST int nvshmem_team_split_strided(nvshmem_team_t parent, int start, int stride, int size,
                                             const nvshmem_team_config_t *config, long config_mask,
                                             nvshmem_team_t *new_team) {
    return gshmemx_nv_team_split_strided(parent, start, stride, size, config ? config->num_contexts : 0,
                                         config ? config_mask : 0, new_team);
}
NVSHMEMI_HOST void nvshmem_team_destroy(nvshmem_team_t team) { gshmemx_nv_team_destroy(team); }
NVSHMEMI_HOST int nvshmem_team_get_config(nvshmem_team_t team, nvshmem_team_config_t *config) {
    shmem_team_config_t c;
    int rc = shmem_team_get_config(gshmemx_nv_team(team, "nvshmem_team_get_config"), SHMEM_TEAM_NUM_CONTEXTS, &c);
    if (!rc && config)
        config->num_contexts = c.num_contexts;
    return rc;
}
NVSHMEMI_HOST int nvshmem_team_translate_pe(nvshmem_team_t src_team, int src_pe, nvshmem_team_t dest_team) {
    return shmem_team_translate_pe(gshmemx_nv_team(src_team, "nvshmem_team_translate_pe"), src_pe,
                                   gshmemx_nv_team(dest_team, "nvshmem_team_translate_pe"));
}

/* ==== the device side's teams: each unit's copy of the handle table (as the device state, no -rdc needed) ==== */
#ifdef NVSHMEMI_GPU_CODE
namespace nvshmemi {
static SHMEMGI_CONST uint64_t team_tab[GSHMEMX_NV_MAX_TEAMS];
SHMEMGI_D shmem_team_t dteam(int t) {
    /* out of range: a handle no table holds, so gshmem's check names the routine and the bad team */
    return (unsigned)t < GSHMEMX_NV_MAX_TEAMS ? (shmem_team_t)(uintptr_t)team_tab[t] : (shmem_team_t)(uintptr_t)1;
}
SHMEMGI_D const struct shmemgi_dteam &dteam_of(int t, const char *fn) { return shmemgi::team_of(dteam(t), fn); }
#if !defined(SHMEMGI_DEVICE_PASS)
namespace {
inline int upload(const void *src, size_t len) {
#if defined(GSHMEM_EMULATE_GPU)
    __builtin_memcpy((void *)&team_tab, src, len);
    return 0;
#elif defined(__CUDACC__)
    return cudaMemcpyToSymbol(team_tab, src, len) != cudaSuccess;
#elif defined(__HIPCC__)
    return hipMemcpyToSymbol(HIP_SYMBOL(team_tab), src, len) != hipSuccess;
#endif
}
struct unit_registration {
    unit_registration() { gshmemx_nv_register_unit(&upload); }
};
static unit_registration unit_registration_instance;
} // namespace
#endif
} // namespace nvshmemi
#endif

/* ==== host and device: queries ==== */
#ifdef NVSHMEMI_GPU_CODE
#define NVSHMEMI_D(x) x
#else
#define NVSHMEMI_D(x) 0
#endif
NVSHMEMI_HD int nvshmem_my_pe(void) { return NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_my_pe()), shmem_my_pe()); }
NVSHMEMI_HD int nvshmem_n_pes(void) { return NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_n_pes()), shmem_n_pes()); }
NVSHMEMI_HD int nvshmem_team_my_pe(nvshmem_team_t team) {
    return team == NVSHMEM_TEAM_INVALID
               ? -1
               : NVSHMEMI_BOTH(NVSHMEMI_D(nvshmemi::dteam_of(team, "nvshmem_team_my_pe").my_pe),
                               shmem_team_my_pe(gshmemx_nv_team(team, "nvshmem_team_my_pe")));
}
NVSHMEMI_HD int nvshmem_team_n_pes(nvshmem_team_t team) {
    return team == NVSHMEM_TEAM_INVALID
               ? -1
               : NVSHMEMI_BOTH(NVSHMEMI_D(nvshmemi::dteam_of(team, "nvshmem_team_n_pes").size),
                               shmem_team_n_pes(gshmemx_nv_team(team, "nvshmem_team_n_pes")));
}
NVSHMEMI_HD void *nvshmem_ptr(const void *dest, int pe) {
    return NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_ptr(dest, pe)), shmem_ptr(dest, pe));
}

/* ==== host and device: RMA (typed forms are the byte forms) ==== */
#define NVSHMEMI_MEM(NAME, OPN)                                                                                        \
    NVSHMEMI_HD void nvshmem_##NAME(void *dest, const void *source, size_t bytes, int pe) {                            \
        NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_##OPN(dest, source, bytes, pe)), shmem_##OPN(dest, source, bytes, pe));        \
    }
NVSHMEMI_MEM(putmem, putmem)
NVSHMEMI_MEM(getmem, getmem)
NVSHMEMI_MEM(putmem_nbi, putmem_nbi)
NVSHMEMI_MEM(getmem_nbi, getmem_nbi)
#define NVSHMEMI_RMA(T, N)                                                                                             \
    NVSHMEMI_HD void nvshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe) {                              \
        nvshmem_putmem(dest, source, nelems * sizeof(T), pe);                                                          \
    }                                                                                                                  \
    NVSHMEMI_HD void nvshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe) {                              \
        nvshmem_getmem(dest, source, nelems * sizeof(T), pe);                                                          \
    }                                                                                                                  \
    NVSHMEMI_HD void nvshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe) {                          \
        nvshmem_putmem_nbi(dest, source, nelems * sizeof(T), pe);                                                      \
    }                                                                                                                  \
    NVSHMEMI_HD void nvshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe) {                          \
        nvshmem_getmem_nbi(dest, source, nelems * sizeof(T), pe);                                                      \
    }                                                                                                                  \
    NVSHMEMI_HD void nvshmem_##N##_p(T *dest, const T value, int pe) {                                                 \
        NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_##N##_p(dest, value, pe)), shmem_##N##_p(dest, value, pe));                    \
    }                                                                                                                  \
    NVSHMEMI_HD T nvshmem_##N##_g(const T *source, int pe) {                                                           \
        return NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_##N##_g(source, pe)), shmem_##N##_g(source, pe));                       \
    }
NVSHMEMI_RMA_TYPES(NVSHMEMI_RMA)
#undef NVSHMEMI_RMA
#define NVSHMEMI_PUTN(N, BITS)                                                                                         \
    NVSHMEMI_HD void nvshmem_put##N(void *dest, const void *source, size_t nelems, int pe) {                           \
        nvshmem_putmem(dest, source, nelems * (BITS / 8), pe);                                                         \
    }                                                                                                                  \
    NVSHMEMI_HD void nvshmem_get##N(void *dest, const void *source, size_t nelems, int pe) {                           \
        nvshmem_getmem(dest, source, nelems * (BITS / 8), pe);                                                         \
    }                                                                                                                  \
    NVSHMEMI_HD void nvshmem_put##N##_nbi(void *dest, const void *source, size_t nelems, int pe) {                     \
        nvshmem_putmem_nbi(dest, source, nelems * (BITS / 8), pe);                                                     \
    }                                                                                                                  \
    NVSHMEMI_HD void nvshmem_get##N##_nbi(void *dest, const void *source, size_t nelems, int pe) {                     \
        nvshmem_getmem_nbi(dest, source, nelems * (BITS / 8), pe);                                                     \
    }
NVSHMEMI_PUTN(8, 8)
NVSHMEMI_PUTN(16, 16)
NVSHMEMI_PUTN(32, 32)
NVSHMEMI_PUTN(64, 64)
NVSHMEMI_PUTN(128, 128)
#undef NVSHMEMI_PUTN

/* ==== host and device: atomics ==== */
#define NVSHMEMI_AMO_COMMON(T, N)                                                                                      \
    NVSHMEMI_HD T nvshmem_##N##_atomic_fetch(const T *source, int pe) {                                                \
        return NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_##N##_atomic_fetch(source, pe)), shmem_##N##_atomic_fetch(source, pe)); \
    }                                                                                                                  \
    NVSHMEMI_HD void nvshmem_##N##_atomic_set(T *dest, T value, int pe) {                                              \
        NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_##N##_atomic_set(dest, value, pe)), shmem_##N##_atomic_set(dest, value, pe));  \
    }                                                                                                                  \
    NVSHMEMI_HD T nvshmem_##N##_atomic_swap(T *dest, T value, int pe) {                                                \
        return NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_##N##_atomic_swap(dest, value, pe)),                                    \
                             shmem_##N##_atomic_swap(dest, value, pe));                                                \
    }
#define NVSHMEMI_AMO_STD(T, N)                                                                                         \
    NVSHMEMI_AMO_COMMON(T, N)                                                                                          \
    NVSHMEMI_HD T nvshmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe) {                                \
        return NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_##N##_atomic_compare_swap(dest, cond, value, pe)),                      \
                             shmem_##N##_atomic_compare_swap(dest, cond, value, pe));                                  \
    }                                                                                                                  \
    NVSHMEMI_HD T nvshmem_##N##_atomic_fetch_inc(T *dest, int pe) {                                                    \
        return NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_##N##_atomic_fetch_inc(dest, pe)), shmem_##N##_atomic_fetch_inc(dest, pe)); \
    }                                                                                                                  \
    NVSHMEMI_HD void nvshmem_##N##_atomic_inc(T *dest, int pe) {                                                       \
        NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_##N##_atomic_inc(dest, pe)), shmem_##N##_atomic_inc(dest, pe));                \
    }                                                                                                                  \
    NVSHMEMI_HD T nvshmem_##N##_atomic_fetch_add(T *dest, T value, int pe) {                                           \
        return NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_##N##_atomic_fetch_add(dest, value, pe)),                               \
                             shmem_##N##_atomic_fetch_add(dest, value, pe));                                           \
    }                                                                                                                  \
    NVSHMEMI_HD void nvshmem_##N##_atomic_add(T *dest, T value, int pe) {                                              \
        NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_##N##_atomic_add(dest, value, pe)), shmem_##N##_atomic_add(dest, value, pe));  \
    }
#define NVSHMEMI_AMO_BIT(T, N)                                                                                         \
    NVSHMEMI_HD T nvshmem_##N##_atomic_fetch_and(T *dest, T value, int pe) {                                           \
        return NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_##N##_atomic_fetch_and(dest, value, pe)),                               \
                             shmem_##N##_atomic_fetch_and(dest, value, pe));                                           \
    }                                                                                                                  \
    NVSHMEMI_HD void nvshmem_##N##_atomic_and(T *dest, T value, int pe) {                                              \
        NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_##N##_atomic_and(dest, value, pe)), shmem_##N##_atomic_and(dest, value, pe));  \
    }                                                                                                                  \
    NVSHMEMI_HD T nvshmem_##N##_atomic_fetch_or(T *dest, T value, int pe) {                                            \
        return NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_##N##_atomic_fetch_or(dest, value, pe)),                                \
                             shmem_##N##_atomic_fetch_or(dest, value, pe));                                            \
    }                                                                                                                  \
    NVSHMEMI_HD void nvshmem_##N##_atomic_or(T *dest, T value, int pe) {                                               \
        NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_##N##_atomic_or(dest, value, pe)), shmem_##N##_atomic_or(dest, value, pe));    \
    }                                                                                                                  \
    NVSHMEMI_HD T nvshmem_##N##_atomic_fetch_xor(T *dest, T value, int pe) {                                           \
        return NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_##N##_atomic_fetch_xor(dest, value, pe)),                               \
                             shmem_##N##_atomic_fetch_xor(dest, value, pe));                                           \
    }                                                                                                                  \
    NVSHMEMI_HD void nvshmem_##N##_atomic_xor(T *dest, T value, int pe) {                                              \
        NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_##N##_atomic_xor(dest, value, pe)), shmem_##N##_atomic_xor(dest, value, pe));  \
    }
NVSHMEMI_AMO_TYPES(NVSHMEMI_AMO_STD)
NVSHMEMI_AMO_EXT_TYPES(NVSHMEMI_AMO_COMMON)
NVSHMEMI_AMO_BIT_TYPES(NVSHMEMI_AMO_BIT)
#undef NVSHMEMI_AMO_COMMON
#undef NVSHMEMI_AMO_STD
#undef NVSHMEMI_AMO_BIT

/* ==== host and device: signals, ordering ==== */
NVSHMEMI_HD void nvshmem_putmem_signal(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,
                                       uint64_t signal, int sig_op, int pe) {
    NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_putmem_signal(dest, source, bytes, sig_addr, signal, nvshmemi_sigop(sig_op), pe)),
                  shmem_putmem_signal(dest, source, bytes, sig_addr, signal, nvshmemi_sigop(sig_op), pe));
}
NVSHMEMI_HD void nvshmem_putmem_signal_nbi(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,
                                           uint64_t signal, int sig_op, int pe) {
    NVSHMEMI_BOTH(
        NVSHMEMI_D(shmemg_putmem_signal_nbi(dest, source, bytes, sig_addr, signal, nvshmemi_sigop(sig_op), pe)),
        shmem_putmem_signal_nbi(dest, source, bytes, sig_addr, signal, nvshmemi_sigop(sig_op), pe));
}
#define NVSHMEMI_PUT_SIGNAL(T, N)                                                                                      \
    NVSHMEMI_HD void nvshmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,             \
                                              uint64_t signal, int sig_op, int pe) {                                   \
        nvshmem_putmem_signal(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);                         \
    }                                                                                                                  \
    NVSHMEMI_HD void nvshmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,         \
                                                  uint64_t signal, int sig_op, int pe) {                               \
        nvshmem_putmem_signal_nbi(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);                     \
    }
NVSHMEMI_RMA_TYPES(NVSHMEMI_PUT_SIGNAL)
#undef NVSHMEMI_PUT_SIGNAL
/* a signal alone: a put of no bytes with its signal */
NVSHMEMI_HD void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
    nvshmem_putmem_signal(sig_addr, sig_addr, 0, sig_addr, signal, sig_op, pe);
}
NVSHMEMI_HD uint64_t nvshmem_signal_fetch(uint64_t *sig_addr) {
    return NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_signal_fetch(sig_addr)), shmem_signal_fetch(sig_addr));
}
NVSHMEMI_HD uint64_t nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
    return NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_signal_wait_until(sig_addr, nvshmemi_cmp(cmp), cmp_value)),
                         shmem_signal_wait_until(sig_addr, nvshmemi_cmp(cmp), cmp_value));
}
NVSHMEMI_HD void nvshmem_quiet(void) { NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_quiet()), shmem_quiet()); }
NVSHMEMI_HD void nvshmem_fence(void) { NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_fence()), shmem_fence()); }
/* (sources free to reuse: a quiet gives that and more) */
NVSHMEMI_HD void nvshmemx_flush(void) { nvshmem_quiet(); }

/* ==== host and device: point-to-point synchronization ==== */
#ifdef NVSHMEMI_GPU_CODE
namespace nvshmemi {
/* the device has one-variable waits and tests: the set forms poll tests, backing off between rounds */
template <class T, class Test>
SHMEMGI_D size_t wait_set(T *ivars, size_t n, size_t *indices, const int *status, size_t want, Test test) {
    size_t found = 0;
    for (unsigned spins = 0;; spins++) {
        for (size_t i = 0; i < n; i++)
            if ((!status || !status[i]) && test(&ivars[i])) {
                if (want == 1) /* any: the first one */
                    return i;
                if (indices)
                    indices[found] = i;
                found++;
            }
        if (found && want != 0)
            return found; /* some: every one satisfied in this round */
        if (want == 0) {  /* all: every one must satisfy in the same round */
            size_t live = 0;
            for (size_t i = 0; i < n; i++)
                live += !status || !status[i];
            if (found == live)
                return found;
            found = 0;
        }
        if (spins > 64)
            shmemgi::pause();
    }
}
/* one look at the set, as the test_ forms: all (want 0) gives 1 when every live variable satisfies (none live: 1),
 * any (1) the first index found or SIZE_MAX, some (2) how many satisfy, their indices in indices */
template <class T, class Test>
SHMEMGI_D size_t test_set(T *ivars, size_t n, size_t *indices, const int *status, int want, Test test) {
    size_t found = 0, live = 0;
    for (size_t i = 0; i < n; i++) {
        if (status && status[i])
            continue;
        live++;
        if (!test(&ivars[i]))
            continue;
        if (want == 1)
            return i;
        if (want == 2)
            indices[found] = i;
        found++;
    }
    return want == 0 ? (size_t)(found == live) : want == 1 ? SIZE_MAX : found;
}
} // namespace nvshmemi
#endif
#define NVSHMEMI_WAIT(T, N)                                                                                            \
    NVSHMEMI_HD void nvshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value) {                                         \
        NVSHMEMI_BOTH(NVSHMEMI_D((void)shmemg_##N##_wait_until(ivar, nvshmemi_cmp(cmp), cmp_value)),                   \
                      (void)shmem_##N##_wait_until(ivar, nvshmemi_cmp(cmp), cmp_value));                               \
    }                                                                                                                  \
    NVSHMEMI_HD int nvshmem_##N##_test(T *ivar, int cmp, T cmp_value) {                                                \
        return NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_##N##_test(ivar, nvshmemi_cmp(cmp), cmp_value)),                        \
                             shmem_##N##_test(ivar, nvshmemi_cmp(cmp), cmp_value));                                    \
    }                                                                                                                  \
    NVSHMEMI_HD void nvshmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) {  \
        NVSHMEMI_BOTH(NVSHMEMI_D((void)nvshmemi::wait_set(ivars, nelems, (size_t *)0, status, 0, [=](T *v) {           \
                          return shmemg_##N##_test(v, nvshmemi_cmp(cmp), cmp_value);                                   \
                      })),                                                                                             \
                      shmem_##N##_wait_until_all(ivars, nelems, status, nvshmemi_cmp(cmp), cmp_value));                \
    }                                                                                                                  \
    NVSHMEMI_HD size_t nvshmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,               \
                                                    T cmp_value) {                                                     \
        return NVSHMEMI_BOTH(NVSHMEMI_D(nvshmemi::wait_set(ivars, nelems, (size_t *)0, status, 1, [=](T *v) {          \
                                 return shmemg_##N##_test(v, nvshmemi_cmp(cmp), cmp_value);                            \
                             })),                                                                                      \
                             shmem_##N##_wait_until_any(ivars, nelems, status, nvshmemi_cmp(cmp), cmp_value));         \
    }                                                                                                                  \
    NVSHMEMI_HD size_t nvshmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status,      \
                                                     int cmp, T cmp_value) {                                           \
        return NVSHMEMI_BOTH(NVSHMEMI_D(nvshmemi::wait_set(ivars, nelems, indices, status, 2, [=](T *v) {              \
                                 return shmemg_##N##_test(v, nvshmemi_cmp(cmp), cmp_value);                            \
                             })),                                                                                      \
                             shmem_##N##_wait_until_some(ivars, nelems, indices, status, nvshmemi_cmp(cmp),            \
                                                         cmp_value));                                                  \
    }
NVSHMEMI_P2P_TYPES(NVSHMEMI_WAIT)
#undef NVSHMEMI_WAIT
/* the set tests, and waits and tests against one value per variable (the _vector forms) */
#define NVSHMEMI_TEST1(T, N) [=](T *v) { return shmemg_##N##_test(v, nvshmemi_cmp(cmp), cmp_value); }
#define NVSHMEMI_TESTV(T, N) [=](T *v) { return shmemg_##N##_test(v, nvshmemi_cmp(cmp), cmp_values[v - ivars]); }
#define NVSHMEMI_WAIT_SETS(T, N)                                                                                       \
    NVSHMEMI_HD int nvshmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) {         \
        return NVSHMEMI_BOTH(                                                                                          \
            NVSHMEMI_D((int)nvshmemi::test_set(ivars, nelems, (size_t *)0, status, 0, NVSHMEMI_TEST1(T, N))),          \
            shmem_##N##_test_all(ivars, nelems, status, nvshmemi_cmp(cmp), cmp_value));                                \
    }                                                                                                                  \
    NVSHMEMI_HD size_t nvshmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) {      \
        return NVSHMEMI_BOTH(                                                                                          \
            NVSHMEMI_D(nvshmemi::test_set(ivars, nelems, (size_t *)0, status, 1, NVSHMEMI_TEST1(T, N))),               \
            shmem_##N##_test_any(ivars, nelems, status, nvshmemi_cmp(cmp), cmp_value));                                \
    }                                                                                                                  \
    NVSHMEMI_HD size_t nvshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,   \
                                               T cmp_value) {                                                          \
        return NVSHMEMI_BOTH(                                                                                          \
            NVSHMEMI_D(nvshmemi::test_set(ivars, nelems, indices, status, 2, NVSHMEMI_TEST1(T, N))),                   \
            shmem_##N##_test_some(ivars, nelems, indices, status, nvshmemi_cmp(cmp), cmp_value));                      \
    }                                                                                                                  \
    NVSHMEMI_HD void nvshmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,          \
                                                         T *cmp_values) {                                              \
        NVSHMEMI_BOTH(                                                                                                 \
            NVSHMEMI_D((void)nvshmemi::wait_set(ivars, nelems, (size_t *)0, status, 0, NVSHMEMI_TESTV(T, N))),         \
            shmem_##N##_wait_until_all_vector(ivars, nelems, status, nvshmemi_cmp(cmp), cmp_values));                  \
    }                                                                                                                  \
    NVSHMEMI_HD size_t nvshmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,        \
                                                           T *cmp_values) {                                            \
        return NVSHMEMI_BOTH(                                                                                          \
            NVSHMEMI_D(nvshmemi::wait_set(ivars, nelems, (size_t *)0, status, 1, NVSHMEMI_TESTV(T, N))),               \
            shmem_##N##_wait_until_any_vector(ivars, nelems, status, nvshmemi_cmp(cmp), cmp_values));                  \
    }                                                                                                                  \
    NVSHMEMI_HD size_t nvshmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,                  \
                                                            const int *status, int cmp, T *cmp_values) {               \
        return NVSHMEMI_BOTH(                                                                                          \
            NVSHMEMI_D(nvshmemi::wait_set(ivars, nelems, indices, status, 2, NVSHMEMI_TESTV(T, N))),                   \
            shmem_##N##_wait_until_some_vector(ivars, nelems, indices, status, nvshmemi_cmp(cmp), cmp_values));        \
    }                                                                                                                  \
    NVSHMEMI_HD int nvshmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,                 \
                                                  T *cmp_values) {                                                     \
        return NVSHMEMI_BOTH(                                                                                          \
            NVSHMEMI_D((int)nvshmemi::test_set(ivars, nelems, (size_t *)0, status, 0, NVSHMEMI_TESTV(T, N))),          \
            shmem_##N##_test_all_vector(ivars, nelems, status, nvshmemi_cmp(cmp), cmp_values));                        \
    }                                                                                                                  \
    NVSHMEMI_HD size_t nvshmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,              \
                                                     T *cmp_values) {                                                  \
        return NVSHMEMI_BOTH(                                                                                          \
            NVSHMEMI_D(nvshmemi::test_set(ivars, nelems, (size_t *)0, status, 1, NVSHMEMI_TESTV(T, N))),               \
            shmem_##N##_test_any_vector(ivars, nelems, status, nvshmemi_cmp(cmp), cmp_values));                        \
    }                                                                                                                  \
    NVSHMEMI_HD size_t nvshmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status,     \
                                                      int cmp, T *cmp_values) {                                        \
        return NVSHMEMI_BOTH(                                                                                          \
            NVSHMEMI_D(nvshmemi::test_set(ivars, nelems, indices, status, 2, NVSHMEMI_TESTV(T, N))),                   \
            shmem_##N##_test_some_vector(ivars, nelems, indices, status, nvshmemi_cmp(cmp), cmp_values));              \
    }
NVSHMEMI_P2P_TYPES(NVSHMEMI_WAIT_SETS)
#undef NVSHMEMI_WAIT_SETS
#undef NVSHMEMI_TEST1
#undef NVSHMEMI_TESTV

/* ==== host and device: barriers and collectives on teams ==== */
NVSHMEMI_HD void nvshmem_barrier_all(void) {
    NVSHMEMI_BOTH(NVSHMEMI_D(shmemgx_barrier_all()), shmem_barrier_all());
}
NVSHMEMI_HD void nvshmem_sync_all(void) { NVSHMEMI_BOTH(NVSHMEMI_D((void)shmemg_sync_all()), shmem_sync_all()); }
NVSHMEMI_HD int nvshmem_team_sync(nvshmem_team_t team) {
    return NVSHMEMI_BOTH(NVSHMEMI_D(shmemg_team_sync(nvshmemi::dteam(team))),
                         shmem_team_sync(gshmemx_nv_team(team, "nvshmem_team_sync")));
}
NVSHMEMI_HD int nvshmem_sync(nvshmem_team_t team) { return nvshmem_team_sync(team); }
NVSHMEMI_HD int nvshmem_barrier(nvshmem_team_t team) {
    nvshmem_quiet();
    return nvshmem_team_sync(team);
}
#define NVSHMEMI_COLLMEM(NAME, GX, ...)                                                                                \
    NVSHMEMI_BOTH(NVSHMEMI_D(shmemgx_##GX(nvshmemi::dteam(team), __VA_ARGS__)),                                        \
                  shmem_##GX(gshmemx_nv_team(team, "nvshmem_" #NAME), __VA_ARGS__))
NVSHMEMI_HD int nvshmem_fcollectmem(nvshmem_team_t team, void *dest, const void *source, size_t bytes) {
    return NVSHMEMI_COLLMEM(fcollectmem, fcollectmem, dest, source, bytes);
}
NVSHMEMI_HD int nvshmem_alltoallmem(nvshmem_team_t team, void *dest, const void *source, size_t bytes) {
    return NVSHMEMI_COLLMEM(alltoallmem, alltoallmem, dest, source, bytes);
}
NVSHMEMI_HD int nvshmem_broadcastmem(nvshmem_team_t team, void *dest, const void *source, size_t bytes, int PE_root) {
    return NVSHMEMI_COLLMEM(broadcastmem, broadcastmem, dest, source, bytes, PE_root);
}
#define NVSHMEMI_COLL(T, N)                                                                                            \
    NVSHMEMI_HD int nvshmem_##N##_fcollect(nvshmem_team_t team, T *dest, const T *source, size_t nelems) {             \
        return nvshmem_fcollectmem(team, dest, source, nelems * sizeof(T));                                            \
    }                                                                                                                  \
    NVSHMEMI_HD int nvshmem_##N##_alltoall(nvshmem_team_t team, T *dest, const T *source, size_t nelems) {             \
        return nvshmem_alltoallmem(team, dest, source, nelems * sizeof(T));                                            \
    }                                                                                                                  \
    NVSHMEMI_HD int nvshmem_##N##_broadcast(nvshmem_team_t team, T *dest, const T *source, size_t nelems,              \
                                            int PE_root) {                                                             \
        return nvshmem_broadcastmem(team, dest, source, nelems * sizeof(T), PE_root);                                  \
    }
NVSHMEMI_RMA_TYPES(NVSHMEMI_COLL)
#undef NVSHMEMI_COLL
#define NVSHMEMI_REDUCE(T, N, OP)                                                                                      \
    NVSHMEMI_HD int nvshmem_##N##_##OP##_reduce(nvshmem_team_t team, T *dest, const T *source, size_t nreduce) {       \
        return NVSHMEMI_BOTH(NVSHMEMI_D(shmemgx_##N##_##OP##_reduce(nvshmemi::dteam(team), dest, source, nreduce)),    \
                             shmem_##N##_##OP##_reduce(gshmemx_nv_team(team, "nvshmem_" #N "_" #OP "_reduce"), dest,   \
                                                       source, nreduce));                                              \
    }
#define NVSHMEMI_REDUCE_ARITH(T, N)                                                                                    \
    NVSHMEMI_REDUCE(T, N, sum) NVSHMEMI_REDUCE(T, N, prod) NVSHMEMI_REDUCE(T, N, min) NVSHMEMI_REDUCE(T, N, max)
#define NVSHMEMI_REDUCE_BIT(T, N) NVSHMEMI_REDUCE(T, N, and) NVSHMEMI_REDUCE(T, N, or) NVSHMEMI_REDUCE(T, N, xor)
NVSHMEMI_ARITH_TYPES(NVSHMEMI_REDUCE_ARITH)
NVSHMEMI_BIT_TYPES(NVSHMEMI_REDUCE_BIT)

/* the active-set reductions NVSHMEM kept from OpenSHMEM 1.3 (host only) */
#define NVSHMEMI_TO_ALL(T, N, OP)                                                                                      \
    NVSHMEMI_HOST void nvshmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,                \
                                                   int logPE_stride, int PE_size, T *pWrk, long *pSync) {              \
        shmem_##N##_##OP##_to_all(dest, source, nreduce, PE_start, logPE_stride, PE_size, pWrk, pSync);                \
    }
#define NVSHMEMI_TO_ALL_ARITH(T, N)                                                                                    \
    NVSHMEMI_TO_ALL(T, N, sum) NVSHMEMI_TO_ALL(T, N, prod) NVSHMEMI_TO_ALL(T, N, min) NVSHMEMI_TO_ALL(T, N, max)
#define NVSHMEMI_TO_ALL_BIT(T, N) NVSHMEMI_TO_ALL(T, N, and) NVSHMEMI_TO_ALL(T, N, or) NVSHMEMI_TO_ALL(T, N, xor)
NVSHMEMI_TO_ALL_ARITH(short, short)
NVSHMEMI_TO_ALL_ARITH(int, int)
NVSHMEMI_TO_ALL_ARITH(long, long)
NVSHMEMI_TO_ALL_ARITH(long long, longlong)
NVSHMEMI_TO_ALL_ARITH(float, float)
NVSHMEMI_TO_ALL_ARITH(double, double)
NVSHMEMI_TO_ALL_BIT(short, short)
NVSHMEMI_TO_ALL_BIT(int, int)
NVSHMEMI_TO_ALL_BIT(long, long)
NVSHMEMI_TO_ALL_BIT(long long, longlong)
#undef NVSHMEMI_TO_ALL
#undef NVSHMEMI_TO_ALL_ARITH
#undef NVSHMEMI_TO_ALL_BIT

#include <gshmem/compat/nvshmemx_gpu.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
#endif

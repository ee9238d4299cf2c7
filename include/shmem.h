/* shmem.h - the OpenSHMEM 1.5 C API of gshmem.
 * Constants, types and untyped routines are here; typed routine families come from gshmem/shmem_api.h (generated). */
#ifndef GSHMEM_SHMEM_H
#define GSHMEM_SHMEM_H

#include <stddef.h>
#include <stdint.h>

/* complex element types of the reductions: C's _Complex; in C++ the same type where the compiler has it as an
 * extension (GCC, Clang: what OpenSHMEM C++ programs pass), else std::complex, which has the same layout */
#if !defined(__cplusplus)
typedef float _Complex gshmem_complexf;
typedef double _Complex gshmem_complexd;
#elif defined(__GNUC__)
__extension__ typedef float _Complex gshmem_complexf;
__extension__ typedef double _Complex gshmem_complexd;
#else
#include <complex>
typedef std::complex<float> gshmem_complexf;
typedef std::complex<double> gshmem_complexd;
#endif

/* every routine declared here is exported from libgshmem, which otherwise hides its symbols */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Deprecated routines (start_pes, _my_pe, shmem_barrier, the active-set collectives...) warn when used; define
 * GSHMEM_NO_DEPRECATION_WARNINGS before including shmem.h (or build with `oshcc --no-deprecation-warnings`) to keep
 * old programs quiet under -Werror. */
#if defined(__GNUC__) && !defined(GSHMEM_NO_DEPRECATION_WARNINGS)
#define GSHMEM_DEPRECATED __attribute__((deprecated))
#else
#define GSHMEM_DEPRECATED
#endif
#if defined(__GNUC__)
#define GSHMEM_NORETURN __attribute__((noreturn))
#else
#define GSHMEM_NORETURN
#endif

/* ---- library identification ---- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "gshmem 0.1.0"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
#define GSHMEM_VERSION_STRING "0.1.0"

/* ---- threading ---- */
#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

/* ---- point-to-point comparison and signal operators ---- */
#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* ---- contexts and teams (opaque handles) ---- */
typedef struct gshmem_ctx *shmem_ctx_t;
typedef struct gshmem_team *shmem_team_t;

/* Exported with fixed sizes (256 bytes per team, 128 for the context), so a program linked against one version of
 * gshmem keeps working with a later one */
extern struct gshmem_ctx gshmem_ctx_default;
extern struct gshmem_team gshmem_team_world;
extern struct gshmem_team gshmem_team_shared;

#define SHMEM_CTX_DEFAULT (&gshmem_ctx_default)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#define SHMEM_TEAM_WORLD (&gshmem_team_world)
#define SHMEM_TEAM_SHARED (&gshmem_team_shared)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

#define SHMEM_CTX_PRIVATE (1L << 0)
#define SHMEM_CTX_SERIALIZED (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

typedef struct {
    int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* 1.6 context sessions */
typedef struct {
    size_t total_ops;
} shmem_ctx_session_config_t;
#define SHMEM_CTX_SESSION_TOTAL_OPS (1L << 0)
#define SHMEM_CTX_SESSION_BATCH (1L << 0)

/* ---- memory allocation hints ---- */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/* ---- deprecated collective work arrays (sizes in longs) ---- */
#define SHMEM_SYNC_VALUE (-1L)
#define SHMEM_SYNC_SIZE 64
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 16
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_ALLTOALLS_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ---- library setup, exit and query ---- */
void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
GSHMEM_NORETURN void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);
void shmem_query_initialized(int *initialized); /* 1.6 */

/* profiling control: accepted and ignored (no profiling levels are defined by gshmem) */
void shmem_pcontrol(int level, ...);

/* deprecated setup/query */
GSHMEM_DEPRECATED void start_pes(int npes);
GSHMEM_DEPRECATED int _my_pe(void);
GSHMEM_DEPRECATED int _num_pes(void);

/* ---- symmetric memory management ---- */
void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void shmem_free(void *ptr);
void *shmem_malloc_with_hints(size_t size, long hints);

GSHMEM_DEPRECATED void *shmalloc(size_t size);
GSHMEM_DEPRECATED void shfree(void *ptr);
GSHMEM_DEPRECATED void *shrealloc(void *ptr, size_t size);
GSHMEM_DEPRECATED void *shmemalign(size_t alignment, size_t size);

/* ---- memory ordering ---- */
void shmem_fence(void);
void shmem_quiet(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_ctx_quiet(shmem_ctx_t ctx);
void shmem_pe_quiet(const int *target_pes, size_t npes); /* 1.6 */
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes);

/* deprecated cache management: no-ops, caches are coherent on every supported machine */
GSHMEM_DEPRECATED void shmem_clear_cache_inv(void);
GSHMEM_DEPRECATED void shmem_set_cache_inv(void);
GSHMEM_DEPRECATED void shmem_clear_cache_line_inv(void *dest);
GSHMEM_DEPRECATED void shmem_set_cache_line_inv(void *dest);
GSHMEM_DEPRECATED void shmem_udcflush(void);
GSHMEM_DEPRECATED void shmem_udcflush_line(void *dest);

/* ---- signals ---- */
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- distributed locking ---- */
void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* ---- contexts ---- */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);
void shmem_ctx_session_start(shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t *config,
                             long config_mask); /* 1.6 */
void shmem_ctx_session_stop(shmem_ctx_t ctx);   /* 1.6 */

/* ---- teams ---- */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config, long yaxis_mask,
                        shmem_team_t *yaxis_team);
void shmem_team_destroy(shmem_team_t team);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe); /* 1.6 */

/* ---- synchronization collectives ---- */
void shmem_barrier_all(void);
void shmem_sync_all(void);
int shmem_team_sync(shmem_team_t team);
GSHMEM_DEPRECATED void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
GSHMEM_DEPRECATED void(shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync);

#ifdef __cplusplus
}
#endif

/* typed routine families, generated from api/ */
#include <gshmem/shmem_api.h>

/* shmem_sync(team) is the C11/C++ name of shmem_team_sync; shmem_sync(PE_start, logPE_stride, PE_size, pSync) the
 * deprecated active-set barrier. The number of arguments tells them apart. */
#if !defined(GSHMEM_BUILDING)
#if defined(__cplusplus)
inline int shmem_sync(shmem_team_t team) { return shmem_team_sync(team); }
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define GSHMEM_SYNC_PICK_(a, b, c, d, name, ...) name
#define shmem_sync(...) GSHMEM_SYNC_PICK_(__VA_ARGS__, shmem_sync, ~, ~, shmem_team_sync, ~)(__VA_ARGS__)
#endif
#endif

/* shmem4py (PyPI) compiles its own fallback for each routine whose PySHMEM_HAVE_<name> macro is unset, and sets those
 * macros only for the libraries it knows by their header macros. gshmem provides the whole OpenSHMEM 1.5 API, so it
 * says so here: `OSHCC=<prefix>/bin/oshcc pip install --no-binary shmem4py shmem4py` then uses gshmem throughout. */
#define PySHMEM_HAVE_shmem_malloc_with_hints 1
#define PySHMEM_HAVE_shmem_team_t 1
#define PySHMEM_HAVE_SHMEM_CTX_INVALID 1
#define PySHMEM_HAVE_shmem_amo_nbi 1
#define PySHMEM_HAVE_shmem_put_signal 1
#define PySHMEM_HAVE_shmem_signal_fetch 1
#define PySHMEM_HAVE_shmem_signal_wait_until 1
#define PySHMEM_HAVE_shmem_broadcast 1
#define PySHMEM_HAVE_shmem_collect 1
#define PySHMEM_HAVE_shmem_fcollect 1
#define PySHMEM_HAVE_shmem_alltoall 1
#define PySHMEM_HAVE_shmem_alltoalls 1
#define PySHMEM_HAVE_shmem_broadcastmem 1
#define PySHMEM_HAVE_shmem_collectmem 1
#define PySHMEM_HAVE_shmem_fcollectmem 1
#define PySHMEM_HAVE_shmem_alltoallmem 1
#define PySHMEM_HAVE_shmem_alltoallsmem 1
#define PySHMEM_HAVE_shmem_reduce 1
#define PySHMEM_HAVE_shmem_wait_test_many 1
#define PySHMEM_HAVE_shmem_pcontrol 1

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* GSHMEM_SHMEM_H */

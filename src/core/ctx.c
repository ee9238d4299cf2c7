/* ctx.c - the objects behind the predefined handles (SHMEM_TEAM_WORLD/SHARED, SHMEM_CTX_DEFAULT, the device teams and
 * SHMEM_DEVICE_CTX_DEFAULT: exported data, filled in by the layers that own them), and a context's PE numbers: team
 * contexts number PEs within their team (the slow path of shmemi_ctx_pe). */
#include "shmemg.h"
#include "state.h"

struct gshmem_team gshmem_team_world;
struct gshmem_team gshmem_team_shared;
struct gshmem_team gshmem_team_device_world; /* shmemg.h: valid when GPU support is on */
struct gshmem_team gshmem_team_device_shared;
struct gshmem_ctx gshmem_ctx_default;
struct gshmem_ctx gshmem_ctx_device_default; /* shmemg.h: SHMEM_DEVICE_CTX_DEFAULT */

int shmemi_ctx_pe_slow(shmem_ctx_t ctx, int pe, const char *fn) {
    if (!ctx)
        shmemi_fatal(fn, "the context is SHMEM_CTX_INVALID; use a context returned by shmem_ctx_create or "
                         "shmem_team_create_ctx (and check that call's return value)");
    if (SHMEMI_UNLIKELY(ctx->options & SHMEM_DEVICE_CTX))
        shmemi_fatal(fn, "the context was made for kernels (SHMEM_DEVICE_CTX, or SHMEM_DEVICE_CTX_DEFAULT): host "
                         "routines take host contexts; create one without SHMEM_DEVICE_CTX");
    if ((unsigned)pe >= (unsigned)ctx->size)
        shmemi_fatal(fn,
                     "target PE %d is outside the context's team (PEs of a team context are numbered 0..%d "
                     "within the team); translate it with shmem_team_translate_pe",
                     pe, ctx->size - 1);
    return ctx->pes ? ctx->pes[pe] : ctx->start + pe * ctx->stride;
}

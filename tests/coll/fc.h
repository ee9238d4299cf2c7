/* fc.h - shared helpers of the team, context and collective tests (public OpenSHMEM API only): the ftest harness,
 * a standard set of strided teams, symmetric scratch buffers, byte sentinels and small value generators. */
#ifndef FC_H
#define FC_H

#include "../common/types.h"
#include "../functional/ftest.h"

#include <stddef.h>
#include <stdint.h>

#define FC_MAXPE 64
#define FC_FILL 0xA5 /* sentinel byte: "nothing was written here" */

static int me, npes;

/* shmem_init, me and npes, and at most FC_MAXPE PEs */
static inline void fc_init(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    REQUIRE(npes <= FC_MAXPE, "too many PEs");
}

/* A team made by shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size): handle (SHMEM_TEAM_INVALID on
 * PEs outside it), triplet, and this PE's index in it (-1 when not a member). */
typedef struct {
    shmem_team_t team;
    int start, stride, size, idx;
    const char *name;
} fc_team;

static inline int fc_world_pe(const fc_team *t, int j) { return t->start + t->stride * j; }

static inline int fc_trip_index(int start, int stride, int size, int pe) {
    for (int i = 0; i < size; i++)
        if (start + stride * i == pe)
            return i;
    return -1;
}

/* Every PE calls it with the same triplet (collective over the world team). */
static inline void fc_split(fc_team *t, const char *name, int start, int stride, int size) {
    t->name = name;
    t->start = start;
    t->stride = stride;
    t->size = size;
    t->idx = fc_trip_index(start, stride, size, me);
    t->team = SHMEM_TEAM_WORLD; /* must be overwritten */
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &t->team);
    REQUIRE(rc == 0, "split_strided(%d,%d,%d) for team %s returned %d", start, stride, size, name, rc);
    if (t->idx >= 0) {
        REQUIRE(t->team != SHMEM_TEAM_INVALID, "team %s: member got SHMEM_TEAM_INVALID", name);
        REQUIRE(shmem_team_my_pe(t->team) == t->idx, "team %s: my_pe %d want %d", name, shmem_team_my_pe(t->team),
                t->idx);
    } else {
        REQUIRE(t->team == SHMEM_TEAM_INVALID, "team %s: non-member did not get SHMEM_TEAM_INVALID", name);
    }
}

static inline void fc_destroy(fc_team *t) {
    if (t->team != SHMEM_TEAM_WORLD)
        shmem_team_destroy(t->team); /* SHMEM_TEAM_INVALID on non-members: no operation */
    t->team = SHMEM_TEAM_INVALID;
}

/* The standard set: the world team, a strided team that does not start at world PE 0 (team PE j is world PE
 * 1 + 2j at 4+ PEs, 1 + j at 2-3 PEs), a stride-3 team (world PEs 0, 3, 6, ...), and (OpenSHMEM 1.6, negative
 * stride) every PE in reverse order: team PE j is world PE npes-1-j. */
#define FC_NTEAMS 4
static inline void fc_make_teams(fc_team t[FC_NTEAMS]) {
    t[0].team = SHMEM_TEAM_WORLD;
    t[0].start = 0;
    t[0].stride = 1;
    t[0].size = npes;
    t[0].idx = me;
    t[0].name = "world";
    if (npes >= 4)
        fc_split(&t[1], "odd(1,2)", 1, 2, npes / 2);
    else if (npes >= 2)
        fc_split(&t[1], "tail(1,1)", 1, 1, npes - 1);
    else
        fc_split(&t[1], "self(0,1)", 0, 1, 1);
    fc_split(&t[2], "stride3(0,3)", 0, 3, (npes + 2) / 3);
    fc_split(&t[3], "reversed(n-1,-1)", npes - 1, -1, npes);
}

static inline void fc_destroy_teams(fc_team t[FC_NTEAMS]) {
    for (int i = FC_NTEAMS - 1; i >= 0; i--)
        fc_destroy(&t[i]);
}

/* The frame of a collective test's main: fc_begin (fc_init, the standard teams), its symmetric scratch buffers from
 * fc_malloc, and fc_end (teams destroyed, the two buffers freed, the verdict). */
static inline void fc_begin(fc_team t[FC_NTEAMS]) {
    fc_init();
    fc_make_teams(t);
}
static inline void *fc_malloc(size_t bytes) {
    void *p = shmem_malloc(bytes);
    REQUIRE(p, "shmem_malloc(%zu)", bytes);
    return p;
}
static inline int fc_end(const char *name, fc_team t[FC_NTEAMS], void *src, void *dst) {
    fc_destroy_teams(t);
    shmem_free(dst);
    shmem_free(src);
    return ftest_finish(name);
}

/* byte sentinels */
static inline void fc_fill(void *p, size_t bytes) { memset(p, FC_FILL, bytes); }
static inline size_t fc_first_unfilled(const void *p, size_t bytes) { /* bytes if all are the sentinel */
    const unsigned char *c = (const unsigned char *)p;
    for (size_t i = 0; i < bytes; i++)
        if (c[i] != FC_FILL)
            return i;
    return bytes;
}

/* a small positive value that names (a, b, c, salt): fits every RMA type (1..97), exact in floating point */
static inline int fc_val(long a, long b, long c, long salt) {
    return (int)(((a * 131 + b * 71 + c * 7 + salt * 13) % 97 + 97) % 97) + 1;
}

#endif

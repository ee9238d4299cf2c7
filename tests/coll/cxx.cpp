// cxx.cpp - the C++ binding (C++17): <shmem.h> in a C++ program, the overloaded generic names (shmem_put, shmem_p,
// shmem_g and their context forms, shmem_atomic_*, shmem_wait_until, shmem_sync(team), shmem_broadcast,
// shmem_collect, shmem_fcollect, shmem_alltoall, shmem_alltoalls, shmem_{and,max,min,sum,prod}_reduce) picked from
// templates for several types, and some typed names; results checked on every PE.
#include "fc.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace {

constexpr int N = 6;
long flag;
long ctr;

template <class T> T *sym(size_t n) {
    T *p = static_cast<T *>(shmem_malloc(n * sizeof(T)));
    REQUIRE(p != nullptr, "shmem_malloc");
    return p;
}

template <class T> T val(int w, int i) { return static_cast<T>(fc_val(w, i, static_cast<long>(sizeof(T)), 3)); }

// RMA through the overloads, with and without a context
template <class T> void rma(shmem_ctx_t ctx, const char *tn) {
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    T *src = sym<T>(N), *dst = sym<T>(N), *one = sym<T>(1);
    for (int i = 0; i < N; i++)
        src[i] = val<T>(me, i);
    shmem_barrier_all();
    shmem_put(dst, src, N, right);
    shmem_p(ctx, one, val<T>(me, 99), left);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        CHECK(dst[i] == val<T>(left, i), "shmem_put(%s) [%d]", tn, i);
    CHECK(*one == val<T>(right, 99), "shmem_p(ctx, %s)", tn);
    T g = shmem_g(src + 2, right);
    T gc = shmem_g(ctx, src + 3, left);
    CHECK(g == val<T>(right, 2) && gc == val<T>(left, 3), "shmem_g(%s)", tn);
    T back[N];
    shmem_get(ctx, back, src, N, left);
    for (int i = 0; i < N; i++)
        CHECK(back[i] == val<T>(left, i), "shmem_get(ctx, %s) [%d]", tn, i);
    shmem_barrier_all();
    shmem_free(one);
    shmem_free(dst);
    shmem_free(src);
}

// Collectives through the overloads on team t. Consecutive collectives write alternate dests: a peer can be in
// collective k+1 (writing this PE's dest) once this PE entered collective k, before it checked k's result.
template <class T> void coll(const fc_team *t, const char *tn) {
    T *src = sym<T>(FC_MAXPE * N * 2), *da = sym<T>(FC_MAXPE * N * 2), *db = sym<T>(FC_MAXPE * N * 2);
    int n = t->size, p = t->idx;
    for (int i = 0; i < FC_MAXPE * N * 2; i++)
        src[i] = val<T>(me, i % 90);
    shmem_barrier_all();
    if (p >= 0) {
        int root = n / 2;
        CHECK(shmem_broadcast(t->team, da, src, N, root) == 0, "shmem_broadcast(%s)", tn);
        for (int i = 0; i < N; i++)
            CHECK(da[i] == val<T>(fc_world_pe(t, root), i), "shmem_broadcast(%s) team %s [%d]", tn, t->name, i);
        CHECK(shmem_fcollect(t->team, db, src, N) == 0, "shmem_fcollect(%s)", tn);
        for (int j = 0; j < n * N; j++)
            CHECK(db[j] == val<T>(fc_world_pe(t, j / N), j % N), "shmem_fcollect(%s) [%d]", tn, j);
        CHECK(shmem_collect(t->team, da, src, static_cast<size_t>(p % 3)) == 0, "shmem_collect(%s)", tn);
        for (int j = 0, off = 0; j < n; j++)
            for (int e = 0; e < j % 3; e++, off++)
                CHECK(da[off] == val<T>(fc_world_pe(t, j), e), "shmem_collect(%s) [%d]", tn, off);
        CHECK(shmem_alltoall(t->team, db, src, 2) == 0, "shmem_alltoall(%s)", tn);
        for (int j = 0; j < n * 2; j++)
            CHECK(db[j] == val<T>(fc_world_pe(t, j / 2), (p * 2 + j % 2) % 90), "shmem_alltoall(%s) [%d]", tn, j);
        CHECK(shmem_alltoalls(t->team, da, src, 1, 2, 2) == 0, "shmem_alltoalls(%s)", tn);
        for (int j = 0; j < n * 2; j++)
            CHECK(da[j] == val<T>(fc_world_pe(t, j / 2), (2 * (p * 2 + j % 2)) % 90), "shmem_alltoalls(%s) [%d]", tn,
                  j);
        // reductions: sum of small values, max (the source may change once alltoalls returned)
        for (int i = 0; i < N; i++)
            src[i] = static_cast<T>((p + i) % 5);
        CHECK(shmem_sum_reduce(t->team, db, src, N) == 0, "shmem_sum_reduce(%s)", tn);
        for (int i = 0; i < N; i++) {
            T want = 0;
            for (int j = 0; j < n; j++)
                want = static_cast<T>(want + static_cast<T>((j + i) % 5));
            CHECK(db[i] == want, "shmem_sum_reduce(%s) team %s [%d]", tn, t->name, i);
        }
        CHECK(shmem_max_reduce(t->team, da, src, N) == 0, "shmem_max_reduce(%s)", tn);
        for (int i = 0; i < N; i++) {
            T want = 0;
            for (int j = 0; j < n; j++)
                want = std::max(want, static_cast<T>((j + i) % 5));
            CHECK(da[i] == want, "shmem_max_reduce(%s) [%d]", tn, i);
        }
        CHECK(shmem_prod_reduce(t->team, src, src, N) == 0, "shmem_prod_reduce(%s) in place", tn);
        for (int i = 0; i < N; i++) {
            T want = 1;
            for (int j = 0; j < n; j++)
                want = static_cast<T>(want * static_cast<T>((j + i) % 5));
            CHECK(src[i] == want, "shmem_prod_reduce(%s) in place [%d]", tn, i);
        }
        CHECK(shmem_sync(t->team) == 0, "shmem_sync(team)");
    }
    shmem_barrier_all();
    shmem_free(db);
    shmem_free(da);
    shmem_free(src);
}

template <class T> void bitwise(const fc_team *t, const char *tn) {
    T *src = sym<T>(N), *dst = sym<T>(N), *dx = sym<T>(N);
    int p = t->idx < 0 ? 0 : t->idx; /* PEs outside the team fill a source nobody reads */
    for (int i = 0; i < N; i++)
        src[i] = static_cast<T>(static_cast<T>(1) << ((p + i) % 8) | static_cast<T>(0x40));
    shmem_barrier_all();
    if (t->idx >= 0) {
        CHECK(shmem_or_reduce(t->team, dst, src, N) == 0, "shmem_or_reduce(%s)", tn);
        for (int i = 0; i < N; i++) {
            T want = 0;
            for (int j = 0; j < t->size; j++)
                want = static_cast<T>(want | static_cast<T>(static_cast<T>(1) << ((j + i) % 8) | static_cast<T>(0x40)));
            CHECK(dst[i] == want, "shmem_or_reduce(%s) [%d]", tn, i);
        }
        CHECK(shmem_xor_reduce(t->team, dx, src, N) == 0, "shmem_xor_reduce(%s)", tn); // not dst: see coll()
        for (int i = 0; i < N; i++) {
            T want = 0;
            for (int j = 0; j < t->size; j++)
                want = static_cast<T>(want ^ static_cast<T>(static_cast<T>(1) << ((j + i) % 8) | static_cast<T>(0x40)));
            CHECK(dx[i] == want, "shmem_xor_reduce(%s) [%d]", tn, i);
        }
        CHECK(shmem_and_reduce(t->team, dst, src, N) == 0, "shmem_and_reduce(%s)", tn);
        for (int i = 0; i < N; i++)
            CHECK((dst[i] & static_cast<T>(0x40)) == static_cast<T>(0x40), "shmem_and_reduce(%s) [%d]", tn, i);
    }
    shmem_barrier_all();
    shmem_free(dx);
    shmem_free(dst);
    shmem_free(src);
}

} // namespace

int main() {
    fc_init();
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    REQUIRE(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create");
    rma<int>(ctx, "int");
    rma<long>(ctx, "long");
    rma<double>(ctx, "double");
    rma<unsigned long long>(ctx, "unsigned long long");
    rma<char>(SHMEM_CTX_DEFAULT, "char");
    rma<short>(ctx, "short");

    // AMOs and wait_until through the overloads
    int right = (me + 1) % npes;
    long old = shmem_atomic_fetch_add(&ctr, 3L, 0);
    CHECK(old >= 0 && old < 4L * npes, "shmem_atomic_fetch_add(long) returned %ld", old);
    shmem_atomic_inc(ctx, &ctr, 0);
    shmem_ctx_quiet(ctx);
    shmem_atomic_set(&flag, 5L, right);
    shmem_wait_until(&flag, SHMEM_CMP_EQ, 5L);
    shmem_barrier_all();
    if (me == 0)
        CHECK(ctr == 4L * npes, "AMO counter %ld want %ld", ctr, 4L * npes);
    CHECK(shmem_long_atomic_fetch_inc(&ctr, me) >= 0, "typed fetch_inc");
    shmem_barrier_all();

    fc_team teams[FC_NTEAMS];
    fc_make_teams(teams);
    for (int ti = 0; ti < FC_NTEAMS; ti++) {
        const fc_team *t = &teams[ti];
        coll<int>(t, "int");
        coll<long>(t, "long");
        coll<double>(t, "double");
        coll<float>(t, "float");
        coll<unsigned short>(t, "unsigned short");
        coll<long double>(t, "long double");
        bitwise<unsigned int>(t, "unsigned int");
        bitwise<unsigned long>(t, "unsigned long");
        bitwise<std::uint8_t>(t, "uint8_t");
        // a few typed names
        int *is = sym<int>(N), *id = sym<int>(N), *ib = sym<int>(N);
        for (int i = 0; i < N; i++)
            is[i] = me + i;
        shmem_barrier_all();
        if (t->idx >= 0) {
            CHECK(shmem_int_sum_reduce(t->team, id, is, N) == 0, "shmem_int_sum_reduce");
            long wsum = 0;
            for (int j = 0; j < t->size; j++)
                wsum += fc_world_pe(t, j);
            for (int i = 0; i < N; i++)
                CHECK(id[i] == wsum + static_cast<long>(t->size) * i, "shmem_int_sum_reduce [%d] = %d", i, id[i]);
            CHECK(shmem_int_broadcast(t->team, ib, is, N, 0) == 0, "shmem_int_broadcast");
            for (int i = 0; i < N; i++)
                CHECK(ib[i] == t->start + i, "shmem_int_broadcast [%d] = %d", i, ib[i]);
            CHECK(shmem_team_sync(t->team) == 0, "shmem_team_sync");
        }
        shmem_barrier_all();
        shmem_free(ib);
        shmem_free(id);
        shmem_free(is);
    }
    fc_destroy_teams(teams);
    shmem_ctx_destroy(ctx);
    return ftest_finish("cxx");
}

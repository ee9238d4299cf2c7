/* Smoke test for run_netns.sh that needs only PMIx (what gshmem's PMIx bootstrap sees under mpirun): every process
 * puts its hostname, fences with data collection, reads every peer's, and checks that PMIX_LOCAL_PEERS groups exactly
 * the processes with its own hostname and that there are two hostnames (when GSH_NETNS_PRIVATE=1: run_netns.sh gives
 * each namespace its own hostname unless --shared-shm), so the two namespaces are two nodes to PMIx as well. */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        fprintf(stderr, "pmix_hello[%u]: ", me.rank);                                                                  \
        fprintf(stderr, __VA_ARGS__);                                                                                  \
        fputc('\n', stderr);                                                                                           \
        errors++;                                                                                                      \
    } while (0)

int main(void) {
    pmix_proc_t me, wild;
    pmix_value_t val, *vp = NULL;
    pmix_status_t rc;
    int errors = 0;
    char host[256] = "";

    memset(&me, 0, sizeof me);
    if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
        fprintf(stderr, "pmix_hello: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if ((rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &vp)) != PMIX_SUCCESS) {
        fprintf(stderr, "pmix_hello: no PMIX_JOB_SIZE: %s\n", PMIx_Error_string(rc));
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    uint32_t size = vp->data.uint32;
    PMIX_VALUE_RELEASE(vp);

    gethostname(host, sizeof host - 1);
    PMIX_VALUE_LOAD(&val, host, PMIX_STRING);
    if (PMIx_Put(PMIX_GLOBAL, "gsh.netns.host", &val) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS)
        FAIL("put/commit failed");
    PMIX_VALUE_DESTRUCT(&val);

    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if ((rc = PMIx_Fence(&wild, 1, &collect, 1)) != PMIX_SUCCESS)
        FAIL("fence failed: %s", PMIx_Error_string(rc));

    /* PMIX_LOCAL_PEERS: comma-separated ranks on this node */
    char peers[4096] = "";
    if ((rc = PMIx_Get(&wild, PMIX_LOCAL_PEERS, NULL, 0, &vp)) == PMIX_SUCCESS && vp->type == PMIX_STRING) {
        snprintf(peers, sizeof peers, "%s", vp->data.string);
        PMIX_VALUE_RELEASE(vp);
    } else {
        FAIL("no PMIX_LOCAL_PEERS: %s", PMIx_Error_string(rc));
    }
    /* run_netns.sh sets GSH_NETNS_PRIVATE=1 when each side has its own hostname (not with --shared-shm) */
    const char *priv = getenv("GSH_NETNS_PRIVATE");
    int check_host = priv && atoi(priv) == 1;
    int nsame = 0, nother = 0;
    for (uint32_t r = 0; r < size; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, me.nspace, r);
        if ((rc = PMIx_Get(&p, "gsh.netns.host", NULL, 0, &vp)) != PMIX_SUCCESS || vp->type != PMIX_STRING) {
            FAIL("cannot get rank %u's host: %s", r, PMIx_Error_string(rc));
            continue;
        }
        int same = strcmp(vp->data.string, host) == 0;
        PMIX_VALUE_RELEASE(vp);
        nsame += same;
        nother += !same;
        /* is r in PMIX_LOCAL_PEERS? */
        int local = 0;
        char buf[sizeof peers], *save = NULL;
        memcpy(buf, peers, sizeof buf);
        for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
            if ((uint32_t)strtoul(t, NULL, 10) == r)
                local = 1;
        if (check_host && local != same)
            FAIL("rank %u: same host %d but in PMIX_LOCAL_PEERS (%s) %d", r, same, peers, local);
    }
    printf("pmix_hello: rank %u/%u on %s, local peers %s, %d on this host, %d elsewhere\n", me.rank, size, host, peers,
           nsame, nother);
    fflush(stdout);
    if (check_host && size > 1 && nother == 0)
        FAIL("every rank is on this host, expected two hosts");

    PMIx_Fence(&wild, 1, NULL, 0);
    PMIx_Finalize(NULL, 0);
    return errors ? 1 : 0;
}

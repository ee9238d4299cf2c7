#!/usr/bin/env python3
# scaling-model.py - docs/scaling.md's model of start-up time, memory, descriptors, bootstrap look-ups and collective
# messages per PE and per node, printed at 1k/10k/100k PEs and plotted against what bench/scaling.sh measured here.
"""usage: bench/scaling-model.py [--init CSV] [--probe CSV] [--png FILE] [--ppn 128] [--cores 128] [--rounds 1]

--init:  bench/init-scaling.sh's CSV (config,npes,rep,wall_s,cpu_s,cpu_per_pe_s); config A rows are used
--probe: bench/scaling.sh's CSV (rss_kib, fds_all ... per PE count)
--ppn/--cores: PEs and cores per node of the machine projected to; --rounds: bootstrap exchanges at init (1 today for
a host-only job; the table also shows the 10 of a host-only init over libfabric before issue 41, and the 2 between)
Without matplotlib the table is still printed and the plot is skipped with a note."""
import argparse
import csv
import math
import statistics
import sys

# Constants measured on this machine (docs/scaling.md says how); the model's only inputs besides N.
CPU_PER_PE_S = 0.16  # init+finalize CPU per PE over libfabric 1.17 tcp;ofi_rxm (0.14 on net; 0.13 of it the kallsyms scan)
LIB_WALL_S = 0.21  # wall of loading libfabric (PSM's clock calibration sleeps), overlapped across PEs
RSS0_MIB = 41.0  # RSS of a PE over libfabric tcp;ofi_rxm before it talks to a peer (~32 MiB of it rxm's buffer pools)
RSS_PER_CONNECTED_KIB = 20.8  # slope of RSS per peer talked to (tcp + rxm connection state)
TABLE_PER_PEER_B = 130  # gshmem's own per-peer tables kept after init (addresses, keys, bases, pointers, flags)
TRANSIENT_PER_PEER_B = 432 + 23 * 40  # during init: the libfabric card and segment descriptors of every PE
FDS0 = 23  # descriptors of a PE over libfabric before it talks to anyone
PMIX_GET_US = 20.0  # one PMIx_Get of a peer's blob served by the node's server (assumed for a quiet node)


def model(n, ppn, cores, rounds):
    peers = n - 1
    return {
        "init_cpu_node_s": ppn * CPU_PER_PE_S / cores,
        "pmix_gets_pe": rounds * peers,
        "pmix_gets_node": rounds * peers * ppn,
        "pmix_get_s": rounds * peers * PMIX_GET_US * 1e-6,
        "init_s": LIB_WALL_S + CPU_PER_PE_S * max(1.0, ppn / cores) + rounds * peers * PMIX_GET_US * 1e-6,
        "rss_mib_few": RSS0_MIB + TABLE_PER_PEER_B * peers / 2**20,
        "rss_mib_all": RSS0_MIB + (TABLE_PER_PEER_B + RSS_PER_CONNECTED_KIB * 1024) * peers / 2**20,
        "transient_mib": TRANSIENT_PER_PEER_B * n / 2**20,
        "fds_few": FDS0 + math.ceil(math.log2(max(n, 2))),
        "fds_all": FDS0 + peers,
        "msgs_barrier": math.ceil(math.log2(max(n, 2))),
        "msgs_alltoall": peers,
    }


def medians(rows, key, val):
    by = {}
    for r in rows:
        by.setdefault(int(r[key]), []).append(float(r[val]))
    return sorted((k, statistics.median(v)) for k, v in by.items())


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("--init", default="bench/results/2026-11-27-init-rx-depth.csv")
    ap.add_argument("--probe", default="bench/results/2026-11-27-scaling-rx-depth.csv")
    ap.add_argument("--png", default="")
    ap.add_argument("--ppn", type=int, default=128)
    ap.add_argument("--cores", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=1)
    a = ap.parse_args()

    rs = (10, 2, a.rounds)
    tag = " / ".join(str(r) for r in rs)
    print(f"| PEs | init s (R = {tag}) | PMIx gets per node server (R = {tag}) | resident MiB per PE (few peers / all) "
          f"| init transient MiB per PE | descriptors per PE (few / all) | barrier / alltoall messages per PE |")
    print("|---|---|---|---|---|---|---|")
    for n in (1000, 10000, 100000):
        ms = [model(n, a.ppn, a.cores, r) for r in rs]
        m = ms[-1]
        init = " / ".join("%.1f" % x["init_s"] for x in ms)
        gets = " / ".join("%.1e" % x["pmix_gets_node"] for x in ms)
        print(f"| {n:,} | {init} | {gets} "
              f"| {m['rss_mib_few']:.0f} / {m['rss_mib_all']:,.0f} | {m['transient_mib']:.0f} "
              f"| {m['fds_few']} / {m['fds_all']:,} | {m['msgs_barrier']} / {m['msgs_alltoall']:,} |")

    if not a.png:
        return
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("scaling-model.py: no matplotlib: plot skipped", file=sys.stderr)
        return
    with open(a.init) as f:
        init = [r for r in csv.DictReader(f) if r["config"] == "A"]
    with open(a.probe) as f:
        probe = [r for r in csv.DictReader(f) if r["launcher"] == "oshrun" and r["transport"] == "ofi"]
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.5))
    ns = [2**k for k in range(1, 18)]

    w = medians(init, "npes", "wall_s")
    ax[0].plot([p[0] for p in w], [p[1] for p in w], "o", label="measured wall, 2 cores (median of 3)")
    ax[0].plot(ns[:7], [LIB_WALL_S + CPU_PER_PE_S * max(1, n / 2) for n in ns[:7]], "-",
               label=f"model, one node of 2 cores: {LIB_WALL_S} s + {CPU_PER_PE_S} s CPU x N / 2")
    ax[0].plot(ns, [model(n, a.ppn, a.cores, 10)["init_s"] for n in ns], "--",
               label=f"model, {a.ppn} PEs/node, 10 exchanges (before issue 41)")
    ax[0].plot(ns, [model(n, a.ppn, a.cores, a.rounds)["init_s"] for n in ns], ":",
               label=f"model, {a.ppn} PEs/node, {a.rounds} exchanges (now)")
    ax[0].set(xscale="log", yscale="log", xlabel="PEs", ylabel="init + finalize (s)", title="Start-up over libfabric")

    r = medians(probe, "npes", "rss_kib")
    ax[1].plot([p[0] for p in r], [p[1] / 1024 for p in r], "o", label="measured RSS per PE (talked to all)")
    ax[1].plot(ns, [model(n, a.ppn, a.cores, 1)["rss_mib_all"] for n in ns], "-", label="model: connected to all")
    ax[1].plot(ns, [model(n, a.ppn, a.cores, 1)["rss_mib_few"] for n in ns], "--", label="model: few peers used")
    ax[1].set(xscale="log", yscale="log", xlabel="PEs", ylabel="MiB per PE", title="Memory per PE (tcp;ofi_rxm)")

    d = medians(probe, "npes", "fds_all")
    ax[2].plot([p[0] for p in d], [p[1] for p in d], "o", label="measured fds per PE (talked to all)")
    ax[2].plot(ns, [model(n, a.ppn, a.cores, 1)["fds_all"] for n in ns], "-", label="model: one socket per peer used")
    ax[2].plot(ns, [model(n, a.ppn, a.cores, 1)["msgs_alltoall"] for n in ns], "--", label="alltoall messages per PE")
    ax[2].plot(ns, [model(n, a.ppn, a.cores, 1)["msgs_barrier"] for n in ns], ":", label="barrier messages per PE")
    ax[2].set(xscale="log", yscale="log", xlabel="PEs", ylabel="count per PE", title="Descriptors and messages")
    for x in ax:
        x.grid(True, which="both", alpha=0.3)
        x.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)
    print(f"wrote {a.png}")


if __name__ == "__main__":
    main()

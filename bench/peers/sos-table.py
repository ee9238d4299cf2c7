#!/usr/bin/env python3
# sos-table.py - turns sos-compare.sh's run folder (shmem-perf JSON per library, provider and round; fabtests output)
# into the markdown table and CSV of gshmem against Sandia OpenSHMEM: medians over rounds, ratios, provider floor.
import glob
import os
import re
import statistics
import sys

out, providers, md_path, csv_path = sys.argv[1:5]
plist = providers.split(",")

# (shmem-perf test, size, label, unit, better): the figures issue 41 asks for
METRICS = [
    ("put_lat", 8, "8 B put + quiet", "us", "lower"),
    ("get_lat", 8, "8 B get", "us", "lower"),
    ("amo_fadd", 8, "fetch-add", "us", "lower"),
    ("pingpong", 8, "ping-pong one way", "us", "lower"),
    ("put_bw", 1048576, "1 MiB put bandwidth", "GB/s", "higher"),
]
# Figures of SOS 1.5.3 that measure less than OpenSHMEM promises on a provider: an 8-byte put goes out through
# fi_inject_write, whose counter rxm (and net) raise at transmit, so its quiet returns before the data is at the
# target (bench/results/2026-11-27-put-quiet-analysis.md; tests/functional/quiet_visible.c fails against SOS).
WEAK = {"put_lat": "quiet returns at transmit, not delivery (quiet_visible fails on SOS)"}


def sos_prov(p):
    return "net;ofi_rxm" if p == "net" else p


def key(p):
    return p.replace(";", "+")


def load(lib, p):
    """test,size -> {round: that round's median}"""
    import json

    res = {}
    for f in sorted(glob.glob(os.path.join(out, "%s-%s-*-r*.json" % (lib, key(p))))):
        r = int(re.search(r"-r(\d+)\.json$", f).group(1))
        for row in json.load(open(f)):
            res.setdefault((row["test"], row["size"]), {})[r] = row["median"]
    return res


def socket_floor():
    """tcp-floor.c's GB/s, one per round"""
    vals = []
    for f in sorted(glob.glob(os.path.join(out, "floor-socket-r*.txt"))):
        m = re.search(r"^tcp-floor 1048576 ([0-9.]+) GB/s", open(f).read(), re.M)
        if m:
            vals.append(float(m.group(1)))
    return vals


def failed(name):
    f = os.path.join(out, name + ".failed")
    return open(f).read().strip() if os.path.exists(f) else None


def floor(p, t):
    """fabtests: fi_rdm_pingpong usec/xfer (one way) at 8 B; fi_rma_bw MB/sec at 1 MiB, as GB/s"""
    vals = []
    for f in sorted(glob.glob(os.path.join(out, "floor-%s-%s-r*.txt" % (t, key(p))))):
        for line in open(f):
            cols = line.split()
            # bytes iters total time MB/sec usec/xfer Mxfers/sec
            if len(cols) >= 7 and re.fullmatch(r"\d+(\.\d+)?[kmg]?", cols[0]) and cols[0] != "bytes":
                try:
                    vals.append(float(cols[5]) if t == "pingpong" else float(cols[4]) / 1000.0)
                except ValueError:
                    pass
                break
    return vals


def med(v):
    return statistics.median(v) if v else None


def fmt(x, unit):
    if x is None:
        return "—"
    return ("%.2f" if unit == "GB/s" else "%.1f") % x


machine = open(os.path.join(out, "machine.txt")).read().strip()
rows = []  # for the CSV
md = []
md.append("# gshmem against Sandia OpenSHMEM 1.5.3 on the same libfabric providers (issue 41)")
md.append("")
md.append("Written by `bench/peers/sos-compare.sh` (see docs/benchmarks.md). 2 PEs on one machine, every transfer")
md.append("between them through libfabric (gshmem: `SHMEM_TRANSPORT=ofi`; SOS: its provider-only build). Each figure")
md.append("is the median over rounds of one shmem-perf run's median; [min–max over rounds, n = rounds]. Ratio: gshmem / SOS")
md.append("(latency: ≤ 1.00 is gshmem as fast or faster; bandwidth: ≥ 1.00). Floor: fabtests on the provider SOS")
md.append("uses, and on gshmem's where it differs (fi_rdm_pingpong 8 B one way; fi_rma_bw 1 MiB writes); for bandwidth")
md.append("under tcp and net also the loopback socket's (tcp-floor.c: 1 MiB writes between two pinned processes). Per")
md.append("round: the median of gshmem / SOS within each round, where the two ran back to back.")
md.append("")
md.append("```")
md.append(machine)
md.append("```")
md.append("")
md.append("| metric | provider (gshmem / SOS) | gshmem | SOS | gshmem/SOS | per round [min–max] | floor |")
md.append("|---|---|---|---|---|---|---|")
libs = {p: (load("gshmem", p), load("sos", p)) for p in plist}
notes = []
for test, size, label, unit, better in METRICS:
    for p in plist:
        g, s = libs[p]
        gr, sr = g.get((test, size), {}), s.get((test, size), {})
        gv, sv = list(gr.values()), list(sr.values())
        gm, sm = med(gv), med(sv)
        ratio = gm / sm if gm is not None and sm else None
        # the two libraries ran back to back in each round: the ratio within a round is immune to the machine's drift
        pairs = sorted(gr[r] / sr[r] for r in gr if r in sr and sr[r])
        paired = "%.2f [%.2f–%.2f]" % (med(pairs), pairs[0], pairs[-1]) if pairs else "—"
        ft = "pingpong" if test in ("put_lat", "get_lat", "amo_fadd", "pingpong") else "rma_bw"
        fl = med(floor(sos_prov(p), ft)) if test in ("pingpong", "put_bw") else None
        fl_g = med(floor(p, ft)) if test in ("pingpong", "put_bw") and sos_prov(p) != p else None
        weak = test in WEAK and sm is not None
        gtxt = "%s %s [%s–%s, n=%d]" % (fmt(gm, unit), unit, fmt(min(gv), unit), fmt(max(gv), unit), len(gv)) if gv else (
            "fails" if failed("gshmem-" + key(p)) else "—")
        stxt = "%s %s [%s–%s, n=%d]" % (fmt(sm, unit), unit, fmt(min(sv), unit), fmt(max(sv), unit), len(sv)) if sv else (
            "fails" if failed("sos-" + key(p)) else "—")
        if weak:
            stxt += " †"
        prov = p if sos_prov(p) == p else "%s / %s" % (p, sos_prov(p))
        ftxt = fmt(fl, unit) + (" " + unit if fl is not None else "")
        if fl_g is not None:
            ftxt = "%s %s (`%s`) / %s (`%s`)" % (fmt(fl_g, unit), unit, p, ftxt, sos_prov(p))
        sock = med(socket_floor()) if test == "put_bw" and ("tcp" in p or p.startswith("net")) else None
        if sock is not None:
            ftxt += "; loopback socket %s GB/s" % fmt(sock, unit)
        md.append("| %s | `%s` | %s | %s | %s | %s | %s |" % (label, prov, gtxt, stxt, "%.2f" % ratio if ratio else "—",
                                                           paired, ftxt))
        rows.append([label, test, size, unit, p, sos_prov(p), fmt(gm, unit) if gm is not None else "",
                     fmt(sm, unit) if sm is not None else "", "%.3f" % ratio if ratio else "",
                     "%.3f" % med(pairs) if pairs else "",
                     fmt(fl, unit) if fl is not None else "", fmt(fl_g, unit) if fl_g is not None else "", len(gv), len(sv),
                     WEAK[test] if weak else ""])
md.append("")
md.append("† SOS's figure rests on a weaker guarantee: %s; see" % WEAK["put_lat"])
md.append("[2026-11-27-put-quiet-analysis.md](2026-11-27-put-quiet-analysis.md).")
md.append("")
fails = []
for p in plist:
    for lib in ("gshmem", "sos"):
        f = failed("%s-%s" % (lib, key(p)))
        if f:
            where = "`%s`" % p if lib == "gshmem" or sos_prov(p) == p else "`%s` (the `%s` row)" % (sos_prov(p), p)
            fails.append("* %s on %s: %s" % ("gshmem" if lib == "gshmem" else "SOS", where, f))
    for t in ("pingpong", "rma_bw"):
        for q in sorted({p, sos_prov(p)}):
            f = failed("floor-%s-%s" % (t, key(q)))
            if f and ("* floor %s on `%s`" % (t, q)) not in "\n".join(fails):
                fails.append("* floor %s on `%s`: %s" % (t, q, f))
for p in plist:
    for lib in ("gshmem", "sos"):
        f = os.path.join(out, "%s-%s.lost" % (lib, key(p)))
        if os.path.exists(f):
            fails.append("* %s on `%s`: rounds lost (%s)" % ("gshmem" if lib == "gshmem" else "SOS",
                                                          p if lib == "gshmem" else sos_prov(p),
                                                          "; ".join(open(f).read().split("\n")).strip("; ")))
if fails:
    md.append("Runs that failed or hung (a library failing on a provider in the first round it runs there is not")
    md.append("tried there again; a later failure loses that round only):")
    md.append("")
    md.extend(fails)
    md.append("")
open(md_path, "w").write("\n".join(md) + "\n")
with open(csv_path, "w") as f:
    f.write("metric,test,size,unit,gshmem_provider,sos_provider,gshmem_median,sos_median,ratio_gshmem_over_sos,ratio_per_round,"
            "floor_sos_provider,floor_gshmem_provider_if_different,gshmem_rounds,sos_rounds,sos_weaker_guarantee\n")
    for r in rows:
        f.write(",".join('"%s"' % c if isinstance(c, str) and ("," in c or ";" in c) else str(c) for c in r) + "\n")
print("\n".join(md))

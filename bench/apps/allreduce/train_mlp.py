# train_mlp.py - data-parallel training of a small MLP (a 2-class classifier) with shmem4py and NumPy, Horovod-style:
# PE 0's initial weights broadcast, each PE's shard of the batch, gradients summed over PEs every step.
"""Data-parallel MLP training on shmem4py.

Run: oshrun -np N python train_mlp.py [--steps S] [--batch B] [--verify]

Every PE makes the same synthetic data set from --seed. Weights start from PE 0's draw (the others draw different
ones on purpose, so the broadcast matters). Each step, PE p takes its share of the global batch (shares differ by
at most one row), computes the gradient sum and loss sum of its rows with NumPy, and one shmem sum_reduce over a
symmetric vector [gradients..., loss] gives every PE the batch's totals; each divides by the batch size and takes
the same SGD step. With --verify, the run fails (exit 1) unless every PE's loss curve and final weights are
bitwise identical (gathered with fcollect and compared on PE 0), the loss fell, and the curve matches a serial,
single-process training of the same model on PE 0 (to rounding: the sums are taken in another order).
"""
import argparse
import sys

import numpy as np
from shmem4py import shmem


def make_data(rng, n, d):
    """two classes split by a curved boundary, with 5% of labels flipped: learnable, not trivially"""
    x = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    y = (x @ w + 1.5 * np.sin(2.0 * x[:, 0]) > 0.0).astype(np.float64)
    flip = rng.random(n) < 0.05
    y[flip] = 1.0 - y[flip]
    return x, y


def init_weights(rng, d, h):
    return [rng.standard_normal((d, h)) / np.sqrt(d), np.zeros(h), rng.standard_normal(h) / np.sqrt(h), np.zeros(1)]


def grad_sums(params, x, y):
    """the sums over the rows of x of the cross-entropy loss and of its gradient (a tanh hidden layer, a logistic
    output); sums, not means, so that shards add up to the batch"""
    w1, b1, w2, b2 = params
    h = np.tanh(x @ w1 + b1)
    z = h @ w2 + b2[0]
    # log(1 + e^z) - y z, computed without overflow
    loss = np.sum(np.logaddexp(0.0, z) - y * z)
    dz = 1.0 / (1.0 + np.exp(-z)) - y
    dw2 = h.T @ dz
    db2 = np.array([dz.sum()])
    dh = np.outer(dz, w2) * (1.0 - h * h)
    dw1 = x.T @ dh
    db1 = dh.sum(axis=0)
    return [dw1, db1, dw2, db2], loss


def flatten(arrays):
    return np.concatenate([a.ravel() for a in arrays])


def unflatten(vec, like):
    out, o = [], 0
    for a in like:
        out.append(vec[o:o + a.size].reshape(a.shape))
        o += a.size
    return out


def batch_rows(step, batch, n):
    start = (step * batch) % n
    return np.arange(start, start + batch) % n


def shard(rows, me, npes):
    """PE me's part of the batch: contiguous, sizes differing by at most one"""
    base, rem = divmod(len(rows), npes)
    lo = me * base + min(me, rem)
    return rows[lo:lo + base + (me < rem)]


def train_serial(params, x, y, steps, batch, lr):
    """the reference: the same training in one process, whole batches"""
    params = [p.copy() for p in params]
    losses = []
    for t in range(steps):
        rows = batch_rows(t, batch, len(x))
        g, loss = grad_sums(params, x[rows], y[rows])
        losses.append(loss / batch)
        params = [p - lr * gi / batch for p, gi in zip(params, g)]
    return np.array(losses), params


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=120, help="SGD steps (default 120)")
    ap.add_argument("--batch", type=int, default=256, help="global batch, split over the PEs (default 256)")
    ap.add_argument("--samples", type=int, default=4096, help="size of the synthetic data set (default 4096)")
    ap.add_argument("--inputs", type=int, default=16, help="input features (default 16)")
    ap.add_argument("--hidden", type=int, default=32, help="hidden units (default 32)")
    ap.add_argument("--lr", type=float, default=0.5, help="learning rate (default 0.5)")
    ap.add_argument("--seed", type=int, default=2026, help="seed of the data and of PE 0's initial weights")
    ap.add_argument("--every", type=int, default=20, help="print the loss every this many steps (default 20)")
    ap.add_argument("--verify", action="store_true", help="check the run (see above); exit 1 if wrong")
    ap.add_argument("--quiet", action="store_true", help="print only the verdict")
    args = ap.parse_args()
    me, npes = shmem.my_pe(), shmem.n_pes()
    if args.batch < npes or args.steps < 2:
        if me == 0:
            print("train_mlp: need --batch >= PEs and --steps >= 2", file=sys.stderr)
        return 2

    x, y = make_data(np.random.default_rng(args.seed), args.samples, args.inputs)
    mine = init_weights(np.random.default_rng(args.seed + 1 + me), args.inputs, args.hidden)
    nparam = sum(p.size for p in mine)

    # Horovod's broadcast_parameters: everyone starts from PE 0's weights
    wsrc = shmem.array(flatten(mine))
    wdst = shmem.zeros(nparam)
    shmem.broadcast(wdst, wsrc, 0)
    params = unflatten(wdst.copy(), mine)
    init = [p.copy() for p in params]

    # one fused vector per step: the gradients, then the loss (Horovod's tensor fusion)
    gsrc = shmem.zeros(nparam + 1)
    gdst = shmem.zeros(nparam + 1)
    losses = np.empty(args.steps)
    for t in range(args.steps):
        rows = shard(batch_rows(t, args.batch, args.samples), me, npes)
        g, loss = grad_sums(params, x[rows], y[rows])
        gsrc[:nparam] = flatten(g)
        gsrc[nparam] = loss
        shmem.sum_reduce(gdst, gsrc)
        avg = gdst / args.batch
        losses[t] = avg[nparam]
        params = [p - args.lr * gi for p, gi in zip(params, unflatten(avg[:nparam], params))]
        if me == 0 and not args.quiet and (t % args.every == 0 or t == args.steps - 1):
            print(f"step {t:5d}  loss {losses[t]:.6f}", flush=True)

    ok = True
    if args.verify:
        # every PE's curve and weights, side by side on PE 0 (fcollect gives them to all; PE 0 judges)
        mine_all = np.concatenate([losses, flatten(params)])
        src = shmem.array(mine_all)
        dst = shmem.zeros(npes * mine_all.size)
        shmem.fcollect(dst, src)
        judged = shmem.zeros(1, dtype=np.int32)
        verdict = shmem.zeros(1, dtype=np.int32)
        if me == 0:
            rows = dst.reshape(npes, mine_all.size).view(np.uint64)
            same = all(np.array_equal(rows[0], rows[p]) for p in range(1, npes))
            first, last = losses[0], losses[-10:].mean()
            fell = last < 0.6 * first
            ref_losses, ref_params = train_serial(init, x, y, args.steps, args.batch, args.lr)
            err = max(np.max(np.abs(losses - ref_losses)),
                      max(np.max(np.abs(p - r)) for p, r in zip(params, ref_params)))
            serial = err < 1e-8
            print(f"train_mlp np={npes}: loss {first:.4f} -> {last:.4f} (mean of the last 10 steps); "
                  f"PEs identical: {same}; off the serial run by {err:.2e}")
            judged[0] = int(same and fell and serial)
        shmem.broadcast(verdict, judged, 0)
        ok = bool(verdict[0])
        if me == 0:
            print(f"train_mlp np={npes}: verification {'passed' if ok else 'FAILED'}")
        for a in (src, dst, judged, verdict):
            shmem.free(a)
    for a in (wsrc, wdst, gsrc, gdst):
        shmem.free(a)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

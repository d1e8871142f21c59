"""Every collective x type x op of the Python package against numpy's answer, on numpy arrays
and CPU torch tensors, in place and out of place, with all ranks in this process (Comm.all,
driven from one thread inside chorus.group()). Run by ctest (label python) with the system's
/usr/bin/python3; CHORUS_LIBRARY names the build under test."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import numpy as np  # noqa: E402

import chorus  # noqa: E402

NUMPY_TYPES = [t for t in chorus.DTYPES if t != "bfloat16"]  # numpy has no bfloat16
COUNT = 1001  # odd, so that no rank's share is a round number


def inputs(nranks, dtype, count, seed):
    """Rank r's input: small integers (1..3), so that sums and products of up to 4 ranks are exact
    in every type, int8 and float16 included."""
    rng = np.random.default_rng(seed)
    return [rng.integers(1, 4, count).astype(dtype) for _ in range(nranks)]


def reduced(xs, op):
    """numpy's answer for op over the ranks' arrays, in the arrays' type (avg: sum / n,
    truncated for integers, as kern_divide does)."""
    wide = np.stack([x.astype(np.float64) for x in xs])
    if op == "sum":
        out = wide.sum(0)
    elif op == "prod":
        out = wide.prod(0)
    elif op == "min":
        out = wide.min(0)
    elif op == "max":
        out = wide.max(0)
    else:
        out = wide.sum(0) / len(xs)
        if np.issubdtype(xs[0].dtype, np.integer):
            out = np.trunc(out)
    return out.astype(xs[0].dtype)


def run(comms, call):
    """call(comm) for every rank at once (one group: the ranks' threads run together)."""
    with chorus.group():
        for c in comms:
            call(c)


class Collectives(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.comms = {n: chorus.Comm.all(n) for n in (1, 3, 4)}

    @classmethod
    def tearDownClass(cls):
        for comms in cls.comms.values():
            for c in comms:
                c.destroy()

    def check(self, got, want, what):
        if np.issubdtype(want.dtype, np.floating):
            np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-6, err_msg=what)
        else:
            np.testing.assert_array_equal(got, want, err_msg=what)

    def test_reducing_collectives_every_type_and_op(self):
        for n, comms in self.comms.items():
            for dtype in NUMPY_TYPES:
                for op in chorus.OPS:
                    what = f"{n} ranks {dtype} {op}"
                    xs = inputs(n, dtype, COUNT * n, seed=n)
                    want = reduced(xs, op)
                    # allreduce out of place, then in place
                    outs = [np.zeros_like(x) for x in xs]
                    run(comms, lambda c: c.allreduce(xs[c.rank], outs[c.rank], op=op))
                    for r in range(n):
                        self.check(outs[r], want, f"allreduce {what} rank {r}")
                    ins = [x.copy() for x in xs]
                    run(comms, lambda c: c.allreduce(ins[c.rank], op=op))
                    self.check(ins[n - 1], want, f"allreduce in place {what}")
                    # reduce to the last rank
                    outs = [np.zeros_like(x) for x in xs]
                    run(comms, lambda c: c.reduce(xs[c.rank], outs[c.rank], op=op, root=n - 1))
                    self.check(outs[n - 1], want, f"reduce {what}")
                    # reducescatter, out of place and in place
                    m = COUNT
                    outs = [np.zeros(m, dtype) for _ in range(n)]
                    run(comms, lambda c: c.reducescatter(xs[c.rank], outs[c.rank], op=op))
                    for r in range(n):
                        self.check(outs[r], want[r * m:(r + 1) * m], f"reducescatter {what} rank {r}")
                    ins = [x.copy() for x in xs]
                    run(comms, lambda c: c.reducescatter(ins[c.rank], ins[c.rank][c.rank * m:(c.rank + 1) * m], op=op))
                    self.check(ins[1 % n][(1 % n) * m:(1 % n + 1) * m], want[(1 % n) * m:(1 % n + 1) * m],
                               f"reducescatter in place {what}")

    def test_moving_collectives_every_type(self):
        for n, comms in self.comms.items():
            for dtype in NUMPY_TYPES:
                what = f"{n} ranks {dtype}"
                xs = inputs(n, dtype, COUNT * n, seed=7)
                # broadcast from the last rank, out of place and in place
                outs = [np.zeros_like(x) for x in xs]
                run(comms, lambda c: c.broadcast(xs[c.rank], outs[c.rank], root=n - 1))
                for r in range(n):
                    self.check(outs[r], xs[n - 1], f"broadcast {what} rank {r}")
                ins = [x.copy() for x in xs]
                run(comms, lambda c: c.broadcast(ins[c.rank], root=0))
                self.check(ins[n - 1], xs[0], f"broadcast in place {what}")
                # allgather: each rank gives COUNT elements
                m = COUNT
                outs = [np.zeros(m * n, dtype) for _ in range(n)]
                run(comms, lambda c: c.allgather(xs[c.rank][:m], outs[c.rank]))
                want = np.concatenate([x[:m] for x in xs])
                for r in range(n):
                    self.check(outs[r], want, f"allgather {what} rank {r}")
                ins = [np.zeros(m * n, dtype) for _ in range(n)]
                for r in range(n):
                    ins[r][r * m:(r + 1) * m] = xs[r][:m]
                run(comms, lambda c: c.allgather(ins[c.rank][c.rank * m:(c.rank + 1) * m], ins[c.rank]))
                self.check(ins[0], want, f"allgather in place {what}")
                # alltoall: block j of rank i lands as block i of rank j
                outs = [np.zeros_like(x) for x in xs]
                run(comms, lambda c: c.alltoall(xs[c.rank], outs[c.rank]))
                for j in range(n):
                    want = np.concatenate([xs[i][j * m:(j + 1) * m] for i in range(n)])
                    self.check(outs[j], want, f"alltoall {what} rank {j}")

    def test_send_recv_ring_in_a_group(self):
        comms = self.comms[4]
        xs = [np.full(5000, r, np.int64) for r in range(4)]
        outs = [np.zeros(5000, np.int64) for _ in range(4)]
        with chorus.group():
            for c in comms:
                c.send(xs[c.rank], (c.rank + 1) % 4)
                c.recv(outs[c.rank], (c.rank - 1) % 4)
        for r in range(4):
            np.testing.assert_array_equal(outs[r], np.full(5000, (r - 1) % 4))

    def test_group_keeps_temporaries_alive(self):
        """A buffer made inside the group and dropped at once must live until the group ends."""
        comms = self.comms[3]
        outs = [np.zeros(1 << 16, np.float32) for _ in range(3)]
        with chorus.group():
            for c in comms:
                c.allreduce(np.full(1 << 16, c.rank + 1, np.float32), outs[c.rank])
        for r in range(3):
            np.testing.assert_array_equal(outs[r], np.full(1 << 16, 6, np.float32))


class TorchTensors(unittest.TestCase):
    def test_every_torch_type_and_op(self):
        import torch
        comms = chorus.Comm.all(3)
        try:
            kinds = [torch.int8, torch.uint8, torch.int32, torch.int64, torch.float16, torch.bfloat16,
                     torch.float32, torch.float64]
            for kind in kinds:
                for op in chorus.OPS:
                    xs = [torch.randint(1, 4, (777,)).to(kind) for _ in range(3)]
                    want = reduced([x.to(torch.float64).numpy() for x in xs], op)
                    if not kind.is_floating_point:
                        want = reduced([x.numpy() for x in xs], op)
                    outs = [torch.zeros_like(x) for x in xs]
                    run(comms, lambda c: c.allreduce(xs[c.rank], outs[c.rank], op=op))
                    got = outs[2].to(torch.float64).numpy()
                    np.testing.assert_allclose(got, want.astype(np.float64), rtol=1e-2 if kind in
                                               (torch.float16, torch.bfloat16) else 1e-6,
                                               err_msg=f"torch {kind} {op}")
                    if op == "sum":  # exact for small integers in every type
                        np.testing.assert_array_equal(got, want.astype(np.float64))
            # in place, and a view that is contiguous (a row of a matrix)
            mats = [torch.full((4, 100), float(r + 1)) for r in range(3)]
            run(comms, lambda c: c.allreduce(mats[c.rank][2]))
            self.assertTrue(torch.equal(mats[0][2], torch.full((100,), 6.0)))
            self.assertTrue(torch.equal(mats[0][1], torch.full((100,), 1.0)))
        finally:
            for c in comms:
                c.destroy()


if __name__ == "__main__":
    unittest.main(verbosity=2)

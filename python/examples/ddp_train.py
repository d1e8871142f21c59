#!/usr/bin/python3
"""ddp_train.py -- data-parallel training of a small MLP, gradients all-reduced by Chorus or by
torch.distributed's Gloo, the way DistributedDataParallel does it: after backward, the gradients
are packed into 25 MiB buckets (parameters in reverse order, as DDP fills them), each bucket is
all-reduced (sum) and divided by the number of ranks, and every rank takes the same optimizer step.
The allreduce time reported is the buckets' alone: the ranks are lined up by a one-element
reduction before each bucket, so a rank whose backward (or unpacking of the bucket before) ran
late does not count against the library.

The data is synthetic and the same on every run (a fixed random teacher labels Gaussian inputs),
so two runs with the same seed must print the same losses whatever the backend, up to the order
in which the ranks' gradients were summed.

Run it as a launcher (it starts --nprocs local worker processes):
    /usr/bin/python3 python/examples/ddp_train.py --nprocs 2 --backend chorus
or under torchrun / mpirun / srun, which set the rank variables themselves.

Rank 0 prints one line per step (loss, step time, allreduce time) and, with --json FILE, the
launcher writes them all: {"backend", "nprocs", "steps": [{"step", "loss", "step_ms",
"allreduce_ms"}], "bucket_bytes", "params"}.
"""

import argparse
import json
import os
import secrets
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", choices=("chorus", "gloo"), default="chorus")
    p.add_argument("--nprocs", type=int, default=2, help="worker processes to start (launcher mode)")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--batch", type=int, default=32, help="samples per rank per step")
    p.add_argument("--inputs", type=int, default=64)
    p.add_argument("--hidden", type=int, default=2048)
    p.add_argument("--layers", type=int, default=3, help="hidden layers")
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--bucket-mb", type=float, default=25.0, help="bucket size in MiB (DDP's default: 25)")
    p.add_argument("--lr", type=float, default=0.001, help="Adam's learning rate")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=0, help="torch threads per rank (0: cores / ranks)")
    p.add_argument("--json", help="write every step's loss and times here (launcher mode)")
    a = p.parse_args(argv)
    if not 1 <= a.nprocs <= 64:
        p.error(f"--nprocs {a.nprocs}: between 1 and 64")
    if a.steps < 1 or a.batch < 1 or a.bucket_mb <= 0:
        p.error("--steps, --batch and --bucket-mb must be positive")
    return a


# --- launcher ------------------------------------------------------------

def launch(a):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    secret = secrets.token_hex(16)  # shared with the workers only, through their environment
    argv = [sys.executable, os.path.abspath(__file__)] + sys.argv[1:]
    procs = []
    for r in range(a.nprocs):
        env = dict(os.environ, RANK=str(r), WORLD_SIZE=str(a.nprocs), LOCAL_RANK=str(r),
                   LOCAL_WORLD_SIZE=str(a.nprocs), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                   CHORUS_SECRET=secret)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.join(HERE, ".."), env.get("PYTHONPATH")]))
        procs.append(subprocess.Popen(argv, env=env, stdout=subprocess.PIPE if r == 0 else None, text=True))
    out, _ = procs[0].communicate()
    rcs = [procs[0].returncode] + [p.wait() for p in procs[1:]]
    sys.stdout.write(out)
    bad = [r for r, rc in enumerate(rcs) if rc != 0]
    if bad:
        sys.exit(f"ddp_train: rank(s) {bad} failed (exit {[rcs[r] for r in bad]})")
    if a.json:
        result = json.loads(out.strip().splitlines()[-1].split(" ", 1)[1])
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)


# --- worker --------------------------------------------------------------

class ChorusReducer:
    def __init__(self):
        import chorus
        self.comm = chorus.Comm.from_env()
        self.rank, self.size = self.comm.rank, self.comm.size

    def allreduce(self, flat):
        self.comm.allreduce(flat)

    def close(self):
        self.comm.destroy()


class GlooReducer:
    def __init__(self):
        import torch.distributed as dist
        self.dist = dist
        dist.init_process_group("gloo", init_method="env://", rank=int(os.environ["RANK"]),
                                world_size=int(os.environ["WORLD_SIZE"]))
        self.rank, self.size = dist.get_rank(), dist.get_world_size()

    def allreduce(self, flat):
        self.dist.all_reduce(flat)

    def close(self):
        self.dist.destroy_process_group()


def buckets_of(params, cap_bytes):
    """DDP's bucketing: parameters in reverse order, a new bucket when the next would pass the cap."""
    out, cur, size = [], [], 0
    for p in reversed(params):
        nbytes = p.numel() * p.element_size()
        if cur and size + nbytes > cap_bytes:
            out.append(cur)
            cur, size = [], 0
        cur.append(p)
        size += nbytes
    if cur:
        out.append(cur)
    return out


def worker(a):
    import torch
    nprocs = int(os.environ["WORLD_SIZE"])
    torch.set_num_threads(a.threads or max(1, (os.cpu_count() or 1) // nprocs))
    reducer = ChorusReducer() if a.backend == "chorus" else GlooReducer()
    rank, size = reducer.rank, reducer.size

    torch.manual_seed(a.seed)  # the same model on every rank
    dims = [a.inputs] + [a.hidden] * a.layers
    layers = []
    for i in range(a.layers):
        layers += [torch.nn.Linear(dims[i], dims[i + 1]), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers, torch.nn.Linear(dims[-1], a.classes))
    params = [p for p in model.parameters()]
    teacher = torch.randn(a.inputs, a.classes, generator=torch.Generator().manual_seed(a.seed + 1))
    opt = torch.optim.Adam(params, lr=a.lr)
    buckets = buckets_of(params, int(a.bucket_mb * 1024 * 1024))
    flats = [torch.zeros(sum(p.numel() for p in b)) for b in buckets]
    sync = torch.zeros(1, dtype=torch.float64)

    steps = []
    for step in range(a.steps):
        # The global batch of this step; this rank trains on its slice.
        g = torch.Generator().manual_seed(a.seed * 100003 + step)
        x_all = torch.randn(a.batch * size, a.inputs, generator=g)
        y_all = (x_all @ teacher).argmax(1)
        x, y = x_all[rank * a.batch:(rank + 1) * a.batch], y_all[rank * a.batch:(rank + 1) * a.batch]
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        ar = 0.0
        for b, flat in zip(buckets, flats):
            torch.cat([p.grad.reshape(-1) for p in b], out=flat)
            # Line the ranks up first (one 8-byte reduction, not timed), so that a bucket's time is
            # its own allreduce and not the wait for a rank whose backward, or whose unpacking of
            # the bucket before, ran late (with more ranks than cores they drift apart by ms).
            reducer.allreduce(sync)
            t = time.perf_counter()
            reducer.allreduce(flat)
            ar += time.perf_counter() - t
            flat /= size
            off = 0
            for p in b:
                p.grad.copy_(flat[off:off + p.numel()].view_as(p.grad))
                off += p.numel()
        opt.step()
        # The loss over the whole global batch (every rank's shard), for the log: one more reduction.
        lsum = torch.tensor([loss.item()], dtype=torch.float64)
        reducer.allreduce(lsum)
        step_s = time.perf_counter() - t0
        rec = {"step": step, "loss": lsum.item() / size, "step_ms": step_s * 1e3, "allreduce_ms": ar * 1e3}
        steps.append(rec)
        if rank == 0:
            print(f"step {step:3d}  loss {rec['loss']:.7f}  step {rec['step_ms']:8.2f} ms  "
                  f"allreduce {rec['allreduce_ms']:8.2f} ms", flush=True)
    reducer.close()
    if rank == 0:
        result = {"backend": a.backend, "nprocs": size, "params": sum(p.numel() for p in params),
                  "bucket_bytes": [f.numel() * 4 for f in flats], "steps": steps}
        print("RESULT " + json.dumps(result), flush=True)


def main():
    a = parse_args()
    if "RANK" in os.environ or "OMPI_COMM_WORLD_RANK" in os.environ or "SLURM_PROCID" in os.environ:
        if "RANK" not in os.environ:  # mpirun / srun: tell Gloo too
            os.environ["RANK"] = os.environ.get("OMPI_COMM_WORLD_RANK") or os.environ["SLURM_PROCID"]
            os.environ["WORLD_SIZE"] = os.environ.get("OMPI_COMM_WORLD_SIZE") or os.environ["SLURM_NTASKS"]
        worker(a)
    else:
        launch(a)


if __name__ == "__main__":
    main()

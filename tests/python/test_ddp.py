"""A real client: python/examples/ddp_train.py, 20 steps on 2 processes, once with Chorus and once
with torch.distributed's Gloo, from the same seed. The losses must agree at every step (float32
gradients summed over 2 ranks: within 1e-5 relative), and both runs must learn (the loss falls).
Run by ctest (label python) with /usr/bin/python3; CHORUS_LIBRARY names the build under test."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "python", "examples", "ddp_train.py")
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
# A model small enough for 20 steps in seconds, big enough for four buckets of 0.5 MiB.
MODEL = ["--steps", "20", "--inputs", "32", "--hidden", "512", "--layers", "3", "--batch", "64", "--bucket-mb", "0.5",
         "--lr", "0.003"]


def train(backend, tmp):
    out = os.path.join(tmp, backend + ".json")
    p = subprocess.run([PY, SCRIPT, "--nprocs", "2", "--backend", backend, "--json", out] + MODEL,
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise AssertionError(f"ddp_train.py --backend {backend} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    with open(out) as f:
        return json.load(f)


class DdpAgainstGloo(unittest.TestCase):
    def test_losses_agree_every_step(self):
        with tempfile.TemporaryDirectory() as tmp:
            c, g = train("chorus", tmp), train("gloo", tmp)
        self.assertEqual(len(c["steps"]), 20)
        self.assertEqual(len(g["steps"]), 20)
        self.assertEqual(c["bucket_bytes"], g["bucket_bytes"])
        self.assertGreaterEqual(len(c["bucket_bytes"]), 3, c["bucket_bytes"])
        for a, b in zip(c["steps"], g["steps"]):
            self.assertLessEqual(abs(a["loss"] - b["loss"]), 1e-5 * abs(b["loss"]),
                                 f"step {a['step']}: chorus loss {a['loss']!r}, gloo {b['loss']!r}")
        first, last = c["steps"][0]["loss"], c["steps"][-1]["loss"]
        self.assertLess(last, 0.9 * first, f"the loss did not fall: {first} -> {last}")
        print(f"20 steps, 2 ranks: loss {first:.5f} -> {last:.5f}, chorus and gloo agree at every step")


if __name__ == "__main__":
    unittest.main(verbosity=2)

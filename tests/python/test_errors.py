"""What the Python package refuses, and how: inputs Chorus cannot use in place, calls the library
fails (with its own message), a dead peer (within CHORUS_TIMEOUT), a library that is missing or
of another version; and ranks in separate processes joined from torchrun-style variables.
Run by ctest (label python) with /usr/bin/python3; CHORUS_LIBRARY names the build under test."""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

PYDIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python"))
sys.path.insert(0, PYDIR)
import numpy as np  # noqa: E402
import torch  # noqa: E402

import chorus  # noqa: E402

PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(code, nranks, extra_env=None, timeout=120):
    """Run code in nranks processes with torchrun's variables; returns [(rc, output)] by rank."""
    port = free_port()
    procs = []
    for r in range(nranks):
        env = dict(os.environ, PYTHONPATH=PYDIR, RANK=str(r), WORLD_SIZE=str(nranks), LOCAL_WORLD_SIZE=str(nranks),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), CHORUS_SECRET="0123456789abcdef0123456789abcdef")
        env.update(extra_env or {})
        procs.append(subprocess.Popen([PY, "-c", textwrap.dedent(code)], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    out = []
    for p in procs:
        try:
            text, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            text, _ = p.communicate()
            text += "\n(killed: timed out)"
        out.append((p.returncode, text))
    return out


class BadInputs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.comms = chorus.Comm.all(2)

    @classmethod
    def tearDownClass(cls):
        for c in cls.comms:
            c.destroy()

    def test_non_contiguous_numpy_says_so(self):
        x = np.zeros((8, 8), np.float32)[:, 1]
        with self.assertRaisesRegex(ValueError, r"allreduce sendbuf: the array is not C-contiguous"):
            self.comms[0].allreduce(x)

    def test_non_contiguous_tensor_says_so(self):
        x = torch.zeros(8, 8).t()
        with self.assertRaisesRegex(ValueError, r"the tensor is not contiguous.*contiguous\(\)"):
            self.comms[0].allreduce(x)

    def test_unsupported_types(self):
        with self.assertRaisesRegex(TypeError, r"numpy dtype complex64 is not one Chorus reduces"):
            self.comms[0].allreduce(np.zeros(4, np.complex64))
        with self.assertRaisesRegex(TypeError, r"torch dtype torch.bool is not one Chorus reduces"):
            self.comms[0].allreduce(torch.zeros(4, dtype=torch.bool))
        with self.assertRaisesRegex(TypeError, r"builtins.list is neither a numpy array nor a torch tensor"):
            self.comms[0].allreduce([1.0, 2.0])
        with self.assertRaisesRegex(TypeError, r"numpy dtype >f4 is not one"):
            self.comms[0].allreduce(np.zeros(4, ">f4"))

    def test_read_only_and_mismatched_buffers(self):
        x = np.zeros(4, np.float32)
        x.flags.writeable = False
        with self.assertRaisesRegex(ValueError, r"the array is read-only"):
            self.comms[0].allreduce(x)
        with self.assertRaisesRegex(TypeError, r"sendbuf is float32 but recvbuf is float64"):
            self.comms[0].allreduce(np.zeros(4, np.float32), np.zeros(4, np.float64))
        with self.assertRaisesRegex(ValueError, r"recvbuf has 5 elements, sendbuf 4"):
            self.comms[0].allreduce(np.zeros(4, np.float32), np.zeros(5, np.float32))
        with self.assertRaisesRegex(ValueError, r"allgather: recvbuf has 4 elements; 2 ranks x 4 = 8 needed"):
            self.comms[0].allgather(np.zeros(4, np.float32), np.zeros(4, np.float32))
        with self.assertRaisesRegex(ValueError, r"alltoall: 5 elements do not split into 2 equal blocks"):
            self.comms[0].alltoall(np.zeros(5, np.float32))

    def test_bad_op_root_and_peer(self):
        with self.assertRaisesRegex(ValueError, r"op 'mean' is not a reduction \(one of sum, prod, min, max, avg\)"):
            self.comms[0].allreduce(np.zeros(4, np.float32), op="mean")
        with self.assertRaisesRegex(ValueError, r"root 2 is not a rank of this communicator \(0..1\)"):
            self.comms[0].broadcast(np.zeros(4, np.float32), root=2)
        with self.assertRaisesRegex(ValueError, r"send: peer 5 is not a rank"):
            self.comms[0].send(np.zeros(4, np.float32), 5)

    def test_library_refusal_carries_its_message(self):
        """Ranks that disagree on the count: every rank's call fails with the library's mismatch
        message, which names both calls."""
        a, b = np.ones(100, np.float32), np.ones(200, np.float32)
        with self.assertRaises(chorus.ChorusError) as ctx:
            with chorus.group():
                self.comms[0].allreduce(a)
                self.comms[1].allreduce(b)
        self.assertIn("count", str(ctx.exception))
        self.assertIn("chorus_group_end", str(ctx.exception))
        with self.assertRaisesRegex(chorus.ChorusError, r"chorus_comm_init_all: .*"):
            chorus.Comm.all(0)

    def test_destroyed_communicator(self):
        c = chorus.Comm.all(1)[0]
        c.destroy()
        with self.assertRaisesRegex(chorus.ChorusError, r"rank 0's communicator was destroyed"):
            c.allreduce(np.zeros(4, np.float32))

    def test_unique_id_must_be_the_right_bytes(self):
        with self.assertRaisesRegex(TypeError, r"unique_id: 128 bytes"):
            chorus.Comm(0, 1, b"short")


class Processes(unittest.TestCase):
    def test_from_env_two_processes_torch(self):
        code = """
            import torch, chorus
            comm = chorus.Comm.from_env()
            x = torch.full((1 << 18,), float(comm.rank + 1))
            comm.allreduce(x)
            g = torch.zeros(2 * 1000, dtype=torch.int64)
            comm.allgather(torch.full((1000,), comm.rank, dtype=torch.int64), g)
            assert torch.equal(x, torch.full((1 << 18,), 3.0)), x[:4]
            assert g[0] == 0 and g[-1] == 1, g
            print("rank", comm.rank, "of", comm.size, "ok")
            comm.destroy()
        """
        res = launch(code, 2)
        for r, (rc, out) in enumerate(res):
            self.assertEqual(rc, 0, f"rank {r}:\n{out}")
            self.assertIn(f"rank {r} of 2 ok", out)
        self.assertRegex(res[0][1], r"chorus INFO chorus 0\.1\.\d+ from \S*libchorus\.so\S* \(isa \w+, cuda \w+\)")

    def test_dead_peer_raises_within_the_timeout(self):
        code = """
            import os, sys, time, numpy as np, chorus
            comm = chorus.Comm.from_env()
            x = np.ones(1 << 16, np.float32)
            comm.allreduce(x)  # both ranks connected
            if comm.rank == 1:
                os._exit(0)    # dies without a word
            t = time.time()
            try:
                comm.allreduce(x)
            except chorus.ChorusError as e:
                print(f"raised after {time.time() - t:.1f} s: {e.result}: {e}")
                sys.exit(0)
            print("no error")
            sys.exit(1)
        """
        start = time.time()
        res = launch(code, 2, {"CHORUS_TIMEOUT": "6"}, timeout=60)
        self.assertEqual(res[0][0], 0, res[0][1])
        self.assertIn("raised after", res[0][1])
        self.assertLess(time.time() - start, 40, res[0][1])


class Loading(unittest.TestCase):
    def run_import(self, env, pkgdir=PYDIR):
        return subprocess.run([PY, "-c", "import chorus; print(chorus.library_path())"], capture_output=True,
                              text=True, env=dict(os.environ, PYTHONPATH=pkgdir, **env), timeout=60)

    def test_missing_library_named(self):
        p = self.run_import({"CHORUS_LIBRARY": "/nonexistent/libchorus.so"})
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("/nonexistent/libchorus.so (from CHORUS_LIBRARY) does not exist", p.stderr)

    def test_version_mismatch_names_both(self):
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(os.path.join(PYDIR, "chorus"), os.path.join(tmp, "chorus"))
            init = os.path.join(tmp, "chorus", "__init__.py")
            with open(init) as f:
                text = f.read()
            with open(init, "w") as f:
                f.write(text.replace('__version__ = "0.1.0"', '__version__ = "9.4.0"'))
            p = self.run_import({}, tmp)
        self.assertNotEqual(p.returncode, 0)
        self.assertRegex(p.stderr, r"the Python package is 9\.4\.0 but \S+libchorus\S* \(from CHORUS_LIBRARY\) "
                                   r"is libchorus 0\.1\.\d+")

    def test_import_logs_the_library_and_quiet_on_request(self):
        p = self.run_import({})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"from {p.stdout.strip()} (isa ", p.stderr)
        q = self.run_import({"CHORUS_DEBUG": "WARN"})
        self.assertEqual(q.stderr, "")


if __name__ == "__main__":
    unittest.main(verbosity=2)

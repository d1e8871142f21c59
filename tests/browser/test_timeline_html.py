"""chorus perf --trace, chorus sim --trace and chorus timeline, as a user runs them: a 2-rank ring
allreduce of 1 MiB measured (every rank's ops recorded) and predicted on the same plan, drawn in one
page that headless Chromium opens from disk. Checked: the traces hold the plan's ops (3 per rank:
send, recv_reduce_copy_send, recv), the page draws every op of both without a script error, one row
per rank and channel, and its summary spans are the traces' own. Bad inputs are named.
Usage: test_timeline_html.py CHORUS   (run by ctest, label browser, with /usr/bin/python3)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

CHORUS = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else None
sys.path.insert(0, os.path.dirname(__file__))
from test_explain_html import BROWSER, open_page  # noqa: E402


def run(*args):
    p = subprocess.run([CHORUS, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def ops(path):
    with open(path) as f:
        return [e for e in json.load(f)["traceEvents"] if e["ph"] == "X"]


def span(events, ranks):
    ev = [e for e in events if e["pid"] < ranks]
    t0 = min(e["ts"] for e in ev)
    return max(e["ts"] - t0 + e["dur"] for e in ev)


@unittest.skipUnless(CHORUS, "give the chorus command as the first argument")
class Timeline(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not BROWSER:
            raise unittest.SkipTest("no chromium: install the browser group (scripts/setup-deps browser)")

    def test_measured_beside_predicted(self):
        with tempfile.TemporaryDirectory() as tmp:
            m, p, page = (os.path.join(tmp, n) for n in ("m.json", "p.json", "t.html"))
            rc, out = run("perf", "allreduce", "-n", "2", "-a", "ring", "-c", "1", "-b", "1M", "-e", "1M", "-w", "1",
                          "-i", "2", "--trace", m)
            self.assertEqual(rc, 0, out)
            self.assertFalse([f for f in os.listdir(tmp) if ".rank" in f], "the per-rank parts were left")
            rc, out = run("sim", "allreduce", "--topo", "local-cpu", "-n", "2", "-a", "ring", "-c", "1", "-b", "1M",
                          "-e", "1M", "--trace", p)
            self.assertEqual(rc, 0, out)
            mo, po = ops(m), ops(p)
            for r in (0, 1):
                names = [e["name"] for e in sorted((e for e in mo if e["pid"] == r), key=lambda e: e["ts"])]
                self.assertEqual(names, ["send", "recv_reduce_copy_send", "recv"], f"rank {r}'s measured ops")
            self.assertTrue(all(e["args"]["bytes"] == 512 * 1024 for e in mo), "each op moves half of 1 MiB")
            self.assertTrue(all(0 <= e["args"]["wait_us"] <= e["dur"] + 1e-3 for e in mo), "waits within ops")
            rc, out = run("timeline", m, p, "--html", page)
            self.assertEqual(rc, 0, out)
            dom, console = open_page(page, 0)
            self.assertEqual(console, [])
            self.assertEqual(dom.body.get("data-errors"), "")
            self.assertEqual(dom.body.get("data-rows"), "2")
            self.assertEqual(dom.body.get("data-measured-bars"), str(len(mo)))
            self.assertEqual(dom.body.get("data-predicted-bars"), str(len([e for e in po if e["pid"] < 2])))
            self.assertAlmostEqual(float(dom.body["data-measured-span"]), span(mo, 2), places=2)
            self.assertAlmostEqual(float(dom.body["data-predicted-span"]), span(po, 2), places=2)

    def test_bad_inputs_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            junk = os.path.join(tmp, "junk.json")
            with open(junk, "w") as f:
                f.write('{"not": "a trace"}')
            rc, out = run("timeline", junk, junk, "--html", os.path.join(tmp, "x.html"))
            self.assertEqual(rc, 1)
            self.assertIn(f"measured {junk}: not a trace with op events", out)
            rc, out = run("timeline", "/nonexistent.json", junk, "--html", os.path.join(tmp, "x.html"))
            self.assertEqual(rc, 1)
            self.assertIn("measured /nonexistent.json: No such file or directory", out)
            rc, out = run("timeline", junk)
            self.assertEqual(rc, 2)
            rc, out = run("perf", "allreduce", "-g", "0", "--trace", os.path.join(tmp, "t.json"))
            self.assertEqual(rc, 2)
            self.assertIn("CUDA ranks (-g) are not traced", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)

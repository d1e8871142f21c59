"""chorus explain --html, opened as a user opens it: headless Chromium loads the page from disk at
round k (#round=k), and the test reads the page's DOM (--dump-dom): no script errors, the round
shown is k, and every rank's chunk cells hold exactly what `chorus explain` prints in its table
after round k, each value always in the same colour; arrows are the round's sends. For ring,
tree and hybrid allreduce, allgather, two channels, and ranks on two nodes. Then driven through
WebDriver (chromium-driver, tests/browser/webdriver.py): arrow keys, Home/End, the buttons and
play step it, and after each the cells are the text's again.
Usage: test_explain_html.py CHORUS   (run by ctest, label browser, with /usr/bin/python3)."""

import html.parser
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

CHORUS = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else None
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webdriver import BROWSER  # noqa: E402  (one place finds the browser)

CASES = [
    ("ring", ["-n", "4"]),
    ("ring", ["-n", "8"]),
    ("tree", ["-n", "4"]),
    ("tree", ["-n", "8"]),
    ("hybrid", ["-n", "8", "--nodes", "2"]),
    ("rd", ["-n", "4"]),
    ("rd", ["-n", "8"]),
    ("ring", ["-n", "3"]),
    ("ring", ["-n", "4", "--channels", "2"]),
    ("tree", ["-n", "7"]),
    ("hybrid", ["-n", "6", "--nodes", "2"]),
    ("ring", ["-n", "4", "--collective", "allgather"]),
    ("ring", ["-n", "5", "--collective", "broadcast", "--root", "2"]),
]


def explain(tmp, algo, args):
    """The text explainer's output and the page, from one run."""
    page = os.path.join(tmp, f"{algo}{'_'.join(args)}.html".replace("-", ""))
    p = subprocess.run([CHORUS, "explain", algo, *args, "--html", page], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise AssertionError(f"chorus explain {algo} {' '.join(args)} --html: exit {p.returncode}: {p.stderr}")
    return p.stdout, page


def text_table(text, k):
    """{(rank, ch): [values]} of the table printed after round k."""
    lines = text.splitlines()
    start = lines.index(f"  after round {k}:")
    rows = {}
    for line in lines[start + 2:]:
        m = re.match(r"^    r(\d+)(?: ch(\d+))?  +(.*)$", line)
        if not m:
            break
        rows[(int(m.group(1)), int(m.group(2) or 0))] = m.group(3).split()
    return rows


def lower_bound(text):
    """The least chunks any algorithm must send, all ranks together (per channel), from the text's
    header: allreduce 2(n-1) x in chunks, allgather (n-1) x out chunks, the others (n-1) x in."""
    m = re.match(r"\S+ (\w+)(?: \([^)]*\))?: (\d+) ranks?", text)
    coll, n = m.group(1), int(m.group(2))
    inn = int(re.search(r"has in\[0\.\.(\d+)\]", text).group(1)) + 1
    out = int(re.search(r"and out\[0\.\.(\d+)\]", text).group(1)) + 1
    if n == 1:
        return ""
    return 2 * (n - 1) * inn if coll == "allreduce" else (n - 1) * out if coll == "allgather" else (n - 1) * inn


def rounds_of(text):
    return int(re.search(r"^done in (\d+) rounds?:", text, re.M).group(1))


class Dom(html.parser.HTMLParser):
    """What the test reads from the dumped DOM: body's data, chunk cells, message arrows."""

    def __init__(self):
        super().__init__()
        self.body, self.cells, self.msgs, self.bytes = {}, [], [], {}
        self.panel, self.in_panel = "", False

    def handle_data(self, data):
        if self.in_panel:
            self.panel += data

    def handle_endtag(self, tag):
        if tag == "pre":
            self.in_panel = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "pre" and a.get("id") == "text":
            self.in_panel = True
        elif tag == "body":
            self.body = a
        elif tag == "td" and "cell" in (a.get("class") or "").split():
            style = re.search(r"background:\s*([^;]+)", a.get("style", ""))
            self.cells.append((int(a["data-rank"]), int(a["data-ch"]), int(a["data-col"]), a["data-value"],
                               style.group(1).strip() if style else None))
        elif tag == "div" and a.get("id") == "bytes":
            self.bytes = a
        elif tag == "g" and a.get("class") == "msg":
            self.msgs.append((int(a["data-from"]), int(a["data-to"]), int(a["data-ch"])))


def open_page(page, k):
    """Chromium's DOM of page at round k, and its console output."""
    with tempfile.TemporaryDirectory() as profile:
        p = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                            f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                            "--virtual-time-budget=2000", "--dump-dom", f"file://{page}#round={k}"],
                           capture_output=True, text=True, timeout=120)
    if p.returncode != 0 or "<body" not in p.stdout:
        raise AssertionError(f"chromium failed on {page}: exit {p.returncode}\n{p.stderr[-2000:]}")
    dom = Dom()
    dom.feed(p.stdout)
    console = [line for line in p.stderr.splitlines() if "CONSOLE" in line]
    return dom, console


@unittest.skipUnless(CHORUS, "give the chorus command as the first argument")
class ExplainPage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not BROWSER:
            raise unittest.SkipTest("no chromium: install the browser group (scripts/setup-deps browser)")

    def test_rounds_match_the_text_explainer(self):
        with tempfile.TemporaryDirectory() as tmp:
            for algo, args in CASES:
                text, page = explain(tmp, algo, args)
                total = rounds_of(text)
                for k in sorted({1, (total + 1) // 2, total}):
                    what = f"{algo} {' '.join(args)} round {k}"
                    dom, console = open_page(page, k)
                    self.assertEqual(console, [], f"{what}: console messages")
                    self.assertEqual(dom.body.get("data-errors"), "", f"{what}: script errors")
                    self.assertEqual(dom.body.get("data-round"), str(k), f"{what}: the round shown")
                    # The side panel holds the round exactly as the text explainer prints it.
                    block = text.split(f"\nround {k}:\n", 1)[1]
                    block = re.split(r"^(?:round \d+:|done in \d+ rounds?:)", block, flags=re.M)[0]
                    self.assertEqual(dom.panel, f"round {k}:\n" + block, f"{what}: the side panel's text")
                    want = text_table(text, k)
                    got = {}
                    for rank, ch, col, value, _ in dom.cells:
                        got.setdefault((rank, ch), {})[col] = value
                    for key, values in want.items():
                        row = [got.get(key, {}).get(i) for i in range(len(values))]
                        self.assertEqual(row, values, f"{what}: rank {key[0]} channel {key[1]}")
                    colour_of = {}
                    for rank, ch, col, value, colour in dom.cells:
                        self.assertIsNotNone(colour, f"{what}: cell without a colour")
                        self.assertEqual(colour_of.setdefault(value, colour), colour,
                                         f"{what}: value {value} in two colours")
                    full = "{0-%d}" % (int(args[1]) - 1)
                    if "." in colour_of and full in colour_of:
                        self.assertNotEqual(colour_of["."], colour_of[full], f"{what}: unwritten and reduced alike")
                    # The arrows are this round's sends, as the text lists them ("rA -> rB" or ", sent to rB").
                    block = text.split(f"round {k}:\n", 1)[1].split("  after round", 1)[0]
                    sends = len(re.findall(r"^  r\d+(?: ch\d+)? -> r\d+|, sent to r\d+", block, re.M))
                    self.assertEqual(len(dom.msgs), sends, f"{what}: arrows")
                    # The counter: every send of rounds 1..k (per channel), against the collective's bound.
                    upto = text.split(f"  after round {k}:", 1)[0]
                    sent = len(re.findall(r"^  r\d+(?: ch\d+)? -> r\d+|, sent to r\d+", upto, re.M))
                    nch = int(re.search(r"(\d+) channels?,", text).group(1))
                    self.assertAlmostEqual(float(dom.bytes.get("data-sent")), sent / nch, places=2,
                                           msg=f"{what}: chunks sent")
                    self.assertEqual(dom.bytes.get("data-bound"), str(lower_bound(text)), f"{what}: the bound")

    def test_stepping_with_keys_and_buttons(self):
        """Driven as a user drives it (WebDriver through chromium-driver): arrow keys, Home/End, the
        buttons and play; after each, the round shown and every rank's cells are the text's."""
        from webdriver import Browser, WebDriverError
        read = ("return [document.body.dataset.round, document.body.dataset.errors, "
                "Array.from(document.querySelectorAll('td.cell')).map(function (c) {"
                " return [+c.dataset.rank, +c.dataset.ch, +c.dataset.col, c.dataset.value]; })];")

        def check(b, text, k, what):
            rnd, errors, cells = b.script(read)
            self.assertEqual((rnd, errors), (str(k), ""), what)
            if k == 0:
                self.assertTrue(all(v == "." for _, _, _, v in cells), f"{what}: round 0 is not empty")
                return
            got = {}
            for rank, ch, col, v in cells:
                got.setdefault((rank, ch), {})[col] = v
            for key, values in text_table(text, k).items():
                self.assertEqual([got[key].get(i) for i in range(len(values))], values, f"{what}: rank {key}")

        with tempfile.TemporaryDirectory() as tmp:
            text, page = explain(tmp, "ring", ["-n", "4"])
            total = rounds_of(text)
            try:
                b = Browser()
            except WebDriverError as e:
                self.skipTest(str(e))
            with b:
                b.open(page)
                check(b, text, 0, "opened")
                b.press("ArrowRight", 3)
                check(b, text, 3, "3 x ArrowRight")
                b.press("ArrowLeft")
                check(b, text, 2, "ArrowLeft")
                b.press("End")
                check(b, text, total, "End")
                b.press("Home")
                check(b, text, 0, "Home")
                b.click("#fwd")
                b.click("#fwd")
                check(b, text, 2, "the forward button twice")
                b.click("#back")
                check(b, text, 1, "the back button")
                b.script("document.getElementById('speed').value = '350';")
                b.click("#play")
                deadline = time.time() + 0.35 * total + 10
                while b.script("return document.body.dataset.round;") != str(total) and time.time() < deadline:
                    time.sleep(0.2)
                check(b, text, total, "play to the end")
                values = b.script("return Array.from(document.querySelectorAll('td.cell'))"
                                  ".map(function (c) { return c.dataset.value; });")
                self.assertTrue(values and all(v == "{0-3}" for v in values), f"play's end: {values}")
                self.assertIn("This one sends 1.00x that", b.script(
                    "return document.getElementById('bytes').textContent;"))
                shot = os.path.join(tmp, "explain-ring.png")
                b.screenshot(shot)
                with open(shot, "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", "the screenshot is a PNG")
                self.assertEqual([m for m in b.console() if m[0] in ("SEVERE", "WARNING")], [], "console")

    def test_bad_output_path_is_named(self):
        p = subprocess.run([CHORUS, "explain", "ring", "-n", "3", "--html", "/nonexistent-dir/x.html"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 1)
        self.assertIn("--html /nonexistent-dir/x.html: No such file or directory", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)

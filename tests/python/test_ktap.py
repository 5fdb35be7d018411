# SPDX-License-Identifier: GPL-2.0-only
"""`make check` prints one KTAP document the kernel's own kunit_parser.py reads
whole; C test cases run isolated and can be picked one by one."""
import inspect
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KUNIT = ROOT / "build" / "kernels" / "linux-7.3" / "tools" / "testing" / "kunit"
C_TESTS = sorted(str(p) for p in (ROOT / "build" / "san" / "tests").glob("test_*")
                 if os.access(p, os.X_OK))


def run_all(*args):
    return subprocess.run([str(ROOT / "tests" / "run_all.sh"), *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=1200)


@pytest.fixture(scope="module")
def document():
    """The C suites through run_all.sh (the Python suite is this very run)."""
    if not C_TESTS:
        pytest.skip("the C tests are not built (make check builds them)")
    p = run_all("--no-python", *C_TESTS)
    assert p.returncode == 0, p.stdout[-3000:]
    return p.stdout


def test_one_document_numbered_with_kunit_totals(document):
    lines = document.splitlines()
    assert lines[:2] == ["KTAP version 1", f"1..{len(C_TESTS)}"]
    assert lines.count("KTAP version 1") == 1          # one header at the top level
    top = [l for l in lines if re.match(r"(not )?ok \d+ ", l)]
    assert [int(re.match(r"(?:not )?ok (\d+)", l).group(1)) for l in top] == \
        list(range(1, len(C_TESTS) + 1))
    counts = re.findall(r"^# (?!Totals)(\w+): pass:(\d+) fail:(\d+) skip:(\d+) total:(\d+)$", document, re.M)
    assert len(counts) == len(C_TESTS)
    total = sum(int(c[4]) for c in counts)
    assert f"# Totals: pass:{sum(int(c[1]) for c in counts)} fail:0 " in document
    assert lines[-1] == f"{total} passed, 0 failed, 0 skipped"


def test_kunit_parser_sees_every_test(document):
    if not (KUNIT / "kunit_parser.py").exists():
        pytest.skip("no kernel tree with tools/testing/kunit (ptelab kernels fetch 7.3)")
    sys.path.insert(0, str(KUNIT))
    try:
        import kunit_parser
        import kunit_printer
    finally:
        sys.path.pop(0)
    cases = len(re.findall(r"^    (?:not )?ok \d+ ", document, re.M))
    args = [document.splitlines(keepends=True)]
    if len(inspect.signature(kunit_parser.parse_run_tests).parameters) > 1:
        args.append(kunit_printer.null_printer)
    test = kunit_parser.parse_run_tests(*args)
    assert test.counts.errors == 0, test.counts
    assert test.counts.total() == cases and test.counts.passed == cases
    assert len(test.subtests) == len(C_TESTS)
    assert test.status == kunit_parser.TestStatus.SUCCESS
    # run_all.sh's own last check, on this document and on a broken one
    doc = Path(os.environ.get("TMPDIR", "/tmp")) / f"ptelab-ktap-{os.getpid()}.txt"
    try:
        doc.write_text(document)
        p = subprocess.run([sys.executable, str(ROOT / "tests" / "kunit_check.py"), str(doc),
                            str(KUNIT.parents[2])], capture_output=True, text=True)
        assert p.returncode == 0 and f"{cases} tests" in p.stdout, p.stdout
        doc.write_text(re.sub(r"^    ok 2 .*\n", "", document, count=1, flags=re.M))
        p = subprocess.run([sys.executable, str(ROOT / "tests" / "kunit_check.py"), str(doc),
                            str(KUNIT.parents[2])], capture_output=True, text=True)
        assert p.returncode == 1 and "MISMATCH" in p.stdout, p.stdout
    finally:
        doc.unlink(missing_ok=True)


CRASHER = textwrap.dedent("""
    #include "tests/ktap.h"
    static void fine(void) { EXPECT(1); }
    static void crash(void) { *(volatile int *)0 = 1; }
    static void wrong(void) { EXPECT_EQ(1, 2); }
    static void skipped(void) { ktap_skip_now = "nothing to do here"; }
    static const struct ktap_case cases[] = {
        { "fine", fine }, { "crash", crash }, { "wrong", wrong },
        { "skipped", skipped }, { "fine_again", fine },
    };
    int main(int argc, char **argv) { return ktap_main(argc, argv, "demo", cases, 5); }
""")


@pytest.fixture(scope="module")
def crasher(tmp_path_factory):
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp("ktap")
    (d / "demo.c").write_text(CRASHER)
    subprocess.run([cc, "-std=c11", "-D_GNU_SOURCE", "-I", str(ROOT), "-o", str(d / "test_demo"),
                    str(d / "demo.c")], check=True)
    return d / "test_demo"


def test_a_crashing_case_fails_alone(crasher):
    p = subprocess.run([str(crasher)], capture_output=True, text=True)
    assert p.returncode == 1
    out = p.stdout
    assert "    ok 1 fine" in out and "    not ok 2 crash" in out
    assert re.search(r"# crash: crashed \(signal 11", out)
    assert "    not ok 3 wrong" in out and "expected 1 == 2" in out
    assert "    ok 4 skipped # SKIP nothing to do here" in out
    assert "    ok 5 fine_again" in out
    assert "# demo: pass:2 fail:2 skip:1 total:5" in out
    assert out.splitlines()[-1] == "2 passed, 2 failed, 1 skipped"
    # and in run_all's document it is a failing suite, the totals say so
    p = run_all("--no-python", str(crasher))
    assert p.returncode == 1
    assert "not ok 1 demo" in p.stdout and "# Totals: pass:2 fail:2 skip:1 total:5" in p.stdout


def test_one_case_can_be_picked(crasher):
    p = subprocess.run([str(crasher), "fine_again"], capture_output=True, text=True)
    assert p.returncode == 0
    assert "    ok 5 fine_again\n" in p.stdout
    assert "    ok 2 crash # SKIP not selected" in p.stdout
    p = subprocess.run([str(crasher), "nope"], capture_output=True, text=True)
    assert p.returncode == 2 and "no case 'nope'" in p.stderr


def test_python_suite_as_ktap(tmp_path):
    xml = tmp_path / "r.xml"
    xml.write_text("""<testsuites><testsuite name="pytest">
      <testcase classname="tests.python.test_a" name="test_ok[x y]"/>
      <testcase classname="tests.python.test_a" name="test_bad"><failure message="boom">trace
line 2</failure></testcase>
      <testcase classname="tests.python.test_b" name="test_skip"><skipped message="needs # a tree"/></testcase>
    </testsuite></testsuites>""")
    p = subprocess.run([sys.executable, str(ROOT / "tests" / "pytest_ktap.py"), str(xml), "7"],
                       capture_output=True, text=True)
    assert p.stdout.splitlines() == [
        "    KTAP version 1", "    # Subtest: python", "    1..3",
        "    ok 1 test_a.test_ok[x_y]",
        "    # boom", "    # trace", "    # line 2", "    not ok 2 test_a.test_bad",
        "    ok 3 test_b.test_skip # SKIP needs # a tree",
        "# python: pass:1 fail:1 skip:1 total:3", "not ok 7 python"]


def test_only_runs_the_suites_a_glob_names():
    """make check T=GLOB (run_all.sh --only): C suites and Python test files by
    name; a glob nothing matches is an error naming what there is."""
    if not C_TESTS:
        pytest.skip("the C tests are not built (make check builds them)")
    p = run_all("--no-python", "--only", "z*", *C_TESTS)
    assert p.returncode == 0, p.stdout[-3000:]
    lines = p.stdout.splitlines()
    assert lines[1] == "1..1" and "ok 1 zap" in lines
    q = run_all("--only", "nosuch", *C_TESTS)
    assert q.returncode == 2 and "no test suite matches 'nosuch'" in q.stderr
    assert " zap " in q.stderr and q.stdout == ""


def test_the_quick_tier_leaves_out_the_slow_tests():
    """make check-quick (run_all.sh --quick: pytest -m "not slow"): a test
    conftest.py names slow is deselected, its file's others still run."""
    assert "--quick) pymark=(-m \"not slow\")" in (ROOT / "tests" / "run_all.sh").read_text()
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--co",
                        "-m", "not slow", str(ROOT / "tests" / "python" / "test_fidelity.py")],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "test_no_fidelity_table_when_scaled" in p.stdout
    assert "test_fidelity_table_s1_s5" not in p.stdout
    assert "1 deselected" in p.stdout


def test_the_newest_fetched_trees_parser_reads_the_document(document):
    """kunit_check.py takes the newest tree that has tools/testing/kunit, whatever
    the order it is given them in (linux-6.12 sorts first by name)."""
    trees = sorted(str(p) for p in (ROOT / "build" / "kernels").glob("linux-*")
                   if (p / "tools" / "testing" / "kunit" / "kunit_parser.py").exists())
    if len(trees) < 2:
        pytest.skip("needs two fetched trees with tools/testing/kunit")
    newest = max(trees, key=lambda t: tuple(int(x) for x in re.findall(r"\d+", Path(t).name)))
    doc = Path(os.environ.get("TMPDIR", "/tmp")) / f"ptelab-ktap-new-{os.getpid()}.txt"
    try:
        doc.write_text(document)
        p = subprocess.run([sys.executable, str(ROOT / "tests" / "kunit_check.py"), str(doc),
                            *trees], capture_output=True, text=True)
        assert p.returncode == 0 and f"({Path(newest).name})" in p.stdout, p.stdout
    finally:
        doc.unlink(missing_ok=True)

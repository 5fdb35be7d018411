# SPDX-License-Identifier: GPL-2.0-only
"""Comparing kernel trees: git:PATH@REV backends, full names above the columns,
delta and ratio against the first backend, the kernel's compiler warnings shown
and the whole compiler log kept."""
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import _binary

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "build" / "kernels" / "linux-7.3"
needs_73 = pytest.mark.skipif(not KERNEL.is_dir() or not shutil.which("git"),
                              reason="needs the fetched 7.3 tree and git")


def ptelab(*args, timeout=600):
    return subprocess.run([_binary(), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """A git repository of the 7.3 tree: a base commit and a patch that reads every
    entry of a block in contpte_ptep_get twice (more loads, same answers)."""
    d = tmp_path_factory.mktemp("repo") / "linux"
    shutil.copytree(KERNEL, d)
    git = ["git", "-C", str(d), "-c", "user.email=lab@example.org", "-c", "user.name=lab"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "base"], check=True)
    src = d / "arch" / "arm64" / "mm" / "contpte.c"
    text = src.read_text()
    head = "pte_t contpte_ptep_get(pte_t *ptep, pte_t orig_pte)\n{\n"
    assert head in text
    src.write_text(text.replace(head, head + "\t(void)__ptep_get(ptep);\n", 1))
    subprocess.run(git + ["commit", "-qam", "an extra load"], check=True)
    return d


@needs_73
def test_git_revisions_side_by_side_with_deltas(repo):
    a, b = f"git:{repo}@HEAD~1", f"git:{repo}@HEAD"
    p = ptelab("run", "munmap", "--size", "16M", "--impl", f"{a},{b}")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    # names too long for a column: letters, each spelled out in full above
    assert f"  A  {a} (kernel 7.3" in out and f"  B  {b} (kernel 7.3" in out
    assert re.search(r"^event +A +B +B-A +B/A$", out, re.M)
    m = re.search(r"^pte_read +(\d+) +(\d+) +([+-]\d+) +([\d.]+)$", out, re.M)
    base, new, delta, ratio = int(m[1]), int(m[2]), int(m[3]), float(m[4])
    assert new > base and delta == new - base and abs(ratio - new / base) < 1e-3
    assert re.search(r"^pte_atomic +(\d+) +\1 +\+0 +1\.000$", out, re.M)
    # each revision once: both built from their own commit's files
    j = [json.loads(l) for l in ptelab("run", "munmap", "--size", "16M", "--impl",
                                       f"{a},{b}", "--json").stdout.splitlines()]
    commits = [x["backend"]["commit"] for x in j]
    assert all(len(c) == 40 for c in commits) and commits[0] != commits[1]
    assert [x["backend"]["rev"] for x in j] == ["HEAD~1", "HEAD"]


@needs_73
def test_git_errors_are_one_line(repo, tmp_path):
    for impl, msg in ((f"git:{repo}@nosuch", "'nosuch' is no commit"),
                      (f"git:{tmp_path}/none@HEAD", "is not a directory")):
        p = ptelab("run", "munmap", "--impl", impl)
        assert p.returncode == 2 and msg in p.stderr and p.stderr.count("\n") == 1, p.stderr


@needs_73
def test_kernel_warnings_are_shown_and_the_log_kept(tmp_path):
    tree = tmp_path / "warn"
    shutil.copytree(KERNEL, tree)
    src = tree / "arch" / "arm64" / "mm" / "contpte.c"
    src.write_text(src.read_text() + "\n#warning ptelab-test-warning\n")
    p = ptelab("run", "munmap", "--size", "16M", "--impl", f"tree:{tree}")
    assert p.returncode == 0, p.stderr
    m = re.search(r"ptelab: backend tree:\S+: 1 compiler warning in the kernel's code, the first: "
                  r"arch/arm64/mm/contpte\.c:\d+:\d+: warning: #warning ptelab-test-warning"
                  r"(?: \[-W[\w-]+\])? \(full log: (\S+)\)", p.stderr)
    assert m, p.stderr
    assert "ptelab-test-warning" in Path(m[1]).read_text()
    # the kernel's default warnings (-Wall): a use of an uninitialised variable is one
    text = src.read_text().replace("\n#warning ptelab-test-warning\n", "")
    src.write_text(text + "\nint ptelab_uninit(void)\n{\n\tint x;\n\n\treturn x + 1;\n}\n")
    p = ptelab("run", "munmap", "--size", "16M", "--impl", f"tree:{tree}")
    assert p.returncode == 0, p.stderr
    assert re.search(r"ptelab: backend tree:\S+: 1 compiler warning in the kernel's code, the "
                     r"first: arch/arm64/mm/contpte\.c:\d+:\d+: warning: .x. is used "
                     r"uninitiali[sz]ed", p.stderr), p.stderr
    # a tree that does not compile: the first error, and where the whole log is
    src.write_text(src.read_text() + "\nint broken = ;\n")
    p = ptelab("run", "munmap", "--size", "16M", "--impl", f"tree:{tree}")
    assert p.returncode == 2
    m = re.search(r"does not compile against the shim: .*error.*\(full compiler log: (\S+)\)$",
                  p.stderr.strip())
    assert m, p.stderr
    assert "int broken" in Path(m[1]).read_text()

# SPDX-License-Identifier: GPL-2.0-only
"""tools/mutate.py: which mutants it makes of contpte.c, and a real sweep of
a few of 7.3's against `ptelab check`."""
import json
import subprocess
import sys

from conftest import ROOT
from test_hardening import KERNEL, needs_73

import mutate

TOOL = ROOT / "tools" / "mutate.py"

SNIPPET = """\
/* a comment { with a brace */
static int helper(int x);

bool contpte_test_and_clear_young_ptes(struct vm_area_struct *vma,
		unsigned long addr, pte_t *ptep, unsigned int nr)
{
	unsigned long end = addr + nr * PAGE_SIZE;
	bool young = false;
	int i;

	/* if (young) in a comment is no code */
	for (i = 0; i < CONT_PTES; i++, ptep++)
		young |= __ptep_test_and_clear_young(vma, addr, ptep);
	if (young && vma->vm_mm)
		pte = pte_mkyoung(pte);

	return young;
}
"""


def changes(src, only=mutate.OPERATORS):
    return {(op, fn, what) for op, fn, _, what, _ in mutate.mutants(src, only)}


def test_mutants_of_one_function():
    got = changes(SNIPPET)
    fn = "contpte_test_and_clear_young_ptes"
    expect = {
        ("delete", fn, "- young |= __ptep_test_and_clear_young(vma, addr, ptep);"),
        ("delete", fn, "- pte = pte_mkyoung(pte);"),
        ("negate", fn, "if (young && vma->vm_mm)  ->  if (!(young && vma->vm_mm))"),
        ("logop", fn, "if (young && vma->vm_mm)  ->  if (young || vma->vm_mm)"),
        ("relop", fn, "for (i = 0; i < CONT_PTES; i++, ptep++)  ->  "
                      "for (i = 0; i <= CONT_PTES; i++, ptep++)"),
        ("bound", fn, "for (i = 0; i < CONT_PTES; i++, ptep++)  ->  "
                      "for (i = 0; i < (CONT_PTES - 1); i++, ptep++)"),
        ("bound", fn, "unsigned long end = addr + nr * PAGE_SIZE;  ->  "
                      "unsigned long end = addr + (nr - 1) * PAGE_SIZE;"),
        ("assign", fn, "young |= __ptep_test_and_clear_young(vma, addr, ptep);  ->  "
                       "young = __ptep_test_and_clear_young(vma, addr, ptep);"),
        ("bits", fn, "pte = pte_mkyoung(pte);  ->  pte = pte_mkold(pte);"),
    }
    assert expect <= got, expect - got
    text = " ".join(w for _, _, w in got)
    # declarations, returns, comments, prototypes and -> are left alone
    assert "- bool young" not in text and "- int i" not in text
    assert "- return" not in text and "comment" not in text
    assert "helper" not in text and "vm_mm)  ->  if (young && vma-" not in text
    assert all(f == fn for _, f, _ in got)


def test_every_mutant_changes_one_place():
    for op, fn, line, what, text in mutate.mutants(SNIPPET):
        old, new = SNIPPET.split("\n"), text.split("\n")
        assert len(old) == len(new)
        diff = [i for i in range(len(old)) if old[i] != new[i]]
        assert diff and diff[0] == line - 1, (op, what)
        assert op == "delete" or len(diff) == 1


def test_only_and_functions_select():
    assert {op for op, *_ in mutate.mutants(SNIPPET, ("bits",))} == {"bits"}
    assert mutate.mutants(SNIPPET, mutate.OPERATORS, {"contpte_ptep_get"}) == []


def test_hang_timeout_follows_the_trees_own_units():
    """Mutants' units time out at 100x the tree's mean unit CPU time, 5 s to the limit."""
    assert mutate.hang_timeout({"units": 80, "cpu_seconds": 4.0}, 60) == 5
    assert mutate.hang_timeout({"units": 10, "cpu_seconds": 3.0}, 60) == 30
    assert mutate.hang_timeout({"units": 10, "cpu_seconds": 30.0}, 60) == 60
    # no figures from the tree's check: the limit
    assert mutate.hang_timeout({}, 60) == 60


def test_bad_input_is_one_error_line(tmp_path):
    cases = [["--tree", str(tmp_path)], ["--tree", str(tmp_path), "--only", "swap"]]
    if KERNEL.is_dir():
        cases += [["--tree", str(KERNEL), "--functions", "contpte_ptep_gte", "--list"],
                  ["--tree", str(KERNEL), "--ids", "9999", "--list"]]
    for args in cases:
        p = subprocess.run([sys.executable, str(TOOL), *args],
                           capture_output=True, text=True)
        assert p.returncode == 2
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("mutate: error: "), p.stderr


@needs_73
def test_mutants_of_73_compile_and_check_catches_them():
    src = (KERNEL / "arch" / "arm64" / "mm" / "contpte.c").read_text()
    assert len(mutate.mutants(src)) > 100
    backends = ROOT / "build" / "backends"
    before = set(backends.iterdir()) if backends.is_dir() else set()
    p = subprocess.run([sys.executable, str(TOOL), "--tree", str(KERNEL), "--json",
                        "--only", "assign", "--functions",
                        "contpte_test_and_clear_young_ptes"],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    recs = [json.loads(x) for x in p.stdout.splitlines()]
    muts, summary = recs[:-1], recs[-1]["summary"]
    # young |= ... made young = ...: only the last entry's young is reported
    lost = [m for m in muts if "young = __ptep_test_and_clear_young" in m["change"]]
    assert len(lost) == 1 and lost[0]["verdict"] == "killed"
    assert "lost_young" in lost[0]["kinds"]
    assert summary["mutants"] == len(muts) and summary["stillborn"] == 0
    assert summary["killed"] + summary["survived"] == len(muts)
    # the sweep (the tree itself first) leaves no backend builds behind
    assert {f for f in backends.iterdir() if f.name.startswith("tree_")} <= before


@needs_73
def test_core_mm_functions_are_mutated_and_checked():
    """--file mm/memory.c: mutants of the tree's own zap, which ptelab runs and check
    judges; a core-mm file without --functions is refused (mutants of functions
    ptelab never compiles would count as survivors)."""
    p = subprocess.run([sys.executable, str(TOOL), "--tree", str(KERNEL), "--file", "mm/memory.c",
                        "--list"], capture_output=True, text=True)
    assert p.returncode == 2 and "needs --functions" in p.stderr
    base = [sys.executable, str(TOOL), "--tree", str(KERNEL), "--file", "mm/memory.c",
            "--functions", "zap_present_ptes"]
    listed = subprocess.run(base + ["--list"], capture_output=True, text=True).stdout
    batch = [l for l in listed.splitlines()
             if "negate" in l and "folio_test_large(folio) && max_nr != 1" in l]
    assert len(batch) == 1, listed
    p = subprocess.run(base + ["--ids", batch[0].split()[0], "--sequences", "2", "--json"],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    m = json.loads(p.stdout.splitlines()[0])
    assert m["function"] == "zap_present_ptes" and m["verdict"] == "killed", m

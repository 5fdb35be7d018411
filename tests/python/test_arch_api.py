# SPDX-License-Identifier: GPL-2.0-only
"""A kernel backend is its tree's arm64 PTE API: the CONFIG_ARM64_CONTPTE
dispatchers of asm/pgtable.h compiled with contpte.c, not ptelab's imitation."""
import json
import shutil
import subprocess

import pytest

from conftest import ROOT, _binary

KERNELS = ROOT / "build" / "kernels"


def fetched(v):
    return (KERNELS / f"linux-{v}").is_dir()


def tree_with(tmp_path, version, old, new):
    dst = tmp_path / f"linux-{version}-edited"
    shutil.copytree(KERNELS / f"linux-{version}", dst)
    pgt = dst / "arch" / "arm64" / "include" / "asm" / "pgtable.h"
    text = pgt.read_text()
    assert text.count(old) == 1, "the dispatcher to edit is not there"
    pgt.write_text(text.replace(old, new))
    return dst


def run(*args):
    return subprocess.run([_binary(), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)


GATHER = """	if (likely(!pte_valid_cont(pte)))
		return pte;

	return contpte_ptep_get(ptep, pte);"""


@pytest.mark.skipif(not fetched("7.3"), reason="linux-7.3 not fetched")
def test_a_dispatcher_bug_is_caught(tmp_path):
    # ptep_get returns the single entry instead of gathering the block
    tree = tree_with(tmp_path, "7.3", GATHER, "\treturn pte;")
    p = run("check", "--impl", f"tree:{tree}", "--sequences", "4")
    assert p.returncode == 1, p.stdout
    assert "lost_young" in p.stdout or "lost_dirty" in p.stdout
    assert "invariants VIOLATED" in p.stdout


@pytest.mark.skipif(not fetched("7.3"), reason="linux-7.3 not fetched")
def test_unmodified_dispatchers_hold(tmp_path):
    p = run("check", "--impl", "linux-7.3", "--sequences", "4")
    assert p.returncode == 0, p.stdout + p.stderr


@pytest.mark.skipif(not (fetched("6.12") and fetched("7.3")), reason="kernels not fetched")
def test_each_version_runs_its_own_dispatchers():
    # 6.12's asm/pgtable.h has no test_and_clear_young_ptes: core-mm
    # tests young per PTE, each a whole-block contpte call; 7.3 batches.
    out = {}
    for impl in ("linux-6.12", "linux-7.3"):
        p = run("run", "young-scan", "--size", "16M", "--impl", impl, "--json")
        assert p.returncode == 0, p.stderr
        out[impl] = json.loads(p.stdout)
    assert out["linux-6.12"]["events"]["young_read"] > 10 * out["linux-7.3"]["events"]["young_read"]


@pytest.mark.skipif(not fetched("7.3"), reason="linux-7.3 not fetched")
def test_without_contpte_is_the_trees_else_block(tmp_path):
    # break the #else block: only --without contpte runs it
    tree = tree_with(tmp_path, "7.3", "#define ptep_get				__ptep_get",
                     "#define ptep_get(p)				__pte(0)")
    on = run("run", "munmap", "--size", "4M", "--impl", f"tree:{tree}", "--json")
    off = run("run", "munmap", "--size", "4M", "--impl", f"tree:{tree}", "--json",
              "--without", "contpte")
    assert on.returncode == 0, on.stderr
    assert json.loads(on.stdout)["invariants"]["ok"]
    assert off.returncode == 1
    assert not json.loads(off.stdout)["invariants"]["ok"]


@pytest.mark.skipif(not fetched("7.3"), reason="linux-7.3 not fetched")
def test_cache_follows_the_compilers_dependency_list(tmp_path):
    tree = tree_with(tmp_path, "7.3", GATHER, GATHER + "\n")   # a tree of its own
    backends = ROOT / "build" / "backends"
    # 7.3's own core-mm object first: the copy, whose core-mm text is the same, reuses it
    assert run("run", "munmap", "--size", "4M", "--impl", "linux-7.3").returncode == 0
    before = set(backends.glob("*.deps"))
    first = run("run", "munmap", "--size", "4M", "--impl", f"tree:{tree}")
    assert first.returncode == 0, first.stderr
    assert "building backend" in first.stderr and "building the core-mm" not in first.stderr
    new = set(backends.glob("*.deps")) - before
    # the tree's arch backend has a list of its own; its core-mm code, the same text
    # as 7.3's, is 7.3's object (named by its text, "core-VERSION-HASH") with its list
    deps, = [d for d in new if not d.name.startswith("core-")]
    core = max(backends.glob("core-7.3.*.so.deps"), key=lambda d: d.stat().st_mtime)
    core_names = [line.split(" ", 1)[1] for line in core.read_text().splitlines()[1:]]
    assert any(n.endswith("kernel/shim/core.h") for n in core_names)
    assert any(n.endswith("kernel/shim/core_entry.c") for n in core_names)
    assert any(n.endswith("mm/mmu_gather.h") for n in core_names)
    listed = deps.read_text().splitlines()
    # the compiler's list: the tree's contpte.c, the shim, the lab headers it pulls in
    names = [line.split(" ", 1)[1] for line in listed]
    assert any(n.endswith("arch/arm64/mm/contpte.c") for n in names)
    assert any(n.endswith("kernel/shim/shim.h") for n in names)
    assert any(n.endswith("arch/arm64/raw.h") for n in names)
    again = run("run", "munmap", "--size", "4M", "--impl", f"tree:{tree}")
    assert "building backend" not in again.stderr
    # as if one of them had changed since: built anew
    deps.write_text("".join(("0000000000000001 " + n + "\n") if i == 1 else (l + "\n")
                            for i, (l, n) in enumerate(zip(listed, names))))
    changed = run("run", "munmap", "--size", "4M", "--impl", f"tree:{tree}")
    assert "building backend" in changed.stderr and changed.returncode == 0


@pytest.mark.skipif(not fetched("7.3"), reason="linux-7.3 not fetched")
def test_a_fault_that_recurs_forever_is_a_violation(tmp_path):
    # ptep_set_access_flags on a contpte block does nothing: without
    # hardware AF the access faults, is "handled", and faults again
    tree = tree_with(tmp_path, "7.3",
                     "\treturn contpte_ptep_set_access_flags(vma, addr, ptep, entry, dirty);",
                     "\treturn 0;")
    p = run("run", "young-scan", "--size", "1M", "--no-hafdbs", "--impl", f"tree:{tree}", "--json")
    assert p.returncode == 1, p.stderr
    j = json.loads(p.stdout)
    assert not j["invariants"]["ok"]
    assert j["invariants"]["counts"].get("no_progress", 0) > 0
    # the unmodified tree makes progress under the same run
    q = run("run", "young-scan", "--size", "1M", "--no-hafdbs", "--impl", "linux-7.3", "--json")
    assert q.returncode == 0, q.stderr
    assert json.loads(q.stdout)["invariants"]["ok"]

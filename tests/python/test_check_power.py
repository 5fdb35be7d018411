# SPDX-License-Identifier: GPL-2.0-only
"""What `ptelab check` catches: one kernel tree per class of bug, made on the
fly from the fetched 7.3 tree by a small change to its contpte.c (never
committed). Each of these passed `ptelab check` before the machines with
mixed walkers, the sticky TLB, BBML2, interleaving, postconditions and the
wider operation mix existed (class 6: before the TLB that ignores the
contiguous hint, the gather's bound and contpte's own postconditions);
each is caught now (class 7: before the checks that young/dirty are never
made up, that a lockless reader gets a block's bits, and that a block maps
one folio). Unmodified 6.12, 7.2 and
7.3 trees raise nothing (no false positives).
"""
import json
import re
import shlex
import shutil

import pytest

from conftest import ROOT
from test_hardening import KERNEL, needs_73, run

# name: (text in 7.3's contpte.c, replacement, violation kinds that may name it)
MUTANTS = {
    # class 1, mixed walkers: the pre-fix no-op check compares the gathered
    # view, so a walker without HA/HD faults on the same entry forever
    "noop_gathered": ("\tif (contpte_all_subptes_match_access_flags(ptep, entry))\n\t\treturn 0;",
                      "\tif (pte_val(pte_mknoncont(ptep_get(ptep))) == pte_val(entry))\n\t\treturn 0;",
                      {"postcondition", "no_progress"}),
    # class 2, sticky TLB: no flush after making a block writable/dirty
    "saf_noflush": ("\t\tif (dirty)\n\t\t\t__flush_tlb_range(vma, start_addr,",
                    "\t\tif (0)\n\t\t\t__flush_tlb_range(vma, start_addr,",
                    {"no_progress"}),
    # class 2: clear_flush_young without the flush
    "cfy_noflush": ("\tif (young) {\n\t\tunsigned long end = addr + nr * PAGE_SIZE;",
                    "\tif (0) {\n\t\tunsigned long end = addr + nr * PAGE_SIZE;",
                    {"stale_tlb"}),
    # class 3, inside an operation: fold/unfold without break-before-make's TLBI
    "fold_notlbi": ("\tif (!system_supports_bbml3())\n\t\t__flush_tlb_range(&vma, start_addr, addr, PAGE_SIZE, 3,",
                    "\tif (0)\n\t\t__flush_tlb_range(&vma, start_addr, addr, PAGE_SIZE, 3,",
                    {"tlb_conflict", "stale_tlb"}),
    # class 3: read then clear, not an atomic exchange: hardware updates in between are lost
    "convert_racy": ("\t\tpte_t ptent = __ptep_get_and_clear(mm, addr, ptep);\n",
                     "\t\tpte_t ptent = __ptep_get(ptep);\n\n\t\t__pte_clear(mm, addr, ptep);\n",
                     {"lost_young", "lost_dirty"}),
    # class 4, postconditions: young tested but only the last entry cleared
    "tcy_first_only": ("\tfor (; addr != end; ptep++, addr += PAGE_SIZE)\n"
                       "\t\tyoung |= __ptep_test_and_clear_young(vma, addr, ptep);",
                       "\tfor (; addr != end; ptep++, addr += PAGE_SIZE)\n"
                       "\t\tyoung |= addr == end - PAGE_SIZE ? __ptep_test_and_clear_young(vma, addr, ptep)"
                       " : pte_young(__ptep_get(ptep));",
                       {"postcondition"}),
    # class 4: a partial wrprotect that leaves the block folded
    "wrprotect_nounfold": ("\tcontpte_try_unfold_partial(mm, addr, ptep, nr);\n\t__wrprotect_ptes(mm, addr, ptep, nr);",
                           "\t__wrprotect_ptes(mm, addr, ptep, nr);",
                           {"bad_cont_block"}),
    # class 5, coverage: GUP-fast's lockless read loses the block's young/dirty
    "lockless_nogather": ("pte_t contpte_ptep_get_lockless(pte_t *orig_ptep)\n{\n",
                          "pte_t contpte_ptep_get_lockless(pte_t *orig_ptep)\n{\n"
                          "\tif (orig_ptep) return __ptep_get(orig_ptep);\n",
                          {"lost_young", "lost_dirty"}),
    # class 6, found by tools/mutate.py: each passed check before its check
    # existed. A flush of the requested page alone, not the block made old:
    # a TLB caching the block's pages apart (+nohint) keeps the others
    "cfy_subrange": ("\t\tcontpte_align_addr_ptep(&addr, &end, ptep, nr);\n", "\n",
                     {"stale_tlb"}),
    # a gather that loads one entry past its block reports the neighbour's bits
    "get_strays": ("\t\t\ti++;\n\t\t\tptep++;\n\t\t\tfor (; i < CONT_PTES; i++, ptep++) {",
                   "\t\t\tptep++;\n\t\t\tfor (; i < CONT_PTES; i++, ptep++) {",
                   {"postcondition"}),
    # contpte that does nothing: set_ptes never contiguous, a block never folded
    "setptes_nocont": ("\t\t\tpte = pte_mkcont(pte);\n", "\t\t\t;\n", {"postcondition"}),
    "fold_never": ("\tcontpte_convert(mm, addr, orig_ptep, pte);\n", "\n", {"postcondition"}),
    # class 7, found by tools/mutate.py after class 6. An unfold that makes
    # dirty up: a clean block comes out dirty (written back for nothing)
    "convert_phantom": ("\t\tif (pte_dirty(ptent))\n\t\t\tpte = pte_mkdirty(pte);",
                        "\t\tif (!pte_dirty(ptent))\n\t\t\tpte = pte_mkdirty(pte);",
                        {"postcondition"}),
    # a lockless gather that goes on over a block being converted: it
    # returns the block without the bits the writer holds mid-update
    "lockless_noretry": ("\t\tif (!contpte_is_consistent(pte, pfn, orig_prot))\n\t\t\tgoto retry;\n\n"
                         "\t\tif (pte_dirty(pte)) {",
                         "\t\tif (!contpte_is_consistent(pte, pfn, orig_prot))\n\t\t\t;\n\n"
                         "\t\tif (pte_dirty(pte)) {",
                         {"postcondition"}),
    # a fold of a block that small folios at consecutive frames map
    "fold_across_folios": ("\tif (folio_start > cont_start || folio_end < cont_end)\n",
                           "\tif (folio_start > cont_start && folio_end < cont_end)\n",
                           {"bad_cont_block"}),
}


def mutant_tree(tmp_path, name):
    old, new, _ = MUTANTS[name]
    dst = tmp_path / name
    shutil.copytree(KERNEL, dst)
    src = dst / "arch" / "arm64" / "mm" / "contpte.c"
    text = src.read_text()
    assert text.count(old) == 1, name
    src.write_text(text.replace(old, new))
    return dst


# Mutants whose shape the random sequences reach more rarely. A write
# protect of part of a contiguous block needs a block that straddles a VMA
# boundary; 7.3's batched mprotect no longer refolds the blocks its own
# split cuts (6.12's per-PTE one did), so such blocks now come from mlock's
# splits alone: 4 sequences miss it, 8 find it.
SEQUENCES = {"wrprotect_nounfold": 8}


def kinds(violations):
    return {v.split(":")[0] for v in violations}


@needs_73
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_check_catches(tmp_path, name):
    """Is it caught: check stops at its first failing configuration (--first,
    as a bisect or a mutation sweep runs it), with the kind of finding the
    bug makes and a reproducer (the whole run: test_check_reports_a_mutant_whole)."""
    tree = mutant_tree(tmp_path, name)
    # one worker: the configurations run in order, so the first to fail is always the same
    p = run("check", "--first", "--jobs", "1", "--impl", f"tree:{tree}", "--sequences",
            str(SEQUENCES.get(name, 4)), "--json", timeout=900)
    assert p.returncode == 1, p.stderr[-2000:]
    rows = [json.loads(l)["row"] for l in p.stdout.splitlines() if l.startswith('{"row"')]
    found = set()
    for r in rows:
        found |= set(r["counts"])
    assert found & MUTANTS[name][2], found
    failing = [r for r in rows if r["violations"] or r["finding"]]
    assert failing and all(r["reproducer"].startswith("ptelab run fuzz ") for r in failing)


@needs_73
@pytest.mark.parametrize("name", ["cfy_noflush", "noop_gathered"])
def test_check_reports_a_mutant_whole(tmp_path, name):
    """Without --first every configuration runs and each failing one is
    reported whole: its kinds, a reproducer, a minimised trace."""
    tree = mutant_tree(tmp_path, name)
    p = run("check", "--impl", f"tree:{tree}", "--sequences", str(SEQUENCES.get(name, 4)),
            "--json", timeout=900)
    assert p.returncode == 1, p.stderr[-2000:]
    rows = [json.loads(l)["row"] for l in p.stdout.splitlines() if l.startswith('{"row"')]
    assert len(rows) == 80
    found = set()
    for r in rows:
        found |= set(r["counts"])
    assert found & MUTANTS[name][2], found
    # a finding names addresses and entries, never host pointers; every
    # failing row has a reproducer of one sequence, the first rows a trace
    failing = [r for r in rows if r["violations"] or r["finding"]]
    for r in failing:
        assert not re.search(r"0x7f[0-9a-f]{10}", r["first"]), r["first"]
        assert r["reproducer"].startswith("ptelab run fuzz ")
    traced = [r for r in failing if r["trace"]]
    assert traced or all(r["finding"] for r in failing)
    for r in traced:
        # shrunk, or why not (a sequence may fail only after the unit's earlier ones)
        m = re.match(r"sequence \d+: (\d+) of 2000 operations", r["trace"][0])
        assert m or r["trace"][0].startswith(("no sequence", "sequence")), r["trace"][0]
        if m:
            n = int(m.group(1))
            # every operation listed, or as many as fit and how many more
            cut = [l for l in r["trace"] if re.match(r"\s+\.\.\. \d+ more operations", l)]
            assert n < 2000 and (len(r["trace"]) >= n + 1 or cut), r["trace"][:3]
            assert r["trace"][-1].lstrip().startswith("->"), r["trace"][-1]


@needs_73
def test_a_reproducer_reruns_the_finding(tmp_path):
    """The reproducer of a failing configuration carries its machine (walkers,
    TLB, interleaving) and fails the same way when run."""
    tree = mutant_tree(tmp_path, "noop_gathered")
    p = run("check", "--impl", f"tree:{tree}", "--sequences", "4", timeout=900)
    repro = [l.split("reproduce: ", 1)[1] for l in p.stdout.splitlines() if "reproduce: " in l]
    assert repro
    # the first is a check row with a violation (not a crash), e.g. on the mixed machine
    rows = [l for l in p.stdout.splitlines() if l.startswith("tree:") and "calls per" not in l]
    bad = [l for l in rows if not re.search(r"\s0\s*$", l)]
    assert bad and any("mixed+smmu" in l for l in bad)
    p2 = run("run", "fuzz", "--impl", f"tree:{tree}", "--walkers", "cpu1=none,smmu=ha",
             "--tlb", "sticky", "--interleave", "8", "--iterations", "4", "--json", timeout=600)
    j = json.loads(p2.stdout.splitlines()[0])
    assert not j["invariants"]["ok"]
    assert j["params"]["walkers"] == "cpu1=none,smmu=ha" and j["params"]["tlb"] == "sticky"
    assert j["params"]["interleave"] == 8


@pytest.mark.parametrize("tree", ["linux-6.12", "linux-7.2", "linux-7.3"])
def test_no_false_positives_on_released_trees(tree):
    if not (ROOT / "build" / "kernels" / tree).is_dir():
        pytest.skip(f"kernel source not fetched (ptelab kernels fetch {tree[6:]})")
    p = run("check", "--impl", tree, "--sequences", "4", "--json", timeout=900)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    # 7.x's batched mprotect folds without break-before-make: a known finding,
    # reported apart; 6.12 commits one entry at a time and never does it
    summary = [json.loads(l)["summary"] for l in p.stdout.splitlines() if l.startswith('{"summary"')]
    known = summary[0]["known_findings"]
    assert set(known) == (set() if tree == "linux-6.12" else {"mprotect-fold-no-bbm"}), known
    cov = [json.loads(l)["coverage"] for l in p.stdout.splitlines() if l.startswith('{"coverage"')]
    assert len(cov) == 1 and cov[0]["all_called"]
    calls = cov[0]["calls"]
    # every op called, and on contiguous entries for all but set_ptes (none there yet)
    assert all(v[0] > 0 for v in calls.values()), calls
    assert all(v[1] > 0 for k, v in calls.items() if k not in ("set_ptes",)), calls


def test_ref_machines_hold():
    p = run("check", "--sequences", "2", timeout=600)
    assert p.returncode == 0, p.stdout[-3000:]
    machines = {l.split()[1] for l in p.stdout.splitlines() if l.startswith("ref ") and "calls per" not in l}
    assert machines == {"hafdbs", "sticky+race", "mixed+smmu", "bbml2+race", "sw-af+race"}


@pytest.mark.parametrize("args, needle", [
    (["--walkers", "cpu9=none"], "cpu0 to cpu1"),
    (["--walkers", "smmu=maybe"], "hafdbs, ha or none"),
    (["--walkers", "gpu=none"], "AGENT=CAPS"),
    (["--tlb", "lazy"], "--tlb takes rewalk"),
    (["--interleave", "x"], "--interleave takes"),
])
def test_machine_options_bad_input(args, needle):
    p = run("run", "fuzz", "--iterations", "1", *args)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], p.stderr


def test_machine_options_x86_refused():
    p = run("run", "fuzz", "--arch", "x86", "--tlb", "sticky")
    assert p.returncode == 2 and "does not apply to --arch x86" in p.stderr


def test_interleave_only_for_fuzz():
    p = run("run", "munmap", "--size", "4M", "--interleave", "8")
    assert p.returncode == 2 and "--interleave does not apply to workload munmap" in p.stderr


@needs_73
def test_fuzz_minimise_is_not_ok(tmp_path):
    """--minimise on a failing sequence prints the minimised reproducer and
    its violation is the run's: invariants not ok, exit 1 (it used to say ok)."""
    tree = mutant_tree(tmp_path, "setptes_nocont")
    p = run("run", "fuzz", "--impl", f"tree:{tree}", "--iterations", "2", "--minimise", "--json")
    assert p.returncode == 1, p.stderr[-2000:]
    j = json.loads(p.stdout.splitlines()[0])
    assert not j["invariants"]["ok"] and "postcondition" in j["invariants"]["counts"]
    n = j["results"]["minimised_operations"]
    assert 1 <= n < 2000
    assert re.match(r"sequence 0: \d+ of 2000 operations still raise postcondition", j["trace"][0])
    p = run("run", "fuzz", "--impl", f"tree:{tree}", "--iterations", "2", "--minimise")
    assert p.returncode == 1 and "invariants: ok" not in p.stdout


# --- check --explore: every interleaving point of small scenarios --------------------------

def explore_rows(p):
    return [json.loads(l)["row"] for l in p.stdout.splitlines() if l.startswith('{"row"')]


@needs_73
def test_explore_catches_a_racy_convert(tmp_path):
    """contpte_convert reading then clearing each entry (not one atomic
    exchange) loses a young/dirty bit the hardware sets in between. Random
    interleaving finds it by chance; exploring the unfolds of an old, clean
    block finds it at a named point, without randomness, and says which
    kernel functions the point was in."""
    tree = mutant_tree(tmp_path, "convert_racy")
    # the catalogue's unfolds of a clean block (scenarios 42..47)
    p = run("run", "explore", "--impl", f"tree:{tree}", "--first-sequence", "42",
            "--iterations", "6", "--minimise", "--json", timeout=900)
    assert p.returncode == 1, p.stderr[-2000:]
    j = json.loads(p.stdout.splitlines()[0])
    assert set(j["invariants"]["counts"]) & {"lost_young", "lost_dirty"}
    assert j["results"]["first_failing_sequence"] == 42
    text = "\n".join(j["trace"])
    assert re.search(r"at point \d+ of \d+ \((__ptep_get|__set_pte|__ptep_get_and_clear|cmpxchg|TLBI|DSB)\)",
                     text), text
    # the kernel function the point was in, then its callers
    assert re.search(r"\n  in contpte_convert \(arch/arm64/mm/contpte\.c:\d+\) <- ", text), text
    # the unmodified tree passes the same scenarios
    p = run("run", "explore", "--impl", f"tree:{KERNEL}", "--first-sequence", "42", "--json", timeout=900)
    assert p.returncode == 0, p.stdout[-2000:]


def test_explore_ref_holds_and_counts():
    p = run("run", "explore", "--json", timeout=900)
    j = json.loads(p.stdout.splitlines()[0])
    assert j["invariants"]["ok"], j["invariants"]
    r = j["results"]
    # every scenario of the catalogue, each run once per (point, agent, action, entry)
    assert r["sequences"] == 52 and r["points"] > 1000 and r["operations"] > 20 * r["points"]
    assert r["first_failing_sequence"] == -1


@pytest.mark.parametrize("args, needle", [
    (["--first-sequence", "999"], "explore has scenarios 0 to"),
    (["--interleave", "8"], "--interleave does not apply to workload explore"),
    (["--arch", "x86"], "models arm64 contpte"),
])
def test_explore_bad_input(args, needle):
    p = run("run", "explore", *args)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], p.stderr


@needs_73
def test_explore_no_false_positives_on_73():
    # The whole catalogue is a question of semantics, not memory safety (the
    # tests above run explore under the sanitizers): the optimised build, in
    # about a quarter of the sanitized one's 20 minutes.
    opt = ROOT / "ptelab"
    p = run("check", "--explore", "--impl", f"tree:{KERNEL}", "--json", timeout=1800,
            binary=opt if opt.exists() else None)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    s = json.loads(p.stdout.splitlines()[-1])["summary"]
    assert s["ok"] and s["sequences"] == 30 * 52 and not s["findings"]
    rows = explore_rows(p)
    assert len(rows) == 30 and all(r["sequences"] == 52 for r in rows)


# --- check --diff A,B: two backends on the same sequences ------------------------------------

def diff_rows(p):
    return [json.loads(l)["diff"] for l in p.stdout.splitlines() if l.startswith('{"diff"')]


@needs_73
def test_diff_finds_a_silent_semantic_change(tmp_path):
    """pte_batch_hint answering 1 on a contiguous entry breaks no invariant
    (plain check passes) but changes what an op returns and what the batched
    paths cost: --diff reports both, bisected to the first sequence."""
    dst = tmp_path / "hint_one"
    shutil.copytree(KERNEL, dst)
    hdr = dst / "arch" / "arm64" / "include" / "asm" / "pgtable.h"
    old = "\treturn CONT_PTES - (((unsigned long)ptep >> 3) & (CONT_PTES - 1));\n"
    text = hdr.read_text()
    assert text.count(old) == 1
    hdr.write_text(text.replace(old, "\treturn 1;\n"))
    p = run("check", "--impl", f"tree:{dst}", "--sequences", "2", timeout=900)
    assert p.returncode == 0, p.stdout[-2000:]
    p = run("check", "--diff", f"tree:{KERNEL},tree:{dst}", "--sequences", "4", "--json", timeout=900)
    assert p.returncode == 1, p.stderr[-2000:]
    rows = diff_rows(p)
    assert len(rows) == 32
    differ = [r for r in rows if not r["same_returns"]]
    assert differ and all(r["ok"] == [True, True] for r in rows)
    for r in differ:
        assert r["first_differing_sequence"] in range(4)
        a, b = r["reproducers"]
        assert a.startswith("ptelab run fuzz ") and b.startswith("ptelab run fuzz ")
        assert "--variant differential" in a and "--iterations 1" in b, (a, b)
        assert f"tree:{KERNEL}" in a and f"tree:{dst}" in b
    summary = json.loads(p.stdout.splitlines()[-1])["summary"]
    assert "pte_read" in summary["events"] and not summary["ok"]


@needs_73
def test_diff_of_two_releases_same_returns_other_costs():
    older = ROOT / "build" / "kernels" / "linux-6.12"
    if not older.is_dir():
        pytest.skip("kernel source not fetched (ptelab kernels fetch 6.12)")
    # the two releases' arch code under one core-mm (the twin's): with their own
    # core-mm (6.12's per-PTE mprotect, mremap, young tests and reclaim unmap
    # against 7.3's folio batches) the operations return the same but leave
    # the contiguous bits of the tables differently
    p = run("check", "--diff", f"tree:{older},tree:{KERNEL}", "--core", "ref", "--sequences", "2",
            timeout=900)
    assert p.returncode == 0, p.stdout[-3000:]
    assert "same returns and page tables on every configuration" in p.stdout
    # 7.3 batches the young tests 6.12 did per entry
    ev = {l.split()[0]: l.split() for l in p.stdout.splitlines() if l.startswith("  young_read")}
    assert ev and int(ev["young_read"][2]) < int(ev["young_read"][1])


@pytest.mark.parametrize("args, needle", [
    (["--diff", "ref"], "--diff takes two backends"),
    (["--diff", "ref,ref", "--jobs", "2"], "drop --impl"),
    (["--diff", "ref,tree:/nonexistent"], "/nonexistent"),
])
def test_diff_bad_input(args, needle):
    p = run("check", *args)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], p.stderr


@pytest.mark.parametrize("machine", [[], ["--folio-size", "16K", "--interleave", "8", "--tlb", "sticky",
                                          "--walkers", "cpu1=none,smmu=ha", "--hw-policy", "random"]])
def test_sequences_are_independent(machine):
    """A sequence alone does exactly what it did after others: its events
    are the difference of the runs with and without it (so a reproducer of
    one sequence always reproduces)."""
    def events(first, n):
        p = run("run", "fuzz", "--first-sequence", str(first), "--iterations", str(n), "--json",
                *machine, timeout=600)
        return json.loads(p.stdout.splitlines()[0])["events"]
    e01, e012, e2 = events(0, 2), events(0, 3), events(2, 1)
    assert {k: e012[k] - e01.get(k, 0) for k in e012 if e012[k] - e01.get(k, 0)} == \
        {k: v for k, v in e2.items() if v}

# SPDX-License-Identifier: GPL-2.0-only
"""The lab never crashes, hangs, lies or runs foreign commands.

Kernel trees that misbehave are made on the fly from the fetched 7.3 tree
(never committed): a statement is put at the top of contpte_ptep_get.
"""
import json
import os
import resource
import shlex
import shutil
import signal
import subprocess
import time

import pytest

from conftest import ROOT, _binary

KERNEL = ROOT / "build" / "kernels" / "linux-7.3"
needs_73 = pytest.mark.skipif(not KERNEL.is_dir(),
                              reason="kernel source not fetched (ptelab kernels fetch 7.3)")
OPT = ROOT / "ptelab"

HEAD = "pte_t contpte_ptep_get(pte_t *ptep, pte_t orig_pte)\n{\n"
BAD_CODE = {
    "segv": "\t*(volatile int *)0 = 1;\n",
    "abort": "\t{ extern void abort(void); abort(); }\n",
    "trap": "\t__builtin_trap();\n",
    "recurse": ("\tif (ptep) { volatile char pad[256]; pte_t r; pad[0] = 1;\n"
                "\t\tr = contpte_ptep_get(ptep, orig_pte); return __pte(pte_val(r) + pad[0]); }\n"),
    "hang": "\tfor (volatile int spin = 1; spin;)\n\t\t;\n",
    # allocates and touches 64 MiB at a time, for ever
    "alloc": ("\tfor (;;) { extern void *malloc(unsigned long); volatile char *m = malloc(64UL << 20);\n"
              "\t\tfor (unsigned long i = 0; i < (64UL << 20); i += 4096) m[i] = 1; }\n"),
    "exit0": "\t{ extern void exit(int); exit(0); }\n",
    "printf": "\t{ extern int printf(const char *, ...); printf(\"kernel says hi\\n\"); }\n",
    # one byte past the allocation the page table was carved from (a 2 MiB chunk)
    "oob": ("\t{ volatile const char *end = (const char *)((unsigned long)ptep | 2097151UL) + 1;\n"
            "\t\t(void)*end; }\n"),
    # one entry past the end of the page table: the guard page after it
    "past_table": ("\t{ pte_t *table = (pte_t *)((unsigned long)ptep & ~4095UL);\n"
                   "\t\t(void)READ_ONCE(table[PTRS_PER_PTE]); }\n"),
}


def make_tree(tmp_path, name, bad=None):
    """A copy of the fetched 7.3 tree at tmp_path/name, maybe made bad."""
    dst = tmp_path / name
    shutil.copytree(KERNEL, dst)
    if bad:
        src = dst / "arch" / "arm64" / "mm" / "contpte.c"
        text = src.read_text()
        assert HEAD in text
        src.write_text(text.replace(HEAD, HEAD + BAD_CODE[bad], 1))
    return dst


def run(*args, binary=None, cwd=ROOT, env=None, timeout=300, preexec=None):
    return subprocess.run([str(binary or _binary()), *args], capture_output=True, text=True,
                          errors="surrogateescape",
                          cwd=cwd, env=env, timeout=timeout, preexec_fn=preexec)


def json_lines(stdout):
    def no_constants(name):
        raise ValueError(f"non-JSON number {name}")
    return [json.loads(line, parse_constant=no_constants) for line in stdout.splitlines()]


# 1. No shell ever sees a path.
@needs_73
@pytest.mark.parametrize("name", ["inj';touch PWNED;'", "o'brien", 'sp ace"dq$(x)`y`'])
def test_any_existing_path_works_and_runs_nothing(tmp_path, name):
    tree = make_tree(tmp_path, name)
    p = run("run", "munmap", "--size", "4M", "--impl", f"tree:{tree}", "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    j, = json_lines(p.stdout)
    assert j["invariants"]["ok"] and j["impl"] == f"tree:{tree}"
    assert not (tmp_path / "PWNED").exists() and not (ROOT / "PWNED").exists()


# 2. Kernel code that misbehaves is a finding; other rows are kept.
@needs_73
@pytest.mark.parametrize("bad,signal", [("segv", "SIGSEGV"), ("abort", "SIGABRT"),
                                        ("trap", "SIGILL"), ("recurse", "SIGSEGV")])
def test_crash_is_a_located_finding(tmp_path, bad, signal):
    tree = make_tree(tmp_path, bad, bad)
    impl = f"tree:{tree}"
    p = run("run", "munmap", "--size", "64M", "--impl", f"ref,{impl}", "--json", timeout=120)
    assert p.returncode == 1, p.stderr
    ref, found = json_lines(p.stdout)
    assert ref["impl"] == "ref" and ref["invariants"]["ok"] and ref["finding"] is None
    f = found["finding"]
    assert found["impl"] == impl and not found["invariants"]["ok"]
    assert f["kind"] == "crash" and f["signal"] == signal and f["in_kernel_code"]
    assert f["function"] == "contpte_ptep_get"
    assert f["file"] == "arch/arm64/mm/contpte.c" and f["line"] > 300
    assert f["seed"] == 1 and impl in f["reproducer"] and "--seed 1" in f["reproducer"]
    if bad == "recurse":
        assert "stack overflow" in f["summary"]
    assert f"FINDING: {impl} (kernel 7.3" in p.stderr and signal in p.stderr
    # the reproducer reproduces
    words = shlex.split(f["reproducer"])
    assert words[:2] == ["ptelab", "run"]
    again = run(*words[1:], "--json")
    assert again.returncode == 1 and json_lines(again.stdout)[0]["finding"]["signal"] == signal


@needs_73
def test_hang_is_a_timeout_finding(tmp_path):
    tree = make_tree(tmp_path, "hang", "hang")
    p = run("run", "munmap", "--size", "64M", "--impl", f"ref,tree:{tree}", "--timeout", "3",
            "--json", timeout=60)
    assert p.returncode == 1
    ref, found = json_lines(p.stdout)
    assert ref["invariants"]["ok"]
    f = found["finding"]
    assert f["kind"] == "timeout" and f["function"] == "contpte_ptep_get"
    assert "--timeout 3" in f["reproducer"]


@needs_73
def test_check_keeps_going_after_a_hang(tmp_path):
    tree = make_tree(tmp_path, "hang", "hang")
    p = run("check", "--impl", f"tree:{tree}", "--sequences", "1", "--timeout", "1", timeout=400)
    assert p.returncode == 1
    rows = [l for l in p.stdout.splitlines() if l.startswith("tree:") and "calls per" not in l]
    assert len(rows) == 80                              # every configuration reported
    assert sum("timeout" in r for r in rows) >= 40      # the contpte ones hang
    assert "invariants VIOLATED" in p.stdout


@needs_73
def test_exit_in_kernel_code_is_not_success(tmp_path):
    tree = make_tree(tmp_path, "exit0", "exit0")
    p = run("run", "munmap", "--size", "64M", "--impl", f"tree:{tree}", "--json")
    assert p.returncode == 1
    f = json_lines(p.stdout)[0]["finding"]
    assert f["kind"] == "exit" and f["exit_status"] == 0 and f["function"] == "contpte_ptep_get"


@needs_73
def test_printf_in_kernel_code_leaves_json_alone(tmp_path):
    tree = make_tree(tmp_path, "printf", "printf")
    p = run("run", "munmap", "--size", "4M", "--impl", f"ref,tree:{tree}", "--json")
    assert p.returncode == 0, p.stderr
    assert [j["impl"] for j in json_lines(p.stdout)] == ["ref", f"tree:{tree}"]
    assert "kernel says hi" in p.stderr


@needs_73
def test_check_reports_a_crash_and_a_reproducer(tmp_path):
    tree = make_tree(tmp_path, "segv", "segv")
    p = run("check", "--impl", f"ref,tree:{tree}", "--sequences", "1", timeout=120)
    assert p.returncode == 1
    assert sum(l.startswith("ref ") for l in p.stdout.splitlines()) == 80
    assert "SIGSEGV" in p.stdout and "contpte_ptep_get" in p.stdout
    assert "reproduce: ptelab run fuzz" in p.stdout


@needs_73
@pytest.mark.parametrize("binary", ["san", "opt"])
def test_sanitize_names_an_out_of_bounds_access(tmp_path, binary):
    exe = _binary() if binary == "san" else OPT
    if not os.path.exists(exe):
        pytest.skip("binary not built")
    tree = make_tree(tmp_path, "oob", "oob")
    p = run("run", "munmap", "--size", "4M", "--impl", f"tree:{tree}", "--sanitize", "--json",
            binary=exe, timeout=200)
    assert p.returncode == 1, p.stderr
    f = json_lines(p.stdout)[0]["finding"]
    assert f["kind"] == "sanitizer"
    assert f["sanitizer"].startswith("AddressSanitizer: heap-buffer-overflow")
    assert f["function"] == "contpte_ptep_get" and f["in_kernel_code"]
    assert "--sanitize" in f["reproducer"]


def test_sanitize_guards_the_page_after_a_table(tmp_path):
    if not KERNEL.is_dir() or not OPT.exists():
        pytest.skip("needs the fetched 7.3 tree and the optimised binary")
    tree = make_tree(tmp_path, "past", "past_table")
    quiet = run("run", "munmap", "--size", "4M", "--impl", f"tree:{tree}", "--json", binary=OPT)
    assert quiet.returncode == 0   # unnoticed without the sanitizer
    p = run("run", "munmap", "--size", "4M", "--impl", f"tree:{tree}", "--sanitize", "--json",
            binary=OPT, timeout=200)
    assert p.returncode == 1, p.stderr
    f = json_lines(p.stdout)[0]["finding"]
    assert f["sanitizer"].startswith("AddressSanitizer: use-after-poison")
    assert f["function"] == "contpte_ptep_get"


@needs_73
def test_a_lab_bug_under_a_kernel_backend_is_still_the_labs():
    env = dict(os.environ, PTELAB_INJECT_LAB_BUG="segv")
    p = run("run", "munmap", "--size", "4M", "--impl", "linux-7.3", "--json", env=env)
    assert p.returncode == 3 and p.stdout == ""
    assert "a bug in ptelab" in p.stderr and "the same run on ref fails too" in p.stderr


def run_child_of(proc):
    """The pid of the child process running the simulation (not the compiler)."""
    for _ in range(600):
        kids = subprocess.run(["pgrep", "-x", "-P", str(proc.pid), "ptelab"],
                              capture_output=True, text=True)
        if kids.stdout.strip():
            return int(kids.stdout.split()[0])
        time.sleep(0.05)
    raise AssertionError("no child process")


@needs_73
def test_killed_from_outside_is_not_a_finding(tmp_path):
    tree = make_tree(tmp_path, "hang", "hang")
    proc = subprocess.Popen([_binary(), "run", "munmap", "--size", "4M", "--impl", f"tree:{tree}",
                             "--timeout", "0", "--json"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        child = run_child_of(proc)
        time.sleep(0.5)
        os.kill(child, signal.SIGKILL)     # as the host's OOM killer would
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 2 and out == ""
    assert "killed by SIGKILL from outside ptelab" in err


@needs_73
def test_children_die_with_ptelab(tmp_path):
    tree = make_tree(tmp_path, "hang", "hang")
    proc = subprocess.Popen([_binary(), "run", "munmap", "--size", "4M", "--impl", f"tree:{tree}",
                             "--timeout", "0"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        child = run_child_of(proc)
    finally:
        proc.kill()
    proc.wait()
    for _ in range(100):
        if not os.path.exists(f"/proc/{child}") or \
           open(f"/proc/{child}/stat").read().split()[2] == "Z":
            break
        time.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        pytest.fail("the child outlived ptelab")


@needs_73
def test_any_path_bytes_and_commas(tmp_path):
    odd = os.fsdecode(b"bad\xffname,x")
    tree = make_tree(tmp_path, odd)
    p = run("run", "munmap", "--size", "4M", "--impl", f"ref,tree:{tree},ref", "--json")
    assert p.returncode == 0, p.stderr
    impls = [j["impl"] for j in json_lines(p.stdout)]   # valid UTF-8 JSON
    assert impls[0] == impls[2] == "ref" and impls[1].endswith("bad\ufffdname,x")


def test_a_bug_in_ptelab_is_loud_not_a_finding():
    env = dict(os.environ, PTELAB_INJECT_LAB_BUG="segv")
    p = run("run", "munmap", "--size", "4M", "--json", env=env)
    assert p.returncode == 3 and p.stdout == ""
    line = p.stderr.strip().splitlines()[-1]
    assert line.startswith("ptelab: internal error, a bug in ptelab: ref: SIGSEGV")
    assert "child_run (cli/run.c:" in line


# 3. Results that are wrong are never "ok".
def test_reclaimed_bytes_are_exact():
    p = run("run", "reclaim-file", "--size", "64K", "--reclaim", "64K", "--folio-size", "64K",
            "--json")
    assert p.returncode == 0, p.stderr
    j, = json_lines(p.stdout)
    assert j["results"]["reclaimed_bytes"] == 65536 and j["invariants"]["ok"]


def test_every_run_starts_from_the_same_state():
    p = run("run", "mlock-loop", "--iterations", "1", "--size", "1M", "--impl", "ref,ref,ref",
            "--json")
    assert p.returncode == 0, p.stderr
    a, b, c = json_lines(p.stdout)
    assert a["events"] == b["events"] == c["events"]
    assert a["setup_events"] == b["setup_events"] == c["setup_events"]


def test_json_has_no_infinity():
    p = run("run", "young-scan", "--size", "4K", "--folio-size", "4K", "--json")
    assert p.returncode == 0, p.stderr
    j, = json_lines(p.stdout)  # raises on inf/nan
    assert all(isinstance(v, (int, float)) for v in j["results"].values())


@pytest.mark.parametrize("size,needle", [("18014398510530560K", "too large"),
                                         ("16777217T", "too large"),
                                         ("99999999999999999999", "too large")])
def test_oversized_sizes_are_refused(size, needle):
    p = run("run", "munmap", "--size", size)
    assert p.returncode == 2 and p.stdout == ""
    line, = p.stderr.strip().splitlines()
    assert needle in line and f"'{size}'" in line


# 4. check: distinct sequences, validated input.
@pytest.mark.parametrize("impl", ["", ",", "ref,", ",ref"])
def test_check_refuses_empty_backend_names(impl):
    p = run("check", "--impl", impl)
    assert p.returncode == 2 and "empty backend name" in p.stderr and p.stdout == ""


def test_check_validates_every_backend_first():
    p = run("check", "--impl", "ref,nosuch", "--json")
    assert p.returncode == 2 and p.stdout == "" and "unknown impl 'nosuch'" in p.stderr
    p = run("run", "munmap", "--size", "4M", "--impl", "ref,nosuch", "--json")
    assert p.returncode == 2 and p.stdout == "" and "unknown impl 'nosuch'" in p.stderr


def test_check_sequences_are_not_capped():
    # the count is accepted (the bad backend is what stops it)
    p = run("check", "--sequences", "100000000", "--impl", "nosuch")
    assert p.returncode == 2 and "unknown impl" in p.stderr


def test_sixteen_backends_run_and_seventeen_are_refused():
    p = run("run", "munmap", "--size", "4M", "--impl", ",".join(["ref"] * 16), "--json")
    assert p.returncode == 0 and len(json_lines(p.stdout)) == 16
    p = run("run", "munmap", "--size", "4M", "--impl", ",".join(["ref"] * 17))
    assert p.returncode == 2 and "more than 16" in p.stderr


# 5. Options that do not apply are errors; params say what ran.
@pytest.mark.parametrize("args,needle", [
    (["run", "munmap", "--lru", "classic"], "--lru does not apply to workload munmap"),
    (["run", "munmap", "--reclaim", "8M"], "--reclaim does not apply"),
    (["run", "munmap", "--iterations", "3"], "--iterations does not apply"),
    (["run", "fuzz", "--size", "4M"], "--size does not apply to workload fuzz"),
    (["run", "exit", "--folio-size", "16K"], "--folio-size does not apply to workload exit"),
    (["run", "young-scan", "--pmd-mapped", "--folio-size", "2M"], "--pmd-mapped does not apply"),
    (["run", "munmap", "--profile", ""], "--profile needs a name"),
    (["run", "munmap", "--without", "no-such-change"], "unknown switch"),
    (["run", "munmap", "--vcpus", "4"], "--vcpus does not apply to workload munmap"),
    (["run", "max-guest-memory", "--size", "2T"], "--size must be a multiple of 4K, from 4K to 1024G"),
    (["run", "max-guest-memory", "--host-memory", "1M"], "--host-memory must be"),
    (["run", "max-guest-memory", "--variant", "6.1"], "has no variant '6.1'"),
    (["run", "fuzz", "--cpus", "1"], "drives 2 CPUs"),
    (["run", "exit", "--arch", "x86"], "use --arch arm64"),
    (["run", "munmap", "--arch", "x86", "--no-hafdbs"], "--no-hafdbs does not apply to --arch x86"),
    (["run", "munmap", "--arch", "x86", "--tlbi-range"], "--tlbi-range does not apply"),
    (["run", "munmap", "--arch", "x86", "--hw-policy", "random"], "--hw-policy does not apply"),
])
def test_options_that_do_not_apply(args, needle):
    p = run(*args)
    assert p.returncode == 2 and p.stdout == ""
    line, = p.stderr.strip().splitlines()
    assert needle in line


@needs_73
@pytest.mark.parametrize("args,needle", [
    (["run", "young-scan", "--without", "ptep-get-early-exit"], "only the reference backend"),
    (["run", "exit", "--without", "exit-clear-ptes"], "only the reference backend"),
    (["run", "exit", "--variant", "no-opt"], "exists only in the reference backend"),
])
def test_reference_only_switches_refused_for_kernels(args, needle):
    p = run(*args, "--impl", "linux-7.3")
    assert p.returncode == 2 and needle in p.stderr and p.stdout == ""


def test_check_reproducer_is_accepted_by_run():
    # check passes any --sequences on as --iterations: run takes it too
    p = run("run", "fuzz", "--iterations", "20000000", "--impl", "nosuch")
    assert p.returncode == 2 and "unknown impl" in p.stderr


def test_tlb_entries_recorded_as_built():
    p = run("run", "munmap", "--size", "4M", "--tlb-entries", "17", "--json")
    j, = json_lines(p.stdout)
    assert j["params"]["tlb_entries"] == 10   # two 5-way sets


def test_params_record_what_ran():
    p = run("run", "fuzz", "--json")
    assert p.returncode == 0, p.stderr
    j, = json_lines(p.stdout)
    assert j["params"]["iterations"] == 16 and j["params"]["variant"] == "lifecycle"
    assert j["params"]["size"] is None and j["params"]["lru"] is None
    p = run("run", "reclaim-file", "--size", "8M", "--json")
    j, = json_lines(p.stdout)
    assert j["params"]["reclaim"] == (8 << 20) // 10 * 8 // 4096 * 4096
    assert j["params"]["lru"] == "mglru" and j["params"]["iterations"] is None


def test_list_shows_the_s3_switch_and_workload():
    p = run("list")
    assert "spte-test-clear-young" in p.stdout and "max-guest-memory" in p.stdout


def test_reproduce_size_scales_every_experiment(tmp_path):
    p = run("reproduce", "S4", "S2", "--size", "16M", "--out", str(tmp_path), timeout=300)
    assert p.returncode == 0, p.stderr
    s4 = json_lines((tmp_path / "S4.jsonl").read_text())
    s2 = json_lines((tmp_path / "S2.jsonl").read_text())
    assert {j["params"]["iterations"] for j in s4} == {500 * 16 // 1024}
    assert {j["params"]["iterations"] for j in s2} == {1000 * 16 // 1024}
    assert "published" not in (tmp_path / "S2.tsv").read_text().split("\n", 1)[1]


# 6. Smaller.
def test_reproduce_out_must_be_a_directory():
    p = run("reproduce", "S4", "--out", "/etc/passwd")
    assert p.returncode == 2 and p.stdout == ""
    line, = p.stderr.strip().splitlines()
    assert "not a directory" in line


def test_kernels_fetch_empty_version():
    p = run("kernels", "fetch", "")
    assert p.returncode == 2
    line, = p.stderr.strip().splitlines()
    assert line.startswith("ptelab: error: bad kernel version ''") and "fetch.sh" not in line


def test_host_out_of_memory_is_said_as_such():
    if not OPT.exists():
        pytest.skip("optimised binary not built")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (400 << 20, 400 << 20))
    p = run("run", "munmap", "--size", "64G", binary=OPT, preexec=limit)
    assert p.returncode == 2, p.stderr
    # progress lines may come first; the error is one line, the last
    line = p.stderr.strip().splitlines()[-1]
    assert line.startswith("ptelab: error: the host ran out of memory")
    assert "simulated" not in p.stderr and p.stdout == ""


@needs_73
def test_backend_cache_key_covers_pgtable_h_and_compiler(tmp_path):
    tree = make_tree(tmp_path, "key")
    impl = f"tree:{tree}"
    env = dict(os.environ)
    env.pop("CC", None)
    first = run("run", "munmap", "--size", "4M", "--impl", impl, env=env)
    assert first.returncode == 0
    again = run("run", "munmap", "--size", "4M", "--impl", impl, env=env)
    assert "building backend" not in again.stderr          # cached
    pgt = tree / "arch" / "arm64" / "include" / "asm" / "pgtable.h"
    pgt.write_text(pgt.read_text() + "\n/* changed */\n")
    after_h = run("run", "munmap", "--size", "4M", "--impl", impl, env=env)
    assert "building backend" in after_h.stderr
    env["CC"] = "gcc"
    after_cc = run("run", "munmap", "--size", "4M", "--impl", impl, env=env)
    assert "building backend" in after_cc.stderr


# A tree that changed a definition the shim duplicates is refused by name,
# before anything is compiled; a comment is no change.
DUP_CHANGES = {
    # (file, old, new, what the one error line names)
    "value": ("arch/arm64/include/asm/pgtable-hwdef.h",
              "#define CONT_PTE_SHIFT\t\t(CONFIG_ARM64_CONT_PTE_SHIFT + PAGE_SHIFT)",
              "#define CONT_PTE_SHIFT\t\t(CONFIG_ARM64_CONT_PTE_SHIFT + 1 + PAGE_SHIFT)",
              "CONT_PTE_SHIFT is 17 in this tree, but ptelab's copy in arch/arm64/pgtable-hwdef.h "
              "(in sync with 7.3) is 16"),
    "bit": ("arch/arm64/include/asm/pgtable-prot.h",
            "#define PTE_DIRTY\t\t(_AT(pteval_t, 1) << 55)",
            "#define PTE_DIRTY\t\t(_AT(pteval_t, 1) << 57)",
            "PTE_DIRTY is 0x200000000000000 in this tree"),
    "body": ("arch/arm64/include/asm/pgtable.h",
             "#define pte_dirty(pte)\t\t(pte_sw_dirty(pte) || pte_hw_dirty(pte))",
             "#define pte_dirty(pte)\t\t(pte_sw_dirty(pte))",
             'pte_dirty is "( pte_sw_dirty ( $1 ) )" in this tree, but ptelab\'s copy in '
             'arch/arm64/pte.h (in sync with 7.3) follows'),
}


@needs_73
@pytest.mark.parametrize("change", sorted(DUP_CHANGES))
def test_tree_with_a_changed_duplicated_definition_is_refused(tmp_path, change):
    rel, old, new, needle = DUP_CHANGES[change]
    tree = make_tree(tmp_path, change)
    f = tree / rel
    text = f.read_text()
    assert old in text
    f.write_text(text.replace(old, new, 1))
    p = run("run", "munmap", "--size", "4M", "--impl", f"tree:{tree}")
    assert p.returncode == 2
    line, = [l for l in p.stderr.splitlines() if "error" in l]
    assert line.startswith("ptelab: error: kernel 7.3") and f"{rel}: " in line and needle in line, line
    assert "building backend" not in p.stderr
    # check refuses it the same way
    c = run("check", "--impl", f"tree:{tree}", "--sequences", "1")
    assert c.returncode == 2 and needle in c.stderr


@needs_73
def test_a_comment_on_a_duplicated_definition_is_no_change(tmp_path):
    tree = make_tree(tmp_path, "comment")
    f = tree / "arch/arm64/include/asm/pgtable-hwdef.h"
    old = "#define CONT_PTE_SHIFT\t\t(CONFIG_ARM64_CONT_PTE_SHIFT + PAGE_SHIFT)"
    text = f.read_text()
    assert old in text
    f.write_text(text.replace(old, old + " /* CONT_PTE_SHIFT is 17 (one day) */\n"
                              "/* #define CONT_PTE_SHIFT 99 */", 1))
    p = run("run", "munmap", "--size", "4M", "--impl", f"tree:{tree}", "--json")
    assert p.returncode == 0, p.stderr
    j, = json_lines(p.stdout)
    assert j["invariants"]["ok"]


def _fetch(version, build, **env):
    e = dict(os.environ, **env)
    return subprocess.run(["bash", str(ROOT / "kernel" / "fetch.sh"), version, str(build)],
                          capture_output=True, text=True, env=e, timeout=300)


def test_fetch_removes_what_a_killed_fetch_left(tmp_path):
    stale = tmp_path / ".fetch-6.12.AbCdEf"
    (stale / "tree").mkdir(parents=True)
    # an unreachable mirror: the fetch fails, but only after cleaning up
    p = _fetch("6.12", tmp_path, PTELAB_DEBIAN_MIRROR="http://127.0.0.1:9/debian")
    assert p.returncode != 0
    assert not stale.exists()
    assert not list(tmp_path.glob(".fetch-*"))


def test_fetch_never_trusts_unsigned_lists_unasked(tmp_path):
    empty = tmp_path / "empty.gpg"
    empty.write_bytes(b"")
    p = _fetch("6.12", tmp_path / "b", PTELAB_DEBIAN_KEYRING=str(empty),
               PTELAB_DEBIAN_SUITES="bookworm-backports")
    if "cannot reach" in p.stderr:
        pytest.skip("Debian mirror unreachable")
    assert p.returncode != 0
    assert "--allow-unverified" in p.stderr
    assert "trusted=yes" not in (tmp_path / "b" / "apt" / "main" / "sources.list").read_text()


def test_check_time_budget_never_says_clean_for_work_not_done():
    """check --time: configurations whose work did not all run make the verdict
    incomplete (exit 4), never "all invariants held"."""
    p = run("check", "--time", "1", "--sequences", "100000", "--jobs", "1", "--json", timeout=120)
    assert p.returncode == 4, p.stderr[-2000:]
    lines = [json.loads(l) for l in p.stdout.splitlines()]
    s = lines[-1]["summary"]
    assert s["verdict"] == "incomplete" and not s["ok"] and s["configurations_not_run"] > 0
    rows = [l["row"] for l in lines if "row" in l]
    assert len(rows) == 80 and any(not r["ran"] for r in rows)
    assert all((r["sequences"] > 0) == r["ran"] for r in rows)
    p = run("check", "--time", "1", "--sequences", "100000", "--jobs", "1", timeout=120)
    assert p.returncode == 4
    assert "all invariants held" not in p.stdout
    assert "INCOMPLETE: " in p.stdout and " not run " in p.stdout
    # the whole of a small campaign is a clean verdict
    p = run("check", "--sequences", "1", "--json", timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert json.loads(p.stdout.splitlines()[-1])["summary"]["verdict"] == "clean"


def _small_files():
    """Files past 20 KB cannot be written (EFBIG), as on a full disk."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))


def test_reproduce_out_write_error_is_an_error(tmp_path):
    out = tmp_path / "out"
    p = run("reproduce", "S5", "--size", "64M", "--out", str(out), preexec=_small_files,
            timeout=600)
    assert p.returncode == 2, p.stderr[-2000:]
    assert "ptelab: error: cannot write " in p.stderr and "S5.jsonl" in p.stderr
    # nothing cut short is left: every file there is whole, no temporaries
    names = sorted(f.name for f in out.iterdir())
    assert "S5.jsonl" not in names and not [n for n in names if ".tmp" in n], names
    for f in out.glob("*.tsv"):
        assert f.read_text().endswith("\n")


@pytest.mark.parametrize("args", [["list"], ["run", "munmap", "--size", "16M", "--json"],
                                  ["check", "--sequences", "1", "--json"]])
def test_results_to_a_full_device_are_an_error(args):
    with open("/dev/full", "w") as full:
        p = subprocess.run([_binary(), *args], stdout=full, stderr=subprocess.PIPE, text=True,
                           cwd=ROOT, timeout=300)
    assert p.returncode == 2
    assert p.stderr.strip().splitlines()[-1] == ("ptelab: error: cannot write the results to "
                                                 "standard output: No space left on device")


def _processes_with(word):
    """Live (not zombie) processes whose command line contains word."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().decode(errors="replace")
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if word in args and state != "Z":
            found.append(int(pid))
    return found


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_to_reproduce_leaves_nothing_behind(tmp_path, sig):
    """timeout(1), a CI job's limit or ^C: no worker computes on, no --out file
    is left empty or half-written."""
    out = tmp_path / f"out-{sig.name}"
    proc = subprocess.Popen([_binary(), "reproduce", "--out", str(out)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(3)
    assert proc.poll() is None, "reproduce ended before the signal"
    proc.send_signal(sig)
    proc.wait(timeout=60)
    for _ in range(100):
        left = _processes_with(str(out))
        if not left:
            break
        time.sleep(0.1)
    else:
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        pytest.fail(f"{len(left)} processes outlived reproduce")
    assert not [f.name for f in out.iterdir() if f.stat().st_size == 0 or ".tmp" in f.name]


def test_small_refusals_are_one_line():
    p = run("run", "munmap", "--size", "4M", "--walkers", "cpu1=ha,cpu1=none")
    assert p.returncode == 2
    assert p.stderr == "ptelab: error: --walkers names cpu1 twice; give each agent once\n"
    # a newline in what a message quotes does not split it
    p = run("run", "munmap", "--size", "4M", "--profile", "no\nsuch")
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    # --size's help offers only sizes it takes
    assert "1T" not in run("run", "--help").stdout


@needs_73
def test_recorded_command_is_shell_quoted(tmp_path):
    """JSON "command" gives the words back to a shell as they were given, a
    single quote in a tree's path too (it lacked the '\\'' escape)."""
    link = tmp_path / "it's \"odd\" $x"
    link.symlink_to(KERNEL)
    words = ["run", "munmap", "--size", "4M", "--json", "--core", "ref", "--impl", f"tree:{link}"]
    p = run(*words, timeout=600)
    assert p.returncode == 0, p.stderr
    cmd = json.loads(p.stdout.splitlines()[0])["command"]
    assert shlex.split(cmd) == ["ptelab", *words]


@needs_73
def test_kernel_code_that_allocates_without_bound_is_a_finding(tmp_path):
    """The run's child has an address-space limit sized from the run: the tree's
    malloc gets NULL there and its own code faults on it, a finding naming the
    function, long before the host's OOM killer would pick a process. (The
    optimised binary: AddressSanitizer needs the address space for its shadow.)"""
    tree = make_tree(tmp_path, "alloc", "alloc")
    p = run("run", "munmap", "--size", "4M", "--impl", f"tree:{tree}", "--json",
            binary=ROOT / "ptelab", timeout=300)
    assert p.returncode == 1, p.stderr[-2000:]
    f = json.loads(p.stdout.splitlines()[-1])["finding"]
    assert f["kind"] == "crash" and f["in_kernel_code"] and f["function"] == "contpte_ptep_get", f


@needs_73
def test_interrupted_builds_leave_nothing_for_ever(tmp_path):
    """Temporaries of a backend build whose process is gone (a build killed
    half-way) are swept before the next build; a git: revision that cannot be
    built leaves no half-made tree."""
    backends = ROOT / "build" / "backends"
    backends.mkdir(parents=True, exist_ok=True)
    gone = subprocess.Popen(["true"])
    gone.wait()
    stale = [backends / f"stale-0123456789abcdef.so.{gone.pid}.tmp",
             backends / f"stale-0123456789abcdef.so.{gone.pid}.0.o",
             backends / f"stale-0123456789abcdef.so.deps.{gone.pid}"]
    for f in stale:
        f.write_text("left by a build that was killed\n")
    tree = make_tree(tmp_path, "fresh")
    (tree / "mm" / "memory.c").write_text((tree / "mm" / "memory.c").read_text() + "\n")
    p = run("run", "munmap", "--size", "4M", "--impl", f"tree:{tree}", timeout=600)
    assert p.returncode == 0, p.stderr
    assert not [f for f in stale if f.exists()]
    # a commit without contpte.c: refused, and its half-made tree removed
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "Makefile").write_text("VERSION = 7\nPATCHLEVEL = 3\n")
    git = ["git", "-C", str(repo), "-c", "user.email=lab@example.org", "-c", "user.name=lab"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "no contpte"], check=True)
    trees = ROOT / "build" / "git-trees"
    before = set(trees.glob("*")) if trees.exists() else set()
    p = run("run", "munmap", "--size", "4M", "--impl", f"git:{repo}@HEAD")
    assert p.returncode == 2 and "has no arch/arm64/mm/contpte.c" in p.stderr
    after = set(trees.glob("*")) if trees.exists() else set()
    assert not [d for d in after - before if ".tmp" in d.name]


@needs_73
def test_tree_path_with_a_newline_builds(tmp_path):
    """The #line directives name the tree's files with the path escaped."""
    tree = make_tree(tmp_path, "new\nline")
    p = run("run", "munmap", "--size", "4M", "--impl", f"tree:{tree}", "--json")
    assert p.returncode == 0, p.stderr[-2000:]
    assert json.loads(p.stdout)["invariants"]["ok"]


def test_sanitize_under_an_address_space_limit_says_so():
    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    p = run("run", "munmap", "--size", "4M", "--impl", "ref", "--sanitize",
            binary=ROOT / "ptelab", preexec=limited)
    assert p.returncode == 2 and p.stderr.count("\n") == 1
    assert "--sanitize needs an unlimited address space" in p.stderr

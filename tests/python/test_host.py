# SPDX-License-Identifier: GPL-2.0-only
"""ptelab host: the workload's shape timed on the running kernel, per mTHP size."""
import glob
import json
import os
import subprocess

from conftest import ROOT, _binary

THP = "/sys/kernel/mm/transparent_hugepage"


def knobs():
    out = {}
    for f in sorted(glob.glob(f"{THP}/hugepages-*kB/enabled")):
        out[f] = open(f).read().strip()
    return out


def host(*args, env=None):
    e = dict(os.environ, **(env or {}))
    return subprocess.run([_binary(), "host", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=600, env=e)


def writable():
    ks = knobs()
    return bool(ks) and all(os.access(f, os.W_OK) for f in ks)


def test_munmap_json_per_folio_size_and_knobs_restored():
    before = knobs()
    p = host("munmap", "--size", "16M", "--repeat", "3", "--folio-size", "4K,64K", "--json")
    assert p.returncode == 0, p.stderr
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    assert [r["params"]["folio_size"] for r in rows] == [4096, 65536]
    for r in rows:
        assert r["mode"] == "host" and r["workload"] == "munmap" and r["measured"] == "munmap"
        res = r["results"]
        assert len(res["samples_ns"]) == 3
        assert r["host_phase_ns"] == res["best_ns"] == min(res["samples_ns"]) > 0
        assert res["best_ns"] <= res["median_ns"] <= max(res["samples_ns"])
        assert 0 < r["host_phase_ns"] <= r["host_ns"]
        assert abs(res["ns_per_page"] - res["best_ns"] / 4096) < 1e-3
    big = rows[1]["results"]
    if os.path.exists(f"{THP}/hugepages-64kB") and writable():
        # the knob was set, and the kernel's own stats say it gave 64K folios
        assert big["knob"] == "set"
        assert big["folios_expected"] == 16 * 1024 // 64 * 3
        assert big["folios"] + big["fallbacks"] >= big["folios_expected"]
        assert big["folios"] > 0
    assert knobs() == before, "the mTHP knobs must be restored"


def test_pte_mapped_2m_is_split_and_pmd_mapped_is_not():
    if not os.path.exists(f"{THP}/hugepages-2048kB") or not writable():
        p = host("munmap", "--size", "4M", "--repeat", "1", "--folio-size", "4K", "--json")
        assert p.returncode == 0, p.stderr
        return
    pte = json.loads(host("munmap", "--size", "8M", "--repeat", "1", "--folio-size", "2M",
                          "--json").stdout)
    pmd = json.loads(host("munmap", "--size", "8M", "--repeat", "1", "--folio-size", "2M",
                          "--pmd-mapped", "--json").stdout)
    if pte["results"]["folios"] > 0:
        assert pte["results"]["pmd_mapped_kb"] == 0
    if pmd["results"]["folios"] == 4:
        assert pmd["results"]["pmd_mapped_kb"] == 8 * 1024


def test_fork_and_madvise_table():
    for w, phase in (("fork", "fork timed"), ("madvise", "MADV_DONTNEED) timed")):
        p = host(w, "--size", "4M", "--repeat", "2", "--folio-size", "4K")
        assert p.returncode == 0, p.stderr
        assert phase in p.stdout.splitlines()[0]
        assert p.stdout.splitlines()[2].startswith("4K ")


def test_kernel_without_mthp_measures_4k_only():
    env = {"PTELAB_THP_DIR": "/nonexistent/thp"}
    p = host("munmap", "--size", "4M", "--repeat", "1", "--json", env=env)
    assert p.returncode == 0, p.stderr
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    assert [r["params"]["folio_size"] for r in rows] == [4096]
    assert rows[0]["results"]["knob"].startswith("none")
    p = host("munmap", "--size", "4M", "--folio-size", "64K", env=env)
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1
    assert "no /nonexistent/thp/hugepages-64kB" in p.stderr and "4K only" in p.stderr


def test_knob_not_writable_is_said_and_measured_anyway(tmp_path):
    # a stand-in sysfs whose knob cannot be written (a directory in its place)
    d = tmp_path / "hugepages-64kB"
    (d / "stats").mkdir(parents=True)
    (d / "enabled").write_text("always inherit madvise [never]\n")
    (d / "enabled").chmod(0o444)
    os.chmod(d, 0o555)
    try:
        p = host("munmap", "--size", "4M", "--repeat", "1", "--folio-size", "64K", "--json",
                 env={"PTELAB_THP_DIR": str(tmp_path)})
    finally:
        os.chmod(d, 0o755)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    if os.geteuid() == 0:
        # root writes through the mode bits: the stand-in knob was set
        assert r["results"]["knob"] == "set"
        # and restored: the word it had ("never") written back
        assert (d / "enabled").read_text().strip() == "never"
    else:
        assert r["results"]["knob"].startswith("unchanged")
        assert "cannot set" in p.stderr


def test_bad_input_one_line():
    for args, want in ((["nosuch"], "unknown host workload 'nosuch'"),
                       (["munmap", "--size", "3M"], "--size '3M'"),
                       (["munmap", "--folio-size", "48K"], "--folio-size '48K'"),
                       (["munmap", "--repeat", "0"], "--repeat"),
                       ([], "usage: ptelab host")):
        p = host(*args)
        assert p.returncode == 2, args
        assert want in p.stderr, (args, p.stderr)
        assert len(p.stderr.strip().splitlines()) == 1, p.stderr

# SPDX-License-Identifier: GPL-2.0-only
"""The layering DESIGN.md states, read from the sources: what each folder
must not know. Comments are stripped first, so a comment naming a thing
is no offence."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _code(path):
    text = path.read_text()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def _offences(folder, pattern):
    rx = re.compile(pattern)
    hits = []
    for p in sorted((ROOT / folder).rglob("*.[ch]")):
        for n, line in enumerate(_code(p).splitlines(), 1):
            if rx.search(line):
                hits.append(f"{p.relative_to(ROOT)}:{n}: {line.strip()}")
    return hits


def test_core_mm_does_not_read_the_descriptor_format():
    # core-mm reads entries with the arch's kernel-named helpers (arch/pgtable.h)
    assert _offences("mm", r"->\s*fmt\b|\bdesc_(table|leaf|pfn)\b|\btable_addr\b") == []


def test_workloads_do_not_read_the_descriptor_format():
    # a workload asks the arch (arch_cont_ptes), as kernel code uses CONT_PTES
    assert _offences("workloads", r"->\s*fmt\b|\bdesc_(table|leaf|pfn)\b|\btable_addr\b") == []


def test_hw_knows_no_paths():
    # the lab's directory layout lives in lab/paths.c
    assert _offences("hw", r"\blab_home\b|\bgetenv\b|\bopendir\b|\bfopen\b") == []


def test_workloads_do_not_set_switches():
    # a variant's switches are set by the lab before the run (lab/variants.c)
    assert _offences("workloads", r"\b(arm64_sw|mm_sw)\s*\.\s*\w+\s*=[^=]|lab_switch(_off|es_reset)\b") == []


def test_arch_does_not_call_up_into_mm():
    # arch reads folios through include/page.h's vmemmap view, as the kernel's contpte.c
    hits = [h for h in _includes("arch") if h[1].startswith(("mm/", "lab/", "workloads/", "kernel/", "cli/"))]
    assert hits == []
    assert _offences("arch", r"\bpfn_folio_span\b") == []


def _includes(folder):
    rx = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
    out = []
    for p in sorted((ROOT / folder).rglob("*.[ch]")):
        for inc in rx.findall(p.read_text()):
            out.append((str(p.relative_to(ROOT)), inc))
    return out

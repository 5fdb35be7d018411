#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""REPORT.md for a `ptelab reproduce --out DIR`: what ran, where its figures
stand against the published ones, and how to trust them.

    report.py DIR

reads DIR/S*.tsv (the tables reproduce printed), DIR/S*.jsonl (every run,
labelled with its experiment and row) and data/published.tsv (the published
figures and their sources), and writes DIR/REPORT.md (and the same as
DIR/report.html): provenance (ptelab
version and commit, command line, date, kernel packages or tree revisions,
profiles and what each was fitted on), each experiment's table in at most
80 columns, the residual of every published figure marked fitted or
prediction, the plots, and the sources. Nothing in it is computed here
except ratios of numbers the lab or the publications gave.
"""
import datetime
import glob
import html
import json
import os
import re
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIDTH = 80


class ReportError(Exception):
    pass


def read_tsv(path):
    with open(path, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    if not rows:
        raise ReportError(f"{path}: empty")
    return rows[0], rows[1:]


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def published():
    """{(experiment, row, column): (value, unit, source)}"""
    out = {}
    with open(os.path.join(ROOT, "data", "published.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            exp, row, col, value, unit, source = line.rstrip("\n").split("\t")
            out[(exp, row, col)] = (float(value), unit, source)
    return out


def fitted_on(profile):
    """The profile's own fitted_on line, verbatim."""
    try:
        with open(os.path.join(ROOT, "profiles", profile + ".prof"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("fitted_on"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return "(unknown)"


def md_tables(header, rows):
    """Markdown tables at most WIDTH columns wide: the first column repeated,
    the others split into as many tables as it takes."""
    widths = [max(len(c) for c in col) for col in zip(header, *rows)]

    def line(cells, cols):
        return "| " + " | ".join(cells[i].ljust(widths[i]) for i in cols) + " |"

    groups, cur = [], []
    for i in range(1, len(header)):
        trial = [0] + cur + [i]
        if cur and len(line(header, trial)) > WIDTH:
            groups.append(cur)
            cur = [i]
        else:
            cur.append(i)
    if cur:
        groups.append(cur)
    out = []
    for g in groups:
        cols = [0] + g
        out.append(line(header, cols))
        out.append("|" + "|".join("-" * (widths[i] + 2) for i in cols) + "|")
        out.extend(line(r + [""] * (len(header) - len(r)), cols) for r in rows)
        out.append("")
    return out


from fitted import FITTED  # noqa: E402 (tools/fitted.py, beside this script)


# Where each table keeps a lab figure and the published one beside it, and
# which published (row, column) of data/published.tsv a table row is.
PAIRS = {
    "S1": [("modelled_s", "published_s", "s", lambda r: tuple(r[0].split(" ", 1)))],
    "S3": [("x_full_s", "published_s", "s", lambda r: tuple(r[0].split(" ", 1)))],
    "S4": [("modelled_s", "published_s", "s", lambda r: tuple(r[0].split(" ", 1)))],
    "S5": [("lab_before_ms", "published_before_ms", "ms", lambda r: (r[1], "before")),
           ("lab_after_ms", "published_after_ms", "ms", lambda r: (r[1], "after"))],
    "S2": [("lab_1node_pct", "published_1node_pct", "%", lambda r: (r[0], "one-node"))],
}


def residuals(exp, header, rows):
    """(label, lab, published, unit, fitted) for every row whose published cell
    the table filled (reproduce fills it only where the scale matches)."""
    col = {h: i for i, h in enumerate(header)}
    out = []
    for lab_col, pub_col, unit, key in PAIRS.get(exp, ()):
        if lab_col not in col or pub_col not in col:
            continue
        for r in rows:
            try:
                lab, value = float(r[col[lab_col]]), float(r[col[pub_col]])
            except (ValueError, IndexError):
                continue  # "-": no published figure at this scale, or none at all
            prow, pcol = key(r)
            label = " ".join(r[:2]) if exp == "S5" else r[0]
            if exp == "S5":
                label += f" {pcol}"
            out.append((label, lab, value, unit, (prow, pcol) in FITTED.get(exp, ())))
    return out


def inline(text):
    """`code`, **bold** and *emphasis* of one line, HTML-escaped."""
    text = html.escape(text, quote=False)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"\*([^*]+)\*", r"<em>\1</em>", text)


def to_html(lines):
    """report.html: the same report, for a browser (the Markdown subset it uses)."""
    out = ['<!DOCTYPE html>', '<html><head><meta charset="utf-8"><title>ptelab reproduce: '
           'report</title><style>body{font-family:sans-serif;max-width:60em;margin:2em auto}'
           'table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;'
           'padding:.2em .5em}td{text-align:right}td:first-child{text-align:left}'
           'code{background:#f4f4f4}</style></head><body>']
    i = 0
    while i < len(lines):
        l = lines[i]
        if l.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append([c.strip() for c in lines[i].strip("|").split("|")])
                i += 1
            out.append("<table>")
            for k, r in enumerate(rows):
                if k == 1 and all(set(c) <= set("-:") for c in r):
                    continue
                tag = "th" if k == 0 else "td"
                out.append("<tr>" + "".join(f"<{tag}>{inline(c)}</{tag}>" for c in r) + "</tr>")
            out.append("</table>")
            continue
        m = re.match(r"(#+) (.*)", l)
        if m:
            n = len(m[1])
            out.append(f"<h{n}>{inline(m[2])}</h{n}>")
        elif l.startswith("!["):
            m = re.match(r"!\[([^]]*)\]\(([^)]+)\)", l)
            out.append(f'<p><img src="{html.escape(m[2])}" alt="{html.escape(m[1])}"></p>')
        elif l.lstrip().startswith("- "):
            items = []
            while i < len(lines) and lines[i].lstrip().startswith("- "):
                item = lines[i].lstrip()[2:]
                i += 1
                # a wrapped item continues on indented lines
                while i < len(lines) and lines[i].startswith("   ") and \
                        not lines[i].lstrip().startswith("- "):
                    item += " " + lines[i].strip()
                    i += 1
                items.append(f"<li>{inline(item)}</li>")
            out.append("<ul>" + "".join(items) + "</ul>")
            continue
        elif l.strip():
            para = [l]
            while i + 1 < len(lines) and lines[i + 1].strip() and \
                    not re.match(r"[|#!]|\s*- ", lines[i + 1]):
                i += 1
                para.append(lines[i])
            out.append("<p>" + inline(" ".join(para)) + "</p>")
        i += 1
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def wrap(lines):
    """Prose and bullets at most WIDTH columns (tables are narrow already)."""
    out = []
    for l in lines:
        if len(l) <= WIDTH or l.startswith("|") or l.startswith("!["):
            out.append(l)
            continue
        lead = len(l) - len(l.lstrip(" -"))
        out.extend(textwrap.wrap(l, WIDTH, subsequent_indent=" " * lead,
                                 break_long_words=False, break_on_hyphens=False))
    return out


def main(argv):
    if len(argv) != 1:
        raise ReportError("usage: report.py DIR")
    d = argv[0]
    tsvs = sorted(glob.glob(os.path.join(d, "S*.tsv")))
    if not tsvs:
        raise ReportError(f"{d}: no S*.tsv (run ptelab reproduce --out {d} first)")
    pub = published()
    runs = []
    for f in sorted(glob.glob(os.path.join(d, "S*.jsonl"))):
        runs.extend(read_jsonl(f))
    first = runs[0] if runs else {}
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["# ptelab reproduce: report", "",
             f"- ptelab: {first.get('version', '(unknown)')}",
             f"- command: `{first.get('command', '(unknown)')}`",
             f"- date: {now}", f"- runs: {len(runs)} (every one in the S*.jsonl files, "
                                 "labelled with its experiment and row)"]
    backends = {}
    for r in runs:
        b = r.get("backend") or {}
        if b.get("kind") == "fetched":
            backends[r["impl"]] = f"Debian {b.get('package')} {b.get('package_version')}"
        elif b.get("kind") == "tree":
            backends[r["impl"]] = f"tree {b.get('path')}, git {b.get('git') or '(none)'}"
        elif b.get("kind") == "git":
            backends[r["impl"]] = f"{b.get('path')} at {b.get('rev')} ({b.get('commit')})"
        elif b.get("kind") == "builtin":
            backends[r["impl"]] = "built in (the reference)"
    lines.append("- backends:")
    lines += [f"  - `{k}`: {v}" for k, v in sorted(backends.items())]
    profiles = sorted({r.get("profile") for r in runs if r.get("profile")})
    lines.append("- profiles, and what each was fitted on (its own words):")
    lines += [f"  - `{p}`: {fitted_on(p)}" for p in profiles]
    lines += ["", "Published figures are never computed: they come from "
              "`data/published.tsv` with their sources (below). A **fitted** figure "
              "is one a profile's costs were solved from, so the lab meets it by "
              "construction; every other one is a *prediction*.", ""]
    fidelity = []
    for path in tsvs:
        exp = os.path.basename(path)[:-4]
        header, rows = read_tsv(path)
        lines += [f"## {exp}", ""]
        lines += md_tables(header, rows)
        res = residuals(exp, header, rows)
        if res:
            lines += ["| published figure | lab | published | error | |",
                      "|---|---:|---:|---:|---|"]
            for label, lab, value, unit, fit in res:
                err = (lab - value) / value * 100 if value else float("nan")
                unit = "" if unit == "%" else unit
                mark = "**fitted**" if fit else "*prediction*"
                lines.append(f"| {label} | {lab:.4g} {unit} | {value:.4g} {unit} | "
                             f"{err:+.1f}% | {mark} |")
                fidelity.append((exp, label, lab, value, unit, err, fit))
            lines.append("")
        if os.path.exists(os.path.join(d, exp + ".svg")):
            lines += [f"![{exp}: modelled against published]({exp}.svg)", ""]
        sources = sorted({src for (e, _, _), (_, _, src) in pub.items() if e == exp})
        if sources:
            lines += ["Sources:", ""] + [f"- {s}" for s in sources] + [""]
    if fidelity:
        lines += ["## Fidelity: every published figure", "",
                  "| exp | figure | lab | published | error | |", "|---|---|---:|---:|---:|---|"]
        for exp, label, lab, value, unit, err, fit in fidelity:
            lines.append(f"| {exp} | {label} | {lab:.4g} | {value:.4g} {unit} | {err:+.1f}% | "
                         f"{'**fitted**' if fit else '*prediction*'} |")
        lines.append("")
    for name, text in (("REPORT.md", "\n".join(wrap(lines)) + "\n"),
                       ("report.html", to_html(lines))):
        with open(os.path.join(d, name + ".tmp"), "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(os.path.join(d, name + ".tmp"), os.path.join(d, name))
        print(os.path.join(d, name))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (ReportError, OSError, ValueError, KeyError) as e:
        print(f"report: error: {e}", file=sys.stderr)
        sys.exit(2)

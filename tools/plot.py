# SPDX-License-Identifier: GPL-2.0-only
"""Plot the TSV tables of `ptelab reproduce --out DIR` as SVG.

Usage: python3 tools/plot.py DIR

Writes S1.svg, S2.svg, S4.svg and S5.svg for whichever of S1.tsv, S2.tsv,
S4.tsv and S5.tsv are in DIR, and prints the path of each. Published
figures are drawn hollow and labelled "published (not computed)".

Standard library only, so it runs on any machine that runs the lab.
"""
import json
import math
import os
import sys
from xml.sax.saxutils import escape

S5_COLUMNS = ["arch", "folio", "lab_before_ms", "lab_after_ms",
              "published_before_ms", "published_after_ms"]
# (column, legend label, colour, lab?). Published figures get hollow
# squares and no line, so they never pass for computed ones.
SERIES = [
    ("lab_before_ms", "lab before", "#c0392b", True),
    ("lab_after_ms", "lab after", "#1f5fa8", True),
    ("published_before_ms", "published before (not computed)", "#c0392b", False),
    ("published_after_ms", "published after (not computed)", "#1f5fa8", False),
]
PW, PH = 440, 300                   # one panel
ML, MR, MT, MB = 56, 30, 34, 44     # margins inside a panel
LEGEND_H = 30


from fitted import fitted  # noqa: E402 (tools/fitted.py, beside this script)


class PlotError(Exception):
    pass


def folio_kib(label):
    """'64K' -> 64; the x axis is log2 of this."""
    units = {"K": 1, "M": 1024, "G": 1024 * 1024}
    num, unit = label[:-1], label[-1:]
    if unit not in units or not num.isdigit() or int(num) <= 0:
        raise ValueError(f"bad folio size {label!r}")
    return int(num) * units[unit]


def read_s5(path):
    """Return {arch: [(kib, folio, {column: float or None})]} sorted by size."""
    with open(path, encoding="utf-8") as f:
        lines = [ln.rstrip("\r\n") for ln in f if ln.strip()]
    if not lines or lines[0].split("\t") != S5_COLUMNS:
        raise PlotError(f"{path}: header is not {' '.join(S5_COLUMNS)}")
    data, seen = {}, set()
    for n, line in enumerate(lines[1:], start=2):
        cells = line.split("\t")
        if len(cells) != len(S5_COLUMNS):
            raise PlotError(f"{path}:{n}: {len(cells)} fields, expected {len(S5_COLUMNS)}")
        arch, folio = cells[0], cells[1]
        if not arch or (arch, folio) in seen:
            raise PlotError(f"{path}:{n}: empty or repeated arch/folio")
        seen.add((arch, folio))
        try:
            kib = folio_kib(folio)
            vals = {}
            for col, cell in zip(S5_COLUMNS[2:], cells[2:]):
                # '-' means "no figure"; only published columns may lack one.
                if cell in ("-", "") and col.startswith("published"):
                    vals[col] = None
                    continue
                v = float(cell)
                if not math.isfinite(v) or v < 0:
                    raise ValueError(f"bad time {cell!r}")
                vals[col] = v
        except ValueError as e:
            raise PlotError(f"{path}:{n}: {e}") from None
        data.setdefault(arch, []).append((kib, folio, vals))
    if not data:
        raise PlotError(f"{path}: no data rows")
    for rows in data.values():
        rows.sort()
    return data


def nice_ticks(top):
    """0..top in 4-6 steps of 1, 2 or 5 x 10^k, so the axis reads easily."""
    return nice_span(0.0, top)


def nice_span(lo, hi):
    """Ticks covering lo..hi (lo <= 0 <= hi) in steps of 1, 2 or 5 x 10^k."""
    if hi - lo <= 0:
        hi = lo + 1.0
    raw = (hi - lo) / 5
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.floor(lo / step + 1e-9)
    last = math.ceil(hi / step - 1e-9)
    return [i * step for i in range(first, last + 1)]


def fmt(v):
    return f"{v:g}"


def marker(x, y, colour, lab, cls):
    if lab:
        return (f'<circle class="marker {cls}" cx="{x:.1f}" cy="{y:.1f}" r="3.5" '
                f'fill="{colour}" stroke="{colour}"/>')
    return (f'<rect class="marker {cls}" x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" '
            f'height="8" fill="white" stroke="{colour}" stroke-width="1.5"/>')


def plot_s5(data):
    # Shared axes across panels: small multiples must be comparable by eye.
    sizes = sorted({(kib, folio) for rows in data.values() for kib, folio, _ in rows})
    lo, hi = math.log2(sizes[0][0]), math.log2(sizes[-1][0])
    vmax = max(v for rows in data.values() for *_, vals in rows
               for v in vals.values() if v is not None)
    yticks = nice_ticks(vmax)
    ytop = yticks[-1]
    # At least wide enough for the legend when there is a single panel.
    w, h = max(PW * len(data), 700), PH + LEGEND_H
    any_fitted = False
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>']
    for i, (arch, rows) in enumerate(data.items()):
        ox = i * PW
        x0, x1, y0, y1 = ox + ML, ox + PW - MR, PH - MB, MT

        def sx(kib):
            span = (hi - lo) or 1.0
            return x0 + (math.log2(kib) - lo) / span * (x1 - x0)

        def sy(v):
            return y0 - v / ytop * (y0 - y1)

        out.append(f'<g class="panel" data-arch="{escape(arch)}">')
        out.append(f'<text x="{(x0 + x1) / 2:.1f}" y="20" text-anchor="middle" '
                   f'font-size="13" font-weight="bold">'
                   f'S5 munmap \u2014 {escape(arch)}</text>')
        for t in yticks:
            y = sy(t)
            out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x1}" y2="{y:.1f}" stroke="#e4e4e4"/>')
            out.append(f'<text x="{x0 - 6}" y="{y + 4:.1f}" text-anchor="end">{fmt(t)}</text>')
        for kib, folio in sizes:
            x = sx(kib)
            out.append(f'<line x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y0 + 4}" stroke="black"/>')
            out.append(f'<text x="{x:.1f}" y="{y0 + 16}" text-anchor="middle">{escape(folio)}</text>')
        out.append(f'<polyline points="{x0},{y1} {x0},{y0} {x1},{y0}" fill="none" stroke="black"/>')
        out.append(f'<text x="{(x0 + x1) / 2:.1f}" y="{y0 + 32}" text-anchor="middle">'
                   f'folio size (log2 scale)</text>')
        out.append(f'<text transform="translate({ox + 14},{(y0 + y1) / 2:.1f}) rotate(-90)" '
                   f'text-anchor="middle">modelled time (ms)</text>')
        for col, _, colour, lab in SERIES:
            pts = [(sx(kib), sy(vals[col])) for kib, _, vals in rows if vals[col] is not None]
            cls = col[:-3].replace("_", "-")
            if lab and len(pts) > 1:
                coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
                out.append(f'<polyline class="line {cls}" points="{coords}" fill="none" '
                           f'stroke="{colour}" stroke-width="1.5"/>')
            out.extend(marker(x, y, colour, lab, cls) for x, y in pts)
            if lab:
                # a lab point the profile was fitted on: ringed (the published point is there)
                pub = col.replace("lab_", "published_")
                for kib, folio, vals in rows:
                    if vals[col] is not None and vals.get(pub) is not None and \
                            fitted("S5", folio, col[4:-3]):
                        any_fitted = True
                        out.append(f'<circle class="fitted {cls}" cx="{sx(kib):.1f}" '
                                   f'cy="{sy(vals[col]):.1f}" r="7" fill="none" '
                                   f'stroke="{colour}" stroke-width="1"/>')
        out.append('</g>')
    # One legend for all panels, along the bottom.
    out.append('<g class="legend">')
    x, y = 16, PH + LEGEND_H / 2
    for col, label, colour, lab in SERIES:
        if lab:
            out.append(f'<line x1="{x}" y1="{y}" x2="{x + 20}" y2="{y}" stroke="{colour}" stroke-width="1.5"/>')
        sym = marker(x + 10, y, colour, lab, "legend-key")
        out.append(sym.replace('class="marker legend-key"', 'class="legend-key"'))
        out.append(f'<text x="{x + 26}" y="{y + 4}">{escape(label)}</text>')
        x += 40 + 6 * len(label)
    out.append('</g>')
    notes = []
    if any_fitted:
        notes.append("ringed: fitted (meets published by construction); the rest: predictions")
    if S5_PROFILES:
        notes.append("modelled with profile " + ", ".join(S5_PROFILES))
    for k, note in enumerate(notes):
        out.append(f'<text class="{"fitted-note" if "ringed" in note else "profile"}" x="16" '
                   f'y="{PH + LEGEND_H + 14 * k + 10}" font-size="10">{escape(note)}</text>')
    out.append('</svg>\n')
    return "\n".join(out).replace(f'height="{h}" viewBox="0 0 {w} {h}"',
                                   f'height="{h + 14 * len(notes) + 4}" '
                                   f'viewBox="0 0 {w} {h + 14 * len(notes) + 4}"', 1)


S5_PROFILES = []


# --- S1, S2, S4: bar charts, one group of bars per row -------------------

def time_value(cell):
    v = float(cell)
    if not math.isfinite(v) or v < 0:
        raise ValueError(f"bad time {cell!r}")
    return v


def pct_value(cell):
    """'189.33', '+190%' or '-5%' -> float; percentages may be negative."""
    v = float(cell[:-1] if cell.endswith("%") else cell)
    if not math.isfinite(v):
        raise ValueError(f"bad percentage {cell!r}")
    return v


# Series kinds: "bar" is a computed figure (filled); "hollow-bar" and
# "hollow-marker" are published figures, drawn white with a coloured
# outline so they never pass for computed ones. A marker sits on the slot
# of the bar named by `on`. `parse` None means the column is not plotted;
# `optional` lets '-' mean "no figure".
def series(col, label=None, colour=None, kind=None, parse=None, optional=False, on=None):
    return dict(col=col, label=label, colour=colour, kind=kind, parse=parse,
                optional=optional, on=on)


PUB = "published (not computed)"
TABLES = {
    "S1.tsv": dict(
        exp="S1", key=lambda label, col: tuple(label.split(" ", 1)),
        title="S1 reclaim \u2014 modelled time per run", ylabel="modelled time (s)",
        columns=[series("run"),
                 series("modelled_s", "modelled (lab)", "#1f5fa8", "bar", time_value),
                 series("young_read"), series("young_atomic"), series("reclaimed_bytes"),
                 series("published_s", PUB, "#1f5fa8", "hollow-bar", time_value, True)]),
    "S2.tsv": dict(
        exp="S2", key=lambda label, col: (label, "one-node" if "1node" in col else "two-node"),
        title="S2 exit() \u2014 cost over baseline per variant",
        ylabel="modelled cost over baseline (%)",
        columns=[series("variant"),
                 series("lab_1node_pct", "lab 1-node", "#c0392b", "bar", pct_value),
                 series("lab_2node_pct", "lab 2-node", "#1f5fa8", "bar", pct_value),
                 series("published_1node_pct", "published 1-node (not computed)", "#c0392b",
                        "hollow-marker", pct_value, True, on="lab_1node_pct")]),
    "S4.tsv": dict(
        exp="S4", key=lambda label, col: tuple(label.split(" ", 1)),
        title="S4 mlock-loop \u2014 modelled time per run", ylabel="modelled time (s)",
        columns=[series("run"),
                 series("modelled_s", "modelled (lab)", "#1f5fa8", "bar", time_value),
                 series("pte_read_per_get"), series("merges_per_get"), series("gather_share"),
                 series("contpte_ptep_get_share"),
                 series("published_s", PUB, "#1f5fa8", "hollow-bar", time_value, True),
                 series("published_share")]),
}
BW = 22          # one bar
LABEL_CHARS = 12  # wrap run labels at about this many characters


def read_table(path, spec):
    """Return [(label, {column: float or None})] in file order."""
    cols = spec["columns"]
    header = [c["col"] for c in cols]
    with open(path, encoding="utf-8") as f:
        lines = [ln.rstrip("\r\n") for ln in f if ln.strip()]
    if not lines or lines[0].split("\t") != header:
        raise PlotError(f"{path}: header is not {' '.join(header)}")
    rows, seen = [], set()
    for n, line in enumerate(lines[1:], start=2):
        cells = line.split("\t")
        if len(cells) != len(header):
            raise PlotError(f"{path}:{n}: {len(cells)} fields, expected {len(header)}")
        label = cells[0]
        if not label.strip() or label in seen:
            raise PlotError(f"{path}:{n}: empty or repeated {header[0]}")
        seen.add(label)
        vals = {}
        try:
            for c, cell in zip(cols[1:], cells[1:]):
                if c["parse"] is None:
                    continue
                if cell in ("-", "") and c["optional"]:
                    vals[c["col"]] = None
                else:
                    vals[c["col"]] = c["parse"](cell)
        except ValueError as e:
            raise PlotError(f"{path}:{n}: {c['col']}: {e}") from None
        rows.append((label, vals))
    if not rows:
        raise PlotError(f"{path}: no data rows")
    return rows


def wrap(label):
    lines = []
    for word in label.split():
        if lines and len(lines[-1]) + 1 + len(word) <= LABEL_CHARS:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [label]


def legend_key(x, y, s):
    c = s["colour"]
    if s["kind"] == "bar":
        return f'<rect class="legend-key" x="{x + 4}" y="{y - 6}" width="12" height="12" fill="{c}"/>'
    if s["kind"] == "hollow-bar":
        return (f'<rect class="legend-key" x="{x + 4}" y="{y - 6}" width="12" height="12" '
                f'fill="white" stroke="{c}" stroke-width="1.5" stroke-dasharray="3 2"/>')
    return marker(x + 10, y, c, False, "legend-key").replace(
        'class="marker legend-key"', 'class="legend-key"')


def plot_bars(spec, rows):
    plotted = [c for c in spec["columns"] if c["kind"]]
    slots = [c["col"] for c in plotted if c["kind"] != "hollow-marker"]
    vals = [v for _, vals in rows for v in vals.values() if v is not None]
    yticks = nice_span(min(0.0, min(vals)), max(0.0, max(vals)))
    ybot, ytop = yticks[0], yticks[-1]
    lines = [wrap(label) for label, _ in rows]
    gw = max(len(slots) * BW + 24, 12 + 6.5 * max(len(ln) for ls in lines for ln in ls))
    nlines = max(len(ls) for ls in lines)
    x0, y1 = ML, MT
    x1 = x0 + gw * len(rows)
    y0 = PH - MB
    legend_w = 16 + sum(40 + 6 * len(c["label"]) for c in plotted)
    w = int(max(x1 + MR, legend_w, 400))
    legend_y = y0 + 14 * nlines + 30     # below the wrapped group labels
    h = legend_y + LEGEND_H // 2 + 4

    def sy(v):
        return y0 - (v - ybot) / (ytop - ybot) * (y0 - y1)

    any_fitted = False
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">',
           hatch_defs(c["colour"] for c in plotted),
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{max((x0 + x1) / 2, w / 2):.1f}" y="20" text-anchor="middle" font-size="13" '
           f'font-weight="bold">{escape(spec["title"])}</text>']
    if spec.get("profiles"):
        out.append(f'<text class="profile" x="{max((x0 + x1) / 2, w / 2):.1f}" y="{MT - 2}" '
                   f'text-anchor="middle" font-size="10">modelled with profile '
                   f'{escape(", ".join(spec["profiles"]))}</text>')
    for t in yticks:
        y = sy(t)
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x1:.1f}" y2="{y:.1f}" stroke="#e4e4e4"/>')
        out.append(f'<text x="{x0 - 6}" y="{y + 4:.1f}" text-anchor="end">{fmt(t)}</text>')
    out.append(f'<text transform="translate(14,{(y0 + y1) / 2:.1f}) rotate(-90)" '
               f'text-anchor="middle">{escape(spec["ylabel"])}</text>')
    zero = sy(0.0)
    for i, ((label, vals), ls) in enumerate(zip(rows, lines)):
        gx = x0 + i * gw + (gw - len(slots) * BW) / 2
        out.append(f'<g class="group" data-label="{escape(label, {chr(34): "&quot;"})}">')
        for c in plotted:
            v = vals[c["col"]]
            if v is None:
                continue
            cls = c["col"].replace("_", "-")
            tip = f'<title>{escape(label)}: {escape(c["label"])} {fmt(v)}</title>'
            if c["kind"] == "hollow-marker":
                x = gx + slots.index(c["on"]) * BW + BW / 2
                out.append(marker(x, sy(v), c["colour"], False, "published " + cls)
                           .replace("/>", f">{tip}</rect>"))
                continue
            x = gx + slots.index(c["col"]) * BW + 2
            top, bot = sorted((sy(v), zero))
            if c["kind"] == "bar":
                fit = is_fitted(spec, label, c["col"], vals)
                any_fitted |= fit
                fill = f'url(#hatch-{c["colour"][1:]})' if fit else c["colour"]
                out.append(f'<rect class="bar lab {cls} {"fitted" if fit else "prediction"}" '
                           f'x="{x:.1f}" y="{top:.1f}" width="{BW - 4}" '
                           f'height="{bot - top:.1f}" fill="{fill}" stroke="{c["colour"]}">'
                           f'{tip}</rect>')
                # the value itself: one tall bar must not hide the others' sizes
                ty = top - 3 if v >= 0 else bot + 10
                out.append(f'<text class="value" x="{x + (BW - 4) / 2:.1f}" y="{ty:.1f}" '
                           f'text-anchor="middle" font-size="8">{fmt_short(v)}</text>')
            else:
                out.append(f'<rect class="bar published {cls}" x="{x:.1f}" y="{top:.1f}" '
                           f'width="{BW - 4}" height="{bot - top:.1f}" fill="white" '
                           f'stroke="{c["colour"]}" stroke-width="1.5" '
                           f'stroke-dasharray="3 2">{tip}</rect>')
        cx = x0 + i * gw + gw / 2
        for k, ln in enumerate(ls):
            out.append(f'<text x="{cx:.1f}" y="{y0 + 16 + 14 * k}" '
                       f'text-anchor="middle">{escape(ln)}</text>')
        out.append('</g>')
    out.append(f'<line x1="{x0}" y1="{zero:.1f}" x2="{x1:.1f}" y2="{zero:.1f}" stroke="black"/>')
    out.append(f'<line x1="{x0}" y1="{y1}" x2="{x0}" y2="{y0}" stroke="black"/>')
    out.append('<g class="legend">')
    x, y = 16, legend_y
    for c in plotted:
        out.append(legend_key(x, y, c))
        out.append(f'<text x="{x + 26}" y="{y + 4}">{escape(c["label"])}</text>')
        x += 40 + 6 * len(c["label"])
    if any_fitted:
        out.append(f'<rect class="legend-key fitted" x="{x + 4}" y="{y - 6}" width="12" '
                   f'height="12" fill="url(#hatch-555555)" stroke="#555555"/>')
        out.append(f'<text x="{x + 26}" y="{y + 4}">{FITTED_LABEL}</text>')
    out.append('</g></svg>\n')
    return "\n".join(out)


FITTED_LABEL = "hatched: fitted (meets published by construction); solid: prediction"


def is_fitted(spec, label, col, vals):
    """A lab bar is fitted when its row has a published figure the profile was
    fitted on (tools/fitted.py); every other bar is a prediction."""
    pub = [c["col"] for c in spec["columns"] if c["kind"] in ("hollow-bar", "hollow-marker")
           and (c["kind"] == "hollow-bar" or c["on"] == col)]
    if "exp" not in spec or not any(vals.get(p) is not None for p in pub):
        return False
    return fitted(spec["exp"], *spec["key"](label, col))


def hatch_defs(colours):
    pats = []
    for c in sorted(set(colours) | {"#555555"}):
        pats.append(f'<pattern id="hatch-{c[1:]}" width="5" height="5" '
                    f'patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
                    f'<rect width="5" height="5" fill="white"/>'
                    f'<line x1="0" y1="0" x2="0" y2="5" stroke="{c}" stroke-width="3"/></pattern>')
    return "<defs>" + "".join(pats) + "</defs>"


def fmt_short(v):
    return f"{v:.3g}"


def table_plotter(spec):
    return (lambda path: read_table(path, spec)), (lambda rows: plot_bars(spec, rows))


PLOTTERS = {name: table_plotter(spec) for name, spec in TABLES.items()}
PLOTTERS["S5.tsv"] = (read_s5, plot_s5)


def profiles_of(jsonl):
    """The cost profiles of an experiment's runs, in order (none: no JSONL)."""
    seen = []
    try:
        with open(jsonl, encoding="utf-8") as f:
            for line in f:
                p = json.loads(line).get("profile")
                if p and p not in seen:
                    seen.append(p)
    except (OSError, ValueError):
        pass
    return seen


def main(argv):
    # --if-any (reproduce): a directory with nothing to plot (S3 alone) is not an error
    if_any = "--if-any" in argv
    argv = [a for a in argv if a != "--if-any"]
    if len(argv) != 1:
        raise PlotError("usage: plot.py [--if-any] DIR")
    d = argv[0]
    if not os.path.isdir(d):
        raise PlotError(f"{d}: not a directory")
    names = sorted(n for n in os.listdir(d) if n in PLOTTERS)
    if not names:
        if if_any:
            return 0
        raise PlotError(f"{d}: no TSV this tool can plot ({', '.join(PLOTTERS)})")
    # Read every table before writing anything: one malformed table fails
    # the run with no SVG written.
    tables = [(name, PLOTTERS[name][0](os.path.join(d, name))) for name in names]
    for name, spec in TABLES.items():
        spec["profiles"] = profiles_of(os.path.join(d, name[:-4] + ".jsonl"))
    S5_PROFILES[:] = profiles_of(os.path.join(d, "S5.jsonl"))
    for name, data in tables:
        svg = PLOTTERS[name][1](data)
        dest = os.path.join(d, name[:-4] + ".svg")
        # Write then rename, so a failed run never leaves half an SVG.
        with open(dest + ".tmp", "w", encoding="utf-8") as f:
            f.write(svg)
        os.replace(dest + ".tmp", dest)
        print(dest)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (PlotError, OSError, UnicodeDecodeError) as e:
        msg = str(e).replace("\n", " ")
        print(f"plot: error: {msg}", file=sys.stderr)
        sys.exit(2)

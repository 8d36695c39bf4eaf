"""Render leaderboard entries as a Markdown table, a self-contained HTML page and PNG plots.

The HTML page has no external assets: the tables sort on a header click through a few lines of
inline JavaScript, and the per-component bar charts are inline SVG drawn here.

There is one table per (env, ``reward_version``): results scored under different rewards are never ranked
together. Each table's heading names its stamp; when an env has several, the Markdown and the page open with
a warning line per such env (:func:`~rewardlab.leaderboard.results.mixed_warnings`) and its plots are
``<env>_<stamp>.png`` instead of ``<env>.png``.
"""

from __future__ import annotations

import html
import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from rewardlab.leaderboard.results import mixed_reward_versions, mixed_warnings

BAR_COLORS = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#eeca3b", "#b279a2", "#9d755d")


def _label(entry: dict) -> str:
    model = f" ({entry['model']})" if entry.get("model") else ""
    run = f" [{entry['run']}]" if entry.get("run") else ""
    return f"{entry['agent']}{model}{run}"


def _by_env(entries: Sequence[dict]) -> dict[str, list[dict]]:
    """``{table title: its entries, best reward first}``, one table per (env, ``reward_version``); the title is
    the env id, followed by the stamp when the entries have one."""
    return {title: rows for title, _, rows in _tables(entries)}


def _tables(entries: Sequence[dict]) -> list[tuple[str, str, list[dict]]]:
    """``(title, file name stem, entries best first)`` per (env, ``reward_version``), in env order."""
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for entry in entries:
        groups[(entry["env"], entry.get("reward_version") or "")].append(entry)
    mixed = mixed_reward_versions(entries)
    tables = []
    for (env, version), rows in sorted(groups.items()):
        title = f"{env} ({version})" if version else (f"{env} (no reward_version)" if env in mixed else env)
        stem = env.replace("/", "_") + (f"_{version or 'unversioned'}" if env in mixed else "")
        tables.append((title, stem, sorted(rows, key=lambda e: -e["reward"]["mean"])))
    return tables


def _fmt(value: float) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3f}"


def to_markdown(entries: Sequence[dict]) -> str:
    """One Markdown table per (env, ``reward_version``): agent, reward ± CI, success, then every component's
    mean; a warning line first for each env whose results have several stamps."""
    blocks = [f"**warning**: {line}" for line in mixed_warnings(entries)]
    for env, rows in _by_env(entries).items():
        names = list(dict.fromkeys(n for e in rows for n in e["components"]))
        header = ["agent", "reward", "success rate", *names, "episodes", "comparable"]
        lines = [f"### {env}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for e in rows:
            cells = [
                _label(e),
                f"{_fmt(e['reward']['mean'])} ± {_fmt(e['reward']['ci95'])}",
                _fmt(e["success_rate"]),
                *(_fmt(e["components"].get(n, {}).get("mean")) for n in names),
                str(e["episodes"]),
                "yes" if e.get("comparable", True) else "**no**",
            ]
            lines.append("| " + " | ".join(cells) + " |")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def _svg_bars(title: str, labels: Sequence[str], values: Sequence[float]) -> str:
    """A horizontal bar chart of values in [0, 1] as inline SVG."""
    row, label_width, bar_width = 22, 260, 320
    height = 28 + row * len(values)
    parts = [
        f'<svg class="chart" role="img" aria-label="{html.escape(title)}" width="{label_width + bar_width + 60}"'
        f' height="{height}" xmlns="http://www.w3.org/2000/svg">',
        f'<text x="0" y="16" font-weight="bold">{html.escape(title)}</text>',
    ]
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        y = 26 + i * row
        width = 0.0 if value is None or math.isnan(value) else max(0.0, min(1.0, value)) * bar_width
        color = BAR_COLORS[i % len(BAR_COLORS)]
        parts.append(f'<text x="0" y="{y + 14}">{html.escape(label[:40])}</text>')
        parts.append(
            f'<rect class="bar" x="{label_width}" y="{y + 2}" width="{width:.1f}" height="{row - 6}" fill="{color}">'
            f"<title>{html.escape(label)}: {_fmt(value)}</title></rect>"
        )
        parts.append(f'<text x="{label_width + width + 4:.1f}" y="{y + 14}">{_fmt(value)}</text>')
    parts.append("</svg>")
    return "".join(parts)


SORT_SCRIPT = """
document.querySelectorAll("table.board").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, column) {
    th.addEventListener("click", function () {
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var ascending = th.getAttribute("data-order") !== "asc";
      table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("data-order"); });
      th.setAttribute("data-order", ascending ? "asc" : "desc");
      rows.sort(function (a, b) {
        var x = a.cells[column].getAttribute("data-value"), y = b.cells[column].getAttribute("data-value");
        var nx = parseFloat(x), ny = parseFloat(y);
        var cmp = (isNaN(nx) || isNaN(ny)) ? x.localeCompare(y) : nx - ny;
        return ascending ? cmp : -cmp;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table.board { border-collapse: collapse; margin: 1em 0; }
table.board th, table.board td { border: 1px solid #ccc; padding: 4px 8px; text-align: right; }
table.board th { background: #f0f0f0; cursor: pointer; user-select: none; }
table.board th[data-order=asc]::after { content: " ▲"; }
table.board th[data-order=desc]::after { content: " ▼"; }
table.board td:first-child { text-align: left; }
tr.not-comparable { color: #999; }
p.warning { color: #a33; font-weight: bold; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; }
svg.chart text { font-size: 12px; }
"""


def _cell(text: str, value: object) -> str:
    return f'<td data-value="{html.escape(str(value))}">{html.escape(text)}</td>'


def to_html(entries: Sequence[dict], *, title: str = "RewardLab leaderboard", note: str = "") -> str:
    """A single self-contained page: per (env, ``reward_version``) a sortable table and one bar chart per
    component; a warning line first for each env whose results have several stamps."""
    sections = [f'<p class="warning">warning: {html.escape(line)}</p>' for line in mixed_warnings(entries)]
    for env, rows in _by_env(entries).items():
        names = list(dict.fromkeys(n for e in rows for n in e["components"]))
        headers = ["agent", "reward", "± 95% CI", "success rate", *names, "episodes"]
        head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
        body = []
        for e in rows:
            comps = [e["components"].get(n, {}).get("mean", float("nan")) for n in names]
            cells = [
                _cell(_label(e), _label(e)),
                _cell(_fmt(e["reward"]["mean"]), e["reward"]["mean"]),
                _cell(_fmt(e["reward"]["ci95"]), e["reward"]["ci95"]),
                _cell(_fmt(e["success_rate"]), e["success_rate"]),
                *(_cell(_fmt(v), v) for v in comps),
                _cell(str(e["episodes"]), e["episodes"]),
            ]
            css = "" if e.get("comparable", True) else ' class="not-comparable" title="different seeds or tasks"'
            body.append(f"<tr{css}>{''.join(cells)}</tr>")
        labels = [_label(e) for e in rows]
        charts = [_svg_bars("reward", labels, [e["reward"]["mean"] for e in rows])]
        charts += [
            _svg_bars(n, labels, [e["components"].get(n, {}).get("mean", float("nan")) for e in rows]) for n in names
        ]
        sections.append(
            f"<section><h2>{html.escape(env)}</h2>"
            f'<table class="board"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
            f'<div class="charts">{"".join(charts)}</div></section>'
        )
    note_html = f"<p>{html.escape(note)}</p>" if note else ""
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>{note_html}"
        f"{''.join(sections)}<script>{SORT_SCRIPT}</script></body></html>"
    )


def to_png(entries: Sequence[dict], directory: Path) -> list[Path]:
    """One PNG per env: grouped bars of reward and each component, one colour per agent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for env, stem, rows in _tables(entries):
        names = ["reward", *dict.fromkeys(n for e in rows for n in e["components"])]
        x = np.arange(len(names))
        width = 0.8 / max(1, len(rows))
        fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(names)), 3.5))
        for i, e in enumerate(rows):
            values = [e["reward"]["mean"], *(e["components"].get(n, {}).get("mean", np.nan) for n in names[1:])]
            ax.bar(x + i * width, values, width, label=_label(e), color=BAR_COLORS[i % len(BAR_COLORS)])
        ax.set_xticks(x + width * (len(rows) - 1) / 2, names, rotation=20)
        ax.set_ylim(0, 1.05)
        ax.set_title(env)
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = directory / (stem + ".png")
        fig.savefig(path, dpi=100)
        plt.close(fig)
        paths.append(path)
    return paths


def write_board(entries: Sequence[dict], directory: Path, *, title: str = "RewardLab leaderboard") -> dict[str, Path]:
    """Write leaderboard.md, leaderboard.html and PNG plots into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    markdown = directory / "leaderboard.md"
    markdown.write_text(to_markdown(entries))
    page = directory / "leaderboard.html"
    not_comparable = sum(not e.get("comparable", True) for e in entries)
    note = (
        f"{not_comparable} entries ran other seeds or tasks and are not comparable (greyed)." if not_comparable else ""
    )
    page.write_text(to_html(entries, title=title, note=note), encoding="utf-8")
    to_png(entries, directory / "plots")
    return {"markdown": markdown, "html": page, "plots": directory / "plots"}

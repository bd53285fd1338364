"""Server-rendered SVG plots of ciQA results (no JavaScript, no Django): recall-by-length curves (seed 001 3.2.3,
'recall by length plots, as described in (Lin, 2007)') and the initial-versus-final scatter plot with the y = x
reference line (seed 001 Figure 3)."""

from html import escape

PALETTE = ("#1f5fa8", "#b03030", "#2a7d2a", "#8a4fb0", "#c77700", "#207a7a", "#555555", "#a0522d")


def _frame(width, height, title, css):
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{css}" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f'<text x="8" y="14" font-size="12">{escape(title)}</text>',
    ]


def _nice_step(longest):
    for step in (50, 100, 250, 500, 1000, 2000, 5000, 10000):
        if longest / step <= 8:
            return step
    return 20000


def recall_plot(curves, title="Recall by length", width=720, height=300, highlight=None):
    """`curves` is [(label, [(length, recall)])]: each a step line from (0, 0); `highlight` names the curve drawn
    thicker (the participant's own run)."""
    left, right, top, bottom = 44, 150, 24, 34
    plot_w, plot_h = width - left - right, height - top - bottom
    longest = max((pts[-1][0] for _, pts in curves if pts), default=50) or 50
    x_of = lambda x: left + plot_w * x / longest  # noqa: E731
    y_of = lambda y: top + plot_h * (1 - y)  # noqa: E731
    parts = _frame(width, height, title, "recallplot")
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        y = y_of(tick)
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end">{tick:g}</text>')
    step = _nice_step(longest)
    for x in range(0, longest + 1, step):
        parts.append(f'<text x="{x_of(x):.1f}" y="{top + plot_h + 14}" font-size="10" text-anchor="middle">{x}</text>')
    parts.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 4}" font-size="10" text-anchor="middle">'
        "response length (non-white-space characters)</text>"
    )
    parts.append(
        f'<line x1="{left}" x2="{left}" y1="{top}" y2="{top + plot_h}" stroke="#444"/>'
        f'<line x1="{left}" x2="{left + plot_w}" y1="{top + plot_h}" y2="{top + plot_h}" stroke="#444"/>'
    )
    for i, (label, points) in enumerate(curves):
        colour = PALETTE[i % len(PALETTE)]
        path, previous = [f"M{x_of(0):.1f},{y_of(0):.1f}"], 0.0
        for x, y in points:  # a step: recall holds until the next multiple of 50 reached
            path.append(f"L{x_of(x):.1f},{y_of(previous):.1f} L{x_of(x):.1f},{y_of(y):.1f}")
            previous = y
        thick = 3 if label == highlight else 1.5
        parts.append(
            f'<path d="{" ".join(path)}" fill="none" stroke="{colour}" stroke-width="{thick}" '
            f'data-run="{escape(str(label))}"><title>{escape(str(label))}</title></path>'
        )
        ly = top + 12 + 14 * i
        parts.append(
            f'<line x1="{left + plot_w + 10}" x2="{left + plot_w + 28}" y1="{ly - 4}" y2="{ly - 4}" '
            f'stroke="{colour}" stroke-width="{thick}"/>'
            f'<text x="{left + plot_w + 32}" y="{ly}" font-size="10">{escape(str(label))}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts)


def scatter_plot(points, title="Initial versus final pyramid F", size=320):
    """`points` is [(label, initial score, final score)]; both axes 0..max, with the y = x line: points above it
    are interactions that improved the run."""
    pad = 40
    span = size - 2 * pad
    top_value = max([1e-9] + [v for _, a, b in points for v in (a, b) if v is not None])
    top_value = min(1.0, max(0.1, round(top_value * 1.1 + 0.05, 1)))
    at = lambda v: span * v / top_value  # noqa: E731
    parts = _frame(size, size, title, "scatterplot")
    parts.append(
        f'<rect x="{pad}" y="{pad}" width="{span}" height="{span}" fill="none" stroke="#444"/>'
        f'<line class="identity" x1="{pad}" y1="{pad + span}" x2="{pad + span}" y2="{pad}" '
        f'stroke="#888" stroke-dasharray="4 3"><title>y = x</title></line>'
        f'<text x="{pad + span / 2}" y="{size - 8}" font-size="10" text-anchor="middle">initial run</text>'
        f'<text x="12" y="{pad + span / 2}" font-size="10" text-anchor="middle" '
        f'transform="rotate(-90 12 {pad + span / 2})">final run</text>'
        f'<text x="{pad}" y="{pad + span + 12}" font-size="9" text-anchor="middle">0</text>'
        f'<text x="{pad + span}" y="{pad + span + 12}" font-size="9" text-anchor="middle">{top_value:g}</text>'
        f'<text x="{pad - 4}" y="{pad + 3}" font-size="9" text-anchor="end">{top_value:g}</text>'
    )
    for label, initial, final in points:
        if initial is None or final is None:
            continue
        x, y = pad + at(initial), pad + span - at(final)
        colour = "#2a7d2a" if final > initial else ("#b03030" if final < initial else "#444")
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}" data-pair="{escape(str(label))}">'
            f"<title>{escape(str(label))}: {initial:.3f} → {final:.3f}</title></circle>"
            f'<text x="{x + 6:.1f}" y="{y - 4:.1f}" font-size="8">{escape(str(label).split(" → ")[-1])}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts)

"""Server-rendered SVG plots (no JavaScript): a run's per-question difference from the median of all judged runs,
drawn like the appendix pages of the NIST overviews (one bar per question, above or below the zero line)."""

from html import escape


def difference_plot(points, width=720, height=220, title="Difference from the median per question"):
    """`points` is [(question label, difference or None)] in question order; None is drawn as a gap."""
    n = max(len(points), 1)
    pad_left, pad_right, pad_top, pad_bottom = 40, 10, 24, 28
    plot_w, plot_h = width - pad_left - pad_right, height - pad_top - pad_bottom
    zero_y = pad_top + plot_h / 2
    scale = plot_h / 2  # differences lie in [-1, 1]
    bar_w = plot_w / n
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="diffplot" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f'<text x="{pad_left}" y="14" font-size="12">{escape(title)}</text>',
    ]
    for value, label in ((1, "+1"), (0.5, "+.5"), (0, "0"), (-0.5, "−.5"), (-1, "−1")):
        y = zero_y - value * scale
        parts.append(
            f'<line x1="{pad_left}" x2="{width - pad_right}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="{"#444" if value == 0 else "#ddd"}" stroke-width="1"/>'
        )
        parts.append(f'<text x="{pad_left - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end">{label}</text>')
    for i, (label, diff) in enumerate(points):
        if diff is None:
            continue
        x = pad_left + i * bar_w + bar_w * 0.1
        h = abs(diff) * scale
        y = zero_y - h if diff >= 0 else zero_y
        colour = "#2a7d2a" if diff >= 0 else "#b03030"
        parts.append(
            f'<rect x="{x:.2f}" y="{y:.2f}" width="{max(bar_w * 0.8, 0.5):.2f}" height="{h:.2f}" '
            f'fill="{colour}"><title>{escape(str(label))}: {diff:+.3f}</title></rect>'
        )
    step = max(1, n // 12)
    for i in range(0, len(points), step):
        x = pad_left + (i + 0.5) * bar_w
        parts.append(
            f'<text x="{x:.1f}" y="{height - 8}" font-size="9" text-anchor="middle">{escape(str(points[i][0]))}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts)

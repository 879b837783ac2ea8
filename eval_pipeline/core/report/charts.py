"""Small inline SVG charts for the HTML report.

Hand-written rather than a JS charting library so the report stays one offline file that renders
without scripts. Every chart carries a ``<title>`` (its accessible name) and labelled axes; every
piece of text is escaped here, so the returned ``Markup`` is safe to embed as is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

WIDTH = 300
HEIGHT = 170
_LEFT, _RIGHT, _TOP, _BOTTOM = 40, 10, 24, 38
BAR_COLOUR = "#4f6bed"
AXIS_COLOUR = "#8c959f"
TEXT_COLOUR = "#57606a"


@dataclass(frozen=True)
class Series:
    """One line of a line chart: a value per x position, ``None`` where the run has no value."""

    name: str
    values: Sequence[float | None]
    colour: str


def bin_counts(values: Sequence[float], lo: float, hi: float, bins: int) -> list[int]:
    """Counts per equal-width bin over [lo, hi]; ``hi`` itself falls in the last bin."""
    counts = [0] * bins
    span = hi - lo
    for value in values:
        index = 0 if span <= 0 else min(bins - 1, max(0, math.floor((value - lo) / span * bins)))
        counts[index] += 1
    return counts


def _num(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if value % 1 else f"{value:.0f}"


def _text(x: float, y: float, content: str, *, anchor: str = "middle", extra: str = "") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="10" '
        f'fill="{TEXT_COLOUR}"{extra}>{escape(content)}</text>'
    )


def _frame(title: str, body: Sequence[str], x_label: str, y_label: str, top: int = _TOP) -> Markup:
    plot_bottom = HEIGHT - _BOTTOM
    mid_y = (top + plot_bottom) / 2
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" class="chart">',
        f"<title>{escape(title)}</title>",
        f'<text x="{_LEFT}" y="14" font-size="12" font-weight="600" fill="#1f2328">'
        f"{escape(title)}</text>",
        f'<line x1="{_LEFT}" y1="{plot_bottom}" x2="{WIDTH - _RIGHT}" y2="{plot_bottom}" '
        f'stroke="{AXIS_COLOUR}"/>',
        f'<line x1="{_LEFT}" y1="{top}" x2="{_LEFT}" y2="{plot_bottom}" stroke="{AXIS_COLOUR}"/>',
        *body,
        _text((_LEFT + WIDTH - _RIGHT) / 2, HEIGHT - 4, x_label, extra=' class="x-label"'),
        _text(
            11,
            mid_y,
            y_label,
            extra=f' class="y-label" transform="rotate(-90 11 {mid_y:.1f})"',
        ),
        "</svg>",
    ]
    return Markup("".join(parts))


def _no_data(title: str, x_label: str, y_label: str) -> Markup:
    note = _text((_LEFT + WIDTH - _RIGHT) / 2, (_TOP + HEIGHT - _BOTTOM) / 2, "no data")
    return _frame(title, [note], x_label, y_label)


def histogram(
    values: Sequence[float],
    *,
    title: str,
    x_label: str,
    y_label: str = "cases",
    lo: float | None = None,
    hi: float | None = None,
    bins: int = 10,
    colour: str = BAR_COLOUR,
) -> Markup:
    """Bar histogram with a tooltip per bar; the range defaults to [0, max(values)]."""
    if not values:
        return _no_data(title, x_label, y_label)
    low = 0.0 if lo is None else lo
    high = max(values) if hi is None else hi
    if high <= low:
        high = low + 1.0
    counts = bin_counts(values, low, high, bins)
    top = max(counts)
    plot_w = WIDTH - _LEFT - _RIGHT
    plot_h = HEIGHT - _TOP - _BOTTOM
    bar_w = plot_w / bins
    body: list[str] = []
    for i, count in enumerate(counts):
        left_edge = low + (high - low) * i / bins
        right_edge = low + (high - low) * (i + 1) / bins
        h = plot_h * count / top if top else 0.0
        x = _LEFT + i * bar_w
        y = _TOP + plot_h - h
        tip = f"{_num(left_edge)}–{_num(right_edge)}: {count} {y_label}"
        body.append(
            f'<rect x="{x + 1:.1f}" y="{y:.1f}" width="{bar_w - 2:.1f}" height="{h:.1f}" '
            f'fill="{colour}" class="bar" data-count="{count}"><title>{escape(tip)}</title></rect>'
        )
    axis_y = HEIGHT - _BOTTOM + 12
    for value, x in ((low, _LEFT), ((low + high) / 2, _LEFT + plot_w / 2), (high, WIDTH - _RIGHT)):
        body.append(_text(x, axis_y, _num(value)))
    body.append(_text(_LEFT - 4, _TOP + 4, str(top), anchor="end"))
    body.append(_text(_LEFT - 4, HEIGHT - _BOTTOM, "0", anchor="end"))
    return _frame(title, body, x_label, y_label)


def line_chart(
    x_labels: Sequence[str],
    series: Sequence[Series],
    *,
    title: str,
    x_label: str,
    y_label: str,
    lo: float = 0.0,
    hi: float = 1.0,
) -> Markup:
    """Lines over ordered x positions (runs); a ``None`` breaks a line rather than dropping to 0."""
    if not x_labels:
        return _no_data(title, x_label, y_label)
    top = _TOP + 14  # room for the legend under the title
    plot_w = WIDTH - _LEFT - _RIGHT
    plot_h = HEIGHT - top - _BOTTOM
    step = plot_w / max(1, len(x_labels) - 1)

    def point(i: int, value: float) -> tuple[float, float]:
        x = _LEFT + (i * step if len(x_labels) > 1 else plot_w / 2)
        clamped = min(hi, max(lo, value))
        return x, top + plot_h * (1 - (clamped - lo) / (hi - lo))

    body: list[str] = []
    for line in series:
        segment: list[str] = []
        segments: list[list[str]] = []
        for i, value in enumerate(line.values):
            if value is None:
                if segment:
                    segments.append(segment)
                segment = []
                continue
            x, y = point(i, value)
            segment.append(f"{x:.1f},{y:.1f}")
            tip = f"{line.name}, {x_labels[i]}: {value:.3f}"
            body.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{line.colour}">'
                f"<title>{escape(tip)}</title></circle>"
            )
        if segment:
            segments.append(segment)
        body.extend(
            f'<polyline points="{" ".join(s)}" fill="none" stroke="{line.colour}" '
            f'stroke-width="1.8"/>'
            for s in segments
            if len(s) > 1
        )
    body.append(_text(_LEFT - 4, top + 4, _num(hi), anchor="end"))
    body.append(_text(_LEFT - 4, HEIGHT - _BOTTOM, _num(lo), anchor="end"))
    axis_y = HEIGHT - _BOTTOM + 12
    first_x, _ = point(0, lo)
    last_x, _ = point(len(x_labels) - 1, lo)
    body.append(_text(first_x, axis_y, _short(x_labels[0]), anchor="start"))
    if len(x_labels) > 1:
        body.append(_text(last_x, axis_y, _short(x_labels[-1]), anchor="end"))
    lx = float(_LEFT)
    for line in series:
        body.append(
            f'<rect x="{lx:.1f}" y="22" width="10" height="3" fill="{line.colour}"/>'
            + _text(lx + 13, 26, line.name, anchor="start", extra=' class="legend"')
        )
        lx += 24 + 5.5 * len(line.name)
    return _frame(title, body, x_label, y_label, top)


def _short(label: str, limit: int = 18) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"

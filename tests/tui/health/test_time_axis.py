"""The Health screen's history charts put each day at its place in time: points 17 days
apart are drawn closer than points 84 days apart (not evenly spaced)."""

from __future__ import annotations

import pytest

from foundry_tui.core.history.timeline import TimelinePoint
from foundry_tui.tui.health.charts import ChartColours, index_chart, types_chart

DATES = ["2026-01-01", "2026-01-18", "2026-04-12"]  # 17, then 84 days apart
GREY = (128, 128, 128)
COLOURS = ChartColours(GREY, GREY, GREY, GREY, GREY, GREY, palette=(GREY,))


def _points() -> list[TimelinePoint]:
    return [TimelinePoint(d, f"c{i}", 100 * (i + 1), {"decision": i + 1}) for i, d in enumerate(DATES)]


@pytest.mark.parametrize("chart", ["index", "types"])
def test_the_history_charts_have_a_time_axis(chart: str) -> None:
    text = (
        index_chart(_points(), 400, 80, 14, COLOURS) if chart == "index" else types_chart(_points(), 80, 14, COLOURS)
    ).plain
    [labels] = [line for line in text.splitlines() if "26-01-01" in line]
    first, second, third = (labels.index(d[2:]) for d in DATES)
    assert second - first < (third - second) / 3, labels  # 17 days against 84: about 1 to 5
    assert abs((second - first) / (third - first) - 17 / 101) < 0.1, labels

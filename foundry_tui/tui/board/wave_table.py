"""WaveTable: the waves in the order they happened, one row each: first and last write,
artifacts, invalid ones, bytes and ~tokens. A wave that just received an artifact is
highlighted for a moment."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.widgets import DataTable

from foundry_tui.core.artefacts.waves import Wave, stamp
from foundry_tui.tui.common.text import plain

COLUMNS = ("#", "Wave", "First write (UTC)", "Last write", "Artifacts", "Invalid", "Bytes", "~Tokens")


class WaveTable(DataTable[Text]):
    """Rows keyed by wave name; `show` redraws them all."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"wave-table--fresh", "wave-table--invalid"}
    BORDER_TITLE = "Waves, in the order they happened"

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = False
        self.add_columns(*COLUMNS)

    def show(self, waves: list[Wave], fresh: set[str]) -> None:
        """`fresh`: the names of waves with an artifact written moments ago."""
        cursor = self.cursor_row
        self.clear()
        fresh_style = self.get_component_rich_style("wave-table--fresh")
        # Colour and weight only: a background read now is the table's as it is now (tinted
        # while it has focus) and would stay baked into the cell after the focus moved.
        invalid_style = self.get_component_rich_style("wave-table--invalid", partial=True)
        for number, wave in enumerate(waves, 1):
            first = stamp(wave.first) if wave.first is not None else "–"
            last = stamp(wave.last) if wave.last is not None else "–"
            if last[:10] == first[:10]:
                last = last[11:]  # the date once, unless the wave spans midnight
            cells = [
                Text(str(number)),
                plain(wave.name, style="bold"),
                Text(first),
                Text(last),
                Text(str(len(wave.items)), justify="right"),
                Text(str(wave.invalid), justify="right", style=invalid_style if wave.invalid else ""),
                Text(str(wave.size), justify="right"),
                Text(str(wave.tokens), justify="right"),
            ]
            if wave.name in fresh:
                for cell in cells:
                    cell.stylize(fresh_style)
            self.add_row(*cells, key=wave.name)
        if waves:
            self.move_cursor(row=min(cursor, len(waves) - 1))
        self.border_subtitle = f"{len(waves)} wave{'' if len(waves) == 1 else 's'}"

"""Colours for Rich text built in Python, read from the app's current theme: the same
variables the .tcss uses, so light and dark themes (and NO_COLOR) work everywhere."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import App


@dataclass(frozen=True)
class ThemeColours:
    """Text colours of the current theme (the `$text-*` variables: readable on its background)."""

    success: str
    error: str
    warning: str

    @classmethod
    def of(cls, app: App[object]) -> ThemeColours:
        variables = app.theme_variables or app.get_css_variables()
        return cls(
            success=variables["text-success"],
            error=variables["text-error"],
            warning=variables["text-warning"],
        )

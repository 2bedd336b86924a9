"""WriteFactScreen: a form with every memory_write field; the core validates it, and
a refusal is shown in the form, not as a crash."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Input, Label, Select, TextArea

from foundry_tui.core.errors import FoundryError
from foundry_tui.core.memory.model.request import WriteRequest, validate_request
from foundry_tui.core.memory.model.vocabulary import (
    CONFIDENCES,
    DEFAULT_CONFIDENCE,
    DEFAULT_SCOPE,
    DEFAULT_SOURCE,
    MAX_BODY_WORDS,
    MAX_TITLE_CHARS,
    TYPES,
)
from foundry_tui.tui.common.dialog import Dialog
from foundry_tui.tui.common.text import plain, shown, shown_lines


class WriteFactScreen(Dialog[WriteRequest | None]):
    """Dismisses with a validated WriteRequest, or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+s", "save", "Save")]

    def __init__(
        self, preset: WriteRequest | None = None, title: str = "Write a fact", *, focus_body: bool = False
    ) -> None:
        """`focus_body`: start in the body, the cursor at its end (adding a Why line to a
        preset whose body ends with `**Why:** `), not in the title, which typing would replace."""
        super().__init__()
        self.focus_body = focus_body
        self.preset = preset or WriteRequest(
            title="",
            body="",
            type="convention",
            scope=DEFAULT_SCOPE,
            tags=[],
            confidence=DEFAULT_CONFIDENCE,
            source=DEFAULT_SOURCE,
        )
        self.heading_text = title

    def compose(self) -> ComposeResult:
        p = self.preset
        with VerticalScroll(id="dialog"):
            yield self.heading(self.heading_text)
            yield Label(f"Title (the fact itself, at most {MAX_TITLE_CHARS} characters)")
            # A preset comes from a fact on disk: its control characters are shown as escapes.
            yield Input(shown(p.title), id="title", max_length=200)
            with Horizontal(classes="row"):
                yield Select([(t, t) for t in TYPES], value=p.type, allow_blank=False, id="type")
                yield Select(
                    [(c, c) for c in CONFIDENCES],
                    value=p.confidence or DEFAULT_CONFIDENCE,
                    allow_blank=False,
                    id="confidence",
                )
            yield Label(f"Body (at most {MAX_BODY_WORDS} words; decisions and risks need a Why: line)")
            yield TextArea(shown_lines(p.body), id="body")
            yield Label("Tags (comma separated)")
            yield Input(", ".join(shown(t) for t in p.tags or ()), id="tags")
            with Horizontal(classes="row"):
                yield Input(shown(p.scope or ""), placeholder=f"scope: {DEFAULT_SCOPE}", id="scope")
                yield Input(shown(p.source or ""), placeholder=f"source: {DEFAULT_SOURCE}", id="source")
                yield Input(shown(p.expires or ""), placeholder="expires: YYYY-MM-DD", id="expires")
            yield Label("", id="form-error")
            yield from self.buttons("Save", "save")

    def on_mount(self) -> None:
        if self.focus_body:
            body = self.query_one("#body", TextArea)
            body.focus()
            body.move_cursor(body.document.end)
        else:
            self.query_one("#title", Input).focus()

    def _value(self, widget_id: str) -> str:
        return self.query_one(f"#{widget_id}", Input).value

    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        req = WriteRequest(
            title=self._value("title"),
            body=self.query_one("#body", TextArea).text,
            type=str(self.query_one("#type", Select).value),
            scope=self._value("scope") or DEFAULT_SCOPE,
            tags=[t for t in self._value("tags").split(",")],
            confidence=str(self.query_one("#confidence", Select).value),
            source=self._value("source") or DEFAULT_SOURCE,
            expires=self._value("expires").strip(),  # every field of the form is given: "" is no expiry
        )
        try:
            validate_request(req)
        except FoundryError as exc:
            self.query_one("#form-error", Label).update(plain(f"Not saved: {exc}"))  # it may quote a tag `[/]`
            return
        self.dismiss(req)

"""WriteFactScreen: a form with every memory_write field; the core validates it, and
a refusal is shown in the form, not as a crash. Given what the write changes on disk, it
asks before saving, over the form: a cancelled question returns to the form, typo and
all. A draft is never thrown away without a question (tui/common/draft.py): Escape or
Cancel on a form that differs from what it opened with asks first."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
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
from foundry_tui.tui.common.confirming import confirm_on
from foundry_tui.tui.common.draft import DraftDialog
from foundry_tui.tui.common.text import plain, shown, shown_lines

SHORT_BELOW = 37  # rows: the form as laid out for tall terminals needs 36 (app.tcss)


class WriteFactScreen(DraftDialog[WriteRequest | None]):
    """Dismisses with a validated WriteRequest (confirmed first when `changes` is given),
    or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+s", "save", "Save")]
    # Below SHORT_BELOW rows the form takes its one-line layout (app.tcss's `-short` rules), so
    # that at 80x24 every field, its label and the buttons show without scrolling.
    VERTICAL_BREAKPOINTS = [(0, "-short"), (SHORT_BELOW, "-tall")]

    def __init__(
        self,
        preset: WriteRequest | None = None,
        title: str = "Write a fact",
        *,
        focus_body: bool = False,
        changes: list[str] | None = None,
    ) -> None:
        """`focus_body`: start in the body, the cursor at its end (adding a Why line to a
        preset whose body ends with `**Why:** `), not in the title, which typing would replace.
        `changes`: what a save changes on disk, asked before the form is dismissed (None: no
        question, the caller writes at once)."""
        super().__init__()
        self.focus_body = focus_body
        self.changes = changes
        self.preset = preset or WriteRequest(
            title="",
            body="",
            type="",  # chosen by the writer: memory_write has no default type, nor does the form
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
            yield Label(f"Title (the fact itself, at most {MAX_TITLE_CHARS} characters)", id="title-label")
            # A preset comes from a fact on disk: its control characters are shown as escapes.
            yield Input(shown(p.title), id="title", max_length=200)
            with Horizontal(classes="row"):
                with Vertical(classes="field"):
                    yield Label("Type", id="type-label")
                    yield Select(
                        [(t, t) for t in TYPES],
                        value=p.type if p.type in TYPES else Select.NULL,
                        prompt="choose a type",
                        id="type",
                    )
                with Vertical(classes="field"):
                    yield Label("Confidence", id="confidence-label")
                    yield Select(
                        [(c, c) for c in CONFIDENCES],
                        value=p.confidence or DEFAULT_CONFIDENCE,
                        allow_blank=False,
                        id="confidence",
                    )
            yield Label(f"Body (at most {MAX_BODY_WORDS} words; decisions and risks need a Why: line)", id="body-label")
            yield TextArea(shown_lines(p.body), id="body")
            yield Label("Tags (comma separated)", id="tags-label")
            yield Input(", ".join(shown(t) for t in p.tags or ()), id="tags")
            with Horizontal(classes="row"):
                # Labelled, each: a value such as "project" in a bare box reads as a placeholder.
                for field_id, label, value, hint in (
                    ("scope", "Scope", p.scope, f"{DEFAULT_SCOPE}, module:<name>, vertical:<name>"),
                    ("source", "Source", p.source, f"{DEFAULT_SOURCE}, code, adr-NNNN, external:<url>"),
                    ("expires", "Expires (blank: never)", p.expires, "YYYY-MM-DD"),
                ):
                    with Vertical(classes="field"):
                        yield Label(label, id=f"{field_id}-label")
                        yield Input(shown(value or ""), placeholder=hint, id=field_id)
            yield Label("", id="form-error")
            yield from self.buttons("Save", "save")

    def on_mount(self) -> None:
        if self.focus_body:
            body = self.query_one("#body", TextArea)
            body.focus()
            body.move_cursor(body.document.end)
        else:
            self.query_one("#title", Input).focus()
        self.remember_draft()

    def draft(self) -> tuple[str, ...]:
        """Every field as it stands (to tell a changed draft from the one the form opened with)."""
        inputs = tuple(self._value(i) for i in ("title", "tags", "scope", "source", "expires"))
        selects = tuple(str(self.query_one(f"#{i}", Select).selection) for i in ("type", "confidence"))
        return (*inputs, *selects, self.query_one("#body", TextArea).text)

    def _value(self, widget_id: str) -> str:
        return self.query_one(f"#{widget_id}", Input).value

    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        chosen = self.query_one("#type", Select).selection
        if chosen is None:
            self.query_one("#form-error", Label).update(f"Not saved: choose a type ({', '.join(TYPES)}).")
            return
        req = WriteRequest(
            title=self._value("title"),
            body=self.query_one("#body", TextArea).text,
            type=str(chosen),
            scope=self._value("scope") or DEFAULT_SCOPE,
            tags=[t for t in self._value("tags").split(",")],
            confidence=str(self.query_one("#confidence", Select).value),
            source=self._value("source") or DEFAULT_SOURCE,
            expires=self._value("expires").strip(),  # every field of the form is given: "" is no expiry
        )
        try:
            fact = validate_request(req)
        except FoundryError as exc:
            self.query_one("#form-error", Label).update(plain(f"Not saved: {exc}"))  # it may quote a tag `[/]`
            return
        if self.changes is None:
            self.dismiss(req)
            return
        changes = list(self.changes)
        if fact.needs_why:  # said before the write, when it can still be added (Cancel returns here)
            changes.append(
                f"warning: this {fact.type} has no Why: line; doctor fails and prune lists it until one "
                "is added (Cancel returns to the form)"
            )
        confirm_on(self, f"Write “{req.title}”?", changes, lambda _answer: self.dismiss(req))

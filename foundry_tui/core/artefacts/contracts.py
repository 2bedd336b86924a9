"""Contracts: JSON Schemas that blackboard artifacts must satisfy.

Shipped schemas live in `core/artefacts/contract_schemas/`; a project's own
`.foundry/contracts/<id>.json` wins over a shipped one of the same id. jsonschema is
imported only when something is validated (it costs more than the server's start).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from foundry_tui.core.errors import FoundryError, InputError, NotFoundError
from foundry_tui.core.names import check_slug, inside
from foundry_tui.core.paths import Layout

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from jsonschema.exceptions import ValidationError

    from foundry_tui.core.json_types import JSONObject, JSONValue

SHIPPED_DIR = Path(__file__).parent / "contract_schemas"
PROVIDE_ONE = "Provide either `data` or `path`."


def contract_ids(layout: Layout) -> list[str]:
    ids = {p.name[:-5] for p in SHIPPED_DIR.glob("*.json")}
    if layout.contracts_dir.is_dir() and layout.is_inside(layout.contracts_dir):
        ids |= {
            p.name[:-5]
            for p in layout.contracts_dir.glob("*.json")
            if not p.name.startswith(".") and layout.is_inside(p)  # a contract linked out of the root is not one
        }
    return sorted(ids)


def contract_path(layout: Layout, contract_id: str) -> Path:
    check_slug(contract_id, "contract id")
    for folder in (layout.contracts_dir, SHIPPED_DIR):
        path = folder / f"{contract_id}.json"
        if path.is_file():
            if folder == layout.contracts_dir:
                layout.check_inside(path)
            return path
    raise NotFoundError(f"unknown contract '{contract_id}'; available: {', '.join(contract_ids(layout))}")


def load_contract(layout: Layout, contract_id: str) -> JSONObject:
    path = contract_path(layout, contract_id)
    try:
        text = layout.read_text(path) if path.parent != SHIPPED_DIR else path.read_text(encoding="utf-8")
        schema = json.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FoundryError(f"contract {layout.relative(path)} cannot be used ({exc}): fix the file") from None
    except (ValueError, RecursionError) as exc:
        raise FoundryError(
            f"contract {layout.relative(path)} cannot be used ({_json_limit(exc)}): fix the file"
        ) from None
    if not isinstance(schema, dict):
        raise FoundryError(f"contract {layout.relative(path)} is not a JSON object: fix the file")
    return schema


def describe_contracts(layout: Layout) -> str:
    """The foundry://contracts resource: a markdown list of every available contract id."""
    lines = ["# I/O contracts", ""]
    for cid in contract_ids(layout):
        try:
            schema = load_contract(layout, cid)
            description = str(schema.get("description") or schema.get("title") or "")
        except FoundryError as exc:
            description = f"(unusable: {exc})"
        origin = "project" if (layout.contracts_dir / f"{cid}.json").is_file() else "shipped"
        lines.append(f"- **{cid}** ({origin}) — {description}".rstrip(" —"))
    return "\n".join(lines)


def _pointer(path: Sequence[str | int]) -> str:
    return "/" + "/".join(str(p) for p in path) if path else ""


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {int: "integer", float: "number", str: "string", list: "array", dict: "object"}.get(
        type(value), type(value).__name__
    )


def _message(error: ValidationError) -> str:
    """A violation in the spec's wording: `missing required property "x"`."""
    where = _pointer(error.absolute_path)
    place = f'property "{where}"' if where else "the artifact"
    if error.validator == "required":
        match = re.match(r"'(.+)' is a required property", error.message)
        name = match.group(1) if match else error.message
        return f'missing required property "{name}"' + (f" in {where}" if where else "")
    if error.validator == "type":
        types = error.validator_value  # a schema's `type`: a name or a list of names
        expected = types if isinstance(types, str) else " or ".join(types if isinstance(types, list) else [])
        return f"{place} must be of type {expected}, not {_type_name(error.instance)}"
    if error.validator == "enum":
        allowed = error.validator_value if isinstance(error.validator_value, list) else []  # `enum` is a list
        return f"{place} must be one of {', '.join(json.dumps(v) for v in allowed)}"
    if error.validator == "const":
        return f"{place} must be {json.dumps(error.validator_value)}"
    if error.validator == "additionalProperties":
        match = re.search(r"\((.+) (?:was|were) unexpected\)", error.message)
        return f"unexpected {match.group(1) if match else 'properties'}" + (f" in {where}" if where else "")
    return f"{place}: {error.message}"


class _UnsupportedPattern(Exception):
    def __init__(self, pattern: str, reason: str) -> None:
        super().__init__(pattern, reason)
        self.pattern = pattern
        self.reason = reason


class _LinearPatterns:
    """`pattern` and `patternProperties` matched by RE2, which runs in time linear in the
    input: a project contract is untrusted input, and with a backtracking engine a pattern
    such as `^(a+)+$` never returns. Compiled patterns are kept for one validation."""

    def __init__(self) -> None:
        self.compiled: dict[str, Any] = {}  # RE2's compiled patterns: google-re2 ships no type hints

    def search(self, pattern: str, text: str) -> bool:
        regex = self.compiled.get(pattern)
        if regex is None:
            import re2  # type: ignore[import-untyped]  # google-re2 ships no type hints

            options = re2.Options()
            options.log_errors = False  # RE2 would log to stderr; the reason goes into our message
            try:
                regex = re2.compile(pattern, options)
            except re2.error as exc:
                reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else exc
                raise _UnsupportedPattern(pattern, str(reason)) from None
            self.compiled[pattern] = regex
        # A lone surrogate cannot be encoded for RE2; it matches as U+FFFD would.
        return regex.search(text.encode("utf-8", "replace").decode("utf-8")) is not None

    # jsonschema's keyword callbacks: the instance is any value of the artifact (narrowed by
    # validator.is_type, which mypy cannot see), the validator and schema are jsonschema's.
    def pattern(self, validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
        from jsonschema.exceptions import ValidationError

        if validator.is_type(instance, "string") and not self.search(pattern, instance):
            yield ValidationError(f"{instance!r} does not match {pattern!r}")

    def pattern_properties(
        self, validator: Any, patterns: dict[str, Any], instance: Any, schema: Any
    ) -> Iterator[ValidationError]:
        if not validator.is_type(instance, "object"):
            return
        for pattern, subschema in patterns.items():
            for key, value in instance.items():
                if self.search(pattern, key):
                    yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _depth(value: object) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def violations(schema: JSONObject, data: object, contract_id: str = "") -> list[str]:
    """Every violation of `schema` by `data`, in a stable order. A contract that cannot be
    applied (a `$ref` that leads nowhere or in circles, a pattern RE2 cannot run) raises a
    one-line FoundryError; no `$ref` is ever fetched from the network."""
    return [found.message for found in ContractChecker(schema, contract_id).check(data)]


class Found(NamedTuple):
    """One violation: its message; the path (keys and indexes) of the value it is about
    (the object itself for a missing or unexpected property); and the path of the rule
    it breaks, as jsonschema gives it (through a `$ref` it continues in the schema the
    reference leads to, so it may name no place of the contract's text)."""

    message: str
    path: tuple[str | int, ...]
    rule: tuple[str | int, ...]


def _rule_path(error: ValidationError) -> tuple[str | int, ...]:
    rule: list[str | int] = list(error.absolute_schema_path)
    if error.validator == "required" and isinstance(error.validator_value, list):
        match = re.match(r"'(.+)' is a required property", error.message)
        if match and match.group(1) in error.validator_value:  # the missing name in the list
            rule.append(error.validator_value.index(match.group(1)))
    return tuple(rule)


class ContractChecker:
    """One contract made ready to check many artifacts: checking the schema itself costs
    most of one validation, so a caller that validates a whole run makes one per contract."""

    def __init__(self, schema: JSONObject, contract_id: str = "") -> None:
        from jsonschema import exceptions, validators

        self.schema = schema
        self.name = f"contract {contract_id}" if contract_id else "the contract"
        base = validators.validator_for(schema)
        try:
            base.check_schema(schema)
        except exceptions.SchemaError as exc:
            raise FoundryError(f"{self.name} is not a valid JSON Schema ({exc.message}): fix it") from None
        except RecursionError:
            raise FoundryError(f"{self.name} is nested too deeply to check: fix it") from None
        self.patterns = _LinearPatterns()
        self.cls = validators.extend(  # type: ignore[no-untyped-call]
            base, {"pattern": self.patterns.pattern, "patternProperties": self.patterns.pattern_properties}
        )

    def check(self, data: object) -> list[Found]:
        from referencing import Registry
        from referencing.exceptions import Unresolvable

        name = self.name
        try:
            found = list(self.cls(self.schema, registry=Registry()).iter_errors(data))
        except Unresolvable as exc:
            ref = str(getattr(exc, "ref", "") or "")
            ref = "#" + ref if ref.startswith("/") else ref
            raise FoundryError(
                f"{name} cannot be used: its $ref '{ref}' cannot be resolved: fix the contract"
            ) from None
        except _UnsupportedPattern as exc:
            raise FoundryError(
                f"{name} cannot be used: pattern {exc.pattern!r} is not supported ({exc.reason}): contracts match "
                "patterns in linear time, without backreferences or lookaround: rewrite it"
            ) from None
        except RecursionError:
            if _depth(data) > 100:
                raise InputError("the artifact is nested deeper than 100 levels: flatten it") from None
            raise FoundryError(
                f"{name} cannot be used: its $ref chain never reaches a schema: fix the contract"
            ) from None
        errors = sorted(found, key=lambda e: (list(map(str, e.absolute_path)), e.validator != "required", e.message))
        return [Found(_message(e), tuple(e.absolute_path), _rule_path(e)) for e in errors]


def load_json_file(layout: Layout, raw_path: str) -> JSONValue:
    """A JSON file named by a caller: resolved against the root when relative, refused if it leaves it."""
    if not raw_path.strip():
        raise InputError("path is empty")
    if "\x00" in raw_path:  # no file name holds one; without this check it reads as "outside the root"
        raise InputError(f"path {raw_path!r} contains a NUL character: name a file without one")
    path = Path(raw_path)
    if not path.is_absolute():
        path = layout.root / path
    if not inside(layout.root, path):
        raise InputError(f"path '{raw_path}' is outside the project root: name a file inside it")
    from foundry_tui.core.reserved import refuse_reserved_path

    refuse_reserved_path(layout, path, f"path '{raw_path}'")
    try:
        data: JSONValue = json.loads(layout.read_text(path))
        return data
    except FileNotFoundError:
        raise NotFoundError(f"no file '{raw_path}' under the project root") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"'{raw_path}' is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"'{raw_path}' cannot be read ({exc})") from None
    except (ValueError, RecursionError) as exc:
        raise InputError(f"'{raw_path}' is not valid JSON ({_json_limit(exc)})") from None


def _json_limit(exc: Exception) -> str:
    """The parser limit a JSON text ran into, in words."""
    return "nested too deeply" if isinstance(exc, RecursionError) else "a number has more than 4300 digits"


def contract_validate(
    layout: Layout, schema_id: str, data: object = None, path: str | None = None, *, has_data: bool | None = None
) -> tuple[bool, str]:
    """(valid, reply text). Exactly one of `data` or `path`; else the spec's error text."""
    found = contract_findings(layout, schema_id, data, path, has_data=has_data)
    return not found, validation_text(schema_id, found)


def contract_findings(
    layout: Layout, schema_id: str, data: object = None, path: str | None = None, *, has_data: bool | None = None
) -> list[Found]:
    """Every violation of contract `schema_id` by `data` or the JSON file at `path` (exactly one
    of them; else the spec's error text), in the order the reply lists them."""
    given_data = data is not None if has_data is None else has_data
    if given_data == (path is not None):
        raise InputError(PROVIDE_ONE)
    schema = load_contract(layout, schema_id)
    artifact = load_json_file(layout, path) if path is not None else data
    return ContractChecker(schema, schema_id).check(artifact)


def validation_text(schema_id: str, found: list[Found]) -> str:
    """The contract_validate reply for `found`: VALID, or INVALID and one line per violation."""
    if not found:
        return f"VALID against {schema_id}"
    return "\n".join([f"INVALID against {schema_id}:", *(f"- {f.message}" for f in found)])

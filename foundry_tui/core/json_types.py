"""The shapes of JSON values: what json.loads returns and json.dumps takes.

Imported under TYPE_CHECKING only (the aliases are strings at run time), so a module on the
start-up path pays nothing for it.
"""

from __future__ import annotations

from typing import TypeAlias

JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
JSONObject: TypeAlias = "dict[str, JSONValue]"

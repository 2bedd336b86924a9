"""Bounds on decoded YAML from files a repository carries (fact and runbook frontmatter).

YAML aliases let a few hundred bytes stand for billions of values (an "alias bomb"): the
loader shares them, so loading is cheap, but anything that walks the data (a cache, a
JSON reply, `str()`) expands them. Decoded data is measured here as if every alias were
copied out, each shared value measured once, so the check itself is linear.
"""

from __future__ import annotations

MAX_YAML_VALUES = 10_000
MAX_YAML_DEPTH = 16


class YamlBoundsError(ValueError):
    """Decoded YAML past the bounds; the message says which and what to do."""


def check_yaml_bounds(value: object, what: str = "frontmatter") -> None:
    """Raise YamlBoundsError when `value` expands past MAX_YAML_VALUES values, nests past
    MAX_YAML_DEPTH levels, or contains itself."""
    _Measure(what).size(value, 1)


class _Measure:
    def __init__(self, what: str) -> None:
        self.what = what
        self.sizes: dict[int, int] = {}
        self.open: set[int] = set()
        self.shared = False

    def size(self, value: object, depth: int) -> int:
        if not isinstance(value, (dict, list)):
            return 1
        key = id(value)
        known = self.sizes.get(key)
        if known is not None:
            self.shared = True
            return known
        if key in self.open:
            raise YamlBoundsError(
                f"{self.what} refers to itself through YAML aliases: write the values out, without anchors (&) "
                "and aliases (*)"
            )
        if depth > MAX_YAML_DEPTH:
            raise YamlBoundsError(f"{self.what} is nested deeper than {MAX_YAML_DEPTH} levels: keep the fields flat")
        self.open.add(key)
        total = 1
        for item in (*value.keys(), *value.values()) if isinstance(value, dict) else value:
            total += self.size(item, depth + 1)
            if total > MAX_YAML_VALUES:
                if self.shared:
                    raise YamlBoundsError(
                        f"{self.what} expands to more than {MAX_YAML_VALUES} values through YAML aliases: "
                        "write the values out, without anchors (&) and aliases (*)"
                    )
                raise YamlBoundsError(f"{self.what} holds more than {MAX_YAML_VALUES} values: keep the fields short")
        self.open.discard(key)
        self.sizes[key] = total
        return total

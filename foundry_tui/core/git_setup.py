"""What `foundry init` sets up in git so that merges keep every fact (per clone; idempotent).

- `.gitattributes` (committed, travels with the repository): INDEX.md uses the
  `foundry-index` merge driver, so git never writes conflict markers into a file that
  is regenerated anyway.
- `git config merge.foundry-index.*` (per clone: config does not travel): that driver
  keeps our INDEX.md (`true`); without it git falls back to its text merge and
  `foundry memory resolve` regenerates the file.
- `post-merge` and `post-rewrite` hooks (per clone) run `foundry memory resolve`, which
  regenerates INDEX.md after a merge or rebase and repairs what git left. They start the
  program that ran `foundry init` by its absolute path (core/program.py), never one on
  PATH or in the work tree (which the merge just filled with the other branch's files),
  and print one line and skip when it is gone.

Fact files keep git's text merge: an add/add conflict leaves both sides in one file,
which `foundry memory resolve` splits (see core/curation/resolve.py).
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

from foundry_tui.core.atomic import atomic_write
from foundry_tui.core.paths import Layout
from foundry_tui.core.program import ConfiguredCommand, Program, is_foundry_command, split_command

DRIVER = "foundry-index"
HOOK_MARK = "# foundry: memory resolve hook"
HOOK_NAMES = ("post-merge", "post-rewrite")


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=30)


def _attributes_lines(layout: Layout, top: Path) -> list[str]:
    index = layout.index_path.resolve().relative_to(top.resolve()).as_posix()
    return [f"/{index} merge={DRIVER}"]


def hook_script(hook: str, root_from_top: str, program: Program) -> str:
    executable = shlex.quote(program.words[0])
    skipped = (
        f"foundry: {program.words[0]} not found; skipped the memory repair: "
        'run "foundry init" again where foundry is installed'
    )
    return f"""#!/bin/sh
{HOOK_MARK} (installed by `foundry init`; see README, "Working as a team")
# After git {"merged" if hook == "post-merge" else "rewrote commits"}: regenerate INDEX.md, repair what git left.
# The installed program, by its absolute path: nothing in the work tree is imported.
if [ -x {executable} ]; then
  {program.shell("memory", "resolve", "--root", root_from_top)} || true
else
  echo {shlex.quote(skipped)} >&2
fi
exit 0
"""


def _hooks_dir(layout: Layout) -> tuple[Path, Path] | None:
    """(the work tree's top, git's hooks folder); None outside git."""
    try:
        proc = _git(layout.root, "rev-parse", "--show-toplevel", "--git-path", "hooks")
    except (OSError, subprocess.TimeoutExpired):
        return None  # no git here
    if proc.returncode != 0:
        return None
    top_text, hooks_text = proc.stdout.splitlines()[:2]
    return Path(top_text), Path(hooks_text) if Path(hooks_text).is_absolute() else layout.root / hooks_text


def hook_commands(layout: Layout) -> list[ConfiguredCommand]:
    """The `memory resolve` command in each of Foundry's git hooks (scripts that are not Foundry's are not read)."""
    found = _hooks_dir(layout)
    if found is None:
        return []
    commands = []
    for hook in HOOK_NAMES:
        path = found[1] / hook
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if HOOK_MARK not in text:
            continue
        for line in text.splitlines():
            words = split_command(line.removesuffix("|| true"))
            if (
                words
                and len(words) > 2
                and words[-2] == "--root"
                and is_foundry_command(words[:-2], "memory", "resolve")
            ):
                commands.append(ConfiguredCommand(layout.relative(path), "the git hook", tuple(words)))
                break
    return commands


def setup_git(layout: Layout, program: Program, added: list[tuple[str, str]], problems: list[str]) -> None:
    """Write the attributes, driver config and hooks that are missing; `added` gets (verb, what)."""
    found = _hooks_dir(layout)
    if found is None:
        return  # no git here: nothing to set up
    top, hooks_dir = found
    # .gitattributes
    attributes = top / ".gitattributes"
    try:
        text = attributes.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    present = {line.strip() for line in text.splitlines()}
    missing = [line for line in _attributes_lines(layout, top) if line not in present]
    if missing:
        prefix = "" if not text or text.endswith("\n") else "\n"
        atomic_write(
            attributes,
            text + prefix + "# Foundry: INDEX.md is regenerated after merges\n" + "\n".join(missing) + "\n",
            inside=Layout(top),
        )
        added.append(("created" if not text else "merged", f".gitattributes (INDEX.md merge={DRIVER})"))
    # merge driver (per clone)
    wanted = {
        f"merge.{DRIVER}.name": "Foundry INDEX.md: keep ours, regenerated after the merge",
        f"merge.{DRIVER}.driver": "true",
    }
    config_changed = False
    for key, value in wanted.items():
        if _git(layout.root, "config", "--get", key).stdout.strip() != value:
            _git(layout.root, "config", key, value)
            config_changed = True
    if config_changed:
        added.append(("set", f"git config merge.{DRIVER} (this clone)"))
    # hooks (per clone)
    root_from_top = layout.root.resolve().relative_to(top.resolve()).as_posix() or "."
    for hook in HOOK_NAMES:
        path = hooks_dir / hook
        script = hook_script(hook, root_from_top, program)
        try:
            current = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            current = None
        except OSError as exc:
            problems.append(f"git hook {hook} cannot be read ({exc}); left untouched")
            continue
        if current == script:
            continue
        if current is not None and HOOK_MARK not in current:
            problems.append(
                f"git hook {hook} exists and is not Foundry's; left untouched: add `foundry memory resolve` to it"
            )
            continue
        hooks_dir.mkdir(parents=True, exist_ok=True)
        atomic_write(path, script, inside=None)  # in git's own folder, not the project's tree
        path.chmod(0o755)
        added.append(
            ("updated" if current else "created", f"git hook {hook} (runs {program.shell('memory', 'resolve')})")
        )

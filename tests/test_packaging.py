"""What a user meets when they install it: the wheel and the sdist hold what they should,
and an unsupported platform is told so at once."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from .helpers import REPO


def _build(kind: str, out: Path, cwd: Path = REPO) -> Path:
    proc = subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", kind, "-d", str(out)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    (built,) = out.iterdir()
    return built


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    built = {kind: _build(kind, out / kind) for kind in ("wheel", "sdist")}
    # What pip does with the sdist: unpack it and build a wheel from the unpacked tree.
    with tarfile.open(built["sdist"]) as tar:
        tar.extractall(out / "unpacked", filter="data")
    (unpacked,) = (out / "unpacked").iterdir()
    built["wheel from sdist"] = _build("wheel", out / "from-sdist", cwd=unpacked)
    return built


def _members(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _record(text: str) -> set[tuple[str, str]]:
    """A RECORD's (path, hash) pairs for the package's own files (not the .dist-info, and not
    the bytecode pip compiles at install time, which RECORD lists without a hash)."""
    rows = (line.split(",") for line in text.splitlines() if line)
    return {(row[0], row[1]) for row in rows if row[0].startswith("foundry_tui/") and "/__pycache__/" not in row[0]}


def test_the_sdist_and_the_wheel_install_the_same_bytes(dist: dict[str, Path]) -> None:
    """tox runs the suite on a wheel install (3.11, 3.13) and an sdist install (3.12): each run
    stands for both kinds only because pip installs byte-identical files from either."""
    direct, from_sdist = _members(dist["wheel"]), _members(dist["wheel from sdist"])
    assert sorted(direct) == sorted(from_sdist)
    assert [name for name in direct if direct[name] != from_sdist[name]] == []


def test_under_tox_the_installed_files_are_the_wheels(dist: dict[str, Path]) -> None:
    """Whichever kind tox installed, the files on disk are the wheel's, hash for hash."""
    import importlib.metadata
    import os

    if "TOX_ENV_NAME" not in os.environ:
        pytest.skip("only meaningful under tox, which installs the package from its wheel or its sdist")
    installed = importlib.metadata.distribution("foundry-tui").read_text("RECORD") or ""
    members = _members(dist["wheel"])
    wheel_record = next(data for name, data in members.items() if name.endswith(".dist-info/RECORD"))
    assert _record(installed) == _record(wheel_record.decode())
    assert len(_record(installed)) > 100


def test_the_wheel_carries_the_licence_and_no_test_helpers(dist: dict[str, Path]) -> None:
    names = zipfile.ZipFile(dist["wheel"]).namelist()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "foundry_tui/py.typed" in names
    assert "foundry_tui/core/artefacts/contract_schemas/fact.v1.json" in names
    assert "foundry_tui/demo_project/foundry/memory/INDEX.md" in names
    assert not [n for n in names if n.startswith("tests/")]
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(dist["wheel"]).read(metadata).decode()
    for line in (
        "Classifier: Operating System :: POSIX",
        "Classifier: Programming Language :: Python :: 3.13",
        "Requires-Dist: pyyaml>=6.0",
        "Requires-Dist: rich>=14.2",
        "License-Expression: MIT",
    ):
        assert line in text


def test_the_sdist_holds_everything_the_suite_reads(dist: dict[str, Path]) -> None:
    with tarfile.open(dist["sdist"]) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    # The README tests read .ci/run; tests/test_repo_docs.py reads the guides and the pre-commit config.
    needed_files: tuple[str, ...] = (
        ".ci/run",
        "LICENSE",
        "README.md",
        "tox.ini",
        "pyproject.toml",
        "tests/test_readme.py",
    )
    needed_files += ("CONTRIBUTING.md", "CHANGELOG.md", ".pre-commit-config.yaml")
    needed_files += ("scripts/gen_reference.py", "benchmarks/report.py")
    for needed in needed_files:
        assert needed in names
    # tests/test_hardening_docs.py reads every page under docs/ (the ADRs, the guides, the references).
    assert {str(p.relative_to(REPO)) for p in (REPO / "docs").rglob("*.md")} <= names
    assert {f"screenshots/{p.name}" for p in (REPO / "screenshots").glob("*.svg")} <= names


def test_windows_is_refused_at_start_with_one_line() -> None:
    code = "import sys\nsys.platform = 'win32'\nfrom foundry_tui.launcher import main\nsys.exit(main(['memory', 'list']))\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr == (
        "foundry: error: Windows is not supported: the memory's locks and id claims need POSIX "
        "(flock, hard links); run it under WSL, Linux or macOS\n"
    )


def test_under_tox_the_suite_runs_against_the_installed_package() -> None:
    """tox.ini installs the wheel or the sdist and runs from an empty folder: the checkout must not shadow it."""
    import os

    import foundry_tui

    if "TOX_ENV_NAME" not in os.environ:
        pytest.skip("only meaningful under tox, which installs the package from its wheel or its sdist")
    checkout = (REPO / "foundry_tui").resolve()
    assert Path(foundry_tui.__file__).resolve().parent != checkout
    proc = subprocess.run(
        [sys.executable, "-c", "import foundry_tui; print(foundry_tui.__file__)"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert Path(proc.stdout.strip()).resolve().parent != checkout

"""The doctor's curation check: contradictions. core.memory may not import core.curation
(the import layers), so `core/memory/reports/doctor.py` lists its own checks in `CHECKS` and
`core/checkup.py` composes `ALL_CHECKS`, which adds this one after the duplicate titles."""

from __future__ import annotations

from collections.abc import Iterator

from foundry_tui.core.curation.conflicts import conflict_lines, find_conflicts_in, project_meaning
from foundry_tui.core.memory.reports.doctor import (
    OK,
    WARN,
    Check,
    DoctorContext,
)


def check_contradictions(ctx: DoctorContext) -> Iterator[Check]:
    """Active facts about one subject that disagree (core/curation/conflicts.py): a warning,
    since an agent given both picks one. Pairs near in meaning count too where the derived cache
    holds the facts' vectors (read from the file: the doctor never loads the model)."""
    problems = list(conflict_lines(find_conflicts_in(ctx.active, project_meaning(ctx.project, ctx.active))))
    if problems:
        count = len(problems)
        yield Check(
            "contradictions", WARN, f"{count} pair{'' if count == 1 else 's'} of active facts disagree", problems
        )
    else:
        yield Check("contradictions", OK, "no two active facts about one subject disagree")

"""Retrieval benchmark: quality and latency of both rankers, side by side in one run.

Quality: recall@8 and MRR (reciprocal rank of the first target within the top 25) of
the `spec` and `bm25` rankers on benchmarks/data/retrieval_questions.json over the
generated memory of retrieval_corpus.py (10,000 facts): the held-out set #4 first (the
figure to quote), then the sets seen while tuning beside it ("heldout3", the third
round's held-out set, and "tuning2", the second round's, both seen now). Then the prompt hook's relevance on
benchmarks/data/hook_prompts.json (1,000 facts, as tests/core/memory/test_hook_relevance.py): of the
prompts about what the memory does not know, how many inject nothing; of the task-style
prompts about a fact it knows, how many inject that fact first.

Latency, for each ranker: memory_search through a running `foundry mcp` driven over
stdio (p50/p95 for queries of three terms that each occur in about 40% of the facts, 60
searches over 10 such queries each searched once before, and the p50 of those first
searches; and the first search after start, median of 7 fresh servers) and
`foundry hook user-prompt-submit` as a whole process for ordinary questions.

    python benchmarks/bench_retrieval.py                     # quality, then latency at 1,000 and 10,000
    python benchmarks/bench_retrieval.py --sizes 10000 100000
    python benchmarks/bench_retrieval.py --quality-only
    python benchmarks/bench_retrieval.py --quality-only --tuning-only   # while tuning: never the held-out set
    python benchmarks/bench_retrieval.py --latency-only --baseline ../main   # main's spec ranker beside ours
    python benchmarks/bench_retrieval.py --quality-only --set heldout6 --rankers bm25 hybrid   # one named set

`--set NAME` (repeatable) scores only the named sets of retrieval_questions.json (and their
`known_NAME` / `unknown_NAME` hook prompts, when hook_prompts.json has them), with the standard
errors, the questions that share no content word with their fact apart (when the set records
`shares_word`), and the known prompts whose fact the hook injects at all beside those it puts first.
"heldout6" is issue 29's held-out set: score it once.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_memory import INIT, Server, foundry_command, percentiles  # noqa: E402
from report import command_line, conditions, markdown_table, write_section  # noqa: E402
from retrieval_corpus import build_corpus, write_corpus  # noqa: E402

# The sections of docs/benchmarks.md that --write-docs fills: <!-- bench:NAME --> ... <!-- /bench:NAME -->.
DOC_SECTION_QUALITY = "retrieval-quality"
DOC_SECTION_HOOK = "retrieval-hook"
DOC_SECTION_LATENCY = "retrieval-latency"

from foundry_tui.core.memory.project import Project  # noqa: E402
from foundry_tui.core.memory.search.spec import query_terms  # noqa: E402
from foundry_tui.core.paths import resolve_today  # noqa: E402

TODAY = resolve_today("2026-11-30")
QUESTIONS = json.loads((HERE / "data" / "retrieval_questions.json").read_text())
PROMPTS = json.loads((HERE / "data" / "hook_prompts.json").read_text())
RANKERS = ("spec", "bm25")
HELDOUT, TUNING = ("heldout4",), ("heldout3", "tuning2", "tuning")


def set_ranker(root: Path, ranker: str) -> None:
    (root / ".foundry" / "config.json").write_text(json.dumps({"memoryRetrieval": {"ranker": ranker}}))


def mean_and_error(values: list[float]) -> tuple[float, float]:
    """The mean of `values` and its standard error (sample standard deviation / sqrt(n))."""
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, 0.0
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1) / len(values))


def detail(part: str, found: list[float], reciprocal: list[float]) -> str:
    """Recall@8 and MRR with their standard errors; then the same for the questions that share no
    content word with their fact, when the set records it."""
    (recall, recall_se), (mrr, mrr_se) = mean_and_error(found), mean_and_error(reciprocal)
    text = f"{part}: recall@8 {recall:.3f} ± {recall_se:.3f}, MRR {mrr:.3f} ± {mrr_se:.3f}"
    flags = [q.get("shares_word") for q in QUESTIONS[part]]
    if all(isinstance(flag, bool) for flag in flags):
        free = [n for n, flag in enumerate(flags) if not flag]
        if free:
            (recall, recall_se), (mrr, mrr_se) = (
                mean_and_error([found[n] for n in free]),
                mean_and_error([reciprocal[n] for n in free]),
            )
            text += f"; sharing no word with their fact ({len(free)} q): {recall:.3f} ± {recall_se:.3f}, {mrr:.3f} ± {mrr_se:.3f}"
    return text


def quality(
    root: Path, ids: dict[str, str], parts: tuple[str, ...], rankers: tuple[str, ...] = RANKERS, details: bool = False
) -> list[list[str]]:
    """Print recall@8 / MRR per ranker and set (with `details`, their standard errors too); return
    them as table rows (ranker, then one cell per set)."""
    table = []
    project = Project(root)
    project.sync()
    print("quality at 10,000 facts (recall@8 / MRR)")
    for ranker in rankers:
        cells, lines = [], []
        for part in parts:
            found, reciprocal = [], []
            for q in QUESTIONS[part]:
                hits = project.search(q["question"], TODAY, limit=25, ranker=ranker)
                targets = {ids[k] for k in q["targets"]}
                rank = next((n for n, h in enumerate(hits, 1) if h.fact.id in targets), None)
                found.append(float(rank is not None and rank <= 8))
                reciprocal.append(1 / rank if rank else 0.0)
            count = len(QUESTIONS[part])
            cells.append(f"{part} ({count} q): {sum(found) / count:.3f} / {sum(reciprocal) / count:.3f}")
            lines.append(detail(part, found, reciprocal))
        print(f"  {ranker:<5} " + "   ".join(cells))
        if details:
            for line in lines:
                print(f"        {line}")
        table.append([ranker, *(cell.split(": ", 1)[1] for cell in cells)])
    return table


def hook_relevance(
    root: Path, ids: dict[str, str], parts: tuple[str, ...], rankers: tuple[str, ...] = RANKERS, details: bool = False
) -> list[list[str]]:
    """Print, per ranker and set, the unknown prompts that inject nothing and the known ones whose fact
    comes first (with `details`, also those whose fact is injected at all); return them as table rows."""
    from foundry_tui.hooks import user_prompt_submit

    table = []

    def injected(prompt: str) -> list[str]:
        answer = user_prompt_submit({"hook_event_name": "UserPromptSubmit", "prompt": prompt}, root)
        if answer is None:
            return []
        context = answer["hookSpecificOutput"]["additionalContext"]
        return [line.split()[1] for line in context.splitlines() if line.startswith("### fact-")]

    print("prompt hook at 1,000 facts (unknown prompts that inject nothing; known prompts whose fact comes first)")
    for ranker in rankers:
        set_ranker(root, ranker)
        cells = []
        for part in (p for p in parts if f"known_{p}" in PROMPTS):  # held-out set #4 has no hook prompts
            unknown, known = PROMPTS[f"unknown_{part}"], PROMPTS[f"known_{part}"]
            quiet = sum(not injected(p) for p in unknown)
            answers = [(injected(k["prompt"]), ids[k["target"]]) for k in known]
            first = sum(facts[:1] == [target] for facts, target in answers)
            anywhere = f", injected {sum(target in facts for facts, target in answers)}/{len(known)}" if details else ""
            cells.append(f"{part}: quiet {quiet}/{len(unknown)}, first {first}/{len(known)}{anywhere}")
        print(f"  {ranker:<5} " + "   ".join(cells))
        table.append([ranker, *(cell.split(": ", 1)[1] for cell in cells)])
    return table


def frequent_terms(count: int, share: float = 0.4, how_many: int = 12) -> list[tuple[str, float]]:
    """Search terms (not stop words) whose share of facts, as the spec ranker matches them
    (substrings of title, tags or body), is closest to `share`."""
    facts, _ids = build_corpus(count)
    texts = [f"{f['title']}\0{' '.join(f['tags'])}\0{f['body']}".lower() for f in facts]  # type: ignore[arg-type]
    sample = texts[:2000]
    words: dict[str, int] = {}
    for text in sample:
        for w in set(re.findall(r"[a-z]{3,}", text)):
            words[w] = words.get(w, 0) + 1
    candidates = [w for w, n in words.items() if abs(n / len(sample) - share) < 0.12 and query_terms(w) == [w]]
    measured = [(w, sum(1 for t in texts if w in t) / len(texts)) for w in candidates]
    measured.sort(key=lambda wf: abs(wf[1] - share))
    return measured[:how_many]


def _spawn(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True)
    return (time.perf_counter() - start) * 1000


class CodeServer(Server):
    """`python -m foundry_tui mcp` run from another checkout (`--baseline`), for a side-by-side figure."""

    def __init__(self, root: Path, code: Path) -> None:
        import selectors

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "foundry_tui", "mcp", "--root", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=code,
        )
        self.sel = selectors.DefaultSelector()
        assert self.proc.stdout is not None
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)
        self.next_id = 1


def start_server(root: Path, code: Path | None) -> Server:
    return Server(root) if code is None else CodeServer(root, code)


def hook_run(root: Path, prompt: str, code: Path | None = None) -> float:
    event = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": prompt, "cwd": str(root)})
    command = [*foundry_command()] if code is None else [sys.executable, "-m", "foundry_tui"]
    start = time.perf_counter()
    subprocess.run(
        [*command, "hook", "user-prompt-submit"], input=event.encode(), capture_output=True, check=True, cwd=code
    )
    return (time.perf_counter() - start) * 1000


def latency(count: int, baseline: Path | None) -> list[list[str]]:
    """Print each ranker's latency at `count` facts; return them as table rows."""
    table = []
    base = Path(tempfile.mkdtemp(prefix=f"foundry-retrieval-{count}-"))
    os.environ["FOUNDRY_CACHE_DIR"] = str(base / "cache")
    os.environ["FOUNDRY_TODAY"] = "2026-11-30"
    root = base / "project"
    try:
        write_corpus(root, count)
        Project(root).sync()  # a previous session left the parse cache behind
        terms = frequent_terms(count)
        shares = ", ".join(f"{w} {s:.0%}" for w, s in terms[:6])
        queries = [" ".join(w for w, _s in terms[i : i + 3]) for i in range(0, len(terms) - 2)]
        queries = [queries[i % len(queries)] for i in range(60)]
        prompts = [q["question"] for q in QUESTIONS["tuning2"]][:11]
        print(f"{count:,} facts; three-term queries from: {shares} ...")
        runs: list[tuple[str, str, Path | None]] = [(r, r, None) for r in RANKERS]
        if baseline is not None:
            runs.append(("spec", f"spec, {baseline}", baseline))
        for ranker, label, code in runs:
            set_ranker(root, ranker)
            firsts = []
            for attempt in range(7):
                fresh = start_server(root, code)
                fresh.request("initialize", INIT["params"])  # type: ignore[arg-type]
                firsts.append(fresh.search(queries[attempt])[0])
                fresh.close()
            server = start_server(root, code)
            server.request("initialize", INIT["params"])  # type: ignore[arg-type]
            server.search(queries[0])
            time.sleep(max(2.0, count / 4000))  # the word index builds in the background
            distinct = list(dict.fromkeys(queries))
            # The first search with each query's words (bm25 finds and weighs a word's
            # occurrences once per state of the memory), then the steady state.
            fresh_p50, _fresh_p95 = percentiles([server.search(q)[0] for q in distinct])
            p50, p95 = percentiles([server.search(q)[0] for q in queries])
            server.close()
            hooks = statistics.median(hook_run(root, p, code) for p in prompts)
            # The first bm25 server finds no postings of the parse cache: it searches by scanning
            # and leaves them for the next ones (core/memory/search/postings.py).
            before = (
                f"; the first start, before a server built the postings: {firsts[0]:.0f} ms" if ranker == "bm25" else ""
            )
            print(
                f"  {label:<5} memory_search p50 {p50:.2f} ms, p95 {p95:.2f} ms (bar p50 < 2 at 10,000, < 20 at 100,000; "
                f"{len(distinct)} queries each seen once before; their first time: p50 {fresh_p50:.1f} ms); "
                f"first search {statistics.median(firsts):.0f} ms (median of 7 starts; bar 150 at 10,000{before}); "
                f"hook user-prompt-submit {hooks:.0f} ms (median of 11 questions; bar 100 at 1,000, 250 at 10,000)"
            )
            table.append(
                [
                    f"{count:,}",
                    label,
                    f"{p50:.2f} ms",
                    f"{fresh_p50:.1f} ms",
                    f"{statistics.median(firsts):.0f} ms",
                    f"{hooks:.0f} ms",
                ]
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--quality-only", action="store_true")
    parser.add_argument("--latency-only", action="store_true")
    parser.add_argument(
        "--tuning-only",
        action="store_true",
        help="quality on the tuning sets only (for tuning: keeps the held-out set unseen)",
    )
    parser.add_argument(
        "--baseline", type=Path, metavar="CHECKOUT", help="also time the spec ranker of another checkout (e.g. main)"
    )
    parser.add_argument("--write-docs", action="store_true", help="also write the tables into docs/benchmarks.md")
    parser.add_argument(
        "--set",
        action="append",
        metavar="NAME",
        choices=[name for name in QUESTIONS if name != "about"],
        help="quality on this named set only (repeatable), with standard errors; e.g. heldout6, issue 29's held-out set",
    )
    parser.add_argument(
        "--rankers",
        nargs="+",
        default=list(RANKERS),
        metavar="RANKER",
        help="the rankers whose quality to score (default: spec bm25)",
    )
    args = parser.parse_args()
    if args.set and (args.tuning_only or args.write_docs):
        parser.error("--set scores the named sets alone: not with --tuning-only or --write-docs")
    load = os.getloadavg()[0]
    # Installed packages carry compiled bytecode; a checkout run with PYTHONDONTWRITEBYTECODE
    # would compile every module in every process, which no user pays.
    for checkout in (HERE.parent, args.baseline):
        if checkout is not None:
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(checkout / "foundry_tui")], check=True)
    baseline = statistics.median(_spawn([sys.executable, "-c", "pass"]) for _ in range(11))
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
        f"python -c pass {baseline:.0f} ms (reference: about 11 ms on an idle machine)"
    )
    if not args.latency_only:
        base = Path(tempfile.mkdtemp(prefix="foundry-quality-"))
        os.environ["FOUNDRY_CACHE_DIR"] = str(base / "cache")
        os.environ["FOUNDRY_TODAY"] = "2026-11-30"
        try:
            parts = tuple(args.set) if args.set else TUNING if args.tuning_only else HELDOUT + TUNING
            rankers, details = tuple(args.rankers), bool(args.set)
            scores = quality(base / "project", write_corpus(base / "project", 10000), parts, rankers, details)
            hook = hook_relevance(base / "hooks", write_corpus(base / "hooks", 1000), parts, rankers, details)
        finally:
            shutil.rmtree(base, ignore_errors=True)
        if args.write_docs and not args.tuning_only:
            measured = conditions(command_line(), load)
            sets = [f"{part} ({len(QUESTIONS[part])} q)" for part in parts]
            write_section(DOC_SECTION_QUALITY, measured + "\n\n" + markdown_table(["ranker", *sets], scores))
            prompt_sets = [part for part in parts if f"known_{part}" in PROMPTS]
            write_section(DOC_SECTION_HOOK, measured + "\n\n" + markdown_table(["ranker", *prompt_sets], hook))
    if not args.quality_only:
        rows = [row for count in args.sizes for row in latency(count, args.baseline)]
        if args.write_docs:
            header = ["facts", "ranker", "memory_search p50", "first time (p50)", "first search", "hook"]
            write_section(DOC_SECTION_LATENCY, conditions(command_line(), load) + "\n\n" + markdown_table(header, rows))


if __name__ == "__main__":
    main()

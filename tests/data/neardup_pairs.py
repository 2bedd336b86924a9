"""The labelled set for near-duplicate detection: 66 fact pairs, a third true
paraphrases (reworded, reordered, with synonyms), a third related-but-different
claims (same topic, different decision), a third unrelated. Each fact is
(type, title, body, tags)."""

from __future__ import annotations

F = tuple[str, str, str, list[str]]

PARAPHRASES: list[tuple[F, F]] = [
    (
        (
            "convention",
            "API responses use snake_case JSON keys",
            "Every public HTTP endpoint returns JSON objects whose keys are snake_case, e.g. order_id.",
            ["api", "json"],
        ),
        (
            "convention",
            "HTTP response bodies name their JSON fields in snake_case",
            "Field names in the JSON our HTTP API sends back are snake_case, not camelCase.",
            ["http", "serialization"],
        ),
    ),
    (
        (
            "decision",
            "PostgreSQL 16 is the only supported database",
            "We depend on MERGE; supporting one engine is cheaper.",
            ["database", "postgres"],
        ),
        (
            "decision",
            "The only database we support is Postgres 16",
            "Only PostgreSQL 16 is supported because we rely on MERGE and one engine costs less.",
            ["db", "postgresql"],
        ),
    ),
    (
        (
            "constraint",
            "Customer PII never leaves the eu-west-1 region",
            "Personal data of customers is stored and processed only in eu-west-1.",
            ["gdpr", "pii"],
        ),
        (
            "constraint",
            "Personal customer data stays in eu-west-1",
            "Customer PII is processed and stored in the eu-west-1 region only; it never leaves it.",
            ["privacy", "region"],
        ),
    ),
    (
        (
            "convention",
            "All timestamps are stored in UTC",
            "Columns are timestamptz and code uses aware datetimes in UTC.",
            ["time", "utc"],
        ),
        (
            "convention",
            "Store every timestamp as UTC",
            "Datetimes are kept in UTC in the database (timestamptz) and in application code.",
            ["timezone", "datetime"],
        ),
    ),
    (
        (
            "risk",
            "Retrying the billing export can double-charge customers",
            "The export posts charges without an idempotency key, so a retry charges twice.",
            ["billing", "retry"],
        ),
        (
            "risk",
            "A re-run of the nightly billing export charges customers twice",
            "Charges are sent without idempotency keys; re-running the export after a timeout double-charges.",
            ["payments", "idempotency"],
        ),
    ),
    (
        (
            "constraint",
            "Python 3.11 is the minimum supported runtime",
            "Code may use 3.11 features; CI runs 3.11 and 3.12.",
            ["python", "runtime"],
        ),
        (
            "constraint",
            "The minimum Python version is 3.11",
            "We support Python 3.11 and newer; features from 3.11 are allowed.",
            ["python", "compatibility"],
        ),
    ),
    (
        (
            "convention",
            "Feature branches are squash-merged",
            "Pull requests are squash-merged so main has one commit per change.",
            ["git", "review"],
        ),
        (
            "convention",
            "Pull requests are merged with squash",
            "We squash-merge every pull request; main gets a single commit per change.",
            ["git", "merge"],
        ),
    ),
    (
        (
            "domain",
            "An order is settled only after the payment webhook confirms it",
            "Fulfilment starts from settled, never from pending.",
            ["orders", "payments"],
        ),
        (
            "domain",
            "Orders become settled when the payment provider's webhook confirms payment",
            "Pending orders move to settled only on the payment.succeeded webhook.",
            ["webhook", "settlement"],
        ),
    ),
    (
        (
            "glossary",
            "A tenant is one paying organisation, not one user",
            "Tenant means the organisation holding the subscription; it has many users.",
            ["tenant"],
        ),
        (
            "glossary",
            "Tenant means the paying organisation rather than a single user",
            "One tenant is an organisation with a subscription and many users.",
            ["accounts", "tenant"],
        ),
    ),
    (
        (
            "decision",
            "Background jobs run on Celery with Redis as the broker",
            "All asynchronous work goes through Celery workers with Redis.",
            ["jobs", "celery"],
        ),
        (
            "decision",
            "Celery with a Redis broker runs our background jobs",
            "Asynchronous tasks are executed by Celery workers; Redis is the broker.",
            ["queue", "redis"],
        ),
    ),
    (
        (
            "convention",
            "Migrations are written as plain SQL",
            "Each schema migration is a .sql file under db/migrations.",
            ["migrations", "sql"],
        ),
        (
            "convention",
            "Schema migrations are plain SQL files",
            "We write database migrations in plain SQL, one file each in db/migrations.",
            ["database", "schema"],
        ),
    ),
    (
        (
            "constraint",
            "Secrets are never committed to the repository",
            "Credentials live in the secrets manager, not in git.",
            ["secrets", "git"],
        ),
        (
            "constraint",
            "Credentials must not be committed to git",
            "No secret or credential may be committed to the repository; use the secrets manager.",
            ["security", "credentials"],
        ),
    ),
    (
        (
            "convention",
            "Logs are structured JSON",
            "Every service logs one JSON object per line with a request id.",
            ["logging", "json"],
        ),
        (
            "convention",
            "Services write structured JSON logs",
            "Log lines are JSON objects, one per line, carrying the request id.",
            ["observability", "logs"],
        ),
    ),
    (
        (
            "decision",
            "We use Terraform for infrastructure",
            "All cloud resources are declared in Terraform and applied from CI.",
            ["infrastructure", "terraform"],
        ),
        (
            "decision",
            "Infrastructure is managed with Terraform",
            "Cloud resources are defined in Terraform code and applied by the CI pipeline.",
            ["iac", "cloud"],
        ),
    ),
    (
        (
            "metric",
            "p95 checkout latency target is 300 ms",
            "Measured at the load balancer over seven days.",
            ["latency", "checkout"],
        ),
        (
            "metric",
            "Checkout p95 latency must stay under 300 ms",
            "The target for checkout latency at the 95th percentile is 300 ms, measured at the load balancer.",
            ["performance", "slo"],
        ),
    ),
    (
        (
            "convention",
            "Feature flags live in LaunchDarkly",
            "No environment-variable toggles; flags are managed in LaunchDarkly.",
            ["flags"],
        ),
        (
            "convention",
            "We manage feature flags in LaunchDarkly",
            "Feature toggles are LaunchDarkly flags rather than environment variables.",
            ["launchdarkly", "toggles"],
        ),
    ),
    (
        (
            "constraint",
            "Public endpoints require authentication",
            "Every HTTP endpoint except health checks needs a valid token.",
            ["auth", "api"],
        ),
        (
            "constraint",
            "Every API endpoint needs an authenticated caller",
            "All HTTP endpoints but the health check require a valid auth token.",
            ["security", "authentication"],
        ),
    ),
    (
        (
            "convention",
            "Dates in the UI use ISO 8601",
            "Show dates as YYYY-MM-DD everywhere in the interface.",
            ["ui", "dates"],
        ),
        (
            "convention",
            "The interface shows dates in ISO 8601 format",
            "All dates in the UI are written YYYY-MM-DD.",
            ["frontend", "format"],
        ),
    ),
    (
        (
            "risk",
            "Schema migrations lock the orders table at peak",
            "ALTER TABLE orders takes an exclusive lock and checkouts time out.",
            ["migrations", "locking"],
        ),
        (
            "risk",
            "Altering the orders table during peak hours blocks checkouts",
            "A migration on orders holds an exclusive lock; at peak, checkouts time out waiting.",
            ["orders", "downtime"],
        ),
    ),
    (
        (
            "decision",
            "Frontend is built with React and TypeScript",
            "New UI code is React components written in TypeScript.",
            ["frontend", "react"],
        ),
        (
            "decision",
            "We build the frontend in TypeScript with React",
            "UI work uses React components in TypeScript.",
            ["ui", "typescript"],
        ),
    ),
    (
        (
            "convention",
            "Every service exposes /healthz",
            "Health checks hit /healthz, which returns 200 when dependencies respond.",
            ["health", "ops"],
        ),
        (
            "convention",
            "Services answer health checks on /healthz",
            "The /healthz endpoint of each service returns 200 when its dependencies are reachable.",
            ["monitoring", "healthcheck"],
        ),
    ),
    (
        (
            "constraint",
            "Deployments happen only on weekdays",
            "No production deploys on Saturday or Sunday.",
            ["deploy", "release"],
        ),
        (
            "constraint",
            "We never deploy to production at weekends",
            "Production releases are made Monday to Friday only.",
            ["deployment", "schedule"],
        ),
    ),
]

RELATED: list[tuple[F, F]] = [
    (
        ("decision", "PostgreSQL 16 is the only supported database", "We depend on MERGE.", ["database", "postgres"]),
        (
            "decision",
            "MySQL 8 is the production database",
            "The first prototype ran on MySQL and the team knew it.",
            ["database", "mysql"],
        ),
    ),
    (
        (
            "convention",
            "API responses use snake_case JSON keys",
            "Public endpoints return snake_case keys.",
            ["api", "json"],
        ),
        (
            "convention",
            "API requests accept camelCase JSON keys",
            "Clients may send camelCase keys; the API converts them on input.",
            ["api", "json"],
        ),
    ),
    (
        (
            "constraint",
            "Customer PII never leaves the eu-west-1 region",
            "Personal data is processed only in eu-west-1.",
            ["pii", "region"],
        ),
        (
            "constraint",
            "Analytics exports are aggregated before leaving eu-west-1",
            "Only aggregated analytics may be exported out of the region.",
            ["analytics", "region"],
        ),
    ),
    (
        ("convention", "All timestamps are stored in UTC", "Columns are timestamptz in UTC.", ["time", "utc"]),
        (
            "convention",
            "Timestamps are shown in the tenant's time zone",
            "Conversion to the tenant's zone happens in templates and exports.",
            ["time", "timezone"],
        ),
    ),
    (
        (
            "risk",
            "Retrying the billing export can double-charge customers",
            "No idempotency key on charges.",
            ["billing", "retry"],
        ),
        (
            "risk",
            "The billing export can miss charges when the provider times out",
            "A timeout leaves charges unsent and nobody is alerted.",
            ["billing", "export"],
        ),
    ),
    (
        ("constraint", "Python 3.11 is the minimum supported runtime", "CI runs 3.11 and 3.12.", ["python", "runtime"]),
        (
            "decision",
            "We will move to Python 3.13 next quarter",
            "3.13 brings the faster interpreter; the upgrade is planned for Q1.",
            ["python", "upgrade"],
        ),
    ),
    (
        ("convention", "Feature branches are squash-merged", "Main has one commit per change.", ["git", "review"]),
        (
            "convention",
            "Release branches are merged with a merge commit",
            "Release branches keep their history and are merged with --no-ff.",
            ["git", "release"],
        ),
    ),
    (
        (
            "domain",
            "An order is settled only after the payment webhook confirms it",
            "Pending until the webhook.",
            ["orders", "payments"],
        ),
        (
            "domain",
            "An order is cancelled when payment fails three times",
            "After three failed payment attempts the order moves to cancelled.",
            ["orders", "payments"],
        ),
    ),
    (
        (
            "decision",
            "Background jobs run on Celery with Redis as the broker",
            "Celery workers and Redis.",
            ["jobs", "celery"],
        ),
        (
            "decision",
            "Scheduled jobs run on cron in Kubernetes",
            "Periodic tasks are Kubernetes CronJobs, not Celery beat.",
            ["jobs", "cron"],
        ),
    ),
    (
        ("convention", "Migrations are written as plain SQL", "One .sql file per migration.", ["migrations", "sql"]),
        (
            "convention",
            "Every migration has a tested down step",
            "Each migration ships with a rollback that CI runs against a copy.",
            ["migrations", "rollback"],
        ),
    ),
    (
        ("constraint", "Secrets are never committed to the repository", "Use the secrets manager.", ["secrets", "git"]),
        (
            "convention",
            "Secrets are rotated every 90 days",
            "API keys and passwords in the secrets manager are rotated quarterly.",
            ["secrets", "rotation"],
        ),
    ),
    (
        ("convention", "Logs are structured JSON", "One JSON object per line.", ["logging", "json"]),
        (
            "constraint",
            "Logs are kept for 30 days",
            "Log retention is thirty days; older logs are deleted by the pipeline.",
            ["logging", "retention"],
        ),
    ),
    (
        ("decision", "We use Terraform for infrastructure", "Applied from CI.", ["infrastructure", "terraform"]),
        (
            "decision",
            "Terraform state is stored in S3 with locking",
            "Remote state lives in an S3 bucket with a DynamoDB lock table.",
            ["infrastructure", "terraform"],
        ),
    ),
    (
        ("metric", "p95 checkout latency target is 300 ms", "Measured at the load balancer.", ["latency", "checkout"]),
        (
            "metric",
            "p95 search latency target is 150 ms",
            "Product search must answer within 150 ms at the 95th percentile.",
            ["latency", "search"],
        ),
    ),
    (
        ("convention", "Feature flags live in LaunchDarkly", "No env toggles.", ["flags"]),
        (
            "convention",
            "Feature flags are removed within two releases",
            "A flag that is fully rolled out is deleted within two releases.",
            ["flags", "cleanup"],
        ),
    ),
    (
        ("constraint", "Public endpoints require authentication", "Tokens on every endpoint.", ["auth", "api"]),
        (
            "constraint",
            "Admin endpoints require two-factor authentication",
            "The admin API demands a second factor on top of the session token.",
            ["auth", "admin"],
        ),
    ),
    (
        ("convention", "Dates in the UI use ISO 8601", "YYYY-MM-DD.", ["ui", "dates"]),
        (
            "convention",
            "Prices in the UI show the currency symbol",
            "Amounts are formatted with the tenant's currency symbol and two decimals.",
            ["ui", "currency"],
        ),
    ),
    (
        ("risk", "Schema migrations lock the orders table at peak", "Exclusive lock.", ["migrations", "locking"]),
        (
            "risk",
            "The orders table grows by a million rows a month",
            "At this rate the table reaches 100M rows next year; queries need partitioning.",
            ["orders", "growth"],
        ),
    ),
    (
        (
            "decision",
            "Frontend is built with React and TypeScript",
            "React components in TypeScript.",
            ["frontend", "react"],
        ),
        (
            "decision",
            "Frontend state is managed with Redux Toolkit",
            "Global UI state lives in Redux Toolkit slices, not React context.",
            ["frontend", "redux"],
        ),
    ),
    (
        ("convention", "Every service exposes /healthz", "Returns 200 when healthy.", ["health", "ops"]),
        (
            "convention",
            "Every service exposes Prometheus metrics on /metrics",
            "Metrics are scraped from /metrics in the Prometheus format.",
            ["metrics", "ops"],
        ),
    ),
    (
        ("constraint", "Deployments happen only on weekdays", "No weekend deploys.", ["deploy", "release"]),
        (
            "constraint",
            "Deployments need a green main branch",
            "A production deploy starts only when main's CI is green.",
            ["deploy", "ci"],
        ),
    ),
    (
        (
            "glossary",
            "A tenant is one paying organisation, not one user",
            "Organisation with a subscription.",
            ["tenant"],
        ),
        (
            "glossary",
            "A seat is one user license within a tenant",
            "Tenants buy seats; each active user takes one.",
            ["billing", "seat"],
        ),
    ),
]

UNRELATED: list[tuple[F, F]] = [
    (PARAPHRASES[i][0], PARAPHRASES[(i * 7 + 5) % len(PARAPHRASES)][1]) for i in range(len(PARAPHRASES))
]

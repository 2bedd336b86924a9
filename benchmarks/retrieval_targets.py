"""The target facts of the retrieval evaluation (benchmarks/data/retrieval_questions.json).

Hand-written facts of the kind a team stores in its project memory. The generator
(retrieval_corpus.py) places them among thousands of generated facts about the same
systems, so that every question competes with facts sharing its vocabulary.
Each entry: key, type, confidence, title, tags, body.
"""

from __future__ import annotations

TARGETS: list[tuple[str, str, str, str, tuple[str, ...], str]] = [
    (
        "db-postgres",
        "decision",
        "high",
        "PostgreSQL 16 is the only supported relational database",
        ("postgres", "database", "sql"),
        "All services store relational data in PostgreSQL 16 on the managed cluster. MySQL and SQLite are not "
        "supported in production; SQLite is allowed only in unit tests.\n\n**Why:** one engine to operate, back up and tune.",
    ),
    (
        "orm-sqlalchemy",
        "decision",
        "high",
        "SQLAlchemy 2.0 with typed mapped classes for data access",
        ("orm", "sqlalchemy", "models"),
        "Services talk to the database through SQLAlchemy 2.0 declarative models with Mapped[] annotations. "
        "Raw SQL strings are allowed only in reporting queries reviewed by the data team.\n\n**Why:** typed queries catch schema drift in mypy.",
    ),
    (
        "migrations-alembic",
        "convention",
        "high",
        "Schema changes ship as Alembic revisions, one per pull request",
        ("alembic", "migrations", "schema"),
        "Every change to a table is an Alembic revision generated with autogenerate and then edited by hand. "
        "A pull request carries at most one revision, and the downgrade function must work.",
    ),
    (
        "migrations-expand-contract",
        "constraint",
        "high",
        "Column renames use expand and contract over two releases",
        ("migrations", "zero-downtime", "columns"),
        "Never rename or drop a column in the same release that stops using it. First add the new column and "
        "write both, backfill, switch reads, and remove the old column one release later.",
    ),
    (
        "queue-celery",
        "decision",
        "medium",
        "Background jobs run on Celery with RabbitMQ as the broker",
        ("celery", "rabbitmq", "jobs", "async"),
        "Long-running work (exports, emails, thumbnails) is queued as Celery tasks. The broker is RabbitMQ; "
        "Redis is not used as a broker because we lost tasks on failover in 2024.\n\n**Why:** acknowledged delivery.",
    ),
    (
        "cache-redis-ttl",
        "convention",
        "medium",
        "Every Redis cache key carries a TTL and a version prefix",
        ("redis", "cache", "ttl"),
        "Cache keys look like `v3:product:{id}` and are always set with an expiry of at most 24 hours. "
        "Bump the version prefix instead of flushing the cache when the cached shape changes.",
    ),
    (
        "api-snake-case",
        "convention",
        "high",
        "Public API responses use snake_case JSON keys",
        ("api", "json", "naming"),
        "Every public HTTP endpoint returns JSON objects whose keys are snake_case, e.g. `order_id`. The "
        "serializer converts from the camelCase of the internal models.",
    ),
    (
        "api-versioning",
        "decision",
        "medium",
        "The public API is versioned in the URL path",
        ("api", "versioning", "rest"),
        "Breaking changes get a new prefix such as /v2/; the previous version keeps working for twelve months "
        "after the announcement. Headers are not used for versioning.\n\n**Why:** visible in logs and easy for partners.",
    ),
    (
        "api-pagination",
        "convention",
        "medium",
        "List endpoints paginate with opaque cursors, never offsets",
        ("api", "pagination", "cursor"),
        "Collections return `next_cursor` and accept `cursor` and `limit` (at most 200). Offset pagination was "
        "removed because deep pages scanned the whole table.",
    ),
    (
        "auth-oidc",
        "decision",
        "high",
        "Staff sign in through Okta with OpenID Connect",
        ("auth", "sso", "okta", "login"),
        "The admin console and internal tools authenticate staff with Okta over OpenID Connect. Local "
        "passwords for staff accounts are disabled.\n\n**Why:** offboarding in one place.",
    ),
    (
        "auth-jwt-lifetime",
        "constraint",
        "high",
        "Access tokens expire after 15 minutes, refresh tokens after 30 days",
        ("auth", "jwt", "tokens", "session"),
        "Customer sessions use short-lived JWT access tokens signed with RS256 and rotating refresh tokens "
        "stored hashed in the database. A reused refresh token revokes the whole family.",
    ),
    (
        "secrets-vault",
        "constraint",
        "high",
        "Secrets live in HashiCorp Vault, never in environment files in git",
        ("secrets", "vault", "credentials"),
        "Services read credentials from Vault at start-up through the sidecar agent. A .env file committed to "
        "the repository fails the pre-commit secret scan and the CI build.",
    ),
    (
        "ci-github-actions",
        "decision",
        "medium",
        "CI runs on GitHub Actions with self-hosted runners for integration tests",
        ("ci", "github-actions", "runners"),
        "Unit tests and lint run on hosted runners; the integration suite needs the database and broker and runs "
        "on our self-hosted runners in the staging VPC.\n\n**Why:** hosted runners cannot reach staging.",
    ),
    (
        "deploy-argo",
        "decision",
        "medium",
        "Production deploys go through Argo CD from the main branch",
        ("deploy", "argocd", "kubernetes", "gitops"),
        "Merging to main builds an image and bumps its tag in the deploy repository; Argo CD syncs the cluster. "
        "Nobody runs kubectl apply against production by hand.\n\n**Why:** every change is a reviewed commit.",
    ),
    (
        "deploy-freeze",
        "constraint",
        "high",
        "No production deploys on Fridays after 14:00 or during the December freeze",
        ("deploy", "freeze", "release"),
        "The deploy pipeline refuses to promote to production on Friday afternoons and from 15 December to "
        "2 January, except for hotfixes approved by the on-call lead.",
    ),
    (
        "k8s-resources",
        "constraint",
        "medium",
        "Every container sets CPU and memory requests and limits",
        ("kubernetes", "resources", "limits"),
        "Pods without requests and limits are rejected by the admission policy. Start with the service template's "
        "values and tune from the dashboards after a week of traffic.",
    ),
    (
        "iac-terraform",
        "decision",
        "high",
        "Cloud infrastructure is managed with Terraform, state in S3 with locking",
        ("terraform", "infrastructure", "aws"),
        "All AWS resources are declared in the infra repository with Terraform. State is kept in an S3 bucket "
        "with a DynamoDB lock table; console changes are reverted by the nightly drift check.\n\n**Why:** reviewable infrastructure.",
    ),
    (
        "cloud-region",
        "constraint",
        "high",
        "Customer data stays in the eu-central-1 region",
        ("aws", "region", "gdpr", "data-residency"),
        "Databases, backups and object storage holding customer data must be created in eu-central-1 only. "
        "Contracts with European customers promise that their data never leaves the EU.",
    ),
    (
        "logging-json",
        "convention",
        "medium",
        "Logs are structured JSON with a request id on every line",
        ("logging", "json", "observability"),
        "Use the shared logger, which writes one JSON object per line with `request_id`, `service` and `level`. "
        "Never log with print; never log request bodies that may hold personal data.",
    ),
    (
        "tracing-otel",
        "decision",
        "medium",
        "Distributed tracing uses OpenTelemetry exported to Honeycomb",
        ("tracing", "opentelemetry", "observability"),
        "Services are instrumented with the OpenTelemetry SDK and export spans over OTLP to Honeycomb. Sampling "
        "keeps every error trace and 10% of the rest.\n\n**Why:** vendor-neutral instrumentation.",
    ),
    (
        "metrics-prometheus",
        "decision",
        "medium",
        "Service metrics are scraped by Prometheus and shown in Grafana",
        ("metrics", "prometheus", "grafana", "dashboards"),
        "Each service exposes /metrics; Prometheus scrapes every 15 seconds and Grafana holds the team dashboards. "
        "Alert rules live next to the service in alerts.yaml.\n\n**Why:** one stack for every team.",
    ),
    (
        "errors-sentry",
        "convention",
        "medium",
        "Unhandled exceptions are reported to Sentry with the release tag",
        ("errors", "sentry", "monitoring"),
        "The Sentry SDK is initialised in every service with the git SHA as the release, so regressions are "
        "tied to the deploy that introduced them. Expected client errors (4xx) are not reported.",
    ),
    (
        "oncall-pagerduty",
        "domain",
        "medium",
        "On-call rotation is weekly and paged through PagerDuty",
        ("oncall", "pagerduty", "incidents"),
        "Each backend team has a primary and a secondary on call, handing over on Mondays at 10:00. Pages go "
        "through PagerDuty; acknowledge within 5 minutes or it escalates to the secondary.",
    ),
    (
        "incident-postmortem",
        "convention",
        "medium",
        "Every SEV1 or SEV2 incident gets a blameless postmortem within five days",
        ("incidents", "postmortem", "process"),
        "The incident commander writes the postmortem in the shared template: timeline, impact, contributing "
        "factors and action items with owners. It is reviewed in the weekly reliability meeting.",
    ),
    (
        "payments-stripe",
        "decision",
        "high",
        "Card payments are processed by Stripe; card numbers never reach our servers",
        ("payments", "stripe", "pci"),
        "Checkout uses Stripe Elements so that card details go straight from the browser to Stripe. We store "
        "only the payment method id and the last four digits.\n\n**Why:** keeps us out of PCI DSS scope beyond SAQ A.",
    ),
    (
        "payments-idempotency",
        "constraint",
        "high",
        "Payment API calls always send an idempotency key",
        ("payments", "idempotency", "retries"),
        "Every charge, refund or capture request to the payment provider carries an idempotency key derived "
        "from the order id and the attempt, so a retried request can never charge a customer twice.",
    ),
    (
        "money-decimal",
        "constraint",
        "high",
        "Money amounts are integers in minor units with an ISO currency code",
        ("money", "currency", "amounts"),
        "Store and send amounts as integer cents (minor units) together with the ISO 4217 currency. Floats are "
        "never used for money; rounding happens once, when a price is computed.",
    ),
    (
        "invoices-numbering",
        "domain",
        "medium",
        "Invoice numbers are sequential per legal entity and year",
        ("invoices", "billing", "accounting"),
        "Invoices are numbered like DE-2026-000123: entity, year, then a gapless sequence. A cancelled invoice "
        "keeps its number and gets a credit note; numbers are never reused.",
    ),
    (
        "refunds-window",
        "domain",
        "medium",
        "Customers can request a refund within 30 days of delivery",
        ("refunds", "returns", "policy"),
        "Support may refund an order up to 30 days after delivery without approval; later refunds need a team "
        "lead. Refunds go back to the original payment method.",
    ),
    (
        "tenancy-row-level",
        "decision",
        "high",
        "Tenant isolation uses a tenant_id column with row-level security",
        ("tenancy", "multi-tenant", "security", "postgres"),
        "Every tenant-owned table has a tenant_id column and a PostgreSQL row-level security policy; the "
        "connection sets app.tenant_id per request.\n\n**Why:** a forgotten WHERE clause cannot leak another customer's data.",
    ),
    (
        "search-opensearch",
        "decision",
        "medium",
        "Product search runs on OpenSearch, fed by change data capture",
        ("search", "opensearch", "cdc"),
        "The catalogue is indexed in OpenSearch. Debezium streams row changes from PostgreSQL to Kafka and the "
        "indexer consumes them, so search lags the database by a few seconds.\n\n**Why:** full-text relevance and facets.",
    ),
    (
        "events-kafka",
        "decision",
        "medium",
        "Domain events between services are published on Kafka with Avro schemas",
        ("kafka", "events", "avro", "messaging"),
        "Services announce state changes (order placed, payment captured) as Avro records on Kafka topics. "
        "Schemas are registered in the schema registry with backward compatibility.\n\n**Why:** consumers can evolve independently.",
    ),
    (
        "outbox",
        "convention",
        "medium",
        "Events are written to an outbox table in the same transaction",
        ("outbox", "events", "transactions", "kafka"),
        "A service never publishes to Kafka inside a request. It inserts the event into its outbox table in the "
        "same database transaction, and a relay publishes and marks it sent.",
    ),
    (
        "python-version",
        "constraint",
        "medium",
        "Backend services run on Python 3.12",
        ("python", "runtime", "versions"),
        "All backend services and their Docker images use Python 3.12. Upgrading the interpreter is done for "
        "every service in one coordinated change by the platform team.",
    ),
    (
        "deps-uv",
        "convention",
        "medium",
        "Python dependencies are locked with uv",
        ("dependencies", "uv", "packaging", "python"),
        "Each service declares dependencies in pyproject.toml and commits uv.lock. Run `uv sync` to install and "
        "`uv lock --upgrade-package NAME` to bump one package; pip install by hand is not used.",
    ),
    (
        "lint-ruff",
        "convention",
        "medium",
        "Code style is enforced by ruff and mypy in strict mode",
        ("lint", "ruff", "mypy", "style"),
        "Ruff formats and lints every Python file; mypy runs with --strict on new packages. The pre-commit hooks "
        "and CI run the same versions, pinned in the repository.",
    ),
    (
        "tests-pytest-db",
        "convention",
        "medium",
        "Integration tests use a real PostgreSQL in a container, not mocks",
        ("testing", "pytest", "testcontainers", "postgres"),
        "Tests that touch the database start PostgreSQL with testcontainers once per session and wrap each test "
        "in a transaction that is rolled back. Mocking the ORM is not allowed.",
    ),
    (
        "tests-coverage",
        "constraint",
        "low",
        "New code keeps line coverage of the package at 85% or more",
        ("testing", "coverage", "ci"),
        "The CI job fails when a pull request lowers the package's line coverage below 85%. Generated code and "
        "migrations are excluded from the measurement.",
    ),
    (
        "frontend-react",
        "decision",
        "medium",
        "The web frontend is React with TypeScript, built with Vite",
        ("frontend", "react", "typescript", "vite"),
        "The customer web app and the admin console are React 18 single-page apps in TypeScript, bundled by Vite. "
        "New pages do not use class components.\n\n**Why:** one toolchain for both apps.",
    ),
    (
        "frontend-state",
        "decision",
        "low",
        "Server state in the frontend is handled by TanStack Query",
        ("frontend", "react", "state", "tanstack-query"),
        "Data fetched from the API is cached with TanStack Query; Redux is kept only for the legacy checkout "
        "pages.\n\n**Why:** less hand-written cache invalidation.",
    ),
    (
        "mobile-flutter",
        "decision",
        "medium",
        "The mobile apps are built with Flutter from one code base",
        ("mobile", "flutter", "ios", "android"),
        "iOS and Android share one Flutter code base; native modules are written only for the payment sheet "
        "and push notifications.\n\n**Why:** one mobile team.",
    ),
    (
        "feature-flags",
        "convention",
        "medium",
        "New features ship dark behind LaunchDarkly flags",
        ("feature-flags", "launchdarkly", "release"),
        "Merge unfinished work behind a LaunchDarkly flag that defaults to off, roll out by percentage, and delete "
        "the flag within two sprints after it reaches 100%.",
    ),
    (
        "email-postmark",
        "decision",
        "low",
        "Transactional email is sent through Postmark",
        ("email", "postmark", "notifications"),
        "Order confirmations, password resets and receipts are sent with Postmark templates. Marketing email "
        "goes through a separate provider and domain.\n\n**Why:** keeps transactional deliverability high.",
    ),
    (
        "rate-limits",
        "constraint",
        "medium",
        "The public API allows 600 requests per minute per API key",
        ("rate-limiting", "api", "throttling"),
        "The gateway enforces 600 requests per minute per key with a token bucket and answers 429 with a "
        "Retry-After header. Enterprise keys can be raised to 3000 on request.",
    ),
    (
        "timeouts",
        "convention",
        "medium",
        "Outgoing HTTP calls set a timeout of at most 5 seconds",
        ("http", "timeouts", "resilience"),
        "Every client created with the shared httpx factory has a 2 second connect and 5 second read timeout. "
        "Calls without a timeout are flagged by the lint rule.",
    ),
    (
        "retries-backoff",
        "convention",
        "medium",
        "Retries use exponential backoff with jitter and a cap of five attempts",
        ("retries", "backoff", "resilience"),
        "Transient failures are retried with exponential backoff starting at 200 ms, full jitter, at most five "
        "attempts. Only idempotent operations are retried automatically.",
    ),
    (
        "backups",
        "constraint",
        "high",
        "Database backups are restored and verified every week",
        ("backups", "restore", "disaster-recovery"),
        "Point-in-time recovery is enabled with 35 days of retention. Every Monday a job restores the latest "
        "backup into an isolated instance and runs the verification queries.",
    ),
    (
        "rpo-rto",
        "metric",
        "medium",
        "Recovery objectives: RPO 5 minutes, RTO 1 hour",
        ("disaster-recovery", "rpo", "rto"),
        "For the production database we accept losing at most five minutes of writes and aim to be serving "
        "again within one hour of losing the primary region.",
    ),
    (
        "slo-checkout",
        "metric",
        "high",
        "Checkout availability objective is 99.95% per 30 days",
        ("slo", "availability", "checkout"),
        "The checkout flow's SLO is 99.95% successful requests over a rolling 30 days, about 21 minutes of error "
        "budget. When the budget is spent, feature work pauses for reliability work.",
    ),
    (
        "latency-api",
        "metric",
        "medium",
        "The orders API answers in under 300 ms at p99",
        ("latency", "performance", "orders"),
        "Measured at the load balancer over a week: p50 40 ms, p99 280 ms. A change that pushes p99 above 300 ms "
        "is rolled back.",
    ),
    (
        "pii-retention",
        "constraint",
        "high",
        "Personal data of closed accounts is erased after 90 days",
        ("gdpr", "privacy", "retention", "pii"),
        "When a customer closes their account, a scheduled job anonymises their personal data after 90 days, "
        "except invoices, which accounting must keep for ten years.",
    ),
    (
        "pii-logging",
        "risk",
        "high",
        "Email addresses leak into logs through validation errors",
        ("privacy", "logging", "pii"),
        "The validation error handler echoes the rejected input, so invalid signups write email addresses into "
        "the logs.\n\n**Why:** found in the 2026 audit; use the redacting formatter for every error response.",
    ),
    (
        "risk-cron-overlap",
        "risk",
        "medium",
        "The nightly export can overlap with itself when it runs long",
        ("cron", "exports", "locking"),
        "The export cron has no lock; on month-end it ran past midnight and two copies wrote the same file.\n\n"
        "**Why:** take the advisory lock before starting; the fix is tracked in the backlog.",
    ),
    (
        "risk-clock-skew",
        "risk",
        "low",
        "Token validation fails on hosts with clock skew",
        ("auth", "time", "ntp"),
        "Two batch hosts drifted by 90 seconds and rejected freshly issued tokens as not yet valid.\n\n**Why:** NTP "
        "was disabled in their image; allow 30 seconds of leeway and alert on skew.",
    ),
    (
        "risk-n-plus-one",
        "risk",
        "medium",
        "The admin order list issues one query per row",
        ("performance", "orm", "n+1"),
        "Listing orders in the admin console lazy-loads each customer, so a page of 200 orders makes 201 queries."
        "\n\n**Why:** use selectinload on the relationship; it timed out for large tenants.",
    ),
    (
        "risk-s3-public",
        "risk",
        "high",
        "A misconfigured bucket policy can make uploads public",
        ("s3", "security", "uploads"),
        "User uploads are in S3; a copy-pasted bucket policy once granted public read.\n\n**Why:** keep Block "
        "Public Access on at the account level and serve files through signed URLs only.",
    ),
    (
        "glossary-sku",
        "glossary",
        "medium",
        "SKU: one sellable variant of a product",
        ("catalogue", "sku", "products"),
        "A SKU is a product in one size and colour, with its own price and stock. A product groups its SKUs; "
        "orders always reference SKUs, never products.",
    ),
    (
        "glossary-tenant",
        "glossary",
        "medium",
        "Tenant: one customer organisation with its own data",
        ("tenancy", "terms"),
        "A tenant is a company that buys our product; its users, orders and settings belong to it alone. "
        "Internally, workspace means the same thing in older code.",
    ),
    (
        "glossary-fulfilment",
        "glossary",
        "medium",
        "Fulfilment: picking, packing and shipping an order",
        ("orders", "warehouse", "shipping"),
        "Fulfilment starts when payment is captured and ends when the carrier scans the parcel. The fulfilment "
        "service talks to the warehouse system over its REST API.",
    ),
    (
        "glossary-dunning",
        "glossary",
        "low",
        "Dunning: reminding customers about failed subscription payments",
        ("billing", "subscriptions", "payments"),
        "When a renewal charge fails, dunning retries the card on days 1, 3 and 7 and emails the customer each "
        "time before the subscription is suspended.",
    ),
    (
        "domain-order-states",
        "domain",
        "high",
        "An order moves from placed to paid to shipped to delivered",
        ("orders", "state-machine", "lifecycle"),
        "Orders follow a state machine: placed, paid, shipped, delivered, with cancelled possible before shipping "
        "and returned after delivery. Transitions are only made through OrderService.",
    ),
    (
        "domain-stock-reservation",
        "domain",
        "medium",
        "Stock is reserved at checkout for 15 minutes",
        ("inventory", "stock", "checkout"),
        "Starting checkout reserves the items; the reservation is released if payment does not succeed within "
        "15 minutes. This prevents overselling the last units.",
    ),
    (
        "domain-vat",
        "domain",
        "medium",
        "Prices are shown including VAT for consumers and excluding it for businesses",
        ("tax", "vat", "pricing"),
        "Consumer storefronts display gross prices with VAT of the delivery country. Business accounts with a "
        "valid VAT id see net prices and get reverse-charge invoices.",
    ),
    (
        "timezone-utc",
        "convention",
        "high",
        "Timestamps are stored in UTC and converted only for display",
        ("time", "timezone", "utc"),
        "Columns are timestamptz, application code uses aware datetimes in UTC, and conversion to the user's "
        "time zone happens in the frontend.",
    ),
    (
        "ids-uuid",
        "convention",
        "medium",
        "Primary keys are UUIDv7 generated by the application",
        ("ids", "uuid", "database"),
        "New tables use UUIDv7 primary keys created in application code, which sort by creation time. Integer "
        "serial keys remain only in legacy tables.",
    ),
    (
        "soft-delete",
        "convention",
        "low",
        "Customer-facing records are soft-deleted with a deleted_at column",
        ("database", "deletion", "audit"),
        "Orders, customers and invoices are never deleted with DELETE; set deleted_at and filter it out in the "
        "default query. Hard deletes happen only in the erasure job.",
    ),
    (
        "code-review",
        "convention",
        "medium",
        "Pull requests need one approval from a code owner and a green build",
        ("code-review", "pull-requests", "process"),
        "Branch protection on main requires an approval from a CODEOWNERS member and passing checks. Authors "
        "merge their own pull requests with squash merge.",
    ),
    (
        "branching",
        "convention",
        "medium",
        "Trunk-based development with short-lived branches",
        ("git", "branching", "workflow"),
        "Branches live at most two days before they are merged to main. Release branches are not used; "
        "releases are tags on main.",
    ),
    (
        "commit-messages",
        "convention",
        "low",
        "Commit messages follow Conventional Commits",
        ("git", "commits", "changelog"),
        "Write `feat:`, `fix:` or `chore:` prefixes; the changelog and version bump are generated from them by "
        "the release workflow.",
    ),
    (
        "docker-base",
        "convention",
        "medium",
        "Service images build on the distroless Python base image",
        ("docker", "images", "security"),
        "Dockerfiles are multi-stage: dependencies are built in the builder stage and copied into "
        "gcr.io/distroless/python3. Images run as a non-root user.",
    ),
    (
        "cdn-cloudfront",
        "decision",
        "low",
        "Static assets and images are served through CloudFront",
        ("cdn", "cloudfront", "assets"),
        "The frontend bundle and product images are uploaded to S3 and served through CloudFront with immutable "
        "hashed file names and a one-year cache.\n\n**Why:** cheap and fast worldwide.",
    ),
    (
        "graphql-no",
        "decision",
        "medium",
        "We do not expose GraphQL; the public API stays REST",
        ("api", "graphql", "rest"),
        "A GraphQL gateway was prototyped in 2025 and dropped. Partners integrate over the REST API and the "
        "webhooks.\n\n**Why:** caching and rate limiting per query were too hard to get right.",
    ),
    (
        "grpc-internal",
        "decision",
        "medium",
        "Internal synchronous calls between services use gRPC",
        ("grpc", "protobuf", "internal-api"),
        "Service-to-service requests inside the cluster use gRPC with protobuf contracts in the shared proto "
        "repository; JSON over HTTP is for the public edge only.\n\n**Why:** typed contracts and deadlines.",
    ),
    (
        "webhooks-signing",
        "constraint",
        "high",
        "Outgoing webhooks are signed with HMAC-SHA256",
        ("webhooks", "security", "signatures"),
        "Every webhook we send carries an X-Signature header: HMAC-SHA256 of the timestamp and body with the "
        "partner's secret. Receivers must reject requests older than five minutes.",
    ),
    (
        "webhooks-retry",
        "domain",
        "medium",
        "Failed webhook deliveries are retried for 24 hours",
        ("webhooks", "retries", "delivery"),
        "A delivery that does not get a 2xx answer is retried with backoff for up to 24 hours, then marked failed "
        "and shown in the partner dashboard for manual replay.",
    ),
    (
        "i18n",
        "convention",
        "medium",
        "User-facing strings are translated through the i18n catalogue",
        ("i18n", "translations", "localization"),
        "Never hard-code user-facing text; add keys to the catalogue in English, and the translation agency fills "
        "German, French and Spanish before release.",
    ),
    (
        "accessibility",
        "constraint",
        "medium",
        "The web app must meet WCAG 2.1 AA",
        ("accessibility", "a11y", "frontend"),
        "Every new page is checked with axe in CI and by keyboard-only navigation. Colour contrast and form "
        "labels are the most common failures.",
    ),
    (
        "analytics-warehouse",
        "decision",
        "medium",
        "Analytics runs in BigQuery, loaded nightly by Airbyte",
        ("analytics", "bigquery", "warehouse", "etl"),
        "Production data is copied to BigQuery every night by Airbyte and modelled with dbt. Analysts never query "
        "the production database directly.\n\n**Why:** protects production from heavy queries.",
    ),
    (
        "ml-recommendations",
        "domain",
        "low",
        "Product recommendations are retrained every Sunday",
        ("recommendations", "machine-learning", "batch"),
        "The recommendation model is retrained weekly from the last 90 days of orders and views; the results are "
        "written to a table the storefront reads.",
    ),
    (
        "load-testing",
        "convention",
        "low",
        "Load tests are written with k6 and run before big launches",
        ("load-testing", "k6", "performance"),
        "Scenarios live in the perf repository. Run them against staging with production-sized data at least a "
        "week before a campaign that expects more than twice the usual traffic.",
    ),
    (
        "staging-data",
        "constraint",
        "high",
        "Staging never holds copies of production personal data",
        ("staging", "privacy", "test-data"),
        "Staging databases are filled with synthetic data from the seed generator. Copying production dumps to "
        "staging is forbidden, even anonymised by hand.",
    ),
    (
        "pagination-limit-metric",
        "metric",
        "low",
        "Median export size is 4 MB, the largest 600 MB",
        ("exports", "files", "sizes"),
        "Measured over the last quarter of customer CSV exports. Exports above 100 MB are streamed to S3 and "
        "delivered as a download link.",
    ),
    (
        "image-processing",
        "decision",
        "low",
        "Image thumbnails are generated on upload with libvips",
        ("images", "thumbnails", "uploads"),
        "A Celery task resizes each uploaded image to three widths with pyvips and stores them next to the "
        "original.\n\n**Why:** ten times less memory than Pillow for large photos.",
    ),
    (
        "feature-toggle-cleanup",
        "risk",
        "low",
        "Stale feature flags make code paths impossible to test",
        ("feature-flags", "tech-debt"),
        "Over 120 flags were older than six months in the last audit; both branches of each must be kept working."
        "\n\n**Why:** removing a flag is part of finishing a feature.",
    ),
    (
        "dependency-updates",
        "convention",
        "low",
        "Renovate opens dependency update pull requests weekly",
        ("dependencies", "renovate", "security"),
        "Renovate groups minor and patch updates into one weekly pull request per repository; security fixes are "
        "opened immediately and merged within three days.",
    ),
    (
        "support-tooling",
        "domain",
        "low",
        "Customer support works in Zendesk with an internal admin link",
        ("support", "zendesk", "tickets"),
        "Every ticket shows a link to the customer in the admin console. Support agents can impersonate a "
        "customer read-only; write actions need a team lead.",
    ),
    (
        "sessions-cookies",
        "constraint",
        "medium",
        "Session cookies are Secure, HttpOnly and SameSite=Lax",
        ("cookies", "security", "sessions"),
        "The web app keeps its refresh token in a cookie with Secure, HttpOnly and SameSite=Lax set. Tokens are "
        "never stored in localStorage.",
    ),
]

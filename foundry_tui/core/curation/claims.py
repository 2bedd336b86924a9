"""The parts of a claim that tell two similar sentences apart: its numbers (digits and number
words, versions such as v7 or 3.11), its codes (identifiers mixing letters and digits:
eu-west-1, p95, sha-256), its names (products, tools, places: words written with capitals
mid-sentence, CamelCase or ALL CAPS) and its polarity (a negation, or a word such as
"optional" or "exclude" that turns a claim around).

Near-duplicate scoring reads these as evidence against "the same claim" and the
contradiction finder reads them as the places where two claims about one subject
disagree. Pure functions over text; nothing here reads the disk.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# A token: a run of letters and digits, joined by . - _ / inside (3.11, eu-west-1, sha-256).
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[.\-_/][A-Za-z0-9]+)*")
_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")  # 1,500 → 1500
_VERSION_SUFFIX = re.compile(r"^([a-z]{2,}?)v(\d+)$")  # uuidv7 → uuid + v7
_VERSION = re.compile(r"^v(\d+(?:\.\d+)*)$")
_PATH = re.compile(r"(?<![\w/.])/[a-z][a-z0-9_\-]*(?:/[a-z0-9_\-{}:]+)*")
_UNITS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_SCALES = {"hundred": 100, "thousand": 1000}
_OTHER_NUMBERS = {"twice": "2", "dozen": "12"}  # not "once", "single", "double": rarely a count


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NUMBER_WORDS = frozenset(_UNITS) | frozenset(_TENS) | frozenset(_SCALES) | frozenset(_OTHER_NUMBERS)
# Capitalised words that name no subject of their own (generic acronyms and sentence words).
_GENERIC_CAPS = _words(
    "a an the we our i it if in on at to of for by no not never only all every each any this that these those "
    "api apis json http https utc ci cd pr prs sql csv ui ux url urls id ids js cdn pii gdpr vat eu us uk b2b b2c "
    "qa etl cpu cpus ram mb gb kb tb ms p95 p99 sla slo os iso rest crud dns ip tls ssl ssh sms"
)
# Where a claim applies rather than what it says: two titles naming different ones are about two
# subjects (prod credentials rotate monthly, staging ones quarterly), not a disagreement.
ENVIRONMENTS = _words("production prod staging stage development dev sandbox preview")
# Technologies, vendors and products every engineering team names, lowercase: a name wherever it
# stands and however it is written ("Redis is the broker", "we run postgres"). General vocabulary
# of software work, written from no labelled pair; words with an everyday sense are left to their
# capital (CAPITALISED_NAMES) or out.
KNOWN_NAMES = _words(
    # languages, runtimes, frameworks
    "python java kotlin scala golang rust ruby php perl elixir erlang haskell clojure typescript javascript "
    "nodejs deno jvm jdk dotnet csharp lua bash powershell react vue angular svelte nextjs nuxt django flask "
    "fastapi rails laravel symfony nestjs graphql grpc protobuf webassembly wasm "
    # stores, queues, search
    "postgres postgresql mysql mariadb sqlite oracle mssql mongodb mongo cassandra dynamodb cockroachdb "
    "clickhouse bigquery redshift snowflake databricks timescaledb influxdb neo4j redis memcached valkey "
    "elasticsearch opensearch solr kafka rabbitmq sqs sns kinesis pubsub nats celery sidekiq pgbouncer "
    "alembic flyway liquibase sqlalchemy prisma hibernate dbt airflow dagster spark flink hadoop "
    # infrastructure and clouds
    "aws gcp azure eks gke aks ecs ec2 fargate lambda rds aurora s3 gcs cloudfront cloudflare fastly akamai "
    "heroku vercel netlify kubernetes k8s docker podman helm terraform pulumi ansible nomad consul istio "
    "linkerd envoy nginx haproxy traefik argocd flux "
    # tools of the trade
    "github gitlab bitbucket jenkins circleci buildkite jira confluence notion slack pagerduty opsgenie "
    "datadog grafana prometheus loki tempo jaeger zipkin opentelemetry otel sentry bugsnag rollbar splunk "
    "kibana logstash fluentd newrelic honeycomb pytest unittest jest vitest mocha cypress playwright "
    "selenium eslint prettier ruff flake8 pylint mypy pyright gofmt rubocop poetry pipenv npm yarn pnpm "
    "webpack vite esbuild babel storybook renovate dependabot sonarqube snyk "
    # cryptography
    "bcrypt scrypt argon2 argon2id pbkdf2 md5 sha1 sha256 sha512 rsa ecdsa ed25519 aes chacha20 hmac jwt "
    # identity, payments, messaging vendors
    "okta auth0 keycloak cognito oauth saml oidc ldap stripe adyen braintree paypal twilio sendgrid "
    "mailgun postmark mailpit mailchimp segment mixpanel amplitude launchdarkly unleash "
    # platforms and browsers
    "ios android macos windows linux ubuntu debian alpine chrome firefox safari "
    # naming styles (a convention that says camelCase against one that says snake_case)
    "camelcase snake_case kebab-case pascalcase"
)
# Names that are also everyday words: a name only when written with a capital, also where a
# sentence starts ("Go services...", but "jobs go to a queue").
CAPITALISED_NAMES = _words("go swift node express spring black vault consul spark flux tempo segment oracle")
# Lowercase words that name which thing a claim is about, as a name does (production vs staging,
# python vs java, the partner API vs the public one).
SUBJECT_WORDS = ENVIRONMENTS | KNOWN_NAMES | _words("partner")
NEGATIONS = _words(
    "not no never cannot can't don't doesn't isn't aren't won't mustn't shouldn't nothing none neither nor "
    "without forbidden prohibited disallowed"
)
# Words that turn a claim around without a negation: one side of each pair marks the flip.
OPPOSITES = {
    "optional": "required",
    "exclude": "include",
    "excludes": "includes",
    "excluded": "included",
    "disabled": "enabled",
    "disable": "enable",
    "forbid": "allow",
    "forbids": "allows",
    "deny": "allow",
    "denied": "allowed",
    "reject": "accept",
    "rejected": "accepted",
    "manual": "automatic",
    "manually": "automatically",
    "unsupported": "supported",
    "insecure": "secure",
    "mutable": "immutable",
    "synchronous": "asynchronous",
    "sync": "async",
}


# Words that name opposite sides of one thing in software (a claim about one is not a claim about
# the other): a title with one and the other title with its opposite are two claims.
_ANTONYM_PAIRS = (
    "include exclude; enable disable; allow deny; allow forbid; accept reject; public private; "
    "read write; upload download; import export; encrypt decrypt; increase decrease; before after; first last; "
    "minimum maximum; start stop; start finish; open close; success failure; succeed fail; request response; "
    "client server; input output; inbound outbound; ingress egress; upstream downstream; reserve release; "
    "lock unlock; online offline; sync async; synchronous asynchronous; frontend backend; add remove; "
    "create delete; grant revoke; login logout; encode decode; push pull; producer consumer; primary replica; "
    "leader follower; master replica; horizontal vertical; inclusive exclusive; ascending descending; "
    "lower upper; earliest latest; "
    "oldest newest; credit debit; buy sell; income expense; sender recipient; source target"
)
ANTONYMS: dict[str, frozenset[str]] = {}
for _pair in _ANTONYM_PAIRS.split("; "):
    _one, _other = _pair.split()
    ANTONYMS[_one] = ANTONYMS.get(_one, frozenset()) | {_other}
    ANTONYMS[_other] = ANTONYMS.get(_other, frozenset()) | {_one}


def tokens(text: str) -> list[str]:
    """The raw tokens of `text`, case kept (names are told by their capitals)."""
    return _TOKEN.findall(text)


def _number_words(words: list[str]) -> Iterable[tuple[int, str]]:
    """(position, value) of each number written in words: "thirty-five" → 35, "two" → 2."""
    for i, word in enumerate(words):
        if word not in _NUMBER_WORDS and "-" not in word:
            continue
        parts = word.split("-")
        if all(p in _UNITS or p in _TENS for p in parts) and len(parts) <= 2:
            yield i, str(sum(_UNITS.get(p, 0) + _TENS.get(p, 0) for p in parts))
        elif word in _OTHER_NUMBERS:
            yield i, _OTHER_NUMBERS[word]
        elif word in _SCALES and i > 0 and words[i - 1] in ("a", "one"):
            yield i, str(_SCALES[word])


def numbers(text: str, with_one: bool = True) -> frozenset[str]:
    """The numbers `text` states: digits (1,000 and 1000 alike; 3.11 stays 3.11), versions
    (v7), number words (twelve, thirty-five, twice). Digits inside codes (p95, eu-west-1, 4G)
    are not numbers: they are part of a name. `with_one=False` leaves the word "one" out
    (one release, one sellable variant: in rewording it is mostly an article)."""
    found: set[str] = set()
    lowered = _THOUSANDS.sub("", text.lower())
    for token in _TOKEN.findall(lowered):
        if _NUMBER.fullmatch(token):
            found.add(_canonical_number(token))
            continue
        version = _VERSION.match(token) or _VERSION_SUFFIX.match(token)
        if version:
            found.add(_canonical_number(version.groups()[-1]))
    words = re.findall(r"[a-z]+(?:-[a-z]+)?", lowered)
    found.update(value for _i, value in _number_words(words if with_one else [w for w in words if w != "one"]))
    return frozenset(found)


# Units of time and size, in seconds and bytes: "15 minutes" and "900 seconds" state one quantity.
_DAY = 86_400
_UNIT_SIZES = {
    **dict.fromkeys(("ms", "msec", "millisecond", "milliseconds"), 0.001),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1),
    **dict.fromkeys(("min", "mins", "minute", "minutes"), 60),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), 3600),
    **dict.fromkeys(("day", "days"), _DAY),
    **dict.fromkeys(("week", "weeks"), 7 * _DAY),
    **dict.fromkeys(("month", "months"), 30 * _DAY),
    **dict.fromkeys(("year", "years"), 360 * _DAY),  # twelve months, so that 12 months is a year
    **dict.fromkeys(("kb", "kib", "kilobyte", "kilobytes"), 2**10),
    **dict.fromkeys(("mb", "mib", "megabyte", "megabytes"), 2**20),
    **dict.fromkeys(("gb", "gib", "gigabyte", "gigabytes"), 2**30),
    **dict.fromkeys(("tb", "tib", "terabyte", "terabytes"), 2**40),
}
_ONE_UNIT = {"hourly": "hour", "daily": "day", "nightly": "day", "weekly": "week", "monthly": "month"}
_ONE_UNIT |= {"yearly": "year", "annually": "year", "annual": "year", "fortnightly": "2 weeks"}
_UNIT_NAMES = "|".join(sorted(_UNIT_SIZES, key=len, reverse=True))
_QUANTITY = re.compile(
    r"\b(?:(half an?) |(an?|one|every) |(\d+(?:\.\d+)?)[ -]?|([a-z]+(?:-[a-z]+)?)[ -])(" + _UNIT_NAMES + r")\b"
)


def quantities(text: str) -> dict[str, str]:
    """The quantities of time and size `text` states, each as {the number as written: its
    size in seconds or bytes}: "15 minutes" → {"15": "900"}; a quantity without digits is
    keyed by its words: "half a year" → {"half a year": "15552000"}, "daily" → {"daily":
    "86400"}. A number without a unit is not here."""
    found: dict[str, str] = {}
    lowered = _THOUSANDS.sub("", text.lower())
    for match in _QUANTITY.finditer(lowered):
        half, _article, digits, word = match.group(1, 2, 3, 4)
        unit_name = match.group(5)
        unit = _UNIT_SIZES[unit_name]
        if len(unit_name) == 1 and not digits:  # "a s", "one h": letters, not units
            continue
        if digits:
            amount, written = float(digits), _canonical_number(digits)
        elif word:
            value = next((v for _i, v in _number_words([word])), None)
            if value is None:
                continue
            amount, written = float(value), value
        else:
            amount, written = (0.5 if half else 1.0), match.group()
        found.setdefault(written, _size(amount * unit))
    for word in re.findall(r"[a-z]+", lowered):
        if word in _ONE_UNIT:
            count, _space, unit_name = _ONE_UNIT[word].rpartition(" ")
            found.setdefault(word, _size(float(count or 1) * _UNIT_SIZES[unit_name]))
    return found


def _size(amount: float) -> str:
    return f"{amount:.3f}".rstrip("0").rstrip(".")


def _canonical_number(token: str) -> str:
    if "." in token and token.count(".") == 1:
        whole, _dot, fraction = token.partition(".")
        if set(fraction) == {"0"}:
            return str(int(whole))
        return f"{int(whole)}.{fraction}"  # 3.11 stays 3.11, 3.10 stays 3.10: versions, not decimals
    return str(int(token)) if token.isdigit() else token


def codes(text: str) -> frozenset[str]:
    """Identifiers mixing letters and digits (eu-west-1, p95, sha-256, ed25519, 4g) and paths
    (/health), lowercased; a bare version (v7, uuidv7) is a number, not a code."""
    found = set(_PATH.findall(text.lower()))  # /health, /v2/orders: an endpoint is named by its path
    for token in _TOKEN.findall(text.lower()):
        has_digit = any(c.isdigit() for c in token)
        has_alpha = any(c.isalpha() for c in token)
        if has_digit and has_alpha and not (_VERSION.match(token) or _VERSION_SUFFIX.match(token)):
            found.add(token)
    return frozenset(found)


_NAME_WORD = re.compile(
    r"([A-Za-z][A-Za-z0-9]*)((?:[_-][a-z]+)?)|[.!?:;]"
)  # a word (and what joins on), or a full stop


def names(text: str) -> frozenset[str]:
    """Names in `text`, lowercased: a word with a capital letter after its first (OpenSearch,
    iOS), in capitals (AWS, SES), capitalised anywhere but where a sentence starts
    (Postmark, Vault), one of the SUBJECT_WORDS wherever it stands and however it is written
    (production, redis, android...), or one of the CAPITALISED_NAMES written with its capital
    (Go, Vault). Generic acronyms (API, JSON, UTC...) are not names."""
    found = set()
    sentence_start = True
    for match in _NAME_WORD.finditer(text):
        word, joined = match.group(1, 2)
        if word is None:  # the end of a sentence
            sentence_start = True
            continue
        if joined:  # snake_case, kebab-case: a name as a whole, else its first part
            whole = (word + joined).lower()
            if whole in KNOWN_NAMES:
                found.add(whole)
                sentence_start = False
                continue
        lower = word.lower()
        inner_capital = any(c.isupper() for c in word[1:])
        capitalised = word[0].isupper()
        if (
            lower in SUBJECT_WORDS
            or (capitalised and lower in CAPITALISED_NAMES)
            or (lower not in _GENERIC_CAPS and (inner_capital or (capitalised and not sentence_start)))
        ):
            found.add(lower)
        sentence_start = False
    return frozenset(found)


def polarity(words: Iterable[str]) -> int:
    """1 for an affirmative claim, -1 for a turned-around one: an odd count of negations and
    flipping words (optional, exclude, disabled...)."""
    flips = sum(1 for w in words if w in NEGATIONS or w in OPPOSITES or w.endswith("n't"))
    return -1 if flips % 2 else 1


def polarity_of(text: str) -> int:
    return polarity(re.findall(r"[a-z]+(?:'[a-z]+)?", text.lower()))

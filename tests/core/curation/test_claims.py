"""The parts of a claim (core/curation/claims.py): numbers, codes, names, polarity."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from foundry_tui.core.curation.claims import ANTONYMS, codes, names, numbers, polarity_of, quantities

UNITS = ["", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty", 9: "ninety"}
TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]


def in_words(n: int) -> str:
    if n < 10:
        return UNITS[n]
    if n < 20:
        return TEENS[n - 10]
    return TENS[n // 10] + (f"-{UNITS[n % 10]}" if n % 10 else "")


@given(st.integers(min_value=0, max_value=10**9))
def test_digits_are_read_with_or_without_thousands_separators(n: int) -> None:
    assert numbers(f"The limit is {n} requests per minute") == {str(n)}
    assert numbers(f"The limit is {n:,} requests per minute") == {str(n)}


@given(st.integers(min_value=2, max_value=99))
def test_number_words_are_numbers(n: int) -> None:
    assert numbers(f"Deploys need {in_words(n)} approvals") == {str(n)}


def test_versions_codes_and_the_word_one() -> None:
    assert numbers("Python 3.11 is the minimum; 3.10 is not") == {"3.11", "3.10"}
    assert numbers("Use UUIDv7 keys, not v4") == {"7", "4"}
    assert numbers("Checkout p95 stays in eu-west-1 on 4G") == set()
    assert codes("Checkout p95 stays in eu-west-1 on 4G") == {"p95", "eu-west-1", "4g"}
    assert numbers("Deploys need one approval") == {"1"}
    assert numbers("Deploys need one approval", with_one=False) == set()
    assert numbers("Retries happen twice") == {"2"}


def test_names_are_capitalised_mid_sentence_camel_case_or_known_subjects() -> None:
    assert names("Transactional email goes out via Postmark, not Amazon SES.") == {"postmark", "amazon", "ses"}
    assert names("Search is served by OpenSearch on iOS and in production") == {"opensearch", "ios", "production"}
    assert names("The API returns JSON in UTC. The queue carries the events.") == set()


def test_known_technologies_are_names_wherever_they_stand_and_however_written() -> None:
    # At a sentence's start and in lowercase, where the capital tells nothing (fourth pass).
    assert names("Kafka carries the events. Redis is the broker") == {"kafka", "redis"}
    assert names("Python code is formatted with black") == {"python"}
    assert names("we run postgres on aws with terraform") == {"postgres", "aws", "terraform"}
    assert names("Passwords are hashed with bcrypt") == {"bcrypt"}
    # Names that are everyday words count only with their capital, at a sentence's start too.
    assert names("Go services are formatted with gofmt") == {"go", "gofmt"}
    assert names("long jobs go to a queue on the node pool") == set()
    # Naming styles as a whole; a hyphenated word otherwise by its first part.
    assert names("API fields are snake_case, never camelCase") == {"snake_case", "camelcase"}
    assert names("Flags are evaluated server-side") == set()
    # Environments say where a claim applies.
    assert names("Deleting a topic in prod loses data") == {"prod"}


SENTENCES = st.sampled_from(
    [
        "Deploys need two approvals",
        "Uploads are scanned for viruses",
        "Prices include VAT",
        "Two-factor authentication is required for admins",
        "Invoices can be edited after they are issued",
    ]
)


@given(SENTENCES, st.sampled_from(["not", "never", "no longer", "optional and not"]))
def test_a_negation_turns_a_claim_around(sentence: str, negation: str) -> None:
    subject, _space, rest = sentence.partition(" ")
    negated = f"{subject} {negation} {rest}"
    flips = 2 if negation == "optional and not" else 1
    assert polarity_of(negated) == polarity_of(sentence) * (-1) ** flips
    assert polarity_of(sentence) == 1


UNIT_SECONDS = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86400, "weeks": 604800}


@given(st.integers(min_value=1, max_value=10_000), st.sampled_from(sorted(UNIT_SECONDS)))
def test_a_quantity_is_its_size_in_the_base_unit(n: int, unit: str) -> None:
    assert quantities(f"Tokens expire after {n} {unit}") == {str(n): str(n * UNIT_SECONDS[unit])}
    assert quantities(f"Tokens expire after {n:,}-{unit[:-1]}s") == {str(n): str(n * UNIT_SECONDS[unit])}


def test_quantities_written_in_words_and_one_unit_adverbs() -> None:
    assert quantities("Lambda functions must finish within 15 minutes") == {"15": "900"}
    assert quantities("AWS caps a Lambda invocation at 900 seconds") == {"900": "900"}
    assert quantities("Keep old fields for half a year") == {"half a year": "15552000"}
    assert quantities("for six months") == {"6": "15552000"}
    assert quantities("rotated monthly") == {"monthly": "2592000"}
    assert quantities("Uploads up to 25 MB") == quantities("uploads up to 25 megabytes") == {"25": "26214400"}
    # Letters that are not units after an article, and numbers without a unit, are not quantities.
    assert quantities("Orders are sent as multiple parcels") == {}
    assert quantities("100 requests per minute, one release") == {}


def test_antonyms_go_both_ways() -> None:
    assert "exclude" in ANTONYMS["include"] and "include" in ANTONYMS["exclude"]
    assert all(word in ANTONYMS[other] for word, others in ANTONYMS.items() for other in others)


def test_paths_are_codes() -> None:
    assert codes("Every service exposes /healthz") == {"/healthz"}
    assert codes("and/or 1/2 of them") == set()

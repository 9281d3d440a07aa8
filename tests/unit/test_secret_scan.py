"""The one secret scanner (model.secret_scan): every common form of a run's secret is found, in one
text or split across two; ordinary text is not; the work for a large text is bounded. Also the
review's rule (model.exposure) and output masking over it (model.values.mask_outputs)."""

from __future__ import annotations

import base64
import html
import random
import string
from urllib.parse import quote, quote_plus

import pytest

from skillreel.model.actions import Action, ExtractAction, LoopAction, NavigateAction, TypeAction
from skillreel.model.exposure import extracts_after_secret
from skillreel.model.refs import ParameterRef
from skillreel.model.secret_scan import SecretScanner, base64_runs, views, window_length
from skillreel.model.values import MASK, mask_outputs
from tests.support.factory import bundle, element_set, target

SECRET = "Hunter-22-Secret"
COOKIE = "sid-7f3a9c2e41b8d5"
RAW = SECRET.encode()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


FORMS = {
    "raw": f"your password is {SECRET}.",
    "upper-cased": SECRET.upper(),
    "lower-cased": SECRET.lower(),
    "spaced": " ".join(SECRET),
    "zero-width spaced": "\u200b".join(SECRET),
    "reversed": SECRET[::-1],
    "reversed upper": SECRET[::-1].upper(),
    "hex lower": RAW.hex(),
    "hex upper": RAW.hex().upper(),
    "hex spaced": " ".join(f"{b:02x}" for b in RAW),
    "base64 alone": b64(RAW),
    "base64 offset 1": b64(b"{" + RAW + b"}"),
    "base64 offset 2": b64(b'{"' + RAW + b'"}'),
    "base64 unpadded in a stream": b64(b"pw=" + RAW + b"&x=1").rstrip("="),
    "base64url": base64.urlsafe_b64encode(b"\xfb\xff" + RAW).decode(),
    "%-encoded, every byte": "".join(f"%{b:02X}" for b in RAW),
    "%-encoded, every byte, lower": "".join(f"%{b:02x}" for b in RAW),
    "%-encoded, partial": quote(SECRET, safe=""),
    "%-encoded, some bytes": "Hun%74er-%32%32-Se%63ret",
    "quote_plus": quote_plus(f"{SECRET}!"),
    "html decimal": "".join(f"&#{ord(c)};" for c in SECRET),
    "html hex": "".join(f"&#x{ord(c):X};" for c in SECRET),
    "json escapes": "".join(f"\\u{ord(c):04x}" for c in SECRET),
    "half of it": SECRET[:8],
    "the other half": SECRET[8:],
}


@pytest.mark.parametrize("name", sorted(FORMS))
def test_every_common_form_of_a_secret_is_found(name: str) -> None:
    assert SecretScanner([SECRET]).finds(FORMS[name])


def test_a_spaced_secret_is_found_plus_encoded() -> None:
    assert SecretScanner(["Hunter 22 Secret"]).finds(quote_plus("Hunter 22 Secret"))


def test_html_named_references_are_read() -> None:
    secret = "Tom&Jerry<3>!@home"
    named = html.escape(secret).replace("!", "&excl;").replace("@", "&commat;")
    assert named == "Tom&amp;Jerry&lt;3&gt;&excl;&commat;home"
    assert SecretScanner([secret]).finds(f"<p>{named}</p>")


def test_text_that_is_not_the_secret_is_not_found() -> None:
    scanner = SecretScanner([SECRET, COOKIE])
    ordinary = [
        "Invoice 7 for ACME, due 2026-12-03, total $1,234.50",
        "a Secret Hunter, 22 of them",  # the secret's words, not a window of it
        "Hunter-",  # shorter than a window
        b64(b"Hunter"),
        "sid-7f3a",
        SECRET[:7],
        "",
    ]
    assert [text for text in ordinary if scanner.finds(text)] == []


def test_base64_in_every_alignment_is_the_stable_inner_run() -> None:
    runs = base64_runs(RAW)
    for prefix in (b"", b"x", b"xy", b"xyz", b"\xff\xfe"):
        for suffix in (b"", b"a", b"ab"):
            stream = b64(prefix + RAW + suffix)
            assert any(run in stream for run in runs), (prefix, suffix)


def test_a_secret_split_across_two_texts_marks_both() -> None:
    scanner = SecretScanner(["abcdefgh"])  # 8 characters: a window is 6, a half 4
    assert scanner.hits(["abcd", "efgh"]) == {0, 1}
    assert scanner.hits(["efgh", "Invoice 7", "abcd"]) == {0, 2}  # swapped, with another between
    assert scanner.hits(["ab", "cd", "ef", "gh"]) == {1, 2, 3}  # in order: the fewest that hold it
    assert scanner.hits(["abcd", "Invoice 7"]) == set()
    hexed = b"abcdefgh".hex()
    assert scanner.hits([hexed[:5], hexed[5:]]) == {0, 1}  # a window of the hex, and the rest beside it
    long = SecretScanner([SECRET])  # 16 characters: a window is 8
    assert long.hits(["Invoice 7", SECRET[:11], SECRET[11:]]) == {1, 2}  # 11 and the other 5
    assert long.hits([SECRET[4:], "Invoice 7", SECRET[:4]]) == {0, 2}  # swapped: 12 and the first 4
    assert long.hits([SECRET[:11], "Invoice 7"]) == {0}


def test_a_short_secret_is_found_as_it_is_only() -> None:
    scanner = SecretScanner(["Ab1"])
    assert scanner.finds("code ab1!")
    assert not scanner.finds(b"Ab1".hex())
    assert not scanner.finds("1bA")


def test_the_window_is_at_least_six_or_half() -> None:
    assert window_length("abcd") == 4
    assert window_length("abcdefgh") == 6
    assert window_length("a" * 40) == 20
    assert window_length("a" * 41) == 21


def test_a_text_is_read_as_it_is_and_decoded_without_whitespace() -> None:
    assert views("a b%20c") == ("ab%20c", "abc")
    assert views("x &amp; y") == ("x&amp;y", "x&y")
    assert views("plain text") == ("plaintext",)


def test_a_large_text_against_ten_secrets_is_bounded_work() -> None:
    """1 MB of word-like text, ten secrets of 6 to 64 characters: a few hundred anchor searches and
    extensions, not a search per window, form and position."""
    rnd = random.Random(7)
    alphabet = string.ascii_letters + string.digits
    letters = "".join(rnd.choices(string.ascii_lowercase, k=1_000_000))
    words = (letters[i : i + 2 + i % 8] for i in range(0, len(letters), 10))
    text = " ".join(words)[:1_000_000]
    secrets = [
        "".join(rnd.choice(alphabet) for _ in range(n)) for n in (6, 8, 10, 12, 16, 20, 24, 32, 48, 64)
    ]
    scanner = SecretScanner(secrets)
    assert not scanner.finds(text)
    assert scanner.work < 5_000
    scanner.work = 0
    assert scanner.finds(text[:500_000] + b64(secrets[6].encode()) + text[500_000:])
    assert scanner.work < 5_000


def test_masking_names_the_outputs_and_never_the_value() -> None:
    outputs = {
        "title": "Invoice 7",
        "a": SECRET[:8].upper(),
        "b": " ".join(SECRET[8:]),
        "rows": [{"n": 1, "note": SECRET[::-1]}, {"n": 2, "note": "fine"}],
        "paid": True,
    }
    masked, names = mask_outputs(outputs, [SECRET])
    assert names == ("a", "b", "rows")
    assert masked == {
        "title": "Invoice 7",
        "a": MASK,
        "b": MASK,
        "rows": [{"n": 1, "note": MASK}, {"n": 2, "note": "fine"}],
        "paid": True,
    }
    assert mask_outputs(outputs, []) == (outputs, ())


def test_extracts_after_a_sensitive_input_on_the_same_page_are_flagged() -> None:
    pin = ParameterRef(name="pin")
    actions: list[Action] = [
        NavigateAction(id="a1", url="https://app.test/"),
        ExtractAction(id="a2", output="before", target=target("h1", tag="h1")),
        TypeAction(id="a3", target=bundle("#user"), value=ParameterRef(name="user")),
        ExtractAction(id="a4", output="after_user", target=target("h1", tag="h1")),
        TypeAction(id="a5", target=bundle("#pin"), value=pin),
        ExtractAction(id="a6", output="after_pin", target=target("h1", tag="h1")),
        LoopAction(
            id="a7",
            items=element_set(),
            limit=3,
            body=(ExtractAction(id="a10", output="state", target=target("td.s", within="item")),),
            collect="rows",
        ),
        NavigateAction(id="a8", url="https://app.test/next", reason="address-bar"),
        ExtractAction(id="a9", output="next_page", target=target("h1", tag="h1")),
    ]
    assert extracts_after_secret(actions, ["pin"]) == ("a6", "a7", "a10")
    assert extracts_after_secret(actions, []) == ()


def test_bytes_that_are_no_text_are_read_as_they_are() -> None:
    scanner = SecretScanner([SECRET])
    binary = "\x89PNG\x00" + FORMS["%-encoded, every byte"] + "\xff"
    assert scanner.finds(binary)
    assert not scanner.finds(binary, decoded=False)
    assert scanner.finds("\x89PNG\x00" + FORMS["hex upper"], decoded=False)

"""The one escaping of invisible characters every reader's rendering shares (issue 30, F9)."""

from __future__ import annotations

import pytest

from skillreel.model.visible import visible, visible_tree

INVISIBLE = [
    *(chr(c) for c in range(0x202A, 0x202F)),  # bidi embeddings and overrides
    *(chr(c) for c in range(0x2066, 0x206A)),  # bidi isolates
    *(chr(c) for c in range(0x200B, 0x2010)),  # zero-width space, joiners, LRM, RLM
    "\ufeff",  # zero-width no-break space
    "\x00",
    "\x1b",
    "\n",
    "\x7f",
    "\x85",
    "\u2028",
    "\u2029",
    "\U000e0041",  # a tag character (Cf, above U+FFFF)
]


@pytest.mark.parametrize("ch", INVISIBLE, ids=lambda c: f"U+{ord(c):04X}")
def test_every_invisible_character_is_written_as_an_escape(ch: str) -> None:
    shown = visible(f"a{ch}b")
    assert ch not in shown
    assert shown.isprintable()
    code = ord(ch)
    escape = f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    assert shown == f"a{escape}b"


def test_visible_text_is_kept_as_it_is() -> None:
    for text in (
        "#go-button",
        "Rechnungen prüfen",
        "日本語\u3000テキスト",
        "émoji 🙂",
        'a "quoted" \\ text',
        "",
    ):
        assert visible(text) == text


def test_a_tree_is_escaped_everywhere_keys_included() -> None:
    tree = {"id\u202e": ["#go\u202egnp.exe", {"n": 1, "b": True, "x": None}], "t": ("\u200b",)}
    assert visible_tree(tree) == {
        "id\\u202e": ["#go\\u202egnp.exe", {"n": 1, "b": True, "x": None}],
        "t": ["\\u200b"],
    }

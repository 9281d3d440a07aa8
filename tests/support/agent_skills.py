"""An independent, strict reader of SKILL.md front matter (YAML 1.2 scalars) and the Agent Skills
specification's rules for it, shared by the package tests and the install tests."""

from __future__ import annotations

import re

_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX = {"x": 2, "u": 4, "U": 8}
# Plain scalars a YAML 1.1 or 1.2 loader would not read as a string.
_NOT_A_STRING = re.compile(
    r"^(?:[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|0x[0-9a-fA-F_]+|0o?[0-7_]+|"
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*|(?i:y|n|yes|no|true|false|on|off|null|~)|[-+]?\.(?:inf|nan))$"
)


def decode_double_quoted(raw: str) -> str:
    assert len(raw) >= 2, raw
    assert raw[0] == raw[-1] == '"', raw
    body, out, i = raw[1:-1], [], 0
    while i < len(body):
        ch = body[i]
        assert ch != '"', "unescaped quote inside a double-quoted scalar"
        assert ch == "\t" or (ord(ch) >= 0x20 and not 0x7F <= ord(ch) <= 0x9F), f"raw control {ord(ch):#x}"
        assert ord(ch) not in (0x2028, 0x2029, 0xFEFF), "raw line or byte-order separator"
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        esc = body[i + 1]
        if esc in _HEX:
            digits = body[i + 2 : i + 2 + _HEX[esc]]
            assert re.fullmatch(r"[0-9a-fA-F]+", digits)
            assert len(digits) == _HEX[esc]
            out.append(chr(int(digits, 16)))
            i += 2 + _HEX[esc]
        else:
            out.append(_ESCAPES[esc])
            i += 2
    return "".join(out)


def front_matter(text: str) -> tuple[dict[str, str], list[str]]:
    """The front matter as {key: string} and the body lines. Strict: exactly ``key: scalar`` lines."""
    lines = text.split("\n")
    assert lines[0] == "---", "SKILL.md must start with front matter"
    end = lines.index("---", 1)
    fields: dict[str, str] = {}
    for line in lines[1:end]:
        key, sep, value = line.partition(": ")
        assert sep, line
        assert re.fullmatch(r"[a-z][a-z-]*", key), line
        assert key not in fields, line
        if value.startswith('"'):
            fields[key] = decode_double_quoted(value)
        else:
            assert re.fullmatch(r"[a-z0-9][a-z0-9-]*", value), value
            assert not _NOT_A_STRING.match(value), value
            fields[key] = value
    return fields, lines[end + 1 :]


def assert_agent_skills_rules(text: str, folder: str) -> dict[str, str]:
    """The Agent Skills specification's rules for SKILL.md."""
    fields, body = front_matter(text)
    assert set(fields) <= {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
    name, description = fields["name"], fields["description"]
    assert 1 <= len(name) <= 64
    assert re.fullmatch(r"[a-z0-9-]+", name)
    assert not name.startswith("-")
    assert not name.endswith("-")
    assert "--" not in name
    assert name == folder
    assert 1 <= len(description) <= 1024
    assert description.strip()
    assert "Use it when" in description  # says when to use it, not only what it does
    assert len(body) < 500
    return fields

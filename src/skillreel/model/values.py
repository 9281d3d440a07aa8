"""The skill's io layer (ARCHITECTURE section 15): typed inputs and outputs, as a small JSON Schema
subset (string, integer, number, boolean, enum, arrays of flat objects).

Pure rules shared by pre-flight, the replay engine, SKILL.md and ``skills_list``:

* :func:`check_input` — an input value against its parameter's type; the canonical text the
  replay uses (a ``type`` step types it, a ``select`` step chooses it);
* :func:`coerce` — text read from the page into an output's type: numbers tolerate thousands
  separators (``,`` ``'`` ``_`` or a space, one kind per number) and currency signs or a
  three-letter currency code; an optional regular expression with one group picks the part;
* :func:`value_schema`, :func:`outputs_schema` — the JSON Schema of an input or of the outputs;
* :func:`outputs_size`, :func:`mask_outputs` — the bounds and the masking of sensitive values.

Nothing here sees a value that is stored: outputs go to the caller only.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, Final, Literal

from pydantic import Field, SerializerFunctionWrapHandler, StringConstraints, model_serializer

from .base import Document
from .canonical import canonical_json
from .limits import (
    MAX_ENUM_VALUE_CHARS,
    MAX_ENUM_VALUES,
    MAX_OUTPUT_FIELDS,
    MAX_OUTPUT_STRING_CHARS,
    MAX_PARAM_DESCRIPTION_CHARS,
)
from .refs import OutputName
from .secret_scan import SecretScanner

ValueType = Literal["string", "integer", "number", "boolean", "enum"]
VALUE_TYPES: Final[tuple[ValueType, ...]] = ("string", "integer", "number", "boolean", "enum")
# An input may also be a ``file`` (issue 32.2): the path of a file an ``upload`` step sets, given at
# replay only (never a default, never read from a page); its name and content are never kept.
InputType = ValueType | Literal["file"]
EnumValue = Annotated[str, StringConstraints(max_length=MAX_ENUM_VALUE_CHARS)]
EnumValues = Annotated[tuple[EnumValue, ...], Field(min_length=1, max_length=MAX_ENUM_VALUES)]
Description = Annotated[str, StringConstraints(min_length=1, max_length=MAX_PARAM_DESCRIPTION_CHARS)]
Scalar = str | int | float | bool

MASK: Final = "[masked]"
_TRUE: Final = frozenset({"true", "yes", "y", "on", "1", "checked", "enabled"})
_FALSE: Final = frozenset({"false", "no", "n", "off", "0", "unchecked", "disabled"})
_INPUT_INT = re.compile(r"[+-]?\d{1,16}")
_INPUT_NUMBER = re.compile(r"[+-]?(?:\d{1,16}(?:\.\d{1,16})?|\.\d{1,16})")
# digits grouped by thousands with one kind of separator, or plain digits; an optional fraction
_GROUPED = re.compile(r"(\d{1,3})(?:([,'_ \u2019])\d{3})(?:\2\d{3})*(\.\d+)?|\d+(\.\d+)?|\.\d+")
_CODE = re.compile(r"^[A-Z]{3}\s*|\s*[A-Z]{3}$")
_SPACES = re.compile(r"[\s\u00a0\u2007\u202f]+")


class ValueProblem(ValueError):
    """A value that does not fit its type; ``reason`` is content-free (never the value)."""

    def __init__(self, reason: str, *, too_large: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.too_large = too_large


def values_text(values: Sequence[str], limit: int = 8) -> str:
    """The allowed values as an error message lists them (the draft holds them; they are no secret)."""
    shown = ", ".join(repr(v) for v in values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


# ---- inputs -------------------------------------------------------------------------------------


class NotText(ValueProblem):
    """A string that is not Unicode text: it cannot be typed, digested or written."""


def is_text(value: str) -> bool:
    """Whether ``value`` is Unicode text (no lone surrogate): what UTF-8 can encode."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_input(type_: InputType | None, values: Sequence[str] | None, raw: Scalar) -> str:
    """The canonical text of input ``raw`` for a parameter of ``type_`` (None: an untyped v1
    parameter, any text). Raises :class:`ValueProblem` naming the rule, never the value (text that
    is not Unicode, a lone surrogate from JSON's ``\\ud800`` or an undecodable command-line byte:
    :class:`NotText`)."""
    if isinstance(raw, str) and not is_text(raw):
        raise NotText("is not valid Unicode text (it holds a lone surrogate or an undecodable byte)")
    if type_ is None or type_ == "string":
        if not isinstance(raw, str):
            raise ValueProblem("expects a string")
        return raw
    if type_ == "file":
        if not isinstance(raw, str) or not raw or "\x00" in raw:
            raise ValueProblem("expects the path of a file")
        return raw
    if type_ == "enum":
        if not isinstance(raw, str) or raw not in (values or ()):
            raise ValueProblem(f"expects one of {values_text(values or ())}")
        return raw
    if type_ == "boolean":
        if isinstance(raw, bool):
            return "true" if raw else "false"
        if isinstance(raw, str) and raw.strip().lower() in ("true", "false"):
            return raw.strip().lower()
        raise ValueProblem("expects true or false")
    if isinstance(raw, bool):
        raise ValueProblem(f"expects {'an integer' if type_ == 'integer' else 'a number'}")
    if type_ == "integer":
        if isinstance(raw, int):
            return str(raw)
        if isinstance(raw, float) and raw.is_integer() and abs(raw) < 1e15:
            return str(int(raw))
        if isinstance(raw, str) and _INPUT_INT.fullmatch(raw.strip()):
            return str(int(raw.strip()))
        raise ValueProblem("expects an integer")
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        if isinstance(raw, float) and (raw != raw or raw in (float("inf"), float("-inf"))):
            raise ValueProblem("expects a finite number")
        return _number_text(Decimal(str(raw)))
    if isinstance(raw, str) and _INPUT_NUMBER.fullmatch(raw.strip()):
        return _number_text(Decimal(raw.strip()))
    raise ValueProblem("expects a number")


def _number_text(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "+0") else text


def typed_input(type_: InputType | None, text: str) -> Scalar:
    """The typed value of an input's canonical text (what a branch compares)."""
    if type_ == "integer":
        return int(text)
    if type_ == "number":
        number = Decimal(text)
        return int(number) if number == number.to_integral_value() else float(number)
    if type_ == "boolean":
        return text == "true"
    return text


# ---- outputs: text from the page into a type -----------------------------------------------------


def parse_number(text: str) -> Decimal | None:
    """A number written for people: ``$1,234.50``, ``1 234``, ``-12``, ``EUR 7.5``, ``1'000``.
    Currency signs (Unicode ``Sc``) and a three-letter code are dropped; separators must group
    thousands consistently; a decimal point is ``.``. None when it is not such a number."""
    t = _SPACES.sub(" ", text).strip()
    t = "".join(ch for ch in t if unicodedata.category(ch) != "Sc").strip()
    t = _CODE.sub("", t).strip()
    sign = ""
    if t[:1] in ("-", "+", "\u2212"):
        sign, t = ("-" if t[0] != "+" else ""), t[1:].strip()
        t = "".join(ch for ch in t if unicodedata.category(ch) != "Sc").strip()
    if not t or not _GROUPED.fullmatch(t):
        return None
    digits = re.sub(r"[,'_ \u2019]", "", t)
    try:
        return Decimal(sign + digits)
    except InvalidOperation:
        return None


def squash(text: str) -> str:
    """Whitespace runs as one space, trimmed (how text is read from a page)."""
    return _SPACES.sub(" ", text).strip()


def coerce(
    text: str,
    type_: ValueType,
    *,
    values: Sequence[str] | None = None,
    pattern: str | None = None,
) -> Scalar:
    """``text`` read from the page as ``type_``; :class:`ValueProblem` when it does not fit."""
    subject = squash(text)
    if pattern is not None:
        match = re.search(pattern, subject[:65536])
        if match is None or match.group(1) is None:
            raise ValueProblem("the text does not match the step's pattern")
        subject = squash(match.group(1))
    if type_ == "string":
        if len(subject) > MAX_OUTPUT_STRING_CHARS:
            raise ValueProblem(
                f"the text is longer than {MAX_OUTPUT_STRING_CHARS:,} characters", too_large=True
            )
        return subject
    if type_ == "enum":
        if subject not in (values or ()):
            raise ValueProblem("the text is none of the allowed values")
        return subject
    if type_ == "boolean":
        folded = subject.lower()
        if folded in _TRUE:
            return True
        if folded in _FALSE:
            return False
        raise ValueProblem("the text is not a yes/no value")
    number = parse_number(subject)
    if number is None:
        raise ValueProblem(f"the text is not {'an integer' if type_ == 'integer' else 'a number'}")
    if number == number.to_integral_value():
        if abs(number) >= 10**15:
            raise ValueProblem("the number is too large")
        return int(number)
    if type_ == "integer":
        raise ValueProblem("the number is not an integer")
    return float(number)


# ---- schemas ------------------------------------------------------------------------------------


def value_schema(type_: InputType | None, values: Sequence[str] | None = None) -> dict[str, Any]:
    """The JSON Schema of one value (an untyped v1 parameter is a string; a file, its path)."""
    if type_ == "enum":
        return {"type": "string", "enum": list(values or ())}
    if type_ == "file":
        return {"type": "string", "format": "path"}
    return {"type": type_ or "string"}


class OutputField(Document):
    """One field of the objects of a list output; ``nullable`` when an item may lack it."""

    name: OutputName
    type: ValueType
    values: EnumValues | None = None
    nullable: bool = False

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("values") is None:
            data.pop("values", None)
        return data


class OutputSpec(Document):
    """One output of the skill: a scalar, or a list of flat objects (``fields``). ``nullable`` when
    a run may not produce it (a step in a branch, an optional step, after a skipping assertion)."""

    name: OutputName
    type: ValueType | Literal["list", "download"]
    values: EnumValues | None = None
    fields: tuple[OutputField, ...] = Field(default=(), max_length=MAX_OUTPUT_FIELDS)
    nullable: bool = False
    description: Description | None = None

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key, unset in (("values", None), ("description", None), ("fields", [])):
            if key in data and data[key] == unset:
                del data[key]
        return data

    def shape(self) -> tuple[Any, ...]:
        """Everything but the description: what the steps that produce it determine."""
        return (self.name, self.type, self.values, self.fields, self.nullable)


def _nullable(schema: dict[str, Any], nullable: bool) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]} if nullable else schema


# A download step's output: the saved file (issue 32.4).
DOWNLOAD_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "name": {"type": "string"},
        "bytes": {"type": "integer", "minimum": 0},
        "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
    },
    "required": ["path", "name", "bytes", "sha256"],
    "additionalProperties": False,
}


def output_schema(spec: OutputSpec) -> dict[str, Any]:
    """The JSON Schema of one output."""
    if spec.type == "list":
        schema: dict[str, Any] = {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    f.name: _nullable(value_schema(f.type, f.values), f.nullable) for f in spec.fields
                },
                "required": [f.name for f in spec.fields],
                "additionalProperties": False,
            },
        }
    elif spec.type == "download":
        schema = DOWNLOAD_SCHEMA
    else:
        schema = value_schema(spec.type, spec.values)
    schema = _nullable(schema, spec.nullable)
    if spec.description:
        schema["description"] = spec.description
    return schema


def outputs_schema(outputs: Sequence[OutputSpec]) -> dict[str, Any]:
    """The JSON Schema of a replay's ``outputs`` object: every declared name is present; a value
    that a run did not produce is null."""
    return {
        "type": "object",
        "properties": {o.name: output_schema(o) for o in outputs},
        "required": [o.name for o in outputs],
        "additionalProperties": False,
    }


# ---- bounds and masking -------------------------------------------------------------------------


def outputs_size(outputs: Mapping[str, Any]) -> int:
    """The size of the outputs as canonical JSON, in bytes (floats written as JSON numbers)."""
    return len(canonical_json(dict(outputs)))


def _leaves(value: Any, path: tuple[Any, ...], out: list[tuple[tuple[Any, ...], str]]) -> None:
    """Every text or number of ``value`` with where it is (booleans and nulls hold no secret)."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, str | int | float):
        out.append((path, str(value)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _leaves(item, (*path, i), out)
    elif isinstance(value, dict):
        for key, item in value.items():
            _leaves(item, (*path, key), out)


def _replace(value: Any, path: tuple[Any, ...]) -> Any:
    """``value`` with the leaf at ``path`` masked (a string by ``"[masked]"``, a number by null)."""
    if not path:
        return MASK if isinstance(value, str) else None
    head, rest = path[0], path[1:]
    if isinstance(value, list):
        return [_replace(item, rest) if i == head else item for i, item in enumerate(value)]
    return {key: _replace(item, rest) if key == head else item for key, item in value.items()}


def mask_outputs(
    outputs: Mapping[str, Any], secrets: Iterable[str]
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """``outputs`` with every value that holds a secret of ``secrets`` in any form
    :class:`~skillreel.model.secret_scan.SecretScanner` knows (alone, or joined with another value:
    a secret split across two outputs masks both) replaced (a string by ``"[masked]"``, a number by
    null), and the names of the outputs that were (sorted; never a value)."""
    scanner = SecretScanner(secrets)
    masked = dict(outputs)
    if not scanner:
        return masked, ()
    leaves: list[tuple[tuple[Any, ...], str]] = []
    _leaves(masked, (), leaves)
    found = scanner.hits([text for _, text in leaves])
    for i in sorted(found):
        path = leaves[i][0]
        masked[path[0]] = _replace(masked[path[0]], path[1:])
    return masked, tuple(sorted({str(leaves[i][0][0]) for i in found}))


# ---- values in conditions and fields ------------------------------------------------------------


def as_text(value: Scalar | None) -> str | None:
    """A value as the text a ``type`` step types or a filter looks for (None stays None)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _number_text(Decimal(str(value)))
    return str(value)


def _as_number(value: Scalar | None) -> Decimal | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return Decimal(str(value))
    return parse_number(value)


CompareOp = Literal[
    "equals",
    "not_equals",
    "contains",
    "greater_than",
    "less_than",
    "at_least",
    "at_most",
    "empty",
    "not_empty",
]


def compare(value: Scalar | None, op: CompareOp, expected: Scalar | None = None) -> bool:
    """``value op expected``: numbers compare as numbers (text is read as a number when it is one),
    booleans as booleans, text ignoring case and whitespace runs. ``greater_than`` and its kin need
    two numbers (:class:`ValueProblem` otherwise); a missing value is empty and equals nothing."""
    if op in ("empty", "not_empty"):
        empty = value is None or (isinstance(value, str) and not squash(value))
        return empty if op == "empty" else not empty
    if op in ("greater_than", "less_than", "at_least", "at_most"):
        left, right = _as_number(value), _as_number(expected)
        if left is None or right is None:
            raise ValueProblem("the values cannot be compared as numbers")
        return {
            "greater_than": left > right,
            "less_than": left < right,
            "at_least": left >= right,
            "at_most": left <= right,
        }[op]
    if value is None or expected is None:
        return op == "not_equals"
    if op == "contains":
        return squash(str(as_text(expected))).casefold() in squash(str(as_text(value))).casefold()
    same: bool
    if isinstance(value, bool) or isinstance(expected, bool):
        same = as_text(value) == as_text(expected)
    elif isinstance(value, int | float) or isinstance(expected, int | float):
        left, right = _as_number(value), _as_number(expected)
        same = left is not None and left == right
    else:
        same = squash(value).casefold() == squash(expected).casefold()
    return same if op == "equals" else not same

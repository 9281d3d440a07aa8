"""Typed references: where a step's value comes from (ARCHITECTURE section 15).

A value is never a string template. It is one of:

* ``{"ref": "parameter", "name": "q"}`` — a replay input (schema v1 knows only this one);
* ``{"ref": "output", "step": "a5", "field": "total"}`` — what an earlier ``extract`` step read;
* ``{"ref": "item", "field": "status"}`` — a field of the current item of the enclosing ``loop``;
* ``{"ref": "literal", "value": "approved"}`` — a constant the reviewer chose (a string, an integer
  or a boolean; never page content the recorder saw).

A :class:`TextFilter` narrows a set of elements to those whose text contains a value as a whole
token; the text is compared in the page at replay time and never stored.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from .base import ActionId, Document, ParamName

OutputName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,63}$")]
LiteralText = Annotated[str, StringConstraints(max_length=1024)]
LiteralInt = Annotated[int, Field(ge=-(10**15), le=10**15)]


class ParameterRef(Document):
    """A reference to a replay input."""

    ref: Literal["parameter"] = "parameter"
    name: ParamName


class OutputRef(Document):
    """What an earlier ``extract`` step read: ``step`` is its id, ``field`` its output name."""

    ref: Literal["output"] = "output"
    step: ActionId
    field: OutputName


class ItemRef(Document):
    """A field of the current item of the nearest enclosing ``loop`` (one of its ``fields``)."""

    ref: Literal["item"] = "item"
    field: OutputName


class LiteralValue(Document):
    """A constant chosen by the reviewer."""

    ref: Literal["literal"] = "literal"
    value: LiteralText | LiteralInt | bool


ValueRef = Annotated[ParameterRef | OutputRef | ItemRef | LiteralValue, Field(discriminator="ref")]
# What a loop's ``limit`` may be: a fixed bound or an integer input.
DataRef = Annotated[ParameterRef | OutputRef | ItemRef, Field(discriminator="ref")]


class TextFilter(Document):
    """Keep the elements whose visible text contains ``contains_token`` as a whole token.

    "A whole token": the value, whitespace-normalised and compared case-insensitively, with no
    letter or digit right before or after it (``1007`` is in ``Order 1007`` and ``INV-1007``, never
    in ``Order 10071``). The value comes from the reference at replay time; an empty value matches
    nothing.
    """

    contains_token: ValueRef

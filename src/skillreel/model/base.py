"""Base classes for every skillreel document: strict, frozen, camelCase on the wire.

``Document.parse`` is the one way in from JSON (bytes, text or a decoded mapping). It validates in
strict JSON mode, so ``"1"`` is never taken for ``1`` and unknown keys are refused.
``DigestedDocument`` carries its own digest; validation recomputes it and refuses a mismatch, so
no digest-bearing document can exist in memory with a digest that does not match its content.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Annotated, Any, ClassVar, Self, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from ..errors import InputError
from .canonical import tagged_digest

Digest = Annotated[str, StringConstraints(pattern=r"^sha256:[0-9a-f]{64}$")]
SkillName = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=64)]
_SKILL_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # SkillName's pattern, for fullmatch
ActionId = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9-]{0,31}$")]
ParamName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,63}$")]
Label = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._@:-]{0,127}$")]
Timestamp = Annotated[str, StringConstraints(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")]


def is_skill_name(name: str) -> bool:
    return len(name) <= 64 and _SKILL_NAME.fullmatch(name) is not None


def check_skill_name(name: str) -> str:
    """The Agent Skills naming rule of :data:`SkillName`, checked at every boundary that takes a
    name (CLI, services, install, MCP); ``SR_RECORD_NAME_INVALID`` otherwise."""
    if not is_skill_name(name):
        raise InputError(
            "SR_RECORD_NAME_INVALID",
            "a skill name is 1-64 lower-case letters, digits and single inner hyphens",
        )
    return name


@cache
def _label_adapter() -> TypeAdapter[str]:
    """Built on first use: a verb that takes no label starts without it."""
    return TypeAdapter(Label)


def is_label(value: str) -> bool:
    """Whether ``value`` is a :data:`Label` (a reviewer id, an identity); each boundary that takes
    one raises its own error when it is not."""
    try:
        _label_adapter().validate_python(value)
    except ValidationError:
        return False
    return True


_PLACEHOLDER = "sha256:" + "f" * 64
_BUILDING: set[type[BaseModel]] = set()  # documents whose nested documents are being built


class Document(BaseModel):
    """A strict, immutable wire document (camelCase keys, unknown keys refused)."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        strict=True,
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        defer_build=True,  # validators are built on first use, so a CLI verb starts fast
    )

    @classmethod
    def model_rebuild(
        cls,
        *,
        force: bool = False,
        raise_errors: bool = True,
        _parent_namespace_depth: int = 2,
        _types_namespace: Any = None,
    ) -> bool | None:
        """Build the documents this one nests first, each once, then this one, which reuses their
        schemas. Builds are deferred to first use; built top-down, a store entry's schema generated
        the draft's, every action's and the events log's inline, and each was generated again on its
        own first use (a nested digest check dumps it). Same schemas, same validation, made once."""
        if not cls.__pydantic_complete__ and cls not in _BUILDING:
            _BUILDING.add(cls)
            try:
                # documents whose field types were all resolved at class creation first: a recursive
                # one (a branch's actions) then reuses them instead of generating them inline
                nested = sorted(_nested_documents(cls), key=lambda doc: not doc.__pydantic_fields_complete__)
                for document in nested:
                    if not document.__pydantic_complete__:
                        document.model_rebuild(
                            raise_errors=False, _parent_namespace_depth=0
                        )  # own module's names
            finally:
                _BUILDING.discard(cls)
        return super().model_rebuild(
            force=force,
            raise_errors=raise_errors,
            _parent_namespace_depth=_parent_namespace_depth + 1,  # this frame is one more
            _types_namespace=_types_namespace,
        )

    @classmethod
    def parse(cls, data: bytes | str | Mapping[str, Any]) -> Self:
        """Validate a document from JSON text/bytes or an already decoded mapping."""
        if isinstance(data, Mapping):
            data = json.dumps(data, ensure_ascii=False, allow_nan=False)
        return cls.model_validate_json(data)

    def to_json(self) -> dict[str, Any]:
        """The JSON-compatible form, with wire (camelCase) keys."""
        return self.model_dump(mode="json", by_alias=True)


def _nested_documents(cls: type[Document]) -> Iterator[type[Document]]:
    """The document classes named in ``cls``'s field types (unions, tuples, ``Annotated``...)."""
    seen: set[type[Document]] = {cls}
    pending: list[Any] = [field.annotation for field in cls.model_fields.values()]
    while pending:
        annotation = pending.pop()
        if isinstance(annotation, type) and not get_args(annotation):
            if issubclass(annotation, Document) and annotation not in seen:
                seen.add(annotation)
                yield annotation
            continue
        pending.extend(get_args(annotation))


class DigestedDocument(Document):
    """A document that carries a digest of its own content under a domain tag.

    Subclasses set ``digest_tag`` and ``digest_field`` (the Python name of the field that holds
    the digest) and may list further fields excluded from the digest in ``digest_excludes``
    (a signature over the digest, for example).
    """

    digest_tag: ClassVar[str]
    digest_field: ClassVar[str]
    digest_excludes: ClassVar[frozenset[str]] = frozenset()

    def digest_payload(self) -> dict[str, Any]:
        exclude = {self.digest_field, *self.digest_excludes}
        return self.model_dump(mode="json", by_alias=True, exclude=exclude)

    def compute_digest(self) -> str:
        return tagged_digest(self.digest_tag, self.digest_payload())

    @property
    def digest(self) -> str:
        value: str = getattr(self, self.digest_field)
        return value

    @model_validator(mode="after")
    def _check_digest(self, info: ValidationInfo) -> Self:
        if info.context and info.context.get("skillreel_building") is self.__class__:
            return self
        if self.digest != self.compute_digest():
            raise PydanticCustomError(
                "digest_mismatch",
                "{doc} digest does not match its content",
                {"doc": getattr(self, "schema_", self.digest_tag)},
            )
        return self

    @classmethod
    def build(cls, **fields: Any) -> Self:
        """Build a document from Python values and compute its digest.

        Fields are given by Python name; nested documents may be model instances. The result is
        re-validated from its JSON form, exactly as a reader on the other side of a boundary would.
        """
        draft = cls.model_validate(
            {**fields, cls.digest_field: _PLACEHOLDER}, context={"skillreel_building": cls}, strict=False
        )
        digest = draft.compute_digest()
        payload = draft.model_dump(mode="json", by_alias=True)
        payload[cls.model_fields[cls.digest_field].alias or cls.digest_field] = digest
        return cls.parse(payload)

    def evolve(self, **changes: Any) -> Self:
        """This document with ``changes`` (by Python name), rebuilt with :meth:`build`: the digest is
        recomputed and everything re-validated. Written in the current schema; a field outside the
        digest (``digest_excludes``, such as a signature over the old digest) is dropped unless given."""
        dropped = {self.digest_field, "schema_", *self.digest_excludes}
        fields = {name: getattr(self, name) for name in type(self).model_fields if name not in dropped}
        return self.build(**{**fields, **changes})

"""The Draft: what the recorder produced and what a reviewer approves (ARCHITECTURE sections 3, 15).

Two schemas, one class. ``skillreel.draft/v1`` is the first version's: a flat list of eight step
kinds, parameters with names and flags only. ``skillreel.draft/v2`` adds the step graph
(``model.actions``, ``model.graph``), typed parameters (``type``, ``description``, ``default``, the
allowed ``values`` of an enum) and the skill's ``outputs``. Each schema is its own digest tag, so a
v2 document can never pass for a v1 one, and a first-version skillreel refuses a v2 draft with
``SR_RECORD_SCHEMA_VERSION`` instead of misreading it.

A v1 document is read as a v2 graph without blocks. :meth:`Draft.build` writes the lowest schema
that can express the draft: v1 while it uses nothing of v2, so every v1 skill, store, export and
package keeps its bytes and digests; a v1 document that holds a v2 feature is refused.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    StringConstraints,
    TypeAdapter,
    model_serializer,
    model_validator,
)
from pydantic.alias_generators import to_snake

from .actions import Action, Capability, capability_manifest, parameter_refs
from .base import Digest, DigestedDocument, Document, ParamName, SkillName
from .canonical import tagged_digest
from .environment import Environment
from .graph import check_graph, derive_outputs, v2_features
from .graph_problem import GraphProblem
from .limits import (
    MAX_ACTIONS,
    MAX_DESCRIPTION_CHARS,
    MAX_FAILURE_CONDITION_CHARS,
    MAX_FAILURE_CONDITIONS,
    MAX_OUTPUTS,
    MAX_TYPE_VALUE_CHARS,
)
from .values import Description as ParamDescription
from .values import EnumValues, InputType, OutputSpec, ValueProblem, check_input

Description = Annotated[str, StringConstraints(min_length=1, max_length=MAX_DESCRIPTION_CHARS)]
FailureCondition = Annotated[str, StringConstraints(min_length=1, max_length=MAX_FAILURE_CONDITION_CHARS)]
Salt = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{32}$")]
LabelHash = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{16}$")]


DefaultValue = Annotated[str, StringConstraints(max_length=MAX_TYPE_VALUE_CHARS)] | int | bool
V1: Literal["skillreel.draft/v1"] = "skillreel.draft/v1"
V2: Literal["skillreel.draft/v2"] = "skillreel.draft/v2"
_PLACEHOLDER = "sha256:" + "f" * 64


class Parameter(Document):
    """A replay input. v1: its name and flags. v2 adds (each left out of the wire form when unset)
    its ``type`` (string, integer, number, boolean, enum; unset: any text, as in v1), a
    ``description``, a ``default`` (never for a sensitive one; a parameter with a default is not
    required) and, for an enum (a ``<select>``), the allowed ``values`` (option values only) and,
    recorded since issue 33, ``labelHashes``: the salted text hashes (``model.locators.text_hash``
    with the draft's fingerprint salt) of the options' visible labels, so pre-flight can tell a
    label from a wrong value without the skill keeping page text."""

    v2_keys: ClassVar[tuple[str, ...]] = ("type", "description", "default", "values", "labelHashes")

    name: ParamName
    required: bool = True
    sensitive: bool = False
    type: InputType | None = None
    description: ParamDescription | None = None
    default: DefaultValue | None = None
    values: EnumValues | None = None
    label_hashes: tuple[LabelHash, ...] | None = Field(default=None, max_length=256)

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for key in self.v2_keys:
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @model_validator(mode="after")
    def _typed(self) -> Parameter:
        if (self.type == "enum") != (self.values is not None):
            raise ValueError("exactly an enum parameter lists its allowed values")
        if self.values is not None and len(set(self.values)) != len(self.values):
            raise ValueError("an enum's values are unique")
        if self.type == "file" and self.default is not None:
            raise ValueError("a file parameter has no default: its path is given at replay")
        if self.label_hashes is not None and self.values is None:
            raise ValueError("only an enum parameter keeps its labels' hashes")
        if self.default is not None:
            if self.sensitive:
                raise ValueError("a sensitive parameter has no default")
            if self.required:
                raise ValueError("a parameter with a default is not required")
            try:
                check_input(self.type, self.values, self.default)
            except ValueProblem as exc:
                raise ValueError(f"the default does not fit the parameter's type ({exc.reason})") from exc
        return self

    def v2_fields(self) -> list[str]:
        return [k for k in self.v2_keys if getattr(self, to_snake(k)) is not None]


def _outputs_for(actions: Any, given: Any) -> tuple[OutputSpec, ...]:
    """The outputs ``actions`` produce with the descriptions of ``given`` (validation reports a
    graph that cannot be read)."""
    try:
        steps = _actions_adapter().validate_python(actions)
        derived = derive_outputs(steps)
    except (ValueError, TypeError):  # the build's own validation reports it
        return ()
    described = {}
    for spec in given or ():
        spec = spec if isinstance(spec, OutputSpec) else OutputSpec.model_validate(spec)
        if spec.description is not None:
            described[spec.name] = spec.description
    return tuple(o.model_copy(update={"description": described.get(o.name)}) for o in derived)


@cache
def _actions_adapter() -> TypeAdapter[tuple[Action, ...]]:
    return TypeAdapter(tuple[Action, ...])


class Draft(DigestedDocument):
    digest_tag = V1  # a document's tag is its own schema (compute_digest); v1 is the default
    digest_field = "draft_digest"

    schema_: Literal["skillreel.draft/v1", "skillreel.draft/v2"] = Field(V1, alias="schema")
    name: SkillName
    description: Description
    actions: tuple[Action, ...] = Field(min_length=1, max_length=MAX_ACTIONS)
    parameters: tuple[Parameter, ...] = Field(default=(), max_length=MAX_ACTIONS)
    capabilities: tuple[Capability, ...]
    failure_conditions: tuple[FailureCondition, ...] = Field(default=(), max_length=MAX_FAILURE_CONDITIONS)
    environment: Environment
    fingerprint_salt: Salt
    events_digest: Digest
    outputs: tuple[OutputSpec, ...] = Field(default=(), max_length=MAX_OUTPUTS)
    draft_digest: Digest

    @model_serializer(mode="wrap")
    def _omit_no_outputs(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("outputs") == []:
            del data["outputs"]
        return data

    def compute_digest(self) -> str:
        return tagged_digest(self.schema_, self.digest_payload())

    @model_validator(mode="after")
    def _consistent(self) -> Draft:
        check_graph(self.actions, self.parameters)
        if self.capabilities != capability_manifest(self.actions):
            raise ValueError("capabilities must equal the manifest computed from the actions")
        names = [p.name for p in self.parameters]
        if len(set(names)) != len(names):
            raise ValueError("parameter names must be unique")
        if set(parameter_refs(self.actions)) != set(names):
            raise ValueError("every parameter must be used by an action and every reference declared")
        derived = derive_outputs(self.actions)
        if tuple(o.shape() for o in self.outputs) != tuple(o.shape() for o in derived):
            raise GraphProblem(
                "SR_RECORD_GRAPH_INVALID",
                None,
                "the declared outputs differ from what the steps produce (names, types, order)",
            )
        if self.schema_ == V1 and self.uses_v2():
            raise ValueError(f"a {V1} document cannot hold what only {V2} expresses")
        return self

    def uses_v2(self) -> bool:
        """Whether anything in this draft needs schema v2."""
        return bool(self.outputs or any(p.v2_fields() for p in self.parameters) or v2_features(self.actions))

    @classmethod
    def build(cls, **fields: Any) -> Self:
        """As :meth:`DigestedDocument.build`, in the lowest schema that can express the draft
        (unless ``schema_`` is given). ``outputs`` are what the steps produce
        (:func:`~skillreel.model.graph.derive_outputs`); of the ``outputs`` given, only the
        descriptions are kept (by name), so an edit of the steps keeps the outputs true."""
        fields["outputs"] = _outputs_for(fields.get("actions", ()), fields.get("outputs", ()))
        if "schema_" not in fields:
            probe = cls.model_validate(
                {**fields, "schema_": V2, cls.digest_field: _PLACEHOLDER},
                context={"skillreel_building": cls},
                strict=False,
            )
            fields["schema_"] = V2 if probe.uses_v2() else V1
        return super().build(**fields)

    def walk(self) -> list[Action]:
        """Every step, nested ones included, in document order."""
        from .actions import walk

        return list(walk(self.actions))

    def parameter(self, name: str) -> Parameter | None:
        return next((p for p in self.parameters if p.name == name), None)

    def action(self, action_id: str) -> Action | None:
        """The step with this id, wherever it is in the graph."""
        return next((a for a in self.walk() if a.id == action_id), None)

    def output(self, name: str) -> OutputSpec | None:
        return next((o for o in self.outputs if o.name == name), None)

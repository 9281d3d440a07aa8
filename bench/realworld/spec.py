"""What the corpus is made of: apps, their versions, tasks and the steps of a demonstration.

A task's steps drive the **demonstration** on the oldest version (CSS selectors, the same for both
tools); each tool records it in its own way and replays it with other inputs. ``expect`` says what
the database must show afterwards, given the seed and the replay inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

Row = dict[str, object]
Tables = dict[str, dict[object, Row]]  # table -> primary key -> row (ignored columns removed)


@dataclass(frozen=True)
class Fill:
    """Click a text field and type the value of ``input`` into it."""

    selector: str
    input: str


@dataclass(frozen=True)
class Choose:
    """Pick the option whose value is the value of ``input`` in a ``<select>``."""

    selector: str
    input: str


@dataclass(frozen=True)
class Pick:
    """Choose an option of a popup picker by its label: click the combobox at ``selector``
    (a ``role=combobox`` or ``aria-haspopup=listbox`` element, not a ``<select>``), then the
    ``role=option`` whose accessible name is the value of ``input``."""

    selector: str
    input: str


@dataclass(frozen=True)
class Click:
    selector: str


@dataclass(frozen=True)
class Press:
    """Press a key (Enter, Tab, Escape) on the focused element."""

    key: str


@dataclass(frozen=True)
class Check:
    """A final check: the element's text contains ``expected`` (checked by both tools)."""

    selector: str
    expected: str


Step = Fill | Choose | Pick | Click | Press
InputStep = Fill | Choose | Pick  # the steps whose value is one of the task's inputs


@dataclass(frozen=True)
class Change:
    """A difference between two database snapshots (or the one a task intends).

    ``added`` rows carry every compared column but the primary key; ``changed`` maps a primary
    key to the columns that changed and their new values."""

    added: Mapping[str, tuple[Row, ...]] = field(default_factory=dict)
    removed: Mapping[str, frozenset[object]] = field(default_factory=dict)
    changed: Mapping[str, Mapping[object, Row]] = field(default_factory=dict)

    def is_empty(self) -> bool:
        return (
            not any(self.added.values()) and not any(self.removed.values()) and not any(self.changed.values())
        )


@dataclass(frozen=True)
class Task:
    name: str
    summary: str
    start: str  # path of the start URL, e.g. "/admin/"
    steps: tuple[Step, ...]
    checks: tuple[Check, ...]
    record: Mapping[str, str]  # inputs of the demonstration (oldest version)
    replay: Mapping[str, str]  # the other inputs every replay uses
    expect: Callable[[Tables, Mapping[str, str]], Change]
    sensitive: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Version:
    label: str  # "4.2"
    requirements: tuple[str, ...]  # exact pins, installed into the version's venv


@dataclass(frozen=True)
class App:
    name: str  # "django-admin"
    source: Path  # the folder with seed.py and serve.py
    versions: tuple[Version, ...]  # oldest first: tasks are recorded on versions[0]
    ready_path: str  # a path that answers once the server is up
    tasks: tuple[Task, ...]
    ignored_tables: frozenset[str] = frozenset()
    ignored_columns: Mapping[str, frozenset[str]] = field(default_factory=dict)
    password_columns: Mapping[str, str] = field(default_factory=dict)  # table -> column
    known_passwords: tuple[str, ...] = ()  # seed passwords, to name a hash in a snapshot

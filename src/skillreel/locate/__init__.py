"""Element location: the shared element description (``element.js`` then ``fingerprint.js``, also
used by the recorder), in-page measurement for replay (``resolve.js``) and the pure decision rule
(:mod:`skillreel.locate.heal`, over the comparison of :mod:`skillreel.locate.similarity` and the
probe :mod:`skillreel.locate.probe` validates).

The scripts are real ``.js`` files read with :mod:`importlib.resources`; callers pass data to them as
evaluation arguments, never as script text.
"""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def script(name: str) -> str:
    """The text of one script of this package (``element.js``, ``fingerprint.js`` or ``resolve.js``)."""
    if name not in ("element.js", "fingerprint.js", "listbox.js", "resolve.js", "collect.js"):
        raise ValueError(f"unknown locate script {name!r}")
    return resources.files(__package__).joinpath(name).read_text("utf-8")


@cache
def locate_script() -> str:
    """``element.js``, ``fingerprint.js`` then ``listbox.js``: defines ``SkillreelElement`` and
    ``SkillreelLocate`` (the shared element description) and ``SkillreelListbox`` (popup pickers:
    a combobox and the listbox it opens) in the world it is evaluated in."""
    return (
        script("element.js") + "\n;\n" + script("fingerprint.js") + "\n;\n" + script("listbox.js") + "\n;\n"
    )


@cache
def resolve_world_script() -> str:
    """:func:`locate_script` then ``resolve.js`` and ``collect.js``: also defines ``SkillreelResolve``
    and ``SkillreelCollect`` (schema v2 sets, items and reads) in an isolated world during replay."""
    return locate_script() + script("resolve.js") + "\n;\n" + script("collect.js") + "\n;\ntrue;\n"

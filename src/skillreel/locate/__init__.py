"""Element location: the shared element description (``fingerprint.js``, also used by the
recorder), in-page measurement for replay (``resolve.js``) and the pure decision rule
(:mod:`skillreel.locate.heal`).

The scripts are real ``.js`` files read with :mod:`importlib.resources`; callers pass data to them as
evaluation arguments, never as script text.
"""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def script(name: str) -> str:
    """The text of one script of this package (``fingerprint.js`` or ``resolve.js``)."""
    if name not in ("fingerprint.js", "resolve.js"):
        raise ValueError(f"unknown locate script {name!r}")
    return resources.files(__package__).joinpath(name).read_text("utf-8")


@cache
def resolve_world_script() -> str:
    """``fingerprint.js`` then ``resolve.js``: defines ``SkillreelLocate`` and ``SkillreelResolve``
    in the world it is evaluated in (an isolated world during replay)."""
    return script("fingerprint.js") + "\n;\n" + script("resolve.js") + "\n;\ntrue;\n"

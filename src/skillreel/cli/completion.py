"""Shell completion of skill names for every verb's NAME argument (click's completion protocol:
``_SKILLREEL_COMPLETE=bash_source skillreel``, see docs/guide.md, "Shell completion").

It reads the names from the store's summary columns, never creates a store that does not exist and
never fails: completion that cannot read the store offers nothing.
"""

from __future__ import annotations

import click
from click.shell_completion import CompletionItem


def complete_skill_name(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    from ..store import Store, db

    home = db.store_home()
    if not (home / db.DB_NAME).is_file():
        return []
    try:
        with Store.open(home, timeout=0.5) as store:
            names = [s.name for s in store.summaries()]
    except Exception:  # completion must never print a traceback into a shell
        return []
    return [CompletionItem(name) for name in names if name.startswith(incomplete)]

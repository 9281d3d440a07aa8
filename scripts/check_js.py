"""Syntax-check every JavaScript file under src/ with ``node --check`` (``make check``).

Usage: ``python scripts/check_js.py [ROOT]`` (ROOT defaults to the repository).

Uses ``node`` from PATH, else the Node.js that the Playwright package ships for its driver (so a
fresh machine with only the Python dependencies installed can run it). Fails loudly when neither
exists or when src/ holds no .js file at all (a moved directory must not pass silently).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def find_node() -> str | None:
    on_path = shutil.which("node")
    if on_path:
        return on_path
    try:
        from playwright._impl._driver import compute_driver_executable
    except ImportError:
        return None
    bundled = Path(compute_driver_executable()[0])
    return str(bundled) if bundled.is_file() else None


def main(root: Path) -> int:
    scripts = sorted((root / "src").rglob("*.js"))
    if not scripts:
        print("check-js: no .js file under src/", file=sys.stderr)
        return 1
    node = find_node()
    if node is None:
        print(
            "check-js: Node.js not found (install it, e.g. `apt-get install nodejs`, or install the "
            "package with `make setup` so Playwright's bundled node is there)",
            file=sys.stderr,
        )
        return 1
    failed = [
        path for path in scripts if subprocess.run([node, "--check", str(path)], check=False).returncode != 0
    ]
    for path in failed:
        print(f"check-js: syntax error in {path.relative_to(root)}", file=sys.stderr)
    print(f"check-js: {len(scripts) - len(failed)} of {len(scripts)} files parse ({node})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT))

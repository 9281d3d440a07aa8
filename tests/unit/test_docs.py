"""Documentation that cannot rot: every verb, option, MCP tool, error code and link is checked.

No browser and no store: the CLI's click commands and the MCP server's tools are introspected,
the error table is compared with its generator, and every relative link must point to a file.
Each failure names exactly what is missing, so the fix is to document it (not to weaken a check).
"""

from __future__ import annotations

import ast
import asyncio
import difflib
import importlib
import importlib.util
import re
import typing
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import click

from skillreel.cli.main import ALIASES, VERBS, cli
from skillreel.errors.codes import CODES

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
GUIDE = DOCS / "guide.md"
MCP_DOC = DOCS / "mcp.md"
ERRORS_DOC = DOCS / "errors.md"
PACKAGE_DOC = DOCS / "package-format.md"
GEN_ERROR_DOCS = REPO / "scripts" / "gen_error_docs.py"

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


# --- reading markdown -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Section:
    level: int
    title: str
    body: str  # the heading's own text and everything up to the next heading of the same or higher level


def _lines_outside_fences(text: str) -> list[tuple[str, bool]]:
    """Each line with whether it lies inside a fenced code block."""
    out: list[tuple[str, bool]] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            out.append((line, True))
            fenced = not fenced
            continue
        out.append((line, fenced))
    return out


def sections(text: str) -> list[Section]:
    lines = _lines_outside_fences(text)
    heads = [
        (i, len(m.group(1)), m.group(2))
        for i, (line, fenced) in enumerate(lines)
        if not fenced and (m := _HEADING.match(line))
    ]
    found = []
    for n, (start, level, title) in enumerate(heads):
        end = next((i for i, lvl, _ in heads[n + 1 :] if lvl <= level), len(lines))
        found.append(Section(level, title, "\n".join(line for line, _ in lines[start:end])))
    return found


def _names_verb(title: str, verb: str) -> bool:
    """A heading names a verb when it says ``skillreel VERB`` (not a longer verb such as policy-template)."""
    return re.search(rf"skillreel {re.escape(verb)}(?![\w-])", title) is not None


def verb_sections(text: str, verb: str) -> list[Section]:
    return [s for s in sections(text) if s.level in (2, 3) and _names_verb(s.title, verb)]


def mentions(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


# --- the CLI ------------------------------------------------------------------------------------------


def verb_command(verb: str) -> click.Command:
    module = importlib.import_module(f"skillreel.cli.{VERBS[verb][0]}")
    command: click.Command = module.command
    return command


def long_options(command: click.Command) -> list[str]:
    names: list[str] = []
    for param in command.params:
        if isinstance(param, click.Option):
            names += [o for o in (*param.opts, *param.secondary_opts) if o.startswith("--")]
    return names


def verb_options(verb: str) -> list[tuple[str, str]]:
    """(where, --option) for the verb and, for a group such as ``policy``, each of its subcommands."""
    command = verb_command(verb)
    found = [(verb, name) for name in long_options(command)]
    if isinstance(command, click.Group):
        for sub_name, sub in sorted(command.commands.items()):
            found += [(f"{verb} {sub_name}", name) for name in long_options(sub)]
    return found


# --- the checks ---------------------------------------------------------------------------------------


def test_every_verb_has_a_section_in_the_guide() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    missing = [verb for verb in VERBS if not verb_sections(text, verb)]
    assert not missing, (
        "docs/guide.md has no '## ' or '### ' heading naming `skillreel VERB` for: " + ", ".join(missing)
    )


def test_every_alias_is_a_hidden_name_of_a_verb_its_section_mentions() -> None:
    """An old verb kept for a version (``ALIASES``) runs its verb, is not listed by ``--help`` nor
    offered by shell completion, and the verb's section of the guide says so."""
    text = GUIDE.read_text(encoding="utf-8")
    ctx = click.Context(cli)
    for alias, verb in ALIASES.items():
        assert verb in VERBS, alias
        assert alias not in VERBS, alias
        assert cli.get_command(ctx, alias) is cli.get_command(ctx, verb)
        assert alias not in cli.list_commands(ctx)
        assert alias not in [item.value for item in cli.shell_complete(ctx, alias[:2])]
        body = "\n".join(s.body for s in verb_sections(text, verb))
        assert mentions(body, f"skillreel {alias}"), f"docs/guide.md's `skillreel {verb}` section: {alias}"


def test_every_option_is_documented_in_its_verbs_section() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    missing = []
    for verb in VERBS:
        body = "\n".join(s.body for s in verb_sections(text, verb))
        missing += [f"{where}: {name}" for where, name in verb_options(verb) if not mentions(body, name)]
    assert not missing, "options not mentioned in their verb's section of docs/guide.md:\n  " + "\n  ".join(
        missing
    )


def test_the_section_reader_finds_options_in_subsections() -> None:
    doc = (
        "## `skillreel policy`\n\nshow it\n\n### Setting it\n\n`--approve`\n\n"
        "## `skillreel policy-template`\n\n`--json`\n"
    )
    (policy,) = verb_sections(doc, "policy")
    assert mentions(policy.body, "--approve")
    assert not mentions(policy.body, "--json")
    assert not mentions("--approved", "--approve")


def _mcp_tool_names() -> list[str]:
    from skillreel.mcp.server import build_server

    server = build_server()
    tools = asyncio.run(server.list_tools())  # what a client's tools/list would get; nothing is served
    return sorted(tool.name for tool in tools)


def test_every_mcp_tool_is_documented() -> None:
    doc = MCP_DOC if MCP_DOC.exists() else GUIDE
    text = doc.read_text(encoding="utf-8")
    names = _mcp_tool_names()
    assert names, "the MCP server registers no tool"
    missing = [name for name in names if not mentions(text, name)]
    assert not missing, f"MCP tools not documented in docs/{doc.name}: {', '.join(missing)}"


def _gen_error_docs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_error_docs", GEN_ERROR_DOCS)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_error_page_is_what_the_generator_writes() -> None:
    expected = _gen_error_docs().render()
    actual = ERRORS_DOC.read_text(encoding="utf-8")
    if actual != expected:
        lines = actual.splitlines(keepends=True), expected.splitlines(keepends=True)
        diff = "".join(difflib.unified_diff(*lines, "docs/errors.md", "render()", n=0))
        raise AssertionError(
            "docs/errors.md is stale; run `.venv/bin/python scripts/gen_error_docs.py`:\n" + diff
        )


def test_every_error_code_is_on_the_error_page() -> None:
    text = ERRORS_DOC.read_text(encoding="utf-8")
    missing = [code for code in CODES if f"`{code}`" not in text]
    assert not missing, "error codes missing from docs/errors.md: " + ", ".join(missing)


# --- links --------------------------------------------------------------------------------------------

_INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.MULTILINE)
_CODE_SPAN = re.compile(r"(`+).*?\1")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def link_targets(text: str) -> list[str]:
    """Every link target outside code blocks and code spans."""
    prose = "\n".join(_CODE_SPAN.sub("", line) for line, fenced in _lines_outside_fences(text) if not fenced)
    return _INLINE_LINK.findall(prose) + _REFERENCE_DEF.findall(prose)


def heading_anchors(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings: lower-case, punctuation dropped, spaces as hyphens,
    ``-1``, ``-2``... for repeats."""
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for section in sections(text):
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", section.title).replace("`", "").replace("*", "")
        slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def broken_links(path: Path, root: Path = REPO) -> list[str]:
    """``page: target`` for each relative link of ``path`` whose file does not exist, or whose
    ``#anchor`` names no heading of the Markdown page it points to."""
    broken = []
    for target in link_targets(path.read_text(encoding="utf-8")):
        if _SCHEME.match(target):
            continue
        relative, _, anchor = target.partition("#")
        relative = relative.split("?", 1)[0]
        dest = path.parent / relative if relative else path
        if not dest.exists():
            broken.append(f"{path.relative_to(root)}: {target}")
        elif (
            anchor
            and dest.suffix == ".md"
            and anchor not in heading_anchors(dest.read_text(encoding="utf-8"))
        ):
            broken.append(f"{path.relative_to(root)}: {target} (no such heading)")
    return broken


def test_relative_links_point_to_existing_files_and_headings() -> None:
    pages = [*sorted(DOCS.rglob("*.md")), REPO / "README.md"]
    broken = [link for page in pages if page.exists() for link in broken_links(page)]
    assert not broken, "broken relative links (missing file or heading):\n  " + "\n  ".join(broken)


def test_the_link_reader_skips_code_and_external_links(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "there.md").write_text("# Top\n\n## The `x` part (old)\n\n## Top\n")
    page.write_text(
        "# Here\n[a](there.md#the-x-part-old) [b](https://example.com/x) [c](#here) "
        "`[d](nowhere.md)` [h](there.md#top-1)\n"
        "```\n[e](nowhere.md)\n```\n"
        "[f](missing.md) [i](#gone) [j](there.md#part)\n[g]: gone.md\n"
    )
    assert broken_links(page, tmp_path) == [
        "page.md: missing.md",
        "page.md: #gone (no such heading)",
        "page.md: there.md#part (no such heading)",
        "page.md: gone.md",
    ]


# --- formats the guide and the package page describe ---------------------------------------------------


def test_guide_names_every_policy_field() -> None:
    from skillreel.model.policy import PolicySettings

    text = GUIDE.read_text(encoding="utf-8")
    fields = [f.alias or name for name, f in PolicySettings.model_fields.items() if name != "schema_"]
    missing = [name for name in fields if f"`{name}`" not in text]
    assert not missing, "policy fields not described in docs/guide.md: " + ", ".join(missing)


def test_guide_names_every_automation_step_and_assert_check() -> None:
    from skillreel.model.actions import AssertCheck
    from skillreel.record.automation import Step

    text = GUIDE.read_text(encoding="utf-8")
    union = typing.get_args(Step)[0]  # Step is Annotated[GotoStep | ClickStep | ..., discriminator]
    kinds = [typing.get_args(cls.model_fields["do"].annotation)[0] for cls in typing.get_args(union)]
    assert kinds, "no automation step kinds found"
    missing = [f'"do": "{kind}"' for kind in kinds if f'"do": "{kind}"' not in text]
    missing += [check for check in typing.get_args(AssertCheck) if f"`{check}`" not in text]
    assert not missing, "automation steps / assert checks not described in docs/guide.md: " + ", ".join(
        missing
    )


def test_package_page_names_every_package_file() -> None:
    from skillreel.agent_skills.package import PACKAGE_PATHS, PACKAGE_TAG

    text = PACKAGE_DOC.read_text(encoding="utf-8")
    missing = [p for p in (*PACKAGE_PATHS, PACKAGE_TAG) if f"`{p}`" not in text]
    assert not missing, "package files not described in docs/package-format.md: " + ", ".join(missing)


def _source_units() -> set[str]:
    src = REPO / "src" / "skillreel"
    units = {p.name for p in src.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    units |= {p.stem for p in src.glob("*.py") if p.stem not in ("__init__", "__main__")}
    return units


_VERB_ROW = re.compile(r"^\| `skillreel ([a-z-]+)[^`]*` \| (.*?) \| `((?:[a-z_]+/)+[a-z_]+\.py)` \|$", re.M)


def verb_rows(text: str) -> list[tuple[str, list[str], str]]:
    """(verb, functions, module) of each row of the code map's verb table: the functions are the
    code spans of the middle cell before any parenthesis."""
    rows = []
    for verb, cell, module in _VERB_ROW.findall(text):
        rows.append((verb, re.findall(r"`([a-z_]+)`", cell.split("(")[0]), module))
    return rows


def _defined(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def test_the_code_map_names_every_verbs_use_case_and_module() -> None:
    rows = verb_rows((DOCS / "dev" / "ARCHITECTURE.md").read_text())
    missing = sorted(set(VERBS) - {verb for verb, _, _ in rows})
    assert not missing, "verbs without a row in docs/dev/ARCHITECTURE.md's verb table: " + ", ".join(missing)
    src = REPO / "src" / "skillreel"
    wrong = [
        f"{verb}: {module}:{name}"
        for verb, names, module in rows
        for name in (names or ["(no function)"])
        if verb not in VERBS or name not in _defined(src / module)
    ]
    assert not wrong, "verb table rows naming an unknown verb or a function its module lacks:\n" + "\n".join(
        wrong
    )


def test_the_verb_table_reader_reads_a_row() -> None:
    row = "| `skillreel replay --batch` | `plan_batch`, `replay_batch` (then `x`) | `services/batching.py` |"
    assert verb_rows(f"text\n{row}\n") == [("replay", ["plan_batch", "replay_batch"], "services/batching.py")]


def test_the_code_map_names_every_package_and_only_real_ones() -> None:
    text = (DOCS / "dev" / "ARCHITECTURE.md").read_text()
    described = set(re.findall(r"^\*\*`([a-z_]+)`\*\*", text, flags=re.M))
    assert described == _source_units(), "docs/dev/ARCHITECTURE.md must describe exactly the packages"
    src = REPO / "src" / "skillreel"
    for path in re.findall(r"`((?:[a-z_]+/)+[a-z_]+\.(?:py|js))`", text):
        where = REPO / path if path.startswith(("tests/", "bench/", "docs/", "scripts/")) else src / path
        assert where.is_file(), f"docs/dev/ARCHITECTURE.md names {path}, which does not exist"

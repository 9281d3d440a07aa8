"""The real-app corpus harness's own logic, without a browser: database snapshots and their
difference, the outcome rule (zero wrong is the first rule, so the checker must call a wrong
change wrong), password naming, and how each tool's recording is derived from a task."""

from __future__ import annotations

import ast
import base64
import hashlib
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from bench.realworld import codegen_tool, corpus_piccolo_admin, skillreel_tool
from bench.realworld.corpus import APPS
from bench.realworld.dbcheck import FAILED_CLOSED, RIGHT, WRONG, classify, diff, snapshot, verify_password
from bench.realworld.run import Result, exit_status, kept_sections, markdown
from bench.realworld.spec import App, Change, Check, Choose, Click, Fill, InputStep, Pick, Press, Tables, Task

pytestmark = pytest.mark.realworld


def _app(tmp_path: Path) -> App:
    return App(
        name="t",
        source=tmp_path,
        versions=(),
        ready_path="/",
        tasks=(),
        ignored_tables=frozenset({"session"}),
        ignored_columns={"user": frozenset({"last_login"})},
        password_columns={"user": "password"},
        known_passwords=("seed-pass",),
    )


def _django_hash(password: str, salt: str = "abc", iterations: int = 1000) -> str:
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), iterations)
    return f"pbkdf2_sha256${iterations}${salt}${base64.b64encode(digest).decode()}"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "db.sqlite3"
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT, pages INTEGER);
        CREATE TABLE user (id INTEGER PRIMARY KEY, name TEXT, password TEXT, last_login TEXT);
        CREATE TABLE session (key TEXT PRIMARY KEY, data TEXT);
        INSERT INTO book VALUES (1, 'Dune', 412), (2, 'Emma', 474), (3, 'Walden', 352);
    """)
    con.execute("INSERT INTO user VALUES (1, 'curator', ?, NULL)", (_django_hash("seed-pass"),))
    con.commit()
    con.close()
    return path


def _sql(db: Path, *statements: str, params: tuple[object, ...] = ()) -> None:
    con = sqlite3.connect(db)
    for statement in statements:
        con.execute(statement, params if "?" in statement else ())
    con.commit()
    con.close()


def test_an_edit_of_the_intended_row_is_right(db: Path, tmp_path: Path) -> None:
    app = _app(tmp_path)
    before = snapshot(db, app, [])
    _sql(
        db,
        "UPDATE book SET pages = 500 WHERE id = 2",
        "INSERT INTO session VALUES ('k', 'v')",
        "UPDATE user SET last_login = 'now'",
    )
    actual = diff(before, snapshot(db, app, []))
    assert classify(True, "succeeded", actual, Change(changed={"book": {2: {"pages": 500}}})).verdict == RIGHT


def test_an_edit_of_another_row_is_wrong_whatever_the_tool_says(db: Path, tmp_path: Path) -> None:
    app = _app(tmp_path)
    before = snapshot(db, app, [])
    _sql(db, "UPDATE book SET pages = 500 WHERE id = 3")
    actual = diff(before, snapshot(db, app, []))
    expected = Change(changed={"book": {2: {"pages": 500}}})
    assert classify(True, "succeeded", actual, expected).verdict == WRONG
    assert classify(False, "SR_X", actual, expected).verdict == WRONG


def test_an_extra_change_beside_the_intended_one_is_wrong(db: Path, tmp_path: Path) -> None:
    app = _app(tmp_path)
    before = snapshot(db, app, [])
    _sql(db, "UPDATE book SET pages = 500 WHERE id = 2", "DELETE FROM book WHERE id = 1")
    actual = diff(before, snapshot(db, app, []))
    assert classify(True, "succeeded", actual, Change(changed={"book": {2: {"pages": 500}}})).verdict == WRONG


def test_success_without_the_change_is_wrong_and_a_failure_without_it_failed_closed(
    db: Path, tmp_path: Path
) -> None:
    app = _app(tmp_path)
    before = snapshot(db, app, [])
    actual = diff(before, snapshot(db, app, []))
    expected = Change(removed={"book": frozenset({1})})
    assert actual.is_empty()
    assert classify(True, "succeeded", actual, expected).verdict == WRONG
    outcome = classify(False, "SR_REPLAY_UI_TARGET_NOT_FOUND at a5", actual, expected)
    assert outcome.verdict == FAILED_CLOSED
    assert "unchanged" in outcome.detail


def test_a_failure_after_the_whole_change_is_failed_closed_and_says_so(db: Path, tmp_path: Path) -> None:
    app = _app(tmp_path)
    before = snapshot(db, app, [])
    _sql(db, "DELETE FROM book WHERE id IN (1, 3)")
    actual = diff(before, snapshot(db, app, []))
    outcome = classify(
        False, "SR_REPLAY_UI_ASSERTION_FAILED at a9", actual, Change(removed={"book": frozenset({1, 3})})
    )
    assert outcome.verdict == FAILED_CLOSED
    assert "before the failing step" in outcome.detail


def test_an_added_row_must_match_every_column(db: Path, tmp_path: Path) -> None:
    app = _app(tmp_path)
    before = snapshot(db, app, [])
    _sql(db, "INSERT INTO book (title, pages) VALUES ('Atlas', 111)")
    actual = diff(before, snapshot(db, app, []))
    atlas = {"title": "Atlas", "pages": 111}
    assert classify(True, "ok", actual, Change(added={"book": (atlas,)})).verdict == RIGHT
    assert classify(True, "ok", actual, Change(added={"book": ({**atlas, "pages": 112},)})).verdict == WRONG
    assert classify(True, "ok", actual, Change(added={"book": (atlas, atlas)})).verdict == WRONG


def test_a_new_password_is_named_only_when_it_verifies(db: Path, tmp_path: Path) -> None:
    app = _app(tmp_path)
    before = snapshot(db, app, ["New-pass-1"])
    assert before["user"][1]["password"] == "<password:seed-pass>"
    _sql(db, "INSERT INTO user (name, password) VALUES ('new', ?)", params=(_django_hash("New-pass-1", "x"),))
    _sql(db, "INSERT INTO user (name, password) VALUES ('odd', ?)", params=(_django_hash("other", "y"),))
    added = diff(before, snapshot(db, app, ["New-pass-1"])).added["user"]
    assert sorted(str(r["password"]) for r in added) == ["<password:?>", "<password:New-pass-1>"]


def test_werkzeug_and_django_hashes_verify() -> None:
    digest = hashlib.pbkdf2_hmac("sha256", b"pw", b"s1", 10)
    assert verify_password(f"pbkdf2:sha256:10$s1${digest.hex()}", "pw")
    assert not verify_password(f"pbkdf2:sha256:10$s1${digest.hex()}", "pw2")
    assert verify_password(_django_hash("pw"), "pw")
    assert not verify_password("plain", "plain")


TASK = Task(
    "t",
    "a task",
    "/",
    (Fill("#q", "query"), Press("Enter"), Choose("#s", "status"), Click("#go")),
    (Check("#out", "done"),),
    {"query": "Dune", "status": "draft"},
    {"query": "Emma", "status": "x"},
    lambda tables, inputs: Change(),
)


def test_the_skillreel_demonstration_is_the_task_with_pauses() -> None:
    steps = skillreel_tool.automation(TASK, TASK.record)["steps"]
    assert [s["do"] for s in steps] == ["type", "press", "wait", "select", "click", "wait", "wait"]
    assert steps[0]["text"] == "Dune"
    assert steps[3]["value"] == "draft"
    assert skillreel_tool.assertions(TASK.checks)["assertions"][0] == {
        "kind": "assert",
        "selector": "#out",
        "check": "text_contains",
        "expected": "done",
    }


PICKER_TASK = Task(
    "p",
    "a picker",
    "/",
    (Pick("[role=combobox]", "priority"), Click("#save")),
    (),
    {"priority": "High"},
    {"priority": "Low"},
    lambda tables, inputs: Change(),
)


def test_a_picker_is_one_select_by_label_for_skillreel() -> None:
    steps = skillreel_tool.automation(PICKER_TASK, PICKER_TASK.replay)["steps"]
    assert steps[0] == {"do": "select", "selector": "[role=combobox]", "label": "Low"}
    assert [s["do"] for s in steps] == ["select", "wait", "click", "wait", "wait"]
    assert "value" not in steps[0]  # a native <select>'s value is another step (Choose)


def test_a_picker_option_is_chosen_by_the_input_in_the_baseline() -> None:
    assert (
        codegen_tool.pick_option_code("priority")
        == 'page.get_by_role("option", name=inputs["priority"], exact=True).click()'
    )


def test_the_baseline_parameterises_recorded_values_inside_locators() -> None:
    code = 'get_by_role("link", name="Dune")'
    assert (
        codegen_tool.parameterise(code, {"query": "Dune"}, frozenset())
        == 'get_by_role("link", name="" + inputs["query"] + "")'
    )
    text = 'get_by_text("The book “Dune (1965)”")'
    assert (
        codegen_tool.parameterise(text, {"query": "Dune"}, frozenset())
        == 'get_by_text("The book “" + inputs["query"] + " (1965)”")'
    )
    assert codegen_tool.parameterise(code, {"password": "Dune"}, frozenset({"password"})) == code
    short = 'get_by_text("Page 12")'
    assert codegen_tool.parameterise(short, {"n": "12"}, frozenset()) == short


@pytest.mark.parametrize("app", APPS, ids=lambda a: a.name)
def test_every_app_is_well_formed(app: App) -> None:
    assert len(app.versions) >= 2
    assert len(app.tasks) >= 3
    assert (app.source / "seed.py").is_file()
    assert (app.source / "serve.py").is_file()
    for task in app.tasks:
        used = {s.input for s in task.steps if isinstance(s, InputStep)}
        assert used <= set(task.record), task.name
        assert used <= set(task.replay), task.name
        assert task.sensitive <= used, task.name
        changed = [k for k in used if task.record[k] != task.replay[k] and k not in ("action",)]
        assert changed, f"{task.name} replays with the same inputs it was recorded with"


def test_the_skillreel_reply_is_read_in_both_json_shapes() -> None:
    data = {"status": "failed", "steps": [{"actionId": "a1", "healed": True}]}
    error = {"code": "SR_REPLAY_UI_TARGET_NOT_FOUND", "actionId": "a2"}
    envelope = skillreel_tool.reply(
        1,
        {
            "schema": "skillreel.result/v1",
            "command": "replay",
            "ok": False,
            "data": data,
            "error": error,
            "warnings": [],
        },
    )
    bare = skillreel_tool.reply(1, {**data, "error": error})
    assert envelope.data["steps"] == bare.data["steps"] == data["steps"]
    assert envelope.error == bare.error == error
    ok = skillreel_tool.reply(
        0, {"schema": "skillreel.result/v1", "ok": True, "data": {"name": "x"}, "error": None, "warnings": []}
    )
    assert ok.error is None
    assert ok.data == {"name": "x"}


def test_a_new_table_keeps_the_sections_written_by_hand() -> None:
    """``python -m bench.realworld`` rewrites bench/REALWORLD.md; a history kept there by hand (a
    section it does not write) is carried over, before its own sections, and its own are not."""
    previous = (
        "# Real-app corpus\n\nRun long ago.\n\n## Before and after (issue 10)\n\n"
        "| commit | skillreel |\n| --- | --- |\n| d137fbf | 5 / 19 / 0 |\n\nA paragraph.\n\n"
        "## Totals\n\n| tool | runs |\n| old | 1 |\n\n## Every run\n\nold rows\n"
    )
    kept = kept_sections(previous)
    assert kept.startswith("## Before and after (issue 10)")
    assert "| d137fbf | 5 / 19 / 0 |" in kept
    assert kept.endswith("A paragraph.")
    assert "old rows" not in kept
    assert "| old | 1 |" not in kept
    app = APPS[0]
    result = Result(app.name, app.tasks[0].name, app.versions[0].label, "skillreel", RIGHT, "exact", 1.0)
    text = markdown([result], [app], "python -m bench.realworld", 60.0, "abc1234", kept=kept)
    assert text.index("## Before and after (issue 10)") < text.index("## Totals")
    assert text.count("## Totals") == 1
    assert "old rows" not in text
    assert kept_sections(text) == kept  # a later run keeps it again, once


def test_only_a_wrong_skillreel_run_fails_the_corpus() -> None:
    def run(tool: str, verdict: str) -> Result:
        return Result("streamlit", "ship-order", "1.28.2", tool, verdict, "", 1.0)

    assert exit_status([run("skillreel", RIGHT), run("codegen", FAILED_CLOSED)]) == 0
    assert exit_status([run("skillreel", RIGHT), run("codegen", WRONG)]) == 0  # the baseline's own
    assert exit_status([run("skillreel", WRONG), run("codegen", RIGHT)]) == 1


def test_a_generated_script_may_filter_by_a_regular_expression() -> None:
    """Playwright's generator names an icon-only link (a row menu's "⋮") by
    ``filter(has_text=re.compile(r"^$"))``; codegen's scripts import ``re``, so must the baseline's,
    or every such run fails on a NameError that is the harness's, not the baseline's."""
    line = 'page.get_by_role("link").filter(has_text=re.compile(r"^$")).nth(2).click()'
    calls: list[tuple[str, tuple[object, ...], dict[str, object]]] = []

    class Stub:
        def __getattr__(self, name: str) -> object:
            def call(*args: object, **kwargs: object) -> Stub:
                calls.append((name, args, kwargs))
                return self

            return call

    namespace: dict[str, object] = {}
    exec(compile(codegen_tool.script_source("Open a row's menu", [line]), "script.py", "exec"), namespace)
    run = namespace["run"]
    assert callable(run)
    run(Stub(), {}, None)
    pattern = calls[1][2]["has_text"]
    assert getattr(pattern, "pattern", None) == "^$"


def _seed_lists(source: Path) -> dict[str, Any]:
    """The literal lists a seed script assigns (``TEAMS = [...]``), read without running it."""
    module = ast.parse((source / "seed.py").read_text())
    return {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in module.body
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id.isupper()
    }


def test_piccolo_admin_tasks_agree_with_its_seed() -> None:
    """The Piccolo Admin tasks judge by team ids and priority values the seed must give; each query
    leaves exactly one ticket (the demonstration acts on the list once one row is left)."""
    seed = _seed_lists(corpus_piccolo_admin.APP.source)
    assert {name: i for i, name in enumerate(seed["TEAMS"], start=1)} == corpus_piccolo_admin.TEAMS
    assert set(corpus_piccolo_admin.PRIORITIES.values()) >= {row[2] for row in seed["TICKETS"]}
    tables: Tables = {
        "ticket": {
            i: {"title": title, "team": corpus_piccolo_admin.TEAMS[team], "priority": p, "estimate": e}
            for i, (title, team, p, e) in enumerate(seed["TICKETS"], start=1)
        }
    }
    for task in corpus_piccolo_admin.APP.tasks:
        for inputs in (task.record, task.replay):
            change = task.expect(tables, inputs)
            assert not change.is_empty(), (task.name, inputs)
            for key, columns in change.changed.get("ticket", {}).items():
                assert all(tables["ticket"][key][c] != v for c, v in columns.items()), (task.name, inputs)
    create = next(t for t in corpus_piccolo_admin.APP.tasks if t.name == "create-ticket")
    (row,) = create.expect(tables, create.replay).added["ticket"]
    assert row["priority"] == "u"  # the replay names the priority by its label, "Urgent"

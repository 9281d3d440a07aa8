"""The review page's starlette application: four pages and two actions, every one behind ``guard``.

Pages read through the same use cases as the CLI (``list``, ``show``, ``diff``); the approve and
reject buttons call ``review_skill`` / ``reject_heal_proposal`` / ``rollback_skill`` with the reviewer
id typed in the form and the revision the page showed (``expected_revision``), so a page that went
stale is refused with ``SR_RECORD_REVISION_CONFLICT`` exactly as the CLI would refuse it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from ..errors import InputError, LifecycleError, SkillreelError
from ..model.canonical import DIGEST_RE
from ..model.diff_parts import environment_views
from ..model.draft import Draft
from ..model.exposure import EXPOSED_READS, exposed_reads
from ..model.visible import visible, visible_tree
from ..services.diffing import diff_skill
from ..services.listing import list_skills
from ..services.reviewing import reject_heal_proposal, review_skill
from ..services.rolling_back import rollback_skill
from ..services.showing import last_runs, show_skill
from ..store import RunView, Store
from .chart import run_chart
from .guard import Guard

MAX_FORM_BYTES = 8 * 1024
MAX_FORM_FIELDS = 64  # a checkbox and a shown field per declared environment (at most 16), and the rest
_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # keeps Origin on our own form posts; nothing leaves the page
    "Cache-Control": "no-store",
}

Endpoint = Callable[[Request], Awaitable[Response]]


@cache
def templates() -> Environment:
    environment = Environment(
        loader=PackageLoader("skillreel.ui", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_shown,
    )
    environment.filters["visible"] = visible  # page text the use cases do not escape themselves
    environment.filters["code_spans"] = code_spans
    return environment


def _shown(value: Any) -> Any:
    """What a template prints: a missing value prints nothing, never Python's ``None``."""
    return "" if value is None else value


def code_spans(text: Any) -> Markup:
    """A message as the page shows it: its `quoted` parts (commands, codes, options) as code, never
    as literal backticks; every part escaped and its invisible characters shown (``visible``)."""
    parts = visible(str(text)).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: the text as it is
        return escape("`".join(parts))
    return Markup("").join(
        escape(p) if i % 2 == 0 else Markup("<code>%s</code>") % p for i, p in enumerate(parts)
    )


def page(template: str, status: int = 200, **context: Any) -> HTMLResponse:
    html = templates().get_template(template).render(**context)
    return HTMLResponse(html, status_code=status, headers=_HEADERS)


def refusal(status: int, why: str) -> HTMLResponse:
    return page("refused.html", status, why=why)


def failure(error: SkillreelError) -> HTMLResponse:
    return page("error.html", 400 if error.exit_status == 2 else 409, error=error.to_json())


def build_app(guard: Guard, *, home: Path | None = None, reviewer: str | None = None) -> Starlette:
    """The application for one serving of the page (its port and token); ``home`` is the store's home."""

    def store() -> Store:
        return Store.open(home)

    def guarded(endpoint: Endpoint, *, changes_state: bool = False) -> Endpoint:
        async def check(request: Request) -> Response:
            if not guard.host_ok(request.headers.get("host")):
                return refusal(421, "this page answers only at its own address")
            query_token = request.query_params.get("token")
            if request.method == "GET" and query_token is not None:
                if not guard.token_ok(query_token):
                    return refusal(403, "the page token is wrong: open the URL `skillreel ui` printed")
                response = RedirectResponse(request.url.path, status_code=303, headers=_HEADERS)
                response.set_cookie(guard.cookie, guard.token, httponly=True, samesite="strict", path="/")
                return response
            if not guard.token_ok(request.cookies.get(guard.cookie)):
                return refusal(403, "no page token: open the URL `skillreel ui` printed")
            try:
                if changes_state:
                    why = guard.same_origin(request.headers)
                    if why is not None:
                        return refusal(403, why)
                    request.state.form, request.state.lists = await _form(request)
                    if not guard.post_token_ok(request.headers, request.state.form.get("token")):
                        return refusal(403, "the form carries no valid page token")
                return await endpoint(request)
            except SkillreelError as exc:
                return failure(exc)

        return check

    async def index(request: Request) -> Response:
        with store() as opened:
            skills = list_skills(opened).skills
            runs = {s.name: _rows(last_runs(opened, s.name)) for s in skills}
        return page("list.html", skills=skills, runs=runs, chart=None)

    async def skill(request: Request) -> Response:
        name = request.path_params["name"]
        with store() as opened:
            view = show_skill(opened, name)
        entry = view.entry
        healed_last = (
            {s.action_id for s in entry.last_report.steps if s.healed} if entry.last_report else set()
        )
        adopted = {h.step: r.version for r in entry.versions for h in r.healed}
        return page(
            "skill.html",
            skill=view.to_json(),
            exposed_why=EXPOSED_READS,
            healed_last=healed_last,
            adopted=adopted,
            chart=_chart(_rows(view.runs)),
        )

    async def diff(request: Request) -> Response:
        name = request.path_params["name"]
        with store() as opened:
            result = diff_skill(opened, name)
            entry = opened.get(name)
        pending = (
            "proposal" if result.after.label == "proposal" else "draft" if entry.status == "draft" else None
        )
        # rejecting a draft that equals the approved one (after a rejection) would undo nothing
        old, new = result.before.draft, result.after.draft
        differs = old is None or new is None or old.draft_digest != new.draft_digest
        back_to = (
            result.before.revision
            if pending == "draft" and result.before.label == "approved" and differs
            else None
        )
        return page(
            "diff.html",
            name=entry.name,
            diff=result.to_json(),
            describe=(result.before.describe(), result.after.describe()),
            pending=pending,
            back_to=back_to,
            revision=entry.revision,
            environments=visible_tree(environment_views(new.environment)) if new is not None else {},
            exposed=exposed_reads(new) if new is not None else (),
            exposed_why=EXPOSED_READS,
            token=guard.token,
            reviewer=reviewer or "",
        )

    async def runs(request: Request) -> Response:
        name = request.path_params["name"]
        with store() as opened:
            view = show_skill(opened, name)
            shown = _rows(last_runs(opened, name, limit=200))
        return page("runs.html", name=view.entry.name, runs=shown, chart=_chart(shown))

    async def approve(request: Request) -> Response:
        form: dict[str, str] = request.state.form
        name = request.path_params["name"]
        with store() as opened:
            environments = _checked_environments(request.state.lists, _shown_draft(opened, name, form))
            result = review_skill(
                opened,
                name,
                form["reviewer"],
                approve=True,
                expected_revision=_revision(form),
                draft_digest=_digest(form),
                heal_proposal=_what(form) == "proposal",
                environments=environments,
            )
        return page("done.html", name=result.name, what="approved", result=result.to_json())

    async def reject(request: Request) -> Response:
        form: dict[str, str] = request.state.form
        name = request.path_params["name"]
        with store() as opened:
            if _what(form) == "proposal":
                rejected = reject_heal_proposal(
                    opened,
                    name,
                    form["reviewer"],
                    approve=True,
                    expected_revision=_revision(form),
                    draft_digest=_digest(form),
                ).to_json()
            else:
                to = _int(form.get("back_to", ""), "back_to")
                rejected = rollback_skill(
                    opened,
                    name,
                    to,
                    approve=True,
                    expected_revision=_revision(form),
                    reviewer=form["reviewer"],
                ).to_json()
        return page("done.html", name=name, what="rejected", result=rejected)

    async def css(request: Request) -> Response:
        data = resources.files("skillreel.ui").joinpath("static/ui.css").read_text(encoding="utf-8")
        return Response(data, media_type="text/css", headers=_HEADERS)

    routes = [
        Route("/", guarded(index)),
        Route("/ui.css", guarded(css)),
        Route("/skills/{name}", guarded(skill)),
        Route("/skills/{name}/diff", guarded(diff)),
        Route("/skills/{name}/runs", guarded(runs)),
        Route("/skills/{name}/approve", guarded(approve, changes_state=True), methods=["POST"]),
        Route("/skills/{name}/reject", guarded(reject, changes_state=True), methods=["POST"]),
    ]
    return Starlette(routes=routes, max_body_size=MAX_FORM_BYTES)


@dataclass(frozen=True)
class RunRow:
    """One run as the page shows it (content-free: times, outcome, code, counts)."""

    number: int
    at: str
    revision: int
    actor: str
    outcome: str
    code: str | None
    healed: int
    heal_proposed: bool


def _rows(runs: Iterable[RunView]) -> tuple[RunRow, ...]:
    """Runs as rows, oldest first (``store.runs`` gives them newest first)."""
    rows = []
    for run in runs:
        doc = run.to_json()  # the shown outcome and code (an interrupted run reads as such)
        rows.append(
            RunRow(
                number=doc["number"],
                at=doc["startedAt"],
                revision=doc["revision"],
                actor=doc["actor"],
                outcome=doc["outcome"],
                code=doc["code"],
                healed=len(doc["healedSteps"]),
                heal_proposed=doc["healProposalDigest"] is not None,
            )
        )
    return tuple(sorted(rows, key=lambda r: r.number))


def _chart(runs: tuple[RunRow, ...]) -> Any:
    return run_chart([(r.at, r.outcome == "succeeded", r.code) for r in runs]) if runs else None


async def _form(request: Request) -> tuple[dict[str, str], dict[str, list[str]]]:
    """The posted form (URL-encoded, small): the last value of each field, and every value of each."""
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise InputError("SR_RECORD_INPUT_TOO_LARGE", "the form is too large")
    try:
        fields = parse_qs(body.decode("utf-8"), strict_parsing=False, max_num_fields=MAX_FORM_FIELDS)
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError("SR_RECORD_INPUT_MALFORMED", "the form could not be read") from exc
    form = {key: values[-1] for key, values in fields.items()}
    for key in ("reviewer", "what", "expected_revision", "expected_digest"):
        form.setdefault(key, "")
    return form, fields


def _checked_environments(lists: dict[str, list[str]], draft: Draft) -> tuple[str, ...]:
    """The declared environments the reviewer checked, after checking that the page showed exactly
    the draft's declared ones (``shown``), that every checked one was shown, and that something was
    checked: the recorded environment always (every approval covers it), with none checked nothing
    is approved (``SR_RECORD_REVIEW_UNCHECKED``). Never every declared one implicitly."""
    checked, shown = lists.get("env", []), lists.get("shown_env", [])
    if sorted(set(shown)) != sorted(draft.environment.environment_names) or len(set(shown)) != len(shown):
        raise LifecycleError(
            "SR_RECORD_REVISION_CONFLICT",
            "the draft's environments are not the ones the page showed; reload the page and review again",
        )
    if set(checked) - set(shown):
        raise InputError("SR_RECORD_INPUT_MALFORMED", "the form checks an environment the page did not show")
    if lists.get("recorded", []) != ["yes"]:
        raise InputError(
            "SR_RECORD_REVIEW_UNCHECKED",
            "nothing was approved: check the recorded environment (every approval covers it) and each "
            "declared environment you approve"
            if not checked
            else "nothing was approved: the recorded environment is covered by every approval; check it too",
        )
    return tuple(sorted(set(checked)))


def _shown_draft(store: Store, name: str, form: dict[str, str]) -> Draft:
    """The draft (or heal proposal) the page showed, by the digest its form names."""
    digest = _digest(form)
    entry = store.get(name)
    drafts = [p.draft for p in store.heal_proposals(name)] if _what(form) == "proposal" else [entry.draft]
    for draft in drafts:
        if draft.draft_digest == digest:
            return draft
    raise LifecycleError(
        "SR_RECORD_REVISION_CONFLICT",
        f"the {'heal proposal' if _what(form) == 'proposal' else 'draft'} of skill {entry.name!r} is not the "
        f"one with digest {digest}; reload the page and review what it shows now",
    )


def _what(form: dict[str, str]) -> str:
    if form["what"] not in ("draft", "proposal"):
        raise InputError("SR_RECORD_INPUT_MALFORMED", "the form names nothing to review")
    return form["what"]


def _int(value: str, what: str) -> int:
    if not value.isdigit() or not 0 < int(value) < 10**9:
        raise InputError("SR_RECORD_INPUT_MALFORMED", f"the form's {what} is not a revision number")
    return int(value)


def _revision(form: dict[str, str]) -> int:
    return _int(form["expected_revision"], "expected revision")


def _digest(form: dict[str, str]) -> str:
    """The digest of the draft (or heal proposal) the page showed: a proposal never changes the
    revision, so the revision alone let a page approve a newer proposal it never showed."""
    value = form["expected_digest"]
    if not DIGEST_RE.fullmatch(value):
        raise InputError("SR_RECORD_INPUT_MALFORMED", "the form does not name the draft it showed")
    return value

"""The catalogue of error codes: every ``SR_*`` code skillreel reports, with the process exit status
that belongs to it (1: refused or failed, 2: bad usage or input), a one-line summary and the fix a
user should try. Data, not logic: ``scripts/gen_error_docs.py`` writes docs/errors.md from it, and
``tests/unit/test_architecture.py`` checks every code against its family and status. It is the one
module of ``src/`` over 600 lines, because it is a table: one entry per code, in family order.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ErrorCode:
    """A documented error code: its exit status and the fix a user should try."""

    code: str
    exit_status: int
    summary: str
    fix: str


def _catalogue(*codes: ErrorCode) -> dict[str, ErrorCode]:
    return {c.code: c for c in codes}


CODES: dict[str, ErrorCode] = _catalogue(
    # --- SR_RECORD_*: CLI input, store, policy, target, credential, package, approval
    ErrorCode(
        "SR_RECORD_INTERNAL",
        1,
        "skillreel met an unexpected internal error.",
        "Report it with the command you ran; nothing was changed.",
    ),
    ErrorCode("SR_RECORD_USAGE", 2, "The command line is invalid.", "Check `skillreel VERB --help`."),
    ErrorCode(
        "SR_RECORD_API_USAGE",
        2,
        "A skillreel.api function was called with an invalid argument, or a `_sync` function inside a "
        "running event loop.",
        "Pass the arguments the guide's Python API section lists; inside a running event loop, await "
        "the coroutine (`replay`, not `replay_sync`).",
    ),
    ErrorCode(
        "SR_RECORD_INPUT_MALFORMED",
        2,
        "An input file or value is not valid for its schema.",
        "Fix the file or value the message names: valid JSON (UTF-8 text for an HTML fixture), "
        "known keys only, values within their limits.",
    ),
    ErrorCode(
        "SR_RECORD_INPUT_TOO_LARGE",
        2,
        "An input file exceeds its size limit.",
        "JSON inputs are limited to 2 MiB, HTML fixtures to 1,000,000 characters.",
    ),
    ErrorCode(
        "SR_RECORD_INPUT_NOT_REGULAR",
        2,
        "An input path is missing, a symlink or not a regular file.",
        "Pass the path of a regular file (symlinks are refused).",
    ),
    ErrorCode(
        "SR_RECORD_SCHEMA_VERSION",
        2,
        "A document has an unknown schema version.",
        "Use a document written by a compatible skillreel (see `schema`).",
    ),
    ErrorCode(
        "SR_RECORD_DIGEST_MISMATCH",
        2,
        "A document's digest does not match its content.",
        "The file was changed after it was written; export it again from the source store.",
    ),
    ErrorCode(
        "SR_RECORD_SIGNATURE_INVALID",
        2,
        "An export signature is missing, unknown or invalid.",
        "Import only exports signed by a trusted key.",
    ),
    ErrorCode(
        "SR_RECORD_SECRET_FILE_EXPOSED",
        2,
        "A secret file (a signing key, a broker URL file) is readable or writable by its group or "
        "others; it was not used.",
        "Make it readable by its owner only (`chmod 600 FILE`); if others may have read it, make a new "
        "key (or change the broker password).",
    ),
    ErrorCode(
        "SR_RECORD_NAME_INVALID",
        2,
        "A skill name breaks the Agent Skills naming rule.",
        "Use lower-case letters, digits and single hyphens, at most 64 characters.",
    ),
    ErrorCode(
        "SR_RECORD_REVIEWER_INVALID",
        2,
        "A reviewer id is not valid.",
        "Pass --reviewer with a non-secret id: letters, digits and . _ @ : - (at most 128 characters), "
        "for example an email address.",
    ),
    ErrorCode(
        "SR_RECORD_TOOL_ARGUMENTS_INVALID",
        2,
        "An MCP tool was called with arguments that do not fit its input schema; nothing was done.",
        "Call the tool as its inputSchema says (skills_play: `name` a skill name, `inputs` an object "
        "of strings); the values given are never repeated in the error.",
    ),
    ErrorCode("SR_RECORD_NOT_FOUND", 1, "No skill with that name exists.", "Run `skillreel list`."),
    ErrorCode(
        "SR_RECORD_EXISTS",
        1,
        "A skill with that name already exists.",
        "Choose another name, or delete the old skill (or import with --replace --approve).",
    ),
    ErrorCode(
        "SR_RECORD_REVISION_CONFLICT",
        1,
        "The skill changed since the revision you expected.",
        "Run `skillreel show NAME` and retry with the current --expected-revision.",
    ),
    ErrorCode(
        "SR_RECORD_REVISION_NOT_FOUND",
        1,
        "The skill has no kept revision with that number (it never existed, or is no longer kept).",
        "Run `skillreel show NAME` to list the kept revisions, and use one of those.",
    ),
    ErrorCode(
        "SR_RECORD_STATE_INVALID",
        1,
        "The skill's lifecycle state does not allow this operation.",
        "Run `skillreel show NAME` to see its state and the allowed next steps.",
    ),
    ErrorCode(
        "SR_RECORD_APPROVAL_REQUIRED",
        1,
        "A mutation was requested without --approve.",
        "Read what would change, then repeat the command with --approve.",
    ),
    ErrorCode(
        "SR_RECORD_REVIEW_UNPINNED",
        2,
        "A review (approval or rejection) must name what the reviewer read; nothing was changed.",
        "Run `skillreel show NAME`, then repeat with --expected-revision N or --draft-digest D as "
        "it printed them (the message names both).",
    ),
    ErrorCode(
        "SR_RECORD_REVIEW_UNCHECKED",
        2,
        "The review page's approval checked no environment (or not the recorded one); nothing was approved.",
        "Check the recorded environment and each declared environment you approve (each shows its "
        "origin and allowlist), then press Approve again.",
    ),
    ErrorCode(
        "SR_RECORD_REVISION_UNPINNED",
        2,
        "A change to a skill (enable, revoke, delete, edit, rollback, import --replace, env) must name "
        "the revision its caller read; nothing was changed.",
        "Run `skillreel show NAME`, then repeat with --expected-revision N as it printed it (the message "
        "names the revision and the exact command).",
    ),
    ErrorCode(
        "SR_RECORD_APPROVAL_INVALID",
        1,
        "An approval does not match the draft it claims to approve.",
        "Review the current draft revision again.",
    ),
    ErrorCode(
        "SR_RECORD_STORE_BUSY",
        1,
        "The store is locked by another skillreel process.",
        "Retry when the other command has finished.",
    ),
    ErrorCode(
        "SR_RECORD_STORE_CORRUPT",
        1,
        "The store failed an integrity check; it was left untouched.",
        "Inspect $SKILLREEL_HOME/store.db; restore it from a backup or an export.",
    ),
    ErrorCode(
        "SR_RECORD_STORE_HOME_UNSAFE",
        1,
        "The store directory is not a private directory of yours; nothing was read or written.",
        "Run `chmod 700 DIR` on the directory the message names if it is yours (skillreel never "
        "changes the modes of a directory it did not create), or set SKILLREEL_HOME to a new path.",
    ),
    ErrorCode(
        "SR_RECORD_STORE_MISSING",
        1,
        "A package's scripts/replay found no store where SKILLREEL_HOME (or the default) points; "
        "no new store was created.",
        "Set SKILLREEL_HOME to the store that holds the skill, or import the skill's signed export "
        "(`skillreel import FILE --trust KEY.pub`) and `skillreel enable` it on this machine.",
    ),
    ErrorCode(
        "SR_RECORD_PROGRAM_MISSING",
        1,
        "A package's scripts/replay found no skillreel to run: the program that enabled the skill is "
        "gone and no `skillreel` is on PATH.",
        "Install skillreel so `skillreel` is on PATH (`pipx install .` from a skillreel checkout), "
        "import the signed export of the skill (`skillreel import FILE --trust KEY.pub`) and "
        "`skillreel enable` it on this machine.",
    ),
    ErrorCode(
        "SR_RECORD_STORE_LIMIT",
        1,
        "A store limit from the policy was reached.",
        "Prune expired skills (`skillreel prune --approve`) or raise the limit in the policy.",
    ),
    ErrorCode(
        "SR_RECORD_STORE_IO",
        1,
        "The store could not be read or written.",
        "Check that $SKILLREEL_HOME is writable and the disk is not full.",
    ),
    ErrorCode(
        "SR_RECORD_RUN_UNRECORDED",
        1,
        "A replay run finished but its outcome could not be written to the store (a warning: the "
        "replay's own status is what really happened).",
        "Trust the status the replay reported; free the store (disk space, `skillreel prune --approve`) "
        "and check `skillreel runs NAME`: the run shows as started or interrupted.",
    ),
    ErrorCode(
        "SR_RECORD_OUTPUT_EXISTS",
        1,
        "The output file already exists; it was left as it is.",
        "Choose another path, or pass --force to replace it.",
    ),
    ErrorCode(
        "SR_RECORD_TRACE_MISSING",
        2,
        "There is no replay trace at that path.",
        "Pass the directory of `skillreel replay --artifacts DIR` or its trace.zip; a trace is written "
        "when the replay fails (or always, with `--artifacts-on always`), unless its warning says it "
        "was withheld.",
    ),
    ErrorCode(
        "SR_RECORD_TRACE_VIEWER_FAILED",
        1,
        "Playwright's trace viewer could not open the trace.",
        "Read the viewer's own message above; without Chrome for its window "
        "(`python -m playwright install chromium`), use `--port 0` to open it in your browser.",
    ),
    ErrorCode(
        "SR_RECORD_SCRIPT_UNSUPPORTED",
        1,
        "A step of the skill cannot be written as a Playwright script (`export --playwright`); no "
        "file was written.",
        "Re-record or edit the step the message names (its target keeps only salted hashes), then "
        "export again.",
    ),
    ErrorCode(
        "SR_RECORD_OUTPUT_FAILED",
        1,
        "The output file could not be written; nothing was left behind.",
        "Check that the output directory exists, is writable and is not a symlink.",
    ),
    ErrorCode(
        "SR_RECORD_POLICY_DENIED",
        1,
        "The store policy forbids this operation.",
        "Ask whoever owns the policy; see `skillreel policy`.",
    ),
    ErrorCode(
        "SR_RECORD_FINAL_CHECK_MISSING",
        1,
        "The policy requires a check after a skill's last side effect (requireFinalCheck), and no "
        "assertion, wait or checked extraction follows it; nothing was approved.",
        "Add a check after that step (`skillreel edit NAME` with add-assert, or an assertions file "
        "when recording), or ask whoever owns the policy.",
    ),
    ErrorCode(
        "SR_RECORD_TARGET_INVALID",
        2,
        "The target (HTML fixture, URL or allowlist) is not allowed.",
        "Use an HTML file, or an https URL (http only on loopback) with exact allowed origins.",
    ),
    ErrorCode(
        "SR_RECORD_ENVIRONMENT_DRIFT",
        1,
        "The replay environment differs from the recorded one.",
        "Replay against the recorded target and allowlist, or record the skill again.",
    ),
    ErrorCode(
        "SR_RECORD_CREDENTIAL_DRIFT",
        1,
        "The storage state differs from the recorded one.",
        "Pass the storage-state file the skill was recorded with, or record again with --login "
        "NAME so that a refreshed login keeps the skill valid.",
    ),
    ErrorCode(
        "SR_RECORD_ENVIRONMENT_UNKNOWN",
        2,
        "The skill declares no environment of that name.",
        "Run `skillreel show NAME` for its environments; declare one with `skillreel env set`.",
    ),
    ErrorCode(
        "SR_RECORD_ENVIRONMENT_NOT_APPROVED",
        1,
        "The approval does not cover that environment.",
        "Ask a reviewer to approve it: `skillreel review NAME --env ENV --reviewer ID "
        "--expected-revision N --approve` on a new draft revision (`skillreel env set` makes one).",
    ),
    ErrorCode(
        "SR_RECORD_SESSION_MISSING",
        1,
        "The vault holds no login of that name.",
        "Store the signed-in browser state: `skillreel login set NAME FILE` (see `skillreel login list`).",
    ),
    ErrorCode(
        "SR_RECORD_SECRET_FINDING",
        1,
        "A secret was found in a field that would be stored.",
        "Remove the secret from the description, failure conditions or assertions; "
        "mark business fields with --sensitive.",
    ),
    ErrorCode(
        "SR_RECORD_CAPTURE_FAILED",
        1,
        "Recording failed; nothing was stored.",
        "Check that the page loads and the browser stays open, then record again.",
    ),
    ErrorCode(
        "SR_RECORD_CHROMIUM_SETUP",
        1,
        "Chromium could not be found or started for the recording; nothing was recorded.",
        "Install it (`apt-get install chromium`) or set SKILLREEL_CHROMIUM to its path. A recording "
        "without --automation opens a window: run it where there is a display (DISPLAY set, or under "
        "`xvfb-run`), or record a scripted demonstration with `--automation FILE`.",
    ),
    ErrorCode(
        "SR_RECORD_AUTOMATION_FAILED",
        2,
        "A step of the scripted demonstration could not be performed.",
        "Fix the step's selector in the automation file so it matches one visible element.",
    ),
    ErrorCode(
        "SR_RECORD_TARGET_REPLACED",
        1,
        "The page replaced a scripted step's element more times than allowed before the step could act;"
        " what was captured before it is kept.",
        "The page re-renders the element without pause: wait for it to calm down (a `wait` step) or"
        " give a selector of an element that stays, then `skillreel record NAME --resume`.",
    ),
    ErrorCode(
        "SR_RECORD_TARGET_NOT_ACTIONABLE",
        1,
        "A scripted step's element did not become actionable (visible, stable and receiving events)"
        " within the step timeout; the message names what it waited for. What was captured is kept.",
        "Add a `wait` step for what covers or moves it, or raise --timeout, then"
        " `skillreel record NAME --resume`.",
    ),
    ErrorCode(
        "SR_RECORD_NOTHING_TO_RESUME",
        2,
        "`record --resume` found no kept recording of that skill.",
        "Record it without --resume; a recording that fails keeps what it captured for --resume.",
    ),
    ErrorCode(
        "SR_RECORD_RESUME_MISMATCH",
        2,
        "The kept recording was made for another target (URL, fixture or allowlist) than this command's.",
        "Resume with the target options of the recording that failed, or record again without --resume"
        " (its success replaces the kept recording).",
    ),
    ErrorCode(
        "SR_RECORD_REPAIR_STEP_UNKNOWN",
        2,
        "`record --from-step`/`--only-step` names no step of the skill's approved revision.",
        "Run `skillreel show NAME` for the step ids and name one of them.",
    ),
    ErrorCode(
        "SR_RECORD_REPAIR_STEP_INVALID",
        2,
        "That step cannot start a repair: it is inside a loop or branch, loads the start page, or"
        " (for --only-step) acts on no element.",
        "Name a top-level step (the loop's or branch's own id), or record the skill again.",
    ),
    ErrorCode(
        "SR_RECORD_REPAIR_NOT_APPROVED",
        2,
        "A repair replays approved steps, and the skill's current revision is not approved.",
        "Review the draft first (`skillreel review NAME`), or roll back to an approved revision.",
    ),
    ErrorCode(
        "SR_RECORD_REPAIR_PREFIX_FAILED",
        1,
        "Replaying the approved steps before the repaired one failed; nothing was stored.",
        "Replay the skill to see the failing step, then repair from that step instead.",
    ),
    ErrorCode(
        "SR_RECORD_REPAIR_PICK_FAILED",
        1,
        "The element picked for `record --only-step` cannot be described; nothing was stored.",
        "Pick the element itself (a button, link or field), not the page around it.",
    ),
    ErrorCode(
        "SR_RECORD_KEPT_INVALID",
        1,
        "The kept recording of that skill is not valid (changed, unreadable or too large); nothing was"
        " changed.",
        "Record again without --resume: a new recording replaces the kept one.",
    ),
    ErrorCode(
        "SR_RECORD_NOTHING_CAPTURED",
        1,
        "The demonstration produced no action.",
        "Interact with the page (click, type, select) before finishing.",
    ),
    ErrorCode(
        "SR_RECORD_ACTIONS_LIMIT",
        1,
        "The demonstration produced more than 256 actions.",
        "Record a shorter task, or split it into several skills.",
    ),
    ErrorCode(
        "SR_RECORD_PARAMETER_UNKNOWN",
        2,
        "A --sensitive name matches no recorded parameter.",
        "Use a parameter name the recording produced (the message lists them).",
    ),
    ErrorCode(
        "SR_RECORD_DISCARDED",
        1,
        "The recording was discarded (Ctrl-C); nothing was stored.",
        "Record again and press Enter to finish when the demonstration is complete.",
    ),
    ErrorCode(
        "SR_RECORD_DEMO_FAILED",
        1,
        "A stage of `skillreel demo` failed; the message names it.",
        "Read the stage and the cause code; run `skillreel demo --keep` to inspect the files.",
    ),
    ErrorCode(
        "SR_RECORD_INSTALL_MODIFIED",
        1,
        "An installed package was changed by hand; nothing was deleted.",
        "Restore or remove the package folder yourself, then retry.",
    ),
    ErrorCode(
        "SR_RECORD_INSTALL_COLLISION",
        1,
        "The package folder already exists and is not ours.",
        "Rename the skill or move the existing folder away.",
    ),
    ErrorCode(
        "SR_RECORD_INSTALL_SYMLINK",
        1,
        "A symlink was found on the install path.",
        "Replace the symlinked directory with a real one.",
    ),
    ErrorCode(
        "SR_RECORD_INSTALL_FAILED",
        1,
        "Installing or removing a package failed; it was rolled back.",
        "Check that the skill roots are writable, then retry.",
    ),
    ErrorCode(
        "SR_RECORD_INSTALL_RECOVERED",
        1,
        "A warning: an enable or revoke of this skill was interrupted earlier (the process was killed); "
        "it was finished or rolled back first, so the disk and the store agree again.",
        "Nothing to do; check that the result is what you wanted.",
    ),
    ErrorCode(
        "SR_RECORD_GRAPH_INVALID",
        2,
        "A skill's step graph breaks a rule of schema v2; the message names the step.",
        "Fix the named step (ids unique, blocks at most 3 deep, at most 256 steps, outputs as the steps "
        "produce them); `skillreel show NAME` renders the graph.",
    ),
    ErrorCode(
        "SR_RECORD_GRAPH_REFERENCE",
        2,
        "A step refers to a parameter, output or item field that does not exist where it is used.",
        "Refer only to declared parameters, to outputs of earlier non-optional extract steps of the same "
        "or an enclosing block, and to fields of the enclosing loop's items.",
    ),
    ErrorCode(
        "SR_RECORD_EDIT_INVALID",
        2,
        "An edit of `skillreel edit` cannot be applied as written; the message names the edit and step.",
        "Fix the named edit (steps to wrap consecutive in one block, moves within a block, a loop over a "
        "list extraction); `skillreel show NAME` lists the step ids.",
    ),
    ErrorCode(
        "SR_RECORD_EDIT_REFERENCE",
        2,
        "An edit names a step, parameter, output or target that the draft does not have.",
        "Use the ids and names `skillreel show NAME` prints; a wait, assertion or condition reuses the "
        "target of a recorded step.",
    ),
    ErrorCode(
        "SR_RECORD_EDIT_SENSITIVE",
        2,
        "A `bind-target` edit names a sensitive input: a secret never chooses what is clicked.",
        "Bind the click to a non-sensitive input, or leave the step as it was recorded.",
    ),
    ErrorCode(
        "SR_RECORD_LOOP_BOUND",
        2,
        "A loop or list extraction has a limit above 1,000 items.",
        "Lower the step's limit to at most 1,000 (split the work into several runs if it needs more).",
    ),
    # --- SR_REPLAY_*: draft, review, schema, parameter, environment, capability, evidence
    ErrorCode(
        "SR_REPLAY_NOT_APPROVED",
        1,
        "The skill has no approved revision to replay.",
        "Review it first: `skillreel show NAME`, then "
        "`skillreel review NAME --reviewer ID --expected-revision N --approve`.",
    ),
    ErrorCode(
        "SR_REPLAY_SCHEMA_INVALID",
        1,
        "A stored skill document failed validation before replay.",
        "The entry is damaged; restore it from an export.",
    ),
    ErrorCode(
        "SR_REPLAY_PARAMETER_MISSING",
        2,
        "A required input was not given.",
        "Pass it with --input NAME=VALUE on the command line, or in `inputs` over MCP.",
    ),
    ErrorCode(
        "SR_REPLAY_ARTIFACTS_WRITTEN",
        1,
        "A warning: `replay --artifacts` wrote a trace, a screenshot and failure.json (page content).",
        "Open the trace with `skillreel show-trace DIR`; keep the directory private and delete "
        "it when done (sensitive values were scrubbed, the rest of the page was not).",
    ),
    ErrorCode(
        "SR_REPLAY_ARTIFACTS_WITHHELD",
        1,
        "A warning: a debugging artifact was not written (it would have shown a sensitive value, or "
        "could not be captured or saved); the message says which and why.",
        "Replay without the sensitive value to get a full trace (e.g. against a test account), or "
        "check that the --artifacts directory is writable.",
    ),
    ErrorCode(
        "SR_REPLAY_SECRET_MISSING",
        1,
        "A required sensitive input has no value in the vault.",
        "Set the environment variable the message names (SKILLREEL_SECRET_<SKILL>_<PARAM>) or store the "
        "value in the OS keyring; sensitive values are never passed with --input.",
    ),
    ErrorCode(
        "SR_REPLAY_PARAMETER_UNKNOWN",
        2,
        "An input names no parameter of the skill.",
        "Use one of the parameters the message lists (`skillreel show NAME` shows them all).",
    ),
    ErrorCode(
        "SR_REPLAY_PARAMETER_INVALID",
        2,
        "An input value does not fit its parameter: its type, its allowed values or its length.",
        "Give a value of the parameter's type (`skillreel show NAME` lists types and allowed values); "
        "typed values are limited to 8,192 characters, select values to 1,024, loop limits to 1-1,000.",
    ),
    ErrorCode(
        "SR_REPLAY_SENSITIVE_ON_ARGV",
        2,
        "A sensitive input was passed on the command line.",
        "Set SKILLREEL_SECRET_<SKILL>_<PARAM> or store it in the OS keyring instead.",
    ),
    ErrorCode(
        "SR_REPLAY_UPLOAD_REFUSED",
        2,
        "A file input's path does not exist, is a directory, a symlink or not a regular file "
        "(nothing was replayed; the path is never repeated).",
        "Pass `--input NAME=@PATH` with the path of a regular file (not a symlink); MCP takes an "
        "absolute path.",
    ),
    ErrorCode(
        "SR_REPLAY_UPLOAD_TOO_LARGE",
        2,
        "A file input is larger than an upload step takes (25 MB).",
        "Upload a smaller file.",
    ),
    ErrorCode(
        "SR_REPLAY_UPLOAD_OUTSIDE",
        2,
        "An MCP caller gave a file input outside the directories the policy allows (`uploadDirs`; "
        "none by default).",
        "Add the directory to the policy's `uploadDirs` (`skillreel policy set FILE`), or give an "
        "absolute path under one of them.",
    ),
    ErrorCode(
        "SR_REPLAY_CAPABILITY_DENIED",
        1,
        "An action needs a capability the approval or policy lacks.",
        "Review the skill again, or change the policy's allowed capabilities.",
    ),
    ErrorCode(
        "SR_REPLAY_HUMAN_REQUIRED",
        1,
        "A step needs a person and nobody can answer.",
        "Run the replay on an interactive terminal (or through an MCP client that can elicit).",
    ),
    ErrorCode(
        "SR_REPLAY_OUTPUT_INVALID",
        1,
        "A value read from the page does not fit its output's type or pattern; nothing was returned.",
        "Check the page shows what the step expects, or change the output's type or pattern "
        "(`skillreel edit`) and review again.",
    ),
    ErrorCode(
        "SR_REPLAY_LIST_LIMIT",
        1,
        "A list or loop on the page has more items than the step's limit; nothing was done with them.",
        "Narrow the page (inputs that filter it) or raise the step's limit (at most 1,000) and review again.",
    ),
    ErrorCode(
        "SR_REPLAY_WHILE_LIMIT",
        1,
        "A while loop ran its body as many times as its limit and its condition still held.",
        "Check that the body changes what the condition tests (a button that goes away), or raise "
        "the loop's limit (at most 1,000) and review again.",
    ),
    ErrorCode(
        "SR_REPLAY_URL_PART_INVALID",
        1,
        "A value of a navigate step's URL template would leave the template's path or origin (a "
        "'.' or '..' segment); nothing was loaded.",
        "Check the input or the page the value was read from; the template keeps each value inside "
        "its own path segment or query value.",
    ),
    ErrorCode(
        "SR_REPLAY_OUTPUT_TOO_LARGE",
        1,
        "The outputs exceed their bounds (4,096 characters a value, 1 MiB in all); nothing was returned.",
        "Extract fewer or shorter values (a pattern, a lower limit), then review the skill again.",
    ),
    ErrorCode(
        "SR_REPLAY_OUTPUT_MASKED",
        1,
        "A warning on a replay that succeeded: the outputs it names held a secret of the run (a sensitive "
        "input, a value of the login it signed in with, a cookie it ended with) as it is or in an encoded "
        "form, and were masked.",
        "Nothing to fix; narrow the extraction (a pattern, another element) if the value is needed.",
    ),
    ErrorCode(
        "SR_REPLAY_STEP_BUDGET",
        1,
        "The replay would run more than 50,000 steps (loops included); it was stopped.",
        "Lower the loops' limits, or split the work into several skills.",
    ),
    ErrorCode(
        "SR_REPLAY_EVIDENCE_TOO_LARGE",
        1,
        "A step's evidence exceeded 256 KiB.",
        "Report this as a bug; evidence should hold digests only.",
    ),
    ErrorCode(
        "SR_REPLAY_CANCELLED",
        1,
        "The replay was cancelled (Ctrl-C, or the MCP client cancelled the call); the run is recorded "
        "as cancelled.",
        "Check `sideEffects` and the steps that ran before replaying again: a retry may repeat them.",
    ),
    ErrorCode(
        "SR_REPLAY_INTERRUPTED",
        1,
        "A replay run's process ended without finishing it (killed, crashed, or the machine restarted).",
        "See `skillreel runs NAME`: what the run did is unknown; check the site before replaying again.",
    ),
    # --- SR_REPLAY_FLEET_*: the fleet (Celery workers with a Redis broker, skillreel[fleet])
    ErrorCode(
        "SR_REPLAY_FLEET_UNAVAILABLE",
        2,
        "The fleet needs the optional extra skillreel[fleet] (Celery with Redis), which is not installed.",
        "Install it: `pip install 'skillreel[fleet]'` (from a checkout: `pip install '.[fleet]'`, with "
        "pipx: `pipx install '.[fleet]' --force`).",
    ),
    ErrorCode(
        "SR_REPLAY_FLEET_BROKER_UNREACHABLE",
        1,
        "The Redis broker could not be reached; nothing was submitted or run.",
        "Check the --broker URL (redis://HOST:6379/0), that redis-server runs there and that this "
        "machine may connect to it.",
    ),
    ErrorCode(
        "SR_REPLAY_FLEET_NO_WORKERS",
        1,
        "No fleet worker answered on the broker; the rows not started were cancelled.",
        "Start a worker on the broker (`skillreel worker --broker URL --trust KEY.pub`), then run "
        "the batch again (`--resume RUNSET` skips the rows that succeeded).",
    ),
    ErrorCode(
        "SR_REPLAY_FLEET_BUNDLE_UNSIGNED",
        1,
        "A worker refused a skill bundle that carries no signature; nothing was run.",
        "Submit rows with `skillreel replay NAME --batch FILE --broker URL --sign KEY.pem`.",
    ),
    ErrorCode(
        "SR_REPLAY_FLEET_SIGNER_UNTRUSTED",
        1,
        "A worker refused a skill bundle signed by a key it does not trust; nothing was run.",
        "Start the worker with `--trust PUB.pem` naming the coordinator's public key "
        "(`openssl pkey -in KEY.pem -pubout -out PUB.pem`).",
    ),
    ErrorCode(
        "SR_REPLAY_FLEET_BUNDLE_TAMPERED",
        1,
        "A skill bundle's digests or signature do not verify: it changed after it was signed; nothing "
        "was run.",
        "Submit again from the coordinating store, and check who can write to the broker.",
    ),
    ErrorCode(
        "SR_REPLAY_FLEET_BUNDLE_INVALID",
        1,
        "A worker could not read a task's bundle or row (malformed, or from another skillreel version); "
        "nothing was run.",
        "Run the same skillreel version on the coordinator and the workers.",
    ),
    ErrorCode(
        "SR_REPLAY_FLEET_NOT_VALIDATED",
        1,
        "A fleet runs only validated or enabled skills, and this one is neither; nothing was run.",
        "Replay it once in the coordinating store (`skillreel replay NAME`) so it is validated, then "
        "submit the batch again.",
    ),
    ErrorCode(
        "SR_REPLAY_FLEET_TARGET_UNSUPPORTED",
        2,
        "The skill replays on a local HTML fixture or a storage-state file, which a worker does not "
        "have; nothing was submitted.",
        "Replay it on this machine (`--batch` without `--broker`), or record it on a URL that signs in "
        "with a vault login (`skillreel login`).",
    ),
    ErrorCode(
        "SR_REPLAY_FLEET_TASK_INVALID",
        1,
        "A worker refused a task whose envelope is missing, not signed by a key it trusts, or does not "
        "match the task (its bundle, run, inputs, environment or options); nothing was run.",
        "Submit rows only with `skillreel replay NAME --batch FILE --broker URL --sign KEY.pem`, run the "
        "same skillreel version everywhere, and check who can write to the broker.",
    ),
    ErrorCode(
        "SR_REPLAY_FLEET_TASK_EXPIRED",
        1,
        "A worker refused a task past its envelope's not-after time; nothing was run.",
        "Run the batch again (`--resume RUNSET` skips the rows that succeeded); if rows wait long for a "
        "free worker, give the coordinator a longer `--task-expires MINUTES` or more workers, and keep "
        "the machines' clocks in step (NTP).",
    ),
    ErrorCode(
        "SR_REPLAY_FLEET_TASK_REPLAYED",
        1,
        "A worker refused a task whose envelope it had already seen (its nonce): a task is run once; "
        "nothing was run again.",
        "Nothing to do for a redelivery; otherwise someone re-submitted a captured task: check who can "
        "write to the broker.",
    ),
    ErrorCode(
        "SR_REPLAY_FLEET_BROKER_PASSWORD_ON_ARGV",
        2,
        "A broker URL with a password was given on the command line, where other users of the machine "
        "see it (`ps`); nothing was started.",
        "Put the URL in the environment variable SKILLREEL_BROKER_URL, or in a file readable by you "
        "only given with `--broker-url-file FILE`.",
    ),
    ErrorCode(
        "SR_REPLAY_FLEET_RESULT_INVALID",
        1,
        "A worker's result could not be read or does not fit its row; the row's run is recorded as "
        "interrupted (what it did is unknown).",
        "Run the same skillreel version on the coordinator and the workers, and check who can write "
        "to the broker; check the site before running the row again.",
    ),
    # --- SR_REPLAY_BATCH_* / SR_REPLAY_RUNSET_*: `replay --batch FILE`
    ErrorCode(
        "SR_REPLAY_BATCH_MALFORMED",
        2,
        "The batch file is not valid CSV or JSON Lines (bad syntax, a duplicate or empty column name, "
        "a row with the wrong number of cells, a value that is not text, no rows at all); nothing ran.",
        "Fix the line the message names. CSV: a header row of parameter names, then one row per replay; "
        "JSON Lines (.jsonl): one object of NAME: text per line. Name the file .csv, .jsonl or .ndjson.",
    ),
    ErrorCode(
        "SR_REPLAY_BATCH_TOO_MANY_ROWS",
        2,
        "The batch file holds more than 100,000 rows; nothing ran.",
        "Split the file into batches of at most 100,000 rows and run them one after the other.",
    ),
    ErrorCode(
        "SR_REPLAY_BATCH_COLUMN_UNKNOWN",
        2,
        "A column (a CSV header cell or a JSON Lines key) names no parameter of the skill; nothing ran.",
        "Rename or remove the column the message names; `skillreel show NAME` lists the parameters.",
    ),
    ErrorCode(
        "SR_REPLAY_BATCH_COLUMN_SENSITIVE",
        2,
        "A column names a sensitive parameter: sensitive values never come from a file; nothing ran.",
        "Remove the column and put the value in the vault: SKILLREEL_SECRET_<SKILL>_<PARAM> or the OS "
        "keyring (every row uses it).",
    ),
    ErrorCode(
        "SR_REPLAY_BATCH_INPUT_MISSING",
        2,
        "A row has no value for a required parameter (an empty CSV cell, or a missing or null key); "
        "nothing ran.",
        "Fill in the cell on the line the message names, or give the value to every row with "
        "--input NAME=VALUE (and no column of that name).",
    ),
    ErrorCode(
        "SR_REPLAY_BATCH_VALUE_INVALID",
        2,
        "A value in the batch file does not fit its parameter (too long, not of its type, or a loop's "
        "limit out of range); nothing ran.",
        "Fix the value on the line the message names: it must fit the parameter's type (`skillreel show "
        "NAME` lists them); type values are limited to 8,192 characters, select values to 1,024.",
    ),
    ErrorCode(
        "SR_REPLAY_BATCH_FAILED",
        1,
        "At least one row of the batch failed (the other rows ran; each row's result says how it ended).",
        "Look at the failed rows' codes, fix the cause, then run the same command with --resume RUNSET "
        "to replay only the rows that did not succeed.",
    ),
    ErrorCode(
        "SR_REPLAY_BATCH_OUTPUT_REFUSED",
        2,
        "A --results or --junit path is a symlink, a directory or not a regular file, its directory "
        "does not exist, or a --results name ends in neither .csv nor .jsonl; nothing ran.",
        "Name a regular file (it is replaced) or a new one in an existing directory: FILE.csv or "
        "FILE.jsonl for --results, FILE.xml for --junit.",
    ),
    ErrorCode(
        "SR_REPLAY_RUNSET_UNKNOWN",
        2,
        "--resume names no runset of this skill in the store (mistyped, of another skill, or pruned).",
        "Use the runset id a batch printed (`runset` in its --json output); a pruned runset cannot be "
        "resumed: check `skillreel runs NAME` before running the rows again.",
    ),
    ErrorCode(
        "SR_REPLAY_RUNSET_MISMATCH",
        2,
        "--resume was given a batch file whose rows differ from the ones the runset started with; "
        "nothing ran.",
        "Resume with the same file, unchanged (rows are matched by their number), or start a new batch "
        "without --resume.",
    ),
    ErrorCode(
        "SR_REPLAY_RUNSET_BUSY",
        1,
        "--resume names a runset that another batch is running now (a live process holds it), or one "
        "of whose rows a fleet worker is still running; nothing ran, so no row is run twice at once.",
        "Wait for that batch (or that worker's row) to end, or stop the batch with Ctrl-C, then resume: "
        "the rows that completed are skipped.",
    ),
    # --- SR_REPLAY_UI_*: Chromium setup, selector, assertion, network, action
    ErrorCode(
        "SR_REPLAY_DOWNLOADS_DIR_MISSING",
        2,
        "The skill downloads files and the replay names no directory to save them in (or it is "
        "not a directory of your own); nothing ran.",
        "Give `replay --downloads DIR` (an existing directory); for MCP plays, name one in the "
        "policy's `callers.mcp.downloadsDir`. Batches do not download yet.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_CHROMIUM_SETUP",
        1,
        "Chromium could not be found or started.",
        "Install it (`apt-get install chromium`) or set SKILLREEL_CHROMIUM to its path.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_TARGET_NOT_FOUND",
        1,
        "No element on the page agreed with the step's recorded target.",
        "Check that the page was in the state this step expects (the steps before it ran; see "
        "`skillreel show NAME`); if it was, the recorded locator does not fit the page: repair that step "
        "(`skillreel record NAME --only-step ID`, or `--from-step ID` to show the rest again) "
        "(and report it if the page did not change).",
    ),
    ErrorCode(
        "SR_REPLAY_UI_TARGET_AMBIGUOUS",
        1,
        "Several elements agreed with the step's target equally well; nothing was done there.",
        "The recorded locator cannot tell them apart on this page; record the skill again with a "
        "more distinctive target.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_TARGET_REPLACED",
        1,
        "The page kept replacing the step's target (re-rendering it) before the action reached it; "
        "nothing was done there.",
        "Check that the page settles after the step before it (a list that re-renders on a timer "
        "needs --settle MS); if it re-renders that element all the time, record the step on a "
        "steadier element.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_TARGET_COVERED",
        1,
        "Each time the click was sent, another element was under the pointer where the step's "
        "target had been measured (an overlay, a moving layout); the guard refused it, so nothing "
        "was clicked.",
        "Check what covers the target on the page (a banner, a dialog, an animation) and add a "
        "step that closes or waits for it before this one.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_ASSERTION_FAILED",
        1,
        "An assertion of the skill did not hold (an absent check: the element it must not see, e.g. "
        "an 'Already refunded' banner, stayed on the page).",
        "Check the page state the skill expects: its failure conditions are in the error's details "
        "(failureConditions); a failed absent check means the page is in a state the skill must not "
        "act on, so do not simply retry.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_WAIT_FAILED",
        1,
        "A wait step's condition did not hold within its timeout on a page that had stopped changing "
        "(the element is still there, its text differs, or the URL does not match).",
        "Check the page reaches the state the step waits for (run with --headed to watch it); the "
        "page was not loading, so a longer timeout is unlikely to help.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_WAIT_TIMEOUT",
        1,
        "A wait step's condition did not hold within its timeout while the page was still loading "
        "or changing.",
        "The page is slow here: give the step a longer timeout (the wait's timeoutMs, or the replay's "
        "--timeout), or check why the page keeps loading.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_WAIT_NOT_ON_PAGE",
        1,
        "A wait step's target never appeared: no element like the recorded one was on the page, "
        "which had stopped changing.",
        "The page no longer shows that element (it moved, was renamed or removed): look at the page "
        "(--headed), then record the step again; a longer timeout will not bring it.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_HTTP_ERROR",
        1,
        "The page answered with an HTTP error (status 400 or above) where a step looked for its "
        "target or waited; the status is in the message and in the error's details (httpStatus).",
        "The site failed or refused the request (a 5xx is the server's error, a 404 a missing page, "
        "a 401/403 a missing or expired login): fix or wait for the site, or check the skill's "
        "environment and login; nothing was done on the error page.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_OPTION_NOT_FOUND",
        1,
        "The picker opened, but no enabled option of its list has the name given; nothing was "
        "chosen and the list was closed.",
        "Give the option's name exactly as the page shows it (spaces collapsed, same case); "
        "`skillreel show` lists the names seen while recording when the input is an enum.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_OPTION_AMBIGUOUS",
        1,
        "Several enabled options of the picker's list have the name given; nothing was chosen and "
        "the list was closed.",
        "The page shows two options of that name; choose one a person can tell apart, or record "
        "the step as a click on the option.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_OPTION_NOT_SHOWN",
        1,
        "An option was clicked, but the picker did not show the choice afterwards (its value or "
        "text does not hold the name and the option is not selected).",
        "The picker may need a step before it takes a choice, or it shows the choice elsewhere; "
        "check the page by hand and record the skill again.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_DIALOG_MISMATCH",
        1,
        "The dialog a step expects did not open, or another kind of dialog did.",
        "Check the page still asks for confirmation at that step; record the skill again if it changed.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_NETWORK_DENIED",
        1,
        "The page requested an origin outside the allowlist.",
        "Record again with --allowed-origin for origins you trust.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_NETWORK_ADDRESS_REFUSED",
        1,
        "An allowlisted host name resolved to a loopback, private, link-local or metadata address; "
        "the proxy connected nowhere.",
        "If the site really is on your own network, allowlist it by its address (an IP origin); "
        "otherwise its DNS answers may be under someone else's control (DNS rebinding).",
    ),
    ErrorCode(
        "SR_REPLAY_UI_NAVIGATION_FAILED",
        1,
        "The start page could not be loaded.",
        "Check that the target responds and that its origin is on the allowlist.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_ACTION_FAILED",
        1,
        "The browser could not perform a step.",
        "Check that the element is enabled and visible on the page.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_TIMEOUT",
        1,
        "A step did not finish within the timeout.",
        "Raise --timeout (at most 30,000 ms) or check that the page responds.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_BROWSER_CRASHED",
        1,
        "Chromium exited during the replay; nothing was stored.",
        "Retry; if it repeats, check memory and the Chromium installation.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_POPUP_MISSING",
        1,
        "A `page` step switches to a popup and none opened (or it closed before the step could act "
        "on it); nothing was done on another page.",
        "Check that the step before still opens the tab or window (a renamed link, a blocked "
        "`window.open`); record the part again if the site changed.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_DOWNLOAD_MISSING",
        1,
        "A download step's click started no download before the step's deadline.",
        "Check that the element still downloads a file; raise --timeout for a slow server.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_DOWNLOAD_REFUSED",
        1,
        "The page started a download no download step expects (a skill without `net.download`, or "
        "a step that is not a download); nothing was saved.",
        "Record the download as a download step (the reviewer then approves `net.download`).",
    ),
    ErrorCode(
        "SR_REPLAY_UI_DOWNLOAD_TOO_LARGE",
        1,
        "A downloaded file exceeds the size limit (100 MiB); the partial file was deleted.",
        "Download it another way; skillreel keeps files up to the limit only.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_DOWNLOAD_FAILED",
        1,
        "A download did not finish, or no free name was left for it; nothing was saved.",
        "Retry; check the site and the downloads directory.",
    ),
    ErrorCode(
        "SR_REPLAY_UI_DOWNLOADS_DIR_INVALID",
        1,
        "The downloads directory could not take a new file (permissions, a full disk).",
        "Give `--downloads` a writable directory of your own.",
    ),
    # --- SR_POLICY_*: a caller's own rules (the policy's `callers`)
    ErrorCode(
        "SR_POLICY_CALLER_SKILL_DENIED",
        1,
        "The policy does not let this caller (MCP) play this skill (callers.mcp.allowedSkills).",
        "Play it from the command line, or add its name to callers.mcp.allowedSkills "
        "(`skillreel policy set FILE --approve`).",
    ),
    ErrorCode(
        "SR_POLICY_CALLER_CAPABILITY_DENIED",
        1,
        "The skill needs a capability the policy does not allow this caller "
        "(callers.mcp.allowedCapabilities).",
        "Play it from the command line, or widen callers.mcp.allowedCapabilities in the policy.",
    ),
    ErrorCode(
        "SR_POLICY_CALLER_RATE_LIMITED",
        1,
        "This caller started as many plays in the last minute as the policy allows "
        "(callers.mcp.playsPerMinute).",
        "Wait a minute and play again, or raise callers.mcp.playsPerMinute in the policy.",
    ),
    # --- SR_MCP_*: the MCP server
    ErrorCode(
        "SR_MCP_CONFIRMATION_REQUIRED",
        1,
        "The first play of this approved revision by an agent needs a person's confirmation, and "
        "none was given (declined, cancelled, or the client cannot ask).",
        "Accept the confirmation your MCP client shows, or confirm on the command line: "
        "`skillreel enable NAME --confirm-agent-play --approve`.",
    ),
    ErrorCode(
        "SR_MCP_SENSITIVE_INPUT",
        2,
        "A play request's `inputs` held a sensitive parameter; nothing was replayed.",
        "Leave sensitive parameters out of `inputs`: the server takes them from the user's vault or "
        "asks the user for them (skills_list names them). Never pass a secret as a tool argument.",
    ),
)

"""The bounds of ARCHITECTURE section 13, in one place."""

from typing import Final

MAX_ACTIONS: Final = 256
MAX_HTML_CHARS: Final = 1_000_000
MAX_JSON_INPUT_BYTES: Final = 2 * 1024 * 1024
MAX_SELECTOR_CHARS: Final = 1024
MAX_DISPLAY_NAME_CHARS: Final = 80  # a target's display name (issue 31): one short line
MAX_TYPE_VALUE_CHARS: Final = 8192
MAX_SELECT_VALUE_CHARS: Final = 1024
VIEWPORT_MIN: Final = (320, 240)
VIEWPORT_MAX: Final = (3840, 2160)
TIMEOUT_MS_RANGE: Final = (100, 30_000)
DEFAULT_TIMEOUT_MS: Final = 10_000  # a step's deadline: record and replay --timeout
SETTLE_MS_RANGE: Final = (0, 1_000)
DEFAULT_SETTLE_MS: Final = 0  # replay --settle: no extra wait beyond the events
SLOW_MO_MS_RANGE: Final = (0, 5_000)  # replay --slow-mo
DEFAULT_SLOW_MO_MS: Final = 0
MAX_ALLOWED_ORIGINS: Final = 8
MAX_EVIDENCE_BYTES: Final = 256 * 1024
DEFAULT_MAX_RECORDS: Final = 500
MAX_RECORDS_CEILING: Final = 10_000
DEFAULT_MAX_AUDIT_EVENTS: Final = 20_000
MAX_AUDIT_EVENTS_CEILING: Final = 100_000
MAX_STORE_BYTES: Final = 32 * 1024 * 1024  # source document 000, section 12
MIN_STORE_BYTES: Final = 256 * 1024
DEFAULT_RETENTION_DAYS: Final = 90
RETENTION_DAYS_RANGE: Final = (1, 3650)
MAX_DESCRIPTION_CHARS: Final = 1024
MAX_FAILURE_CONDITIONS: Final = 32
MAX_FAILURE_CONDITION_CHARS: Final = 512
MAX_URL_CHARS: Final = 2048
MAX_LOCATOR_CANDIDATES: Final = 12
# Schema v2 (skill graph, typed inputs, outputs)
MAX_GRAPH_DEPTH: Final = 4  # the top level and up to three nested blocks
MAX_LOOP_ITEMS: Final = 1000  # a loop's or a list extraction's limit
MAX_STEP_RUNS: Final = 50_000  # steps executed in one replay, loop iterations included
MAX_ENUM_VALUES: Final = 256
MAX_ENUM_VALUE_CHARS: Final = 1024
MAX_PARAM_DESCRIPTION_CHARS: Final = 512
MAX_INTENT_CHARS: Final = 200
MAX_PATTERN_CHARS: Final = 256
MAX_OUTPUTS: Final = 64
MAX_OUTPUT_FIELDS: Final = 32
MAX_OUTPUT_STRING_CHARS: Final = 4096
MAX_OUTPUT_ITEMS: Final = MAX_LOOP_ITEMS
MAX_OUTPUTS_BYTES: Final = 1024 * 1024  # the outputs of one replay, as canonical JSON
MAX_WAIT_MS: Final = 30_000
MAX_SCROLL_ROUNDS: Final = 200
MAX_UPLOAD_BYTES: Final = 25 * 1024 * 1024  # one file an upload step sets (issue 32.2)
MAX_RETRY_TIMES: Final = 5  # a step's retries (issue 33)
MAX_RETRY_INTERVAL_MS: Final = 10_000
MAX_URL_PARTS: Final = 16  # placeholders of a navigate URL template
MAX_DOWNLOAD_BYTES: Final = 100 * 1024 * 1024  # one file a replay's download step keeps
# Earlier fingerprints a bundle keeps as accepted identities after adopted heals (newest first).
MAX_ACCEPTED_IDENTITIES: Final = 4
MAX_ENVIRONMENTS: Final = 16
MAX_QUERY_KEYS: Final = 32
MAX_LOGINS: Final = 256
# `replay --batch FILE`: rows and file size, and the concurrent browser contexts of one batch.
MAX_BATCH_ROWS: Final = 100_000
MAX_BATCH_BYTES: Final = 64 * 1024 * 1024
WORKERS_RANGE: Final = (1, 16)
DEFAULT_WORKERS: Final = 4
# The edges' own options: a local port (`demo`, `ui`; 0 asks the system for any free one), how long
# the MCP server's warm Chromium outlives the last play, and a fleet worker's processes and heartbeat.
PORT_RANGE: Final = (0, 65535)
ANY_FREE_PORT: Final = 0
BROWSER_IDLE_S_RANGE: Final = (0, 86_400)  # mcp --browser-idle; 0: a new Chromium for every play
DEFAULT_BROWSER_IDLE_S: Final = 300
WORKER_CONCURRENCY_RANGE: Final = (1, 64)  # worker --concurrency
DEFAULT_WORKER_CONCURRENCY: Final = 1
HEARTBEAT_S_RANGE: Final = (1.0, 600.0)  # replay --broker --heartbeat (a row's liveness timeout)
DEFAULT_HEARTBEAT_S: Final = 30.0
TASK_EXPIRES_MIN_RANGE: Final = (1, 1440)  # replay --broker --task-expires: a fleet task's lifetime
DEFAULT_TASK_EXPIRES_MIN: Final = 15
# The largest number an option may name (a revision, a run number, a count): SQLite's largest
# integer. Larger ones are bad usage, not an overflow deep in the store.
MAX_OPTION_NUMBER: Final = 2**63 - 1

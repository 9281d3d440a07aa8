"""An order desk written with Streamlit's own widgets (React and BaseWeb, the whole page drawn and
updated over a WebSocket): a customer filter, the matching orders as rows with a "Mark shipped"
button each, a selectbox (a ``role=combobox`` whose listbox opens in a popover portal) for the
priority of the one order a filter leaves, and a form that adds an order, folded in an expander.
At 1.28.2 (late 2023) and 1.50.0 (2025): other test ids (``baseButton-secondary`` became
``stBaseButton-secondary``, ``stNotification`` became ``stAlertContainer``), other class names and
wrappers around the same widgets, and the expander's arrow, an ``aria-hidden`` SVG at 1.28, is a
Material Symbols ligature at 1.50: its summary reads "keyboard_arrow_right New order". No sign-in:
Streamlit has none of its own.

The pins are the whole resolved environment of each version on Python 3.11 (the 1.28 line needs a
pyarrow and pandas of its time: pyarrow 26 refuses its NumPy 1.26).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .spec import App, Change, Check, Click, Fill, Pick, Press, Row, Tables, Task, Version

FILTER = "input[aria-label='Customer filter']"
NOTICE = "[data-testid=stAlert]"


def _open_order(tables: Tables, customer: str) -> object:
    (key,) = [
        k for k, row in tables["orders"].items() if row["customer"] == customer and row["status"] == "open"
    ]
    return key


def _prioritised(tables: Tables, inputs: Mapping[str, str]) -> Change:
    key = _open_order(tables, inputs["customer"])
    return Change(changed={"orders": {key: {"priority": inputs["priority"]}}})


def _shipped(tables: Tables, inputs: Mapping[str, str]) -> Change:
    key = _open_order(tables, inputs["customer"])
    return Change(changed={"orders": {key: {"status": "shipped"}}})


def _added(tables: Tables, inputs: Mapping[str, str]) -> Change:
    row: Row = {
        "customer": inputs["customer"],
        "item": inputs["item"],
        "priority": inputs["priority"],
        "status": "open",
    }
    return Change(added={"orders": (row,)})


TASKS = (
    Task(
        "set-priority",
        "Filter the orders by customer, pick the order's priority by its label and save it",
        "/",
        (
            Fill(FILTER, "customer"),
            Press("Enter"),
            Pick("input[role=combobox] >> nth=0", "priority"),
            Click("button:has-text('Save priority')"),
        ),
        (Check(NOTICE, "priority saved"),),
        {"customer": "Chiara Neri", "priority": "Urgent"},
        {"customer": "Kofi Mensah", "priority": "Low"},
        _prioritised,
    ),
    Task(
        "ship-order",
        "Filter the orders by customer and mark that customer's open order shipped",
        "/",
        (
            Fill(FILTER, "customer"),
            Press("Enter"),
            Click("button:has-text('Mark shipped')"),
        ),
        (Check(NOTICE, "marked shipped"),),
        {"customer": "Ana Lima"},
        {"customer": "Jonas Berg"},
        _shipped,
    ),
    Task(
        "new-order",
        "Unfold the new-order form, fill it, pick its priority by label and add the order",
        "/",
        (
            Click("summary:has-text('New order')"),
            Fill("[data-testid=stForm] input[aria-label=Customer]", "customer"),
            Fill("[data-testid=stForm] input[aria-label=Item]", "item"),
            Pick("[data-testid=stForm] input[role=combobox]", "priority"),
            Click("button:has-text('Add order')"),
        ),
        (Check(NOTICE, "added"),),
        {"customer": "Rhea Corder", "item": "Desk mat", "priority": "High"},
        {"customer": "Paul Player", "item": "Monitor stand", "priority": "Urgent"},
        _added,
    ),
)

_SHARED = (  # the pins both versions' environments resolve to alike
    "altair==5.5.0",
    "attrs==26.1.0",
    "blinker==1.9.0",
    "certifi==2026.10.19.post1",
    "charset-normalizer==3.5.3",
    "click==8.5.1",
    "gitdb==4.0.12",
    "GitPython==3.2.1",
    "idna==3.20",
    "Jinja2==3.1.6",
    "jsonschema-specifications==2025.9.1",
    "jsonschema==4.26.0",
    "MarkupSafe==3.0.4",
    "narwhals==2.29.0",
    "pydeck==0.9.3",
    "pytz==2026.6",
    "referencing==0.37.0",
    "requests==2.34.2",
    "rpds-py==2026.9.1",
    "smmap==5.0.3",
    "toml==0.10.2",
    "tornado==6.6.1",
    "typing_extensions==4.16.0",
    "tzdata==2026.6",
    "urllib3==2.8.0",
)

APP = App(
    name="streamlit",
    source=Path(__file__).resolve().parent / "apps" / "streamlit",
    versions=(
        Version(
            "1.28.2",
            (
                "streamlit==1.28.2",
                "cachetools==5.5.2",
                "importlib-metadata==6.11.0",
                "markdown-it-py==4.3.0",
                "mdurl==0.1.2",
                "numpy==1.26.4",
                "packaging==23.2",
                "pandas==2.1.4",
                "pillow==10.4.0",
                "protobuf==4.25.9",
                "pyarrow==14.0.2",
                "Pygments==2.21.0",
                "python-dateutil==2.9.0.post0",
                "rich==13.9.4",
                "six==1.17.0",
                "tenacity==8.5.0",
                "tzlocal==5.4.5",
                "validators==0.36.0",
                "watchdog==7.1.0",
                "zipp==4.1.2",
                *_SHARED,
            ),
        ),
        Version(
            "1.50.0",
            (
                "streamlit==1.50.0",
                "cachetools==6.2.6",
                "numpy==2.4.6",
                "packaging==25.0",
                "pandas==2.3.3",
                "pillow==11.3.0",
                "protobuf==6.33.6",
                "pyarrow==26.0.1",
                "python-dateutil==4.0.0",
                "tenacity==9.2.1",
                "watchdog==6.0.0",
                *_SHARED,
            ),
        ),
    ),
    ready_path="/",
    tasks=TASKS,
)

"""The one error a step graph that breaks a rule raises while a draft is built or parsed (the step
documents of ``model.actions``, the reads of ``model.reads``, the graph rules of ``model.graph``).
"""

from __future__ import annotations


class GraphProblem(ValueError):
    """A step graph that breaks a rule, found while a draft is built or parsed. ``code`` is an
    ``SR_RECORD_GRAPH_*`` / ``SR_RECORD_LOOP_BOUND`` code; the message names the step id and never
    a value. ``user_files.input_error`` reports it with its own code."""

    def __init__(self, code: str, step: str | None, message: str) -> None:
        super().__init__(f"step {step}: {message}" if step else message)
        self.code = code
        self.step = step

"""What the subset's modules share: the two module-scoped fixtures of an app's run, ``installed``
(its venvs, built or found in the corpus cache) and ``results`` (one run of a selection of its
tasks). A module binds them: ``installed, results = subset.fixtures(APP, Selection(...))``."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from bench.realworld.envs import Installed, install
from bench.realworld.run import Result, Selection, run_app
from bench.realworld.spec import App


def fixtures(app: App, selection: Selection) -> tuple[Callable[..., object], Callable[..., object]]:
    @pytest.fixture(scope="module")
    def installed() -> list[Installed]:
        return [install(app, version, log=lambda line: None) for version in app.versions]

    @pytest.fixture(scope="module")
    def results(installed: list[Installed], tmp_path_factory: pytest.TempPathFactory) -> list[Result]:
        return run_app(app, installed, selection, tmp_path_factory.mktemp("realworld"), log=lambda line: None)

    return installed, results

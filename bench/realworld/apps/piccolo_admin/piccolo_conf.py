"""Piccolo's configuration: the SQLite database at RW_DB."""

import os

from piccolo.conf.apps import AppRegistry
from piccolo.engine.sqlite import SQLiteEngine

DB = SQLiteEngine(path=os.environ["RW_DB"])
APP_REGISTRY = AppRegistry(apps=[])

"""The order desk's SQLite database at $RW_DB: one table of orders."""

import os
import sqlite3

PRIORITIES = ("Low", "Normal", "High", "Urgent")
SCHEMA = """
CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    customer TEXT NOT NULL,
    item TEXT NOT NULL,
    priority TEXT NOT NULL,
    status TEXT NOT NULL
);
"""


def connect():
    con = sqlite3.connect(os.environ["RW_DB"])
    con.row_factory = sqlite3.Row
    return con

"""A Piccolo Admin site for the real-app corpus: sign-in (Piccolo's own users and sessions tables),
teams and tickets (a ticket's team is a foreign key, its priority a choice). The database path
comes from RW_DB, through piccolo_conf.py."""

import enum
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from piccolo.apps.user.tables import BaseUser
from piccolo.columns import ForeignKey, Integer, Varchar
from piccolo.columns.readable import Readable
from piccolo.table import Table
from piccolo_admin.endpoints import create_admin
from piccolo_api.session_auth.tables import SessionsBase


class Team(Table):
    name = Varchar(length=80, unique=True)

    @classmethod
    def get_readable(cls) -> Readable:
        """A team shows by its name (in the ticket list and the team picker)."""
        return Readable(template="%s", columns=[cls.name])


class Ticket(Table):
    class Priority(enum.StrEnum):
        low = "l"
        normal = "n"
        high = "h"
        urgent = "u"

    title = Varchar(length=120)
    team = ForeignKey(references=Team)
    priority = Varchar(length=1, choices=Priority, default=Priority.normal)
    estimate = Integer(default=1)


TABLES = (BaseUser, SessionsBase, Team, Ticket)

app = create_admin(
    tables=[Team, Ticket],
    auth_table=BaseUser,
    session_table=SessionsBase,
    site_name="Support desk",
    allowed_hosts=["127.0.0.1"],
)

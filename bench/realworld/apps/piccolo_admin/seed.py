"""Build the seed database: the same users, teams and tickets on every Piccolo Admin version."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from app import TABLES, BaseUser, Team, Ticket

USERS = [("curator", "Curator-pass-1"), ("operator", "Operator-pass-2")]  # admins, with an email each
TEAMS = ["Billing", "Hardware", "Network", "Accounts"]
TICKETS = [
    ("Printer jams on tray two", "Hardware", "n", 2),
    ("Invoice total off by a cent", "Billing", "h", 3),
    ("VPN drops every hour", "Network", "u", 5),
    ("Password reset mail missing", "Accounts", "n", 1),
    ("Refund not received", "Billing", "l", 2),
    ("Laptop battery swollen", "Hardware", "u", 1),
    ("Wi-Fi slow in room 4", "Network", "l", 3),
    ("Duplicate account merge", "Accounts", "h", 4),
]

for table in TABLES:
    table.create_table(if_not_exists=True).run_sync()
for username, password in USERS:
    BaseUser.create_user_sync(
        username=username, password=password, email=f"{username}@example.org", admin=True, active=True
    )
teams = {}
for name in TEAMS:
    team = Team(name=name)
    team.save().run_sync()
    teams[name] = team.id
for title, team, priority, estimate in TICKETS:
    Ticket(title=title, team=teams[team], priority=priority, estimate=estimate).save().run_sync()

"""Build the seed database: migrate, then the same users and books on every Django version.

RW_DB=/path/seed.sqlite3 python seed.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rwsite.settings")

import django

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from library.models import Book  # noqa: E402

USERS = [("curator", "Curator-pass-1"), ("operator", "Operator-pass-2")]
BOOKS = [
    ("Dune", "Frank Herbert", "published", 412),
    ("Emma", "Jane Austen", "published", 474),
    ("Middlemarch", "George Eliot", "draft", 880),
    ("Walden", "Henry Thoreau", "archived", 352),
    ("Quiet Harbours", "Rita Hayes", "archived", 210),
    ("Northern Lights at Dawn", "Rita Hayes", "archived", 198),
    ("Salt and Cedar", "Rita Hayes", "published", 305),
    ("Glass Orchard", "Tom Brandt", "archived", 150),
    ("The Iron Meadow", "Tom Brandt", "archived", 260),
    ("Lanterns", "Tom Brandt", "archived", 120),
    ("Paper Comets", "Tom Brandt", "draft", 99),
    ("Orbit of Small Things", "Mara Lind", "published", 240),
]

call_command("migrate", verbosity=0, interactive=False)
for name, password in USERS:
    User.objects.create_superuser(name, f"{name}@example.test", password)
for title, author, status, pages in BOOKS:
    Book.objects.create(title=title, author=author, status=status, pages=pages)

"""Serve the admin on 127.0.0.1:PORT with the database RW_DB (static files too, DEBUG off).

RW_DB=/path/db.sqlite3 python serve.py PORT
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rwsite.settings")

from django.core.management import execute_from_command_line

execute_from_command_line(["serve.py", "runserver", "--noreload", "--insecure", f"127.0.0.1:{sys.argv[1]}"])

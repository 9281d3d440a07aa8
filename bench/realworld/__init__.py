"""The real-app corpus (issue 10): real open-source web applications installed from PyPI at
several versions, seeded with identical data, and everyday tasks recorded once on the oldest
version and replayed with other inputs on every version, by skillreel and by a codegen-style
Playwright baseline side by side. After every run the application's database is compared with
the intended change. See docs/realworld.md.

    .venv/bin/python -m bench.realworld                 # everything; writes bench/REALWORLD.md
    .venv/bin/python -m bench.realworld --app django-admin --task edit-book --tool skillreel
"""

"""Serve the order desk on 127.0.0.1:PORT as `streamlit run` does: headless, no usage statistics,
no file watcher, nothing that leaves 127.0.0.1. Streamlit 1.28 asks PyPI for a newer version at
one start in twenty (no option turns it off), so that question is answered "no" here; the pages
are untouched."""

import os
import sys

from streamlit import version
from streamlit.web import cli

version.should_show_new_version_notice = lambda: False  # 1.28; later versions never ask

app = os.path.join(os.path.dirname(os.path.abspath(__file__)), "app.py")
sys.argv = [
    "streamlit",
    "run",
    app,
    "--server.address=127.0.0.1",
    f"--server.port={int(sys.argv[1])}",
    "--server.headless=true",
    "--server.fileWatcherType=none",
    "--server.runOnSave=false",
    "--browser.gatherUsageStats=false",
    "--global.developmentMode=false",
]
sys.exit(cli.main())

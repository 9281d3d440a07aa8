"""Serve the Flask-Admin site on 127.0.0.1:PORT (threaded Werkzeug server, no reloader)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from app import app

app.run(host="127.0.0.1", port=int(sys.argv[1]), threaded=True, use_reloader=False, debug=False)

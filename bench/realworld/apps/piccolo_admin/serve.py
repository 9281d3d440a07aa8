"""Serve the Piccolo Admin site on 127.0.0.1:PORT with uvicorn."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import uvicorn
from app import app

uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")

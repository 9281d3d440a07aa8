"""Every app of the corpus, in the order the table lists them."""

from __future__ import annotations

from . import corpus_django, corpus_flask_admin, corpus_piccolo_admin, corpus_sqladmin, corpus_streamlit

APPS = (
    corpus_django.APP,
    corpus_flask_admin.APP,
    corpus_sqladmin.APP,
    corpus_streamlit.APP,
    corpus_piccolo_admin.APP,
)

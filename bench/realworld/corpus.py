"""Every app of the corpus, in the order the table lists them."""

from __future__ import annotations

from . import corpus_django

APPS = (corpus_django.APP,)

"""Build the seed database: the same customers on every Flask-Admin version."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from app import Customer, app, db

CUSTOMERS = [
    ("Ada Byrne", "ada@byrne.example", "Dublin", True),
    ("Bruno Costa", "bruno@costa.example", "Porto", True),
    ("Chiara Neri", "chiara@neri.example", "Turin", True),
    ("Dmitri Volkov", "dmitri@volkov.example", "Riga", True),
    ("Elena Ruiz", "elena@ruiz.example", "Seville", True),
    ("Farah Haddad", "farah@haddad.example", "Porto", True),
    ("Gustav Lind", "gustav@lind.example", "Porto", False),
    ("Hana Sato", "hana@sato.example", "Riga", True),
    ("Ivo Novak", "ivo@novak.example", "Riga", True),
    ("Jonas Berg", "jonas@berg.example", "Riga", True),
    ("Kofi Mensah", "kofi@mensah.example", "Accra", True),
]

with app.app_context():
    db.create_all()
    for name, email, city, active in CUSTOMERS:
        db.session.add(Customer(name=name, email=email, city=city, active=active))
    db.session.commit()

"""Build the seed database: the same staff and products on every SQLAdmin version."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from app import Base, Product, Session, Staff, engine, hash_password

STAFF = [("curator", "Curator-pass-1", "s1"), ("operator", "Operator-pass-2", "s2")]
PRODUCTS = [
    ("Walnut Desk", "FUR-100", 4),
    ("Oak Chair", "FUR-101", 12),
    ("Linen Lamp", "LIT-200", 7),
    ("Brass Lamp", "LIT-201", 3),
    ("Paper Lantern", "LIT-202", 25),
    ("Wool Rug", "TEX-300", 2),
    ("Cotton Throw", "TEX-301", 9),
    ("Jute Basket", "TEX-302", 14),
    ("Glass Vase", "DEC-400", 6),
    ("Stone Bowl", "DEC-401", 8),
]

Base.metadata.create_all(engine)
with Session() as session:
    for username, password, salt in STAFF:
        session.add(Staff(username=username, password=hash_password(password, salt)))
    for name, sku, stock in PRODUCTS:
        session.add(Product(name=name, sku=sku, stock=stock, discontinued=False))
    session.commit()

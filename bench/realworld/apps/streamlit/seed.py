"""Build the order desk's seed database at $RW_DB (the same rows on every version)."""

from db import SCHEMA, connect

ORDERS = [
    (1001, "Ana Lima", "Desk lamp", "Normal", "open"),
    (1002, "Kofi Mensah", "Office chair", "Normal", "open"),
    (1003, "Chiara Neri", "Monitor arm", "High", "open"),
    (1004, "Jonas Berg", "Standing desk", "Low", "open"),
    (1005, "Ana Lima", "Cable tray", "Low", "shipped"),
    (1006, "Mei Tanaka", "Keyboard", "Urgent", "open"),
    (1007, "Paolo Neri", "Footrest", "Normal", "open"),
    (1008, "Lena Vogel", "Webcam", "High", "shipped"),
]

con = connect()
con.executescript(SCHEMA)
con.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?)", ORDERS)
con.commit()
con.close()

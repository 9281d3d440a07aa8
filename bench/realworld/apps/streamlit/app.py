"""An order desk built from Streamlit's own widgets: a customer filter, the matching orders as rows
with a "Mark shipped" button each, a priority picker for the one order a filter leaves, and a form
that adds an order, folded in an expander. Every change is written to the SQLite database at $RW_DB."""

import streamlit as st
from db import PRIORITIES, connect

st.set_page_config(page_title="Order desk")


def flash(message):
    st.session_state["flash"] = message


def ship(order_id):
    with connect() as con:
        con.execute("UPDATE orders SET status = 'shipped' WHERE id = ?", (order_id,))
    flash(f"Order {order_id} marked shipped")


def save_priority(order_id):
    priority = st.session_state[f"priority-{order_id}"]
    with connect() as con:
        con.execute("UPDATE orders SET priority = ? WHERE id = ?", (priority, order_id))
    flash(f"Order {order_id} priority saved")


def add_order():
    customer = st.session_state["new-customer"].strip()
    item = st.session_state["new-item"].strip()
    if not customer or not item:
        flash("A new order needs a customer and an item")
        return
    with connect() as con:
        cursor = con.execute(
            "INSERT INTO orders (customer, item, priority, status) VALUES (?, ?, ?, 'open')",
            (customer, item, st.session_state["new-priority"]),
        )
    flash(f"Order {cursor.lastrowid} added")


st.title("Order desk")
if "flash" in st.session_state:
    st.success(st.session_state.pop("flash"))

query = st.text_input("Customer filter", placeholder="Type a customer's name")
with connect() as con:
    orders = con.execute("SELECT * FROM orders ORDER BY id").fetchall()
shown = [o for o in orders if query.strip().lower() in o["customer"].lower()]

st.subheader("Orders")
for order in shown:
    number, customer, item, priority, status, action = st.columns([2, 3, 3, 2, 2, 3])
    number.write(f"Order {order['id']}")
    customer.write(order["customer"])
    item.write(order["item"])
    priority.write(order["priority"])
    status.write(order["status"])
    if order["status"] != "shipped":
        action.button("Mark shipped", key=f"ship-{order['id']}", on_click=ship, args=(order["id"],))
if not shown:
    st.info("No order matches the filter")

if query.strip() and len(shown) == 1:
    order = shown[0]
    st.subheader(f"Order {order['id']}")
    st.selectbox(
        "Priority", PRIORITIES, index=PRIORITIES.index(order["priority"]), key=f"priority-{order['id']}"
    )
    st.button("Save priority", on_click=save_priority, args=(order["id"],))

with st.expander("New order"), st.form("new-order", clear_on_submit=True):
    st.text_input("Customer", key="new-customer")
    st.text_input("Item", key="new-item")
    st.selectbox("Priority", PRIORITIES, index=1, key="new-priority")
    st.form_submit_button("Add order", on_click=add_order)

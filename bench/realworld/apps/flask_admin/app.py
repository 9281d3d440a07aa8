"""A Flask-Admin site for the real-app corpus: one model (a customer), stock list/create/edit views
with search, and one bulk action. Runs on Flask-Admin 1.6 (Bootstrap 3 templates) and 2.x
(Bootstrap 4). The database path comes from RW_DB."""

import os

import flask_admin
from flask import Flask, flash, redirect
from flask_admin import Admin
from flask_admin.actions import action
from flask_admin.contrib.sqla import ModelView
from flask_sqlalchemy import SQLAlchemy

app = Flask(__name__)
app.config["SQLALCHEMY_DATABASE_URI"] = "sqlite:///" + os.environ["RW_DB"]
app.config["SECRET_KEY"] = "realworld-corpus-not-a-secret"
db = SQLAlchemy(app)


class Customer(db.Model):  # type: ignore[name-defined,misc]
    id = db.Column(db.Integer, primary_key=True)
    name = db.Column(db.String(120), nullable=False)
    email = db.Column(db.String(120), nullable=False)
    city = db.Column(db.String(80), nullable=False, default="")
    active = db.Column(db.Boolean, nullable=False, default=True)


class CustomerView(ModelView):
    column_list = ["name", "email", "city", "active"]
    column_searchable_list = ["name", "city"]
    form_columns = ["name", "email", "city", "active"]
    page_size = 50

    @action("deactivate", "Deactivate")
    def deactivate(self, ids):  # type: ignore[no-untyped-def]
        count = Customer.query.filter(Customer.id.in_(ids)).update(
            {"active": False}, synchronize_session=False
        )
        db.session.commit()
        flash(f"{count} customers were deactivated.", "success")


def _admin() -> Admin:
    major = int(flask_admin.__version__.split(".")[0])
    if major >= 2:
        from flask_admin.theme import Bootstrap4Theme

        return Admin(app, name="Shop admin", theme=Bootstrap4Theme())
    return Admin(app, name="Shop admin", template_mode="bootstrap3")


admin = _admin()
admin.add_view(CustomerView(Customer, db.session))


@app.route("/")
def index():  # type: ignore[no-untyped-def]
    return redirect("/admin/")

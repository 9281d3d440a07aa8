"""A SQLAdmin site for the real-app corpus: sign-in (SQLAdmin's own login page, checked against a
users table), one model (a product) with search, create, edit and a bulk action. The database path
comes from RW_DB."""

import hashlib
import hmac
import os

from sqladmin import Admin, ModelView, action
from sqladmin.authentication import AuthenticationBackend
from sqlalchemy import Boolean, Column, Integer, String, create_engine, update
from sqlalchemy.orm import declarative_base, sessionmaker
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse

Base = declarative_base()
engine = create_engine("sqlite:///" + os.environ["RW_DB"], connect_args={"check_same_thread": False})
Session = sessionmaker(bind=engine)


class Staff(Base):  # type: ignore[misc,valid-type]
    __tablename__ = "staff"
    id = Column(Integer, primary_key=True)
    username = Column(String(80), unique=True, nullable=False)
    password = Column(String(200), nullable=False)


class Product(Base):  # type: ignore[misc,valid-type]
    __tablename__ = "product"
    id = Column(Integer, primary_key=True)
    name = Column(String(120), nullable=False)
    sku = Column(String(40), nullable=False)
    stock = Column(Integer, nullable=False, default=0)
    discontinued = Column(Boolean, nullable=False, default=False)


def hash_password(password: str, salt: str) -> str:
    """Werkzeug's ``pbkdf2:sha256:N$salt$hex`` format."""
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), 10_000)
    return f"pbkdf2:sha256:10000${salt}${digest.hex()}"


def check_password(stored: str, password: str) -> bool:
    _, salt, _ = stored.split("$")
    return hmac.compare_digest(stored, hash_password(password, salt))


class StaffAuth(AuthenticationBackend):
    async def login(self, request: Request) -> bool:
        form = await request.form()
        with Session() as session:
            staff = session.query(Staff).filter_by(username=str(form.get("username", ""))).one_or_none()
            if staff is None or not check_password(staff.password, str(form.get("password", ""))):
                return False
        request.session.update({"staff": staff.username})
        return True

    async def logout(self, request: Request) -> bool:
        request.session.clear()
        return True

    async def authenticate(self, request: Request) -> bool:
        return "staff" in request.session


class ProductAdmin(ModelView, model=Product):  # type: ignore[call-arg]
    column_list = [Product.id, Product.name, Product.sku, Product.stock, Product.discontinued]
    column_searchable_list = [Product.name, Product.sku]
    form_columns = [Product.name, Product.sku, Product.stock, Product.discontinued]
    page_size = 50

    @action(
        name="discontinue",
        label="Discontinue",
        confirmation_message="Discontinue the selected products?",
        add_in_detail=False,
        add_in_list=True,
    )
    async def discontinue(self, request: Request) -> RedirectResponse:
        ids = [int(pk) for pk in request.query_params.get("pks", "").split(",") if pk]
        with Session() as session:
            session.execute(update(Product).where(Product.id.in_(ids)).values(discontinued=True))
            session.commit()
        return RedirectResponse(request.url_for("admin:list", identity=self.identity))


app = Starlette()
admin = Admin(
    app,
    engine,
    title="Shop admin",
    authentication_backend=StaffAuth(secret_key="realworld-corpus-not-a-secret"),
)
admin.add_view(ProductAdmin)

"""Hostile review of values between steps (issue 33.1): a navigate URL template's value (an input,
an extracted output, a row's field) never chooses the host, leaves its path segment or the
template's origin, or walks up the path: each attack stays on the template's origin, inside its
one segment, or fails closed (``TemplateProblem``)."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from skillreel.errors import SkillreelError
from skillreel.model.actions import NavigateAction
from skillreel.model.refs import ParameterRef
from skillreel.model.url_template import TemplateProblem, fill

ATTACKS = [
    "@evil.test",
    "//evil.test",
    "%2f%2fevil.test",
    "%2F%2Fevil.test%2F",
    "\\\\evil.test",
    "/\\evil.test",
    "https://evil.test/x",
    "javascript:alert(1)",
    "evil.test:443@shop",
    "xn--80ak6aa92e.com",
    "аррӏе.com",  # Cyrillic look-alike of apple.com
    "a/../../admin",
    "?next=https://evil.test",
    "#@evil.test",
    "\t\n//evil.test",
    "\u2028//evil.test",
    "{x}",
    "%00",
]


@pytest.mark.parametrize(
    "template", ["http://shop.test/orders/{x}", "http://shop.test/{x}/items", "http://shop.test/s?q={x}"]
)
@pytest.mark.parametrize("value", ATTACKS)
def test_a_value_stays_on_the_origin_and_in_its_segment(template: str, value: str) -> None:
    try:
        filled = fill(template, {"x": value})
    except TemplateProblem:
        return  # failed closed
    parts = urlsplit(filled)
    assert (parts.scheme, parts.netloc, parts.fragment) == ("http", "shop.test", "")
    written = urlsplit(template).path.split("/")
    assert len(parts.path.split("/")) == len(written)
    for segment, was in zip(parts.path.split("/"), written, strict=True):
        assert segment == was or "{x}" in was
    assert (filled.count("/"), filled.count("?")) == (template.count("/"), template.count("?"))
    assert not any(c in filled for c in "\\\t\n\r\u2028@#{}")


@pytest.mark.parametrize("value", ["..", ".", "%2e%2e", "%2E.", ".%2e"])
def test_a_value_cannot_walk_up_the_path(value: str) -> None:
    try:
        filled = fill("http://shop.test/a/{x}/b", {"x": value})
    except TemplateProblem:
        return
    assert urlsplit(filled).path.split("/")[2] not in ("..", ".")
    assert "%25" in filled  # a '%' in a value is encoded: a browser cannot decode it to a dot


@pytest.mark.parametrize("halves", [(".", "."), ("", ".."), ("..", "")])
def test_two_values_cannot_make_a_dot_segment_together(halves: tuple[str, str]) -> None:
    with pytest.raises(TemplateProblem):
        fill("http://shop.test/a/{x}{y}/b", {"x": halves[0], "y": halves[1]})


@pytest.mark.parametrize(
    "url",
    [
        "http://{x}.shop.test/",
        "http://shop.test{x}/",
        "http://shop.test:{x}/",
        "http://{x}@shop.test/",
        "http://shop.test{x}",
        "{x}/orders",
        "http:{x}",
    ],
)
def test_a_placeholder_in_the_origin_is_refused_by_the_model(url: str) -> None:
    with pytest.raises((SkillreelError, ValueError)):
        NavigateAction(id="a1", url=url, reason="address-bar", parts={"x": ParameterRef(name="x")})

"""Reading JSON input files: regular files only, bounded, and errors that never echo values."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from skillreel.errors import InputError
from skillreel.model.draft import Draft
from skillreel.model.export import ExportDocument
from skillreel.model.limits import MAX_JSON_INPUT_BYTES
from skillreel.model.policy import PolicySettings
from skillreel.user_files import decode_json_object, parse_document, read_user_file
from tests.support import factory
from tests.support.factory import T1


def code_of(call: Callable[[], object]) -> str:
    with pytest.raises(InputError) as err:
        call()
    assert err.value.exit_status == 2
    return err.value.code


def test_reads_a_regular_file(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_bytes(b'{"a": 1}')
    assert read_user_file(path) == b'{"a": 1}'


def test_refuses_missing_symlink_directory_and_fifo(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (tmp_path / "missing.json", link, tmp_path, fifo):
        assert code_of(functools.partial(read_user_file, path)) == "SR_RECORD_INPUT_NOT_REGULAR"
    with pytest.raises(InputError, match="symlink"):
        read_user_file(link)


def test_refuses_files_over_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b" " * (MAX_JSON_INPUT_BYTES + 1))
    assert code_of(lambda: read_user_file(path)) == "SR_RECORD_INPUT_TOO_LARGE"
    path.write_bytes(b" " * MAX_JSON_INPUT_BYTES)
    assert len(read_user_file(path)) == MAX_JSON_INPUT_BYTES
    assert code_of(lambda: read_user_file(path, limit=10)) == "SR_RECORD_INPUT_TOO_LARGE"


@pytest.mark.parametrize("data", [b"", b"{", b"\xff\xfe", b"[1, 2]", b"null", b'{"a": NaN}', b"[" * 100_000])
def test_malformed_json(data: bytes) -> None:
    assert code_of(lambda: parse_document(PolicySettings, data)) == "SR_RECORD_INPUT_MALFORMED"


def test_decode_json_object() -> None:
    assert decode_json_object(b'{"a": 1}') == {"a": 1}
    assert code_of(lambda: decode_json_object(b"[1]")) == "SR_RECORD_INPUT_MALFORMED"
    assert code_of(lambda: decode_json_object(b"[" * 100_000)) == "SR_RECORD_INPUT_MALFORMED"


def test_unknown_keys_and_bad_values_are_malformed_without_echoing_them() -> None:
    secret = "hunter2-do-not-echo"
    data = json.dumps({**PolicySettings().to_json(), secret: 1}).encode()
    with pytest.raises(InputError) as err:
        parse_document(PolicySettings, data, what="policy file")
    assert err.value.code == "SR_RECORD_INPUT_MALFORMED"
    assert "policy file" in err.value.message
    assert secret not in err.value.message
    bad_value = json.dumps({**PolicySettings().to_json(), "healMode": secret}).encode()
    with pytest.raises(InputError) as err:
        parse_document(PolicySettings, bad_value)
    assert err.value.code == "SR_RECORD_INPUT_MALFORMED"
    assert secret not in err.value.message
    bad_tag = factory.draft().to_json()
    bad_tag["actions"][0]["kind"] = secret
    with pytest.raises(InputError) as err:
        parse_document(Draft, json.dumps(bad_tag))
    assert secret not in err.value.message
    bad_key = factory.draft().to_json()
    bad_key["actions"][1]["target"]["fingerprint"]["attributes"] = {"x y " + secret: "0" * 16}
    with pytest.raises(InputError) as err:
        parse_document(Draft, json.dumps(bad_key))
    assert secret not in err.value.message
    assert "<key>" in err.value.message


def test_a_wrong_schema_version_anywhere_is_a_schema_error() -> None:
    export = ExportDocument.build(entry=factory.entry(), exported_at=T1).to_json()
    export["entry"]["draft"]["schema"] = "skillreel.draft/v9"
    assert code_of(lambda: parse_document(ExportDocument, json.dumps(export))) == "SR_RECORD_SCHEMA_VERSION"
    top = PolicySettings().to_json() | {"schema": "skillreel.policy/v2", "futureKey": 1}
    assert code_of(lambda: parse_document(PolicySettings, json.dumps(top))) == "SR_RECORD_SCHEMA_VERSION"


def test_a_changed_value_is_a_digest_mismatch() -> None:
    export = ExportDocument.build(entry=factory.entry(), exported_at=T1).to_json()
    export["entry"]["draft"]["description"] = "Changed after export."
    with pytest.raises(InputError) as err:
        parse_document(ExportDocument, json.dumps(export))
    assert err.value.code == "SR_RECORD_DIGEST_MISMATCH"
    assert "Changed after export" not in err.value.message


def test_a_valid_document_parses() -> None:
    export = ExportDocument.build(entry=factory.entry(), exported_at=T1)
    assert parse_document(ExportDocument, json.dumps(export.to_json()).encode()) == export

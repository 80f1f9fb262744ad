"""as_model_error and scrub without a server: classification, outcome wording, secrets removed."""

from __future__ import annotations

import json

import pytest

from core.errors import ModelError
from core.provider_errors import as_model_error, register_secret, scrub

SECRET = "my-registered-secret-42"


@pytest.mark.parametrize(("text", "expected"), [
    ("key sk-abcdef0123456789 rejected", "key *** rejected"),
    ("Authorization: Bearer abc.def-123", "Authorization: Bearer ***"),
    ('{"api_key": "zhipu.ABCDEF"}', '{"api_key": "***"}'),
    ("https://host/v1?api-key=XYZ123&x=1", "https://host/v1?api-key=***&x=1"),
    ("Incorrect API key provided: sk-abc***wxyz.", "Incorrect API key provided: ***"),
    ("平常的中文句子，没有密钥。", "平常的中文句子，没有密钥。"),
])
def test_scrub_removes_key_shapes(text, expected):
    assert scrub(text) == expected


def test_scrub_removes_a_registered_secret_without_a_known_shape():
    register_secret(SECRET)
    assert scrub(f"the server said {SECRET}!") == "the server said ***!"


def test_register_secret_ignores_tiny_placeholders():
    register_secret("x")
    assert scrub("x marks the spot") == "x marks the spot"


def test_as_model_error_returns_a_model_error_unchanged():
    error = ModelError("模型返回了空回答。", kind="empty_answer")
    assert as_model_error(error) is error


def test_as_model_error_scrubs_the_original_exception_too():
    register_secret(SECRET)
    original = RuntimeError(f"boom with {SECRET}")
    result = as_model_error(original)
    assert SECRET not in str(result) and SECRET not in str(original)


@pytest.mark.parametrize(("error", "kind"), [
    (TimeoutError("slow"), "timeout"),
    (ConnectionRefusedError(111, "refused"), "connection"),
    (json.JSONDecodeError("Expecting value", "<html>", 0), "bad_response"),
    (ValueError("No generation chunks were returned"), "bad_response"),
    (RuntimeError("something else"), "model_error"),
])
def test_as_model_error_classifies_plain_exceptions(error, kind):
    assert as_model_error(error).kind == kind


def test_as_model_error_follows_the_cause_chain():
    try:
        try:
            raise ConnectionRefusedError(111, "refused")
        except OSError as inner:
            raise RuntimeError("wrapper") from inner
    except RuntimeError as outer:
        assert as_model_error(outer).kind == "connection"


def test_as_model_error_names_embed_settings_for_embed_source():
    message = str(as_model_error(ConnectionRefusedError(111, "refused"), source="embed"))
    assert "向量模型" in message and "XIAOE_EMBED_BASE_URL" in message


def test_as_model_error_embed_timeout_points_at_the_shared_timeout_setting():
    assert "XIAOE_LLM_TIMEOUT" in str(as_model_error(TimeoutError(), source="embed"))


def test_as_model_error_without_outcome_says_nothing_about_answers():
    message = str(as_model_error(TimeoutError(), outcome=""))
    assert "没有生成回答" not in message and message.startswith("回答模型")

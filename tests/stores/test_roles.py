"""Roles: the permission table, checked for every action and both roles."""

from __future__ import annotations

import pytest

from core.errors import AuthError
from core.stores.roles import PERMISSIONS, User, require

CONSULTANT = User("amy", "顾问 Amy", "consultant")
ADMIN = User("boss", "王校长", "admin")

# (permission, consultant may, admin may): written out by hand so a change to PERMISSIONS must change this too.
TABLE = [
    ("ask", True, True),
    ("flag", True, True),
    ("review", True, True),
    ("export", True, True),
    ("propose_synonym", True, True),
    ("edit_glossary", False, True),
    ("set_threshold", False, True),
    ("edit_corpus", False, True),
    ("rebuild_index", False, True),
    ("edit_question_sets", False, True),
    ("manage_accounts", False, True),
    ("view_settings", False, True),
    ("retire_answer", False, True),
    ("link_question", True, True),
    ("mark_baseline", False, True),
    ("manage_keys", False, True),
    ("manage_sensitive", False, True),
    ("purge_conversations", False, True),
]


def test_roles_table_covers_every_permission():
    assert sorted(p for p, _, _ in TABLE) == sorted(PERMISSIONS)


@pytest.mark.parametrize(("permission", "consultant", "admin"), TABLE)
def test_roles_require_matches_table(permission, consultant, admin):
    for user, allowed in ((CONSULTANT, consultant), (ADMIN, admin)):
        assert user.can(permission) is allowed
        if allowed:
            assert require(user, permission) is user
        else:
            with pytest.raises(AuthError, match="你的角色是「顾问」"):
                require(user, permission)


@pytest.mark.parametrize("permission", sorted(PERMISSIONS))
def test_roles_anonymous_is_refused(permission):
    with pytest.raises(AuthError, match="请先登录"):
        require(None, permission)


def test_roles_unknown_permission_is_a_programming_error():
    with pytest.raises(ValueError):
        require(ADMIN, "delete_everything")


def test_roles_label_disambiguates_display_names():
    assert CONSULTANT.label == "顾问 Amy（amy）"
    assert User("amy", "amy", "consultant").label == "amy"

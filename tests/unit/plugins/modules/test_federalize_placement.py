# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""federalize_placement as Ansible runs it, on FakeClusters, after federalize adopted the application: a move
and its kept copies, a second run that changes nothing, refusals as messages (its API and access errors:
test_federalize.test_api_and_access_errors_are_messages_without_traceback, which runs both modules)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# The world fixture (both modules connected to the same FakeClusters) and the runs of both modules.
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.test_federalize import (  # noqa: F401 pylint: disable=unused-import
    members, run_federalize, run_placement, warnings, world,
)


def test_placement_migrates_and_warns_about_kept_copies(capsys, world):
    assert run_federalize(capsys)["rc"] == 0
    result = run_placement(capsys, clusters=["test-ucs"], keep_removed_copies=True)
    assert result["rc"] == 0 and result["changed"] is True, result
    assert result["added"] == ["test-ucs"] and result["removed"] == ["idc1"]
    assert "Deployment fed-demo/fed-dp-01" in result["kept_copies"]["idc1"]
    assert any("copies left running" in w for w in warnings(result))
    assert run_placement(capsys, clusters=["test-ucs"])["changed"] is False


def test_placement_refusals_are_messages(capsys, world):
    assert run_federalize(capsys)["rc"] == 0
    result = run_placement(capsys, clusters=["idc1", "test-ucs"], distribution="weighted")
    assert result["rc"] == 1 and result["msg"] == "distribution=weighted needs weights"
    result = run_placement(capsys, clusters=["test-ucs"], members=members("idc1"))
    assert result["rc"] == 1 and "no members entry for cluster test-ucs" in result["msg"]

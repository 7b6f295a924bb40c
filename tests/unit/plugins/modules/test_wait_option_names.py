# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The modules' wait options carry kubernetes.core's names (``wait_timeout``, ``wait_sleep``); the names
they had before stay as aliases that warn of their removal in 1.0.0, in the argument spec and the docs."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
import yaml

from ansible_collections.multicloud.federation.plugins.module_utils.applications import verify as verify_utils
from ansible_collections.multicloud.federation.plugins.module_utils.failover.decision import FailoverError
from ansible_collections.multicloud.federation.plugins.modules import failover, federation_verify, workload_rebalance
from ansible_collections.multicloud.federation.tests.unit.fakes.federation import (
    members_access,
    world,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import run_module

# module -> {kubernetes.core's name: the earlier name}
RENAMED = {
    failover: {"wait_timeout": "timeout", "wait_sleep": "poll_interval"},
    federation_verify: {"wait_timeout": "timeout", "wait_sleep": "poll_interval"},
    workload_rebalance: {"wait_timeout": "timeout", "wait_sleep": "poll_interval"},
}


@pytest.mark.parametrize("module", sorted(RENAMED, key=lambda m: m.__name__), ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_wait_options_have_kubernetes_core_names_and_deprecated_aliases(module):
    spec = module.argspec()
    documented = yaml.safe_load(module.DOCUMENTATION)["options"]
    for name, old in RENAMED[module].items():
        assert old not in spec and old not in documented
        assert spec[name]["aliases"] == [old] and documented[name]["aliases"] == [old]
        assert spec[name]["deprecated_aliases"] == [
            {"name": old, "version": "1.0.0", "collection_name": "multicloud.federation"}]
        assert (spec[name]["type"], spec[name]["default"]) == (documented[name]["type"], documented[name]["default"])
        assert "deprecated" in " ".join(documented[name]["description"])


@pytest.fixture
def federation(monkeypatch):
    control_plane, _members, connect = world()
    monkeypatch.setattr(federation_verify, "connect_control_plane", lambda module: control_plane)
    monkeypatch.setattr(verify_utils, "connect_member", connect)


def deprecations(result):
    return [str(entry.get("msg", entry)) if isinstance(entry, dict) else str(entry)
            for entry in result.get("deprecations", [])]


def test_the_earlier_names_still_work_and_warn(capsys, federation):
    args = {"name": "demo", "members": members_access()}
    current = run_module(federation_verify, capsys, dict(args, wait_timeout=0, wait_sleep=1))
    assert current["rc"] == 0 and current["problems"] == [], current
    assert deprecations(current) == []
    earlier = run_module(federation_verify, capsys, dict(args, timeout=0, poll_interval=1))
    assert earlier["rc"] == 0 and earlier["problems"] == [], earlier
    warned = deprecations(earlier)
    assert [text for text in warned if "timeout" in text] and [text for text in warned if "poll_interval" in text], warned


@pytest.mark.parametrize("names", [("wait_timeout", "wait_sleep"), ("timeout", "poll_interval")], ids=["current", "earlier"])
def test_failover_waits_as_long_as_either_name_says(capsys, monkeypatch, names):
    seen = {}

    def refuse(*args, **kwargs):
        seen.update(timeout=args[6], interval=kwargs["interval"])
        raise FailoverError("stopped before any cluster is read")
    monkeypatch.setattr(failover, "Failover", refuse)
    result = run_module(failover, capsys, {"members": members_access(), names[0]: 42, names[1]: 7})
    assert result["rc"] == 1 and result["msg"] == "stopped before any cluster is read", result
    assert seen == {"timeout": 42, "interval": 7}
    assert bool(deprecations(result)) == (names[0] == "timeout"), result

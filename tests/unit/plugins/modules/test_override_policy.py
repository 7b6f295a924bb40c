# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""override_policy as Ansible runs it, on a FakeCluster: options in, one run, results out; bad
input and API errors become a message, never a traceback."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import ApiError
from ansible_collections.multicloud.federation.plugins.modules import override_policy
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.federalize.test_overrides_run import (
    LB_NAME,
    NAMESPACE,
    app_objects,
    karmada_engine,
    runbook_policies,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import run_module


def members(*names):
    return [{"name": n, "host": n, "kubeconfig": "/kubeconfigs/%s.yaml" % n, "context": "internal"} for n in names]


@pytest.fixture
def control_plane(monkeypatch):
    cluster = karmada_engine(*app_objects()).control_plane
    monkeypatch.setattr(override_policy, "connect_control_plane", lambda module: cluster)
    return cluster


def run(capsys, check_mode=False, **args):
    args.setdefault("name", "volc-service-override")
    args.setdefault("namespace", NAMESPACE)
    args.setdefault("resource_selectors", [{"api_version": "v1", "kind": "Service", "name": "web"}])
    args.setdefault("rules", [{"targetClusters": {"clusters": ["cluster-b"]},
                               "overriders": {"jsonpatch": [{"operator": "add", "path": LB_NAME, "value": "clb"}]}}])
    args.setdefault("members", members("cluster-a", "cluster-b"))
    if check_mode:
        args["_ansible_check_mode"] = True
        args["_ansible_diff"] = True
    return run_module(override_policy, capsys, args)


def test_check_mode_then_run_then_nothing_to_do(capsys, control_plane, monkeypatch):
    seen = {}
    real = override_policy.federation_engine
    monkeypatch.setattr(override_policy, "federation_engine", lambda cluster, engine: seen.update(engine=engine) or
                        real(cluster, engine))
    planned = run(capsys, check_mode=True)
    assert planned["rc"] == 0 and planned["changed"] is True and "diff" in planned, planned
    assert seen == {"engine": "auto"} and planned["engine"] == "karmada"
    assert [w for w in control_plane.writes if not w[-1]] == []
    done = run(capsys)
    assert done["changed"] is True and done["policies"][0]["action"] == "created", done
    again = run(capsys)
    assert again["changed"] is False, again


def test_bad_operator_fails_with_the_message(capsys, control_plane):
    result = run(capsys, rules=[{"targetClusters": {"clusters": ["cluster-b"]},
                                 "overriders": {"jsonpatch": [{"operator": "copy", "path": LB_NAME, "value": "x"}]}}])
    assert result["rc"] == 1 and result["failed"] is True
    assert "operator 'copy' is not supported: use one of add, remove, replace" in result["msg"]
    assert control_plane.writes == []


def test_api_errors_are_a_message(capsys, control_plane, monkeypatch):
    def broken(*args, **kwargs):
        raise ApiError("the federation control plane: HTTP 403 Forbidden: no", 403)
    monkeypatch.setattr(control_plane, "create", broken)
    result = run(capsys)
    assert result["rc"] == 1 and result["msg"] == "the federation control plane: HTTP 403 Forbidden: no"


def test_a_whole_policy_is_an_option_and_names_the_rule_set(capsys, control_plane):
    """definition: the runbook's OverridePolicy pasted whole; name, namespace and rules stay unset."""
    definition = runbook_policies()[2]
    result = run_module(override_policy, capsys, {"definition": definition, "members": members("cluster-a", "cluster-b")})
    assert result["rc"] == 0 and result["policies"] == [
        {"kind": "OverridePolicy", "namespace": NAMESPACE, "name": "volc-service-override", "action": "created"}], result
    missing = run_module(override_policy, capsys, {"members": members("cluster-a", "cluster-b")})
    assert missing["rc"] == 1 and "name is required (or a definition" in missing["msg"]

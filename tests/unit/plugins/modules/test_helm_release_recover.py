# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""helm_release_recover as Ansible runs it, on a FakeCluster: the result, check and diff mode, and a
refusal as one message; the stored release never appears in the output."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
import json

from ansible_collections.multicloud.federation.plugins.module_utils.helm.release import recover
from ansible_collections.multicloud.federation.plugins.modules import helm_release_recover
from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster
from ansible_collections.multicloud.federation.tests.unit.plugins.module_utils.helm_release_samples import (
    NOW,
    SECRET_VALUE,
    release_secret,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import connect_to, run_module

SECRET = "sh.helm.release.v1.kruise.v2"


def run(capsys, monkeypatch, cluster, **args):
    names = connect_to(monkeypatch, helm_release_recover, cluster)
    monkeypatch.setattr(helm_release_recover, "recover", functools.partial(recover, now=NOW))
    args.setdefault("release_name", "kruise")
    args.setdefault("release_namespace", "default")
    result = run_module(helm_release_recover, capsys, args)
    result["connected_as"] = names
    return result


def pending(seconds_ago):
    return FakeCluster(objects=[release_secret("kruise", 1, "deployed"),
                                release_secret("kruise", 2, "pending-upgrade", seconds_ago)])


def test_a_pending_revision_past_the_grace_is_removed(capsys, monkeypatch):
    cluster = pending(900)
    result = run(capsys, monkeypatch, cluster, context="idc1", _ansible_diff=True)
    assert result["rc"] == 0 and result["changed"] is True and result["connected_as"] == ["context idc1"]
    assert result["release"] == {"name": "kruise", "namespace": "default", "revision": 2,
                                 "status_before": "pending-upgrade", "status_after": "removed", "pending_age": 900,
                                 "up_to_date": None, "crds_recreated": [], "adopted": False}
    assert result["diff"] == {"before": {"status": "pending-upgrade"}, "after": {"status": "removed"}}
    assert cluster.get("v1", "Secret", SECRET, "default") is None
    assert SECRET_VALUE not in json.dumps(result)


def test_check_mode_writes_nothing(capsys, monkeypatch):
    cluster = pending(900)
    result = run(capsys, monkeypatch, cluster, _ansible_check_mode=True)
    assert result["rc"] == 0 and result["changed"] is True and result["release"]["status_after"] == "removed"
    assert cluster.writes == []


def test_a_deployed_release_is_unchanged(capsys, monkeypatch):
    result = run(capsys, monkeypatch, FakeCluster(objects=[release_secret("kruise", 1, "deployed")]))
    assert result["rc"] == 0 and result["changed"] is False and result["release"]["status_after"] == "deployed"


def test_a_young_pending_revision_fails_the_task(capsys, monkeypatch):
    cluster = pending(30)
    result = run(capsys, monkeypatch, cluster, pending_release_grace=600)
    assert result["rc"] == 1 and cluster.writes == []
    assert result["msg"].startswith("Helm release kruise in namespace default: revision 2 is pending-upgrade for 30 s, "
                                    "less than the grace period of 600 s")


def test_a_negative_grace_is_refused(capsys, monkeypatch):
    result = run(capsys, monkeypatch, pending(900), pending_release_grace=-1)
    assert result["rc"] == 1 and result["msg"] == "pending_release_grace must be 0 or more seconds, got -1"
    assert result["connected_as"] == []


def test_adopt_manages_the_one_release_of_the_chart_found_elsewhere(capsys, monkeypatch):
    """The runbook's hand-made `helm install kruise` in default, where the control plane's role looks in
    kruise-system: that release is the one recovered and returned."""
    cluster = FakeCluster(objects=[release_secret("kruise", 1, "deployed", namespace="default")])
    result = run(capsys, monkeypatch, cluster, release_namespace="kruise-system", adopt=True, chart_ref="kruise",
                 chart_version="1.9.0")
    assert result["rc"] == 0 and result["changed"] is False, result
    assert (result["release"]["name"], result["release"]["namespace"], result["release"]["adopted"]) == (
        "kruise", "default", True)
    assert result["release"]["revision"] == 1 and cluster.writes == []


def test_without_adopt_the_release_elsewhere_is_not_looked_for(capsys, monkeypatch):
    cluster = FakeCluster(objects=[release_secret("kruise", 1, "deployed", namespace="default")])
    result = run(capsys, monkeypatch, cluster, release_namespace="kruise-system", chart_ref="kruise",
                 chart_version="1.9.0")
    assert (result["release"]["namespace"], result["release"]["revision"], result["release"]["adopted"]) == (
        "kruise-system", None, False)


def test_adopt_needs_the_chart(capsys, monkeypatch):
    result = run(capsys, monkeypatch, FakeCluster(), adopt=True)
    assert result["failed"] and "adopt needs chart_ref" in result["msg"]

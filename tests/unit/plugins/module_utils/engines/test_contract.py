# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the engine contract keeps for every engine: the engine-aware modules' argument spec, the supported
member versions, the one judge of "member known and Ready", waiting until the members serve a kind."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC
from ansible_collections.multicloud.federation.plugins.module_utils.engines import contract as fe
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.engine import KarmadaEngine, cluster_summary
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral.engine import KubeAdmiralEngine
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig.cluster import interpret_version

from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster

KARMADA = KarmadaEngine(FakeCluster())
FAILOVER_NOTE = "If its cloud is lost, playbooks/failover.yml evacuates it (its share then runs in the other members)"


# --- the argument spec of an engine-aware module ---------------------------------------------------

def test_engine_module_argspec_is_the_access_options_the_engine_and_the_modules_own():
    spec = fe.engine_module_argspec(name=dict(type="str", required=True), engine=dict(type="str"))
    assert set(spec) == set(AUTH_ARG_SPEC) | {"engine", "name"}
    assert spec["kubeconfig"] == AUTH_ARG_SPEC["kubeconfig"] and spec["name"] == dict(type="str", required=True)
    assert spec["engine"] == dict(type="str")  # a module's own option wins, as dict.update does
    engine = dict(type="str", choices=["auto", "karmada", "kubeadmiral"], default="auto")
    assert fe.engine_module_argspec()["engine"] == engine


def test_engine_module_argspec_hands_out_copies():
    spec = fe.engine_module_argspec()
    spec["engine"]["choices"].append("other")
    spec["kubeconfig"]["type"] = "str"
    assert fe.ENGINE_ARG_SPEC["engine"]["choices"] == ["auto", "karmada", "kubeadmiral"]
    assert fe.engine_module_argspec()["kubeconfig"] == AUTH_ARG_SPEC["kubeconfig"] != spec["kubeconfig"]


# --- supported member versions ----------------------------------------------------------------

@pytest.mark.parametrize("git_version", ["v1.16.0", "v1.20.15", "v1.24.17"])
def test_kubeadmiral_members_inside_its_range_get_no_warning(git_version):
    assert fe.member_version_warning("kubeadmiral", "cluster-a", interpret_version({"gitVersion": git_version})) is None


@pytest.mark.parametrize("git_version", ["v1.15.12", "v1.25.0", "v1.32.9"])
def test_kubeadmiral_members_outside_its_range_are_named_with_their_version(git_version):
    warning = fe.member_version_warning("kubeadmiral", "cluster-a", interpret_version({"gitVersion": git_version}))
    assert "member cluster cluster-a runs Kubernetes %s" % git_version in warning
    assert "KubeAdmiral documents for its members (1.16 to 1.24)" in warning


def test_no_warning_without_a_range_or_a_usable_version():
    assert fe.member_version_warning("karmada", "idc1", interpret_version({"gitVersion": "v1.10.0"})) is None
    assert fe.member_version_warning("kubeadmiral", "x", interpret_version({"gitVersion": ""})) is None


# --- member known and Ready ----------------------------------------------------------------------

def cluster(name, status=None, reason=None, message=None, sync_mode="Push"):
    item = {"metadata": {"name": name}, "spec": {"syncMode": sync_mode}, "status": {}}
    if status is not None:
        condition = {"type": "Ready", "status": status}
        if reason:
            condition["reason"] = reason
        if message:
            condition["message"] = message
        item["status"]["conditions"] = [{"type": "CompleteAPIEnablements", "status": "True"}, condition]
    # What the Karmada engine makes of the Cluster object.
    return cluster_summary(item)


def test_all_members_ready():
    status = fe.member_status([cluster("test-ucs", "True"), cluster("idc1", "True")], ["idc1", "test-ucs"])
    assert status["missing"] == [] and status["not_ready"] == []
    assert [c["name"] for c in status["clusters"]] == ["idc1", "test-ucs"]
    assert status["clusters"][0] == {"name": "idc1", "ready": True, "reason": "", "sync_mode": "Push"}
    assert fe.member_errors(KARMADA, status, "https://k") == []


def test_unlisted_member_is_named_with_what_karmada_lists():
    status = fe.member_status([cluster("idc1", "True"), cluster("other", "True")], ["idc1", "test-ucs"])
    assert status["missing"] == ["test-ucs"]
    assert fe.member_errors(KARMADA, status, "https://k:5443") == [
        "Karmada at https://k:5443 does not list member cluster 'test-ucs' (it lists: idc1, other): join it "
        "(karmadactl join, or the member_join playbook) or fix its cluster_name"
    ]


@pytest.mark.parametrize("item, reason", [
    (cluster("idc1", "False", reason="ClusterNotReachable", message="cluster is not reachable"), "ClusterNotReachable"),
    (cluster("idc1", "Unknown", message="no heartbeat"), "no heartbeat"),
    (cluster("idc1", "False"), "Ready=False"),
    (cluster("idc1"), "no Ready condition yet"),
])
def test_not_ready_member_is_named_with_the_reason(item, reason):
    status = fe.member_status([item], ["idc1"])
    assert status["missing"] == []
    assert status["not_ready"] == [{"name": "idc1", "ready": False, "reason": reason, "sync_mode": "Push"}]
    (message,) = fe.member_errors(KARMADA, status, "https://k")
    assert message.startswith("member cluster 'idc1' is listed by Karmada at https://k but not Ready (%s)" % reason)
    assert message.endswith(FAILOVER_NOTE)


def test_clusters_not_in_the_inventory_are_reported_but_not_required():
    status = fe.member_status([cluster("idc1", "True"), cluster("spare", "False")], ["idc1"])
    assert status["not_ready"] == [] and len(status["clusters"]) == 2


def test_empty_or_missing_list():
    assert fe.member_status([], ["idc1"])["missing"] == ["idc1"]
    assert fe.member_status(None, [])["clusters"] == []
    assert "it lists: none" in fe.member_errors(KARMADA, fe.member_status([], ["idc1"]), "k")[0]


def test_kubeadmiral_names_its_own_fix():
    engine = KubeAdmiralEngine(FakeCluster())
    (missing,) = fe.member_errors(engine, fe.member_status([], ["cluster-c"]), "https://h")
    assert missing.startswith("KubeAdmiral at https://h does not list member cluster 'cluster-c' (it lists: none): "
                              "join it (its Secret in kube-admiral-system on the host and its FederatedCluster")
    status = fe.member_status([{"name": "cluster-a", "ready": False, "reason": "Ready=False: cluster is not reachable"}],
                              ["cluster-a"])
    (not_ready,) = fe.member_errors(engine, status, "https://h")
    assert "not Ready (Ready=False: cluster is not reachable): check the member's API endpoint and the credentials " \
           "in its Secret in kube-admiral-system" in not_ready


def test_without_an_origin_the_engine_is_named_alone():
    status = fe.member_status([cluster("idc1", "False", reason="ClusterNotReachable")], ["idc1", "ghost"])
    assert fe.member_errors(KARMADA, status) == [
        "Karmada does not list member cluster 'ghost' (it lists: idc1): " + KARMADA.join_hint,
        "member cluster 'idc1' is listed by Karmada but not Ready (ClusterNotReachable): %s. %s"
        % (KARMADA.not_ready_hint, FAILOVER_NOTE),
    ]


def test_a_step_that_does_not_need_them_ready_judges_only_the_names():
    status = fe.member_status([cluster("idc1", "False")], ["idc1"], ready=False)
    assert status["not_ready"] == [] and fe.member_errors(KARMADA, status) == []


class Listed(object):
    """An engine that answers members() with fixed rows and counts the reads."""

    display_name = "Karmada"
    join_hint = KARMADA.join_hint
    not_ready_hint = KARMADA.not_ready_hint

    def __init__(self, rows):
        self.rows = rows
        self.reads = 0

    def members(self):
        self.reads += 1
        return self.rows


class StepError(Exception):
    pass


def test_require_members_returns_the_status_when_every_one_is_listed_and_ready():
    engine = Listed([cluster("idc1", "True"), cluster("test-ucs", "True")])
    status = fe.require_members(engine, ["test-ucs"])
    assert status["missing"] == [] and [c["name"] for c in status["clusters"]] == ["idc1", "test-ucs"]
    assert engine.reads == 1


def test_require_members_raises_the_steps_error_with_every_message():
    engine = Listed([cluster("idc1", "False", reason="ClusterNotReachable")])
    with pytest.raises(StepError) as raised:
        fe.require_members(engine, ["idc1", "idc9"], error=StepError)
    assert str(raised.value) == "; ".join(fe.member_errors(engine, fe.member_status(engine.rows, ["idc1", "idc9"])))
    with pytest.raises(fe.EngineError, match="does not list member cluster 'idc9'"):
        fe.require_members(engine, ["idc9"], ready=False)
    assert fe.require_members(engine, ["idc1"], ready=False)["not_ready"] == []


def test_require_members_judges_rows_already_read():
    engine = Listed([])
    with pytest.raises(fe.EngineError, match=r"at https://k does not list member cluster 'idc1' \(it lists: none\)"):
        fe.require_members(engine, ["idc1"], origin="https://k", members=[])
    fe.require_members(engine, ["idc1"], members=[cluster("idc1", "True")])
    assert engine.reads == 0


class StatusChanging(object):
    """An engine whose record of the members' APIs fills in one look at a time."""

    display_name = "Karmada"
    join_hint = KARMADA.join_hint

    def __init__(self, looks):
        self.looks = list(looks)
        self.seen = 0

    def members_serving(self, api_version, kind):
        self.seen += 1
        return self.looks.pop(0) if len(self.looks) > 1 else self.looks[0]


def no_sleep_poll(monkeypatch):
    from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import poll
    from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeTime
    fake = FakeTime()

    def fake_poll(probe, timeout, interval):
        return poll(probe, timeout, interval, clock=fake.clock, sleep=fake.sleep)
    monkeypatch.setattr(fe, "poll", fake_poll)
    return fake


def test_waits_until_every_named_member_serves_the_kind(monkeypatch):
    no_sleep_poll(monkeypatch)
    engine = StatusChanging([{"idc1": False, "test-ucs": True, "other": False},
                             {"idc1": True, "test-ucs": True, "other": False}])
    waited = fe.wait_for_members_serving(engine, "apps.kruise.io/v1beta1", "UnitedDeployment", ["test-ucs", "idc1"], 60)
    # "other" is not asked for: an application that does not use a member does not wait for it.
    assert engine.seen == 2 and waited == {"waited": 1.0}


def test_a_member_that_never_serves_the_kind_is_named_after_the_timeout(monkeypatch):
    no_sleep_poll(monkeypatch)
    engine = StatusChanging([{"idc1": False, "test-ucs": True}])
    with pytest.raises(fe.EngineError) as raised:
        fe.wait_for_members_serving(engine, "apps.kruise.io/v1beta1", "UnitedDeployment", ["idc1", "test-ucs"], 30)
    message = str(raised.value)
    assert "apps.kruise.io/v1beta1 UnitedDeployment served in idc1 after 30.0 s" in message
    assert "test-ucs" not in message and "kruise step" in message


def test_a_member_the_federation_does_not_have_fails_at_once(monkeypatch):
    fake = no_sleep_poll(monkeypatch)
    with pytest.raises(fe.EngineError) as raised:
        fe.wait_for_members_serving(StatusChanging([{"idc1": True}]), "v1", "ConfigMap", ["idc1", "idc9"], 30)
    assert "Karmada does not list member cluster 'idc9' (it lists: idc1)" in str(raised.value) and fake.pauses == []

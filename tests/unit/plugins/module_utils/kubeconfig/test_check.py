# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubeconfig step's API check (check_cluster): what each failure says, and when the engine's
member list is read. The checks against real API servers are in tests/integration/test_kubeconfig.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.access.cluster import AccessError, ApiError
from ansible_collections.multicloud.federation.plugins.module_utils.engines.karmada.engine import CLUSTER_API
from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig.check import CheckFailed, check_cluster

from ansible_collections.multicloud.federation.tests.unit.fakes.cluster import FakeCluster

SERVER = "https://192.168.0.10:5443"
ORIGIN = "/etc/federation/kubeconfig"


def karmada_cluster(name, ready=True):
    return {"apiVersion": CLUSTER_API[0], "kind": CLUSTER_API[1], "metadata": {"name": name},
            "spec": {"syncMode": "Push"},
            "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False",
                                       "reason": "ClusterReady" if ready else "ClusterNotReachable"}]}}


def control_plane(*clusters):
    return FakeCluster("the federation control plane", served=[CLUSTER_API], objects=clusters)


class Refusing(FakeCluster):
    """An API server that answers /version with an HTTP error."""

    def __init__(self, status, reason):
        super(Refusing, self).__init__("the API server %s of context 'internal' in %s" % (SERVER, ORIGIN))
        self.status, self.reason = status, reason

    def version(self):
        raise ApiError("%s: HTTP %d %s" % (self.name, self.status, self.reason), self.status, self.reason)


def check(cluster=None, members=None, engine="auto", error=None):
    """check_cluster() of a kubeconfig whose connection gives ``cluster`` (or raises ``error``)."""
    def connect(data, context, name, timeout):
        assert (data, context, timeout) == ({"kind": "Config"}, "internal", 5) and SERVER in name
        if error is not None:
            raise error
        return cluster
    return check_cluster({"kind": "Config"}, "internal", SERVER, ORIGIN, members, engine, 5, connect=connect)


def refusal(**kwargs):
    with pytest.raises(CheckFailed) as failed:
        check(**kwargs)
    return str(failed.value)


def test_rejected_credentials_are_named_as_such():
    message = refusal(cluster=Refusing(401, "Unauthorized"))
    assert "rejects the kubeconfig's credentials (HTTP 401 Unauthorized)" in message
    assert "Download the kubeconfig again" in message and "cannot be reached" not in message


def test_a_forbidden_answer_is_not_taken_for_rejected_credentials():
    message = refusal(cluster=Refusing(403, "Forbidden"))
    assert message.endswith("cannot be reached: HTTP 403 Forbidden. Check the access mode (cluster_access: internal "
                            "needs the VPC, external the public endpoint), the network path and the credentials")
    assert "rejects the kubeconfig's credentials" not in message


def test_a_redirecting_environment_is_refused_with_its_own_message_only():
    error = AccessError("the environment sets K8S_AUTH_HOST, which would send this collection's requests to another "
                        "cluster. Unset it")
    assert refusal(error=error) == str(error)


def test_an_unusable_connection_says_what_to_check():
    message = refusal(error=AccessError("no route to %s" % SERVER))
    assert message.startswith("no route to %s. Check the access mode" % SERVER)


def test_without_members_only_the_api_is_checked():
    # A member cluster serves no engine's member API: reading the federation there would fail.
    version = {"git_version": "v1.32.9", "major": 1, "minor": 32, "usable": True}
    assert check(FakeCluster("idc1")) == {"server_version": version}


def test_an_empty_member_list_still_checks_the_engine():
    result = check(control_plane(karmada_cluster("idc1")), members=[])
    assert result["engine"] == "karmada" and [m["name"] for m in result["federation_members"]] == ["idc1"]
    message = refusal(cluster=FakeCluster("idc1"), members=[])
    assert "serves neither Karmada's member API" in message


def test_every_listed_ready_member_passes():
    result = check(control_plane(karmada_cluster("idc1"), karmada_cluster("test-ucs")), members=["idc1", "test-ucs"])
    assert [(m["name"], m["ready"]) for m in result["federation_members"]] == [("idc1", True), ("test-ucs", True)]


def test_a_missing_and_a_not_ready_member_are_each_named():
    message = refusal(cluster=control_plane(karmada_cluster("idc1", ready=False)), members=["idc1", "test-ucs"])
    assert "does not list member cluster 'test-ucs' (it lists: idc1)" in message
    assert "member cluster 'idc1' is listed by Karmada at %s but not Ready (ClusterNotReachable)" % SERVER in message


def test_the_engine_asked_for_must_be_the_one_served():
    message = refusal(cluster=control_plane(karmada_cluster("idc1")), members=["idc1"], engine="kubeadmiral")
    assert message.startswith("federation_engine is kubeadmiral, but the federation control plane does not serve")


def test_a_failed_member_list_names_the_server_and_context():
    class Failing(FakeCluster):
        def list(self, api_version, kind, namespace=None, label_selector=None, field_selector=None):
            raise ApiError("HTTP 500 InternalError", 500, "InternalError")

    message = refusal(cluster=Failing("the federation control plane", served=[CLUSTER_API]), members=["idc1"])
    assert message == ("listing the federation's member clusters at %s (context 'internal') failed: "
                       "HTTP 500 InternalError" % SERVER)

# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Contract test of the ucs_fleet module: huaweicloudsdkucs 3.1.219 builds, signs (global credentials:
X-Domain-Id) and sends the requests to the local HTTPS endpoint, which checks each signature with its own
SDK-HMAC-SHA256 verifier and plays UCS with state (fakes.huaweicloud.UcsPlay, whose docstring says which answers are
not from Huawei's models or reference).

Methods and paths are the SDK's (v1/ucs_client.py); bodies the model classes' attribute_map: RegisterCluster
(kind, apiVersion, metadata.uid/name, spec.category/type/provider/country/city/region/projectID/manageType),
RegisterClusterGroup (metadata.name, spec.clusterIds/description), ClusterJoinGroupRequestBody (clusterGroupID),
UpdateClusterGroupAssociatedClustersRequestBody (clusterIds).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.multicloud.federation.plugins.modules import ucs_fleet
from ansible_collections.multicloud.federation.tests.unit.fakes import huaweicloud_contract as contract
# The contract fixtures: sdk_state (autouse) and cloud, the local endpoint that plays CCE, UCS and IAM.
from ansible_collections.multicloud.federation.tests.unit.fakes.huaweicloud_contract import (  # noqa: F401 pylint: disable=unused-import
    AK, DOMAIN, PROJECT, SK, cloud, module_args, sdk_state,
)
from ansible_collections.multicloud.federation.tests.unit.fakes.huaweicloud import UcsPlay
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import run_module


A = "4a2b1d8e-7c41-11ee-a6b4-0255ac100b05"
B = "5b3c2e9f-7c41-11ee-a6b4-0255ac100b05"
READS = [("GET", "/v1/clustergroups"), ("GET", "/v1/managedclusters"), ("GET", "/v1/clusters")]


def ucs(cloud):
    play = UcsPlay(cloud, DOMAIN, kubeconfig=lambda: {})
    play.add_cce(A, "test-ucs")
    play.add_cce(B, "idc1")
    return play


def run(capsys, cloud, check_mode=False, **extra):
    args = dict(dict(name="multicloud-fleet", clusters=[A, B], domain_id=DOMAIN, project_id=None), **extra)
    return run_module(ucs_fleet, capsys, module_args(cloud, check_mode, **args))


def assert_signed_global(cloud):
    for request in cloud.requests:
        assert request["signature_ok"], request["why"]
        assert request["headers"]["x-domain-id"] == DOMAIN and "x-project-id" not in request["headers"]
        assert request["headers"]["host"] == cloud.host and request["access_key"] == AK


def test_registers_both_clusters_and_creates_the_fleet(cloud, capsys):
    play = ucs(cloud)
    result = run(capsys, cloud, description="the runbook's fleet")
    assert result["rc"] == 0, result
    assert result["changed"] is True and result["registered"] == [A, B]
    assert result["actions"] == ["register cluster %s with UCS" % A, "register cluster %s with UCS" % B,
                                 "create fleet multicloud-fleet with clusters %s, %s" % (A, B)]
    assert cloud.calls() == READS + [("POST", "/v1/clusters"), ("POST", "/v1/clusters"), ("POST", "/v1/clustergroups")]
    assert_signed_global(cloud)
    for request in cloud.requests:
        assert request["query"] == []
    first = cloud.requests[3].json()
    assert first == {"kind": "Cluster", "apiVersion": "v1", "metadata": {"uid": A, "name": "test-ucs"},
                     "spec": {"category": "self", "type": "cce", "provider": "huaweicloud", "country": "CN",
                              "city": "150900", "region": "ap-southeast-3", "projectID": PROJECT,
                              "manageType": "discrete"}}
    for request in cloud.writes():
        assert request["headers"]["content-type"] == "application/json"
    assert cloud.requests[5].json() == {"metadata": {"name": "multicloud-fleet"},
                                        "spec": {"clusterIds": [A, B], "description": "the runbook's fleet"}}
    assert len(play.groups) == 1, play.groups
    fleet_id = next(iter(play.groups))
    assert result["fleet_id"] == fleet_id and play.members(fleet_id) == [A, B]
    assert SK not in json.dumps(result)


def test_a_second_run_makes_no_write_call(cloud, capsys):
    ucs(cloud)
    assert run(capsys, cloud)["rc"] == 0
    cloud.requests[:] = []
    result = run(capsys, cloud)
    assert result["rc"] == 0, result
    assert (result["changed"], result["actions"], result["registered"]) == (False, [], [])
    assert cloud.calls() == READS and cloud.writes() == []


def test_the_bare_array_and_the_items_shapes_of_managed_clusters(cloud, capsys):
    play = ucs(cloud)
    play.managed_as_items = True
    result = run(capsys, cloud, check_mode=True)
    assert result["rc"] == 0 and result["registered"] == [A, B]


def test_check_mode_reports_and_makes_no_write_call(cloud, capsys):
    play = ucs(cloud)
    result = run(capsys, cloud, check_mode=True)
    assert result["rc"] == 0, result
    assert result["changed"] is True and result["fleet_id"] is None
    assert result["actions"][-1] == "create fleet multicloud-fleet with clusters %s, %s" % (A, B)
    assert cloud.calls() == READS and play.groups == {}


def test_an_existing_fleet_gets_the_missing_cluster_by_join(cloud, capsys):
    play = ucs(cloud)
    play._registered(A)
    fleet_id = play.add_group("multicloud-fleet", members=[A])
    result = run(capsys, cloud)
    assert result["rc"] == 0, result
    assert result["actions"] == ["register cluster %s with UCS" % B, "join cluster %s to fleet multicloud-fleet" % B]
    assert cloud.calls() == READS + [("POST", "/v1/clusters"), ("POST", "/v1/clusters/%s/join" % B)]
    assert cloud.requests[-1].json() == {"clusterGroupID": fleet_id}
    assert play.members(fleet_id) == [A, B] and len(play.groups) == 1


def test_exclusive_sets_the_fleets_clusters(cloud, capsys):
    play = ucs(cloud)
    play._registered(A)
    play._registered(B)
    fleet_id = play.add_group("multicloud-fleet", members=[A, B])
    result = run(capsys, cloud, clusters=[A], exclusive=True)
    assert result["rc"] == 0, result
    assert cloud.calls() == READS + [("PUT", "/v1/clustergroups/%s/associatedclusters" % fleet_id)]
    assert cloud.requests[-1].json() == {"clusterIds": [A]}
    assert play.members(fleet_id) == [A]


def test_absent_deletes_the_fleet_and_then_has_nothing_to_do(cloud, capsys):
    play = ucs(cloud)
    fleet_id = play.add_group("multicloud-fleet")
    result = run(capsys, cloud, state="absent")
    assert result["rc"] == 0 and result["changed"] is True
    assert cloud.calls() == [("GET", "/v1/clustergroups"), ("DELETE", "/v1/clustergroups/%s" % fleet_id)]
    cloud.requests[:] = []
    result = run(capsys, cloud, state="absent")
    assert result["rc"] == 0 and result["changed"] is False and cloud.writes() == []


def test_a_cluster_the_account_does_not_have_stops_before_any_write(cloud, capsys):
    ucs(cloud)
    result = run(capsys, cloud, clusters=[A, "00000000-dead-beef-0000-000000000000"])
    assert result["rc"] == 1
    assert result["msg"].startswith("cluster 00000000-dead-beef-0000-000000000000 is not a CCE cluster of this account")
    assert "Fix: check the cluster ids" in result["msg"]
    assert cloud.writes() == []


def test_a_cluster_in_another_fleet_stops_before_any_write(cloud, capsys):
    play = ucs(cloud)
    other = play.add_group("other-fleet", members=[B])
    result = run(capsys, cloud)
    assert result["rc"] == 1
    assert "cluster %s is already in another fleet (%s)" % (B, other) in result["msg"]
    assert cloud.writes() == []


def test_two_fleets_of_the_name_are_refused(cloud, capsys):
    play = ucs(cloud)
    play.add_group("multicloud-fleet")
    play.add_group("multicloud-fleet")
    result = run(capsys, cloud)
    assert result["rc"] == 1 and result["msg"].startswith("UCS has 2 fleets named multicloud-fleet")
    assert cloud.writes() == []


@pytest.mark.parametrize("name", ["Fleet", "1fleet", "fleet-", "fleet_a", ""])
def test_a_fleet_name_ucs_refuses_stops_before_any_request(cloud, capsys, name):
    ucs(cloud)
    result = run(capsys, cloud, name=name)
    assert result["rc"] == 1 and "is refused by UCS: start with a lowercase letter" in result["msg"]
    assert cloud.requests == []


def test_missing_credentials_stop_before_any_request(cloud, capsys):
    ucs(cloud)
    result = run(capsys, cloud, access_key=None, secret_key=None)
    assert result["rc"] == 1 and result["msg"].startswith("no Huawei Cloud access key")
    assert cloud.requests == []


def test_the_domain_is_looked_up_in_iam_without_domain_id(cloud, capsys):
    ucs(cloud)
    result = run(capsys, cloud, domain_id=None, check_mode=True)
    assert result["rc"] == 0, result
    assert cloud.calls()[0] == ("GET", "/v3/auth/domains")
    assert cloud.requests[1]["headers"]["x-domain-id"] == DOMAIN


def test_a_403_names_the_code_and_the_policy(cloud, capsys):
    ucs(cloud)
    cloud.fail_next("POST", "/v1/clustergroups", 403, {"error_code": "IAM.0003", "error_msg": "Policy doesn't allow"})
    result = run(capsys, cloud)
    assert result["rc"] == 1 and result["error_code"] == "IAM.0003" and result["status"] == 403
    assert "UCS register_cluster_group failed: HTTP 403, error code IAM.0003" in result["msg"]
    assert "UCS FullAccess" in result["msg"]


def test_a_404_cluster_at_registration_names_the_fix(cloud, capsys):
    ucs(cloud)
    cloud.fail_next("POST", "/v1/clusters", 404, {"error_code": "UCS.00100404", "error_msg": "cluster not found"})
    result = run(capsys, cloud)
    assert result["rc"] == 1 and result["error_code"] == "UCS.00100404"
    assert "Fix: cluster %s does not exist in this project and region" % A in result["msg"]


def test_a_throttled_call_says_so(cloud, capsys):
    ucs(cloud)
    cloud.fail_next("GET", "/v1/clustergroups", 429, {"error_code": "APIGW.0308", "error_msg": "throttled"})
    result = run(capsys, cloud)
    assert result["rc"] == 1 and result["status"] == 429
    assert "Fix: the API's request rate limit was reached" in result["msg"]
    assert cloud.writes() == []


def test_the_sdks_own_register_cluster_form_encodes_its_body(cloud):
    """Why ucs.py sends register_cluster, register_cluster_group and join_group as JSON: the SDK's generated
    methods send application/x-www-form-urlencoded, and the form holds the top-level keys only."""
    from huaweicloudsdkucs.v1 import RegisterClusterGroup, RegisterClusterGroupObjectMeta, RegisterClusterGroupRequest

    from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import client as hwc

    client = hwc.ucs_client(contract.options(cloud, domain_id=DOMAIN))
    body = RegisterClusterGroup(metadata=RegisterClusterGroupObjectMeta(name="multicloud-fleet"))
    with pytest.raises(Exception):
        client.register_cluster_group(RegisterClusterGroupRequest(body=body))
    (sent,) = cloud.requests
    assert sent["headers"]["content-type"] == "application/x-www-form-urlencoded"
    assert sent["body"] == b"metadata=name"

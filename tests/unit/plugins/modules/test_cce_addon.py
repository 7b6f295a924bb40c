# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Contract test of the cce_addon module: Huawei's SDK (huaweicloudsdkcce 3.1.219) builds, signs and sends
the requests to the local HTTPS endpoint (tests/unit/fakes/huaweicloud.py), which
records them and checks every signature with its own SDK-HMAC-SHA256 verifier.

Request and response shapes are the SDK's (huaweicloudsdkcce/v3/cce_client.py for method and path, the
model classes' attribute_map for the JSON names); CCE's API reference documents the same operations:
Listing Add-on Instances (cce_02_0326), Installing (cce_02_0322), Updating (cce_02_0323), Querying Add-on
Templates (cce_02_0321), Reading a Cluster (cce_02_0238). Not confirmed by the SDK, which types them as plain
objects: the shape of a template version's ``input`` (``basic``, ``parameters.custom``, taken from the API
reference's example) and the update annotation ``addon.upgrade/type: upgrade`` (from the API reference).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json

import pytest

from ansible.module_utils.common.parameters import PASS_VARS
from ansible_collections.multicloud.federation.plugins.modules import cce_addon
# The contract fixtures: sdk_state (autouse) and cloud, the local endpoint that plays CCE, UCS and IAM.
from ansible_collections.multicloud.federation.tests.unit.fakes.huaweicloud_contract import (  # noqa: F401 pylint: disable=unused-import
    AK, PROJECT, SK, cloud, module_args, sdk_state,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import run_module


CLUSTER = "4a2b1d8e-7c41-11ee-a6b4-0255ac100b05"
VALUES = {
    "flavor": {"name": "Small", "replicas": 2},
    "custom": {"subnet_id": "7f6e5d4c-0000-0000-0000-000000000000"},
}
BASIC = {"swr_addr": "swr.ap-southeast-3.myhuaweicloud.com", "swr_user": "hwofficial", "cluster_version": ""}
CUSTOM = {"subnet_id": "", "multiAZEnabled": False}


def version(number, clusters, stable=True):
    return {"version": number, "stable": stable,
            "input": {"basic": BASIC, "parameters": {"custom": CUSTOM, "flavor1": {"name": "Small"}}},
            "supportVersions": [{"clusterType": "VirtualMachine", "clusterVersion": clusters}]}


TEMPLATES = {"kind": "Addon", "apiVersion": "v3", "items": [{
    "kind": "Addon", "apiVersion": "v3",
    "metadata": {"uid": "virtual-kubelet", "name": "virtual-kubelet", "alias": "CCE Cloud Bursting Engine for CCI"},
    "spec": {"type": "helm", "require": False, "labels": ["ServerlessContainer"], "description": "bursting to CCI",
             "versions": [version("1.5.10", ["v1.(25|27).*"]), version("1.5.28", ["v1.(27|28|29).*"]),
                          version("1.6.0", ["v1.(28|29).*"], stable=False), version("1.4.2", ["v1.2[0-3].*"])]},
}]}
CLUSTER_DETAIL = {"kind": "Cluster", "apiVersion": "v3", "metadata": {"name": "test-ucs", "uid": CLUSTER},
                  "spec": {"type": "VirtualMachine", "flavor": "cce.s1.small", "version": "v1.28"},
                  "status": {"phase": "Available", "endpoints": [{"url": "https://192.168.0.10:5443", "type": "Internal"}]}}


def instance(number="1.5.28", values=None, status="running"):
    return {"kind": "Addon", "apiVersion": "v3",
            "metadata": {"uid": "9d1c0000-0000-0000-0000-000000000001", "name": "virtual-kubelet"},
            "spec": {"clusterID": CLUSTER, "version": number, "addonTemplateName": "virtual-kubelet",
                     "values": copy.deepcopy(values if values is not None else
                                             {"basic": BASIC, "flavor": VALUES["flavor"], "custom": VALUES["custom"]})},
            "status": {"status": status, "Reason": "", "message": "", "currentVersion": {"version": number}}}


COREDNS = {"kind": "Addon", "apiVersion": "v3", "metadata": {"uid": "c0", "name": "coredns"},
           "spec": {"clusterID": CLUSTER, "version": "1.29.4", "addonTemplateName": "coredns"},
           "status": {"status": "running"}}


def serve(endpoint, installed=()):
    """CCE on the endpoint: the instances listed, the templates, the cluster, and create/update that answer
    with the instance they were sent."""
    items = list(installed)
    endpoint.route("GET", "/api/v3/addons", lambda r, m: (200, {"kind": "Addon", "apiVersion": "v3", "items": items}))
    endpoint.route("GET", "/api/v3/addontemplates", (200, TEMPLATES))
    endpoint.route("GET", "/api/v3/projects/%s/clusters/%s" % (PROJECT, CLUSTER), (200, CLUSTER_DETAIL))

    def written(request, match, status_code):
        body = request.json()
        return status_code, dict(body, metadata={"uid": "9d1c0000-0000-0000-0000-000000000001", "name": "virtual-kubelet"},
                                 status={"status": "installing" if status_code == 201 else "upgrading"})
    endpoint.route("POST", "/api/v3/addons", lambda r, m: written(r, m, 201))
    endpoint.route("PUT", "/api/v3/addons/[^/]+", lambda r, m: written(r, m, 200))


def run(capsys, endpoint, check_mode=False, **extra):
    return run_module(cce_addon, capsys, module_args(endpoint, check_mode, **dict(dict(cluster_id=CLUSTER), **extra)))


def assert_signed(endpoint):
    for request in endpoint.requests:
        assert request["signature_ok"], (request["method"], request["path"], request["why"])
        assert request["access_key"] == AK
        assert request["headers"]["host"] == endpoint.host
        assert request["headers"]["x-project-id"] == PROJECT
        assert request["headers"]["content-type"] == "application/json"
        assert {"host", "x-project-id", "x-sdk-date", "content-type"} <= set(request["signed_headers"])


def test_installs_the_version_for_the_cluster_with_the_template_defaults(cloud, capsys):
    serve(cloud, installed=[COREDNS])
    result = run(capsys, cloud, values=VALUES)
    assert result["rc"] == 0, result
    assert (result["changed"], result["action"], result["installed"], result["updated"]) == (True, "install", True, False)
    # v1.28: 1.5.28 and 1.6.0 fit; 1.6.0 is not stable, so 1.5.28.
    assert result["version"] == "1.5.28"
    assert result["addon"] == {"uid": "9d1c0000-0000-0000-0000-000000000001", "name": "virtual-kubelet",
                               "template": "virtual-kubelet", "version": "1.5.28", "cluster_id": CLUSTER,
                               "status": "installing", "message": ""}
    assert cloud.calls() == [
        ("GET", "/api/v3/addons"),
        ("GET", "/api/v3/addontemplates"),
        ("GET", "/api/v3/projects/%s/clusters/%s" % (PROJECT, CLUSTER)),
        ("POST", "/api/v3/addons"),
    ]
    listing, templates, cluster, post = cloud.requests
    assert listing["query"] == [("cluster_id", CLUSTER)] and listing["body"] == b""
    assert templates["query"] == [("addon_template_name", "virtual-kubelet")] and templates["body"] == b""
    assert cluster["query"] == [] and cluster["body"] == b""
    assert post["query"] == []
    assert post.json() == {
        "kind": "Addon", "apiVersion": "v3",
        "metadata": {"annotations": {"addon.install/type": "install"}},
        "spec": {"clusterID": CLUSTER, "version": "1.5.28", "addonTemplateName": "virtual-kubelet",
                 "values": {"basic": BASIC, "custom": {"subnet_id": VALUES["custom"]["subnet_id"], "multiAZEnabled": False},
                            "flavor": VALUES["flavor"]}},
    }
    assert_signed(cloud)


def test_a_given_version_needs_no_cluster_read(cloud, capsys):
    serve(cloud)
    result = run(capsys, cloud, version="1.5.10", values=VALUES)
    assert result["rc"] == 0 and result["version"] == "1.5.10"
    assert cloud.calls() == [("GET", "/api/v3/addons"), ("GET", "/api/v3/addontemplates"), ("POST", "/api/v3/addons")]
    assert cloud.requests[-1].json()["spec"]["version"] == "1.5.10"


def test_a_version_the_template_lacks_stops_before_any_write(cloud, capsys):
    serve(cloud)
    result = run(capsys, cloud, version="9.9.9", values=VALUES)
    assert result["rc"] == 1
    assert result["msg"] == ("add-on virtual-kubelet has no version 9.9.9. Fix: use one of the versions CCE offers: "
                             "1.4.2, 1.5.10, 1.5.28, 1.6.0, or give none to have the one for the cluster chosen")
    assert cloud.writes() == []


def test_a_cluster_no_version_supports_stops_before_any_write(cloud, capsys):
    serve(cloud)
    old = copy.deepcopy(CLUSTER_DETAIL)
    old["spec"]["version"] = "v1.19"
    cloud.route("GET", "/api/v3/projects/%s/clusters/%s" % (PROJECT, CLUSTER), (200, old))
    result = run(capsys, cloud, values=VALUES)
    assert result["rc"] == 1
    assert result["msg"].startswith("no version of add-on virtual-kubelet supports cluster %s (Kubernetes v1.19, "
                                    "type VirtualMachine)" % CLUSTER)
    assert cloud.writes() == []


def test_a_second_run_makes_no_write_call(cloud, capsys):
    serve(cloud, installed=[COREDNS, instance()])
    result = run(capsys, cloud, values=VALUES)
    assert result["rc"] == 0, result
    assert (result["changed"], result["action"], result["version"]) == (False, "none", "1.5.28")
    assert cloud.calls() == [("GET", "/api/v3/addons")]
    assert_signed(cloud)


def test_changed_values_update_the_instance_over_its_current_values(cloud, capsys):
    serve(cloud, installed=[instance()])
    result = run(capsys, cloud, values={"flavor": {"replicas": 3}})
    assert result["rc"] == 0, result
    assert (result["changed"], result["action"], result["updated"]) == (True, "update", True)
    assert cloud.calls() == [("GET", "/api/v3/addons"), ("PUT", "/api/v3/addons/9d1c0000-0000-0000-0000-000000000001")]
    put = cloud.requests[-1]
    assert put["query"] == []
    assert put.json() == {
        "kind": "Addon", "apiVersion": "v3",
        "metadata": {"annotations": {"addon.upgrade/type": "upgrade"}},
        "spec": {"clusterID": CLUSTER, "version": "1.5.28", "addonTemplateName": "virtual-kubelet",
                 "values": {"basic": BASIC, "custom": VALUES["custom"], "flavor": {"name": "Small", "replicas": 3}}},
    }
    assert_signed(cloud)


def test_another_version_updates(cloud, capsys):
    serve(cloud, installed=[instance("1.5.10")])
    result = run(capsys, cloud, version="1.5.28")
    assert result["rc"] == 0 and result["action"] == "update" and result["version"] == "1.5.28"
    assert cloud.requests[-1].json()["spec"]["version"] == "1.5.28"


@pytest.mark.parametrize("installed, action", [((), "install"), ((instance("1.5.10"),), "update")])
def test_check_mode_makes_no_write_call(cloud, capsys, installed, action):
    serve(cloud, installed=installed)
    result = run(capsys, cloud, check_mode=True, version="1.5.28", values=VALUES)
    assert result["rc"] == 0, result
    assert (result["changed"], result["action"]) == (True, action)
    assert cloud.writes() == []


def test_an_api_error_names_the_code_and_the_fix_and_no_secret(cloud, capsys):
    serve(cloud)
    cloud.fail_next("POST", "/api/v3/addons", 403, {"error_code": "CCE.01403001",
                                                    "error_msg": "Forbidden to create the add-on instance"})
    result = run(capsys, cloud, version="1.5.28", values=VALUES, security_token="TemporarySecurityToken0001")
    assert result["rc"] == 1 and result["failed"] is True
    assert result["msg"] == (
        "CCE create_addon_instance failed: HTTP 403, error code CCE.01403001: Forbidden to create the add-on "
        "instance. Fix: grant the IAM user the action cce:addonInstance:create (or a policy that includes it, such "
        "as CCE FullAccess) (request id req-0003)")
    assert (result["status"], result["error_code"], result["request_id"]) == (403, "CCE.01403001", "req-0003")
    assert cloud.requests[-1]["headers"]["x-security-token"] == "TemporarySecurityToken0001"
    text = json.dumps(result)
    assert SK not in text and "TemporarySecurityToken0001" not in text


def test_a_list_error_stops_before_any_write(cloud, capsys):
    serve(cloud)
    cloud.fail_next("GET", "/api/v3/addons", 404, {"error_code": "CCE.01404001", "error_msg": "Resource not found"})
    result = run(capsys, cloud, values=VALUES)
    assert result["rc"] == 1
    assert "error code CCE.01404001" in result["msg"]
    assert "Fix: cluster %s does not exist in this project and region" % CLUSTER in result["msg"]
    assert cloud.writes() == []


def test_missing_credentials_stop_before_any_request(cloud, capsys):
    serve(cloud)
    result = run(capsys, cloud, access_key=None, secret_key=None)
    assert result["rc"] == 1
    assert result["msg"].startswith("no Huawei Cloud access key: access_key and secret_key missing. Fix: ")
    assert cloud.requests == []


def test_the_iam_token_is_refused_with_its_replacement(cloud, capsys):
    result = run(capsys, cloud, access_key=None, secret_key=None, auth_token="MIITokenValue")
    assert result["rc"] == 1
    assert result["msg"].startswith("auth_token (an IAM token) is no longer supported")
    assert "POST /v3.0/OS-CREDENTIAL/securitytokens" in result["msg"]
    assert "MIITokenValue" not in json.dumps(result)
    assert cloud.requests == []


def test_credentials_from_the_environment(cloud, capsys, monkeypatch):
    monkeypatch.setenv("HUAWEICLOUD_SDK_AK", AK)
    monkeypatch.setenv("HUAWEICLOUD_SDK_SK", SK)
    serve(cloud, installed=[instance()])
    result = run(capsys, cloud, access_key=None, secret_key=None, project_id=None)
    assert result["rc"] == 0 and result["changed"] is False
    assert cloud.calls() == [("GET", "/v3/projects"), ("GET", "/api/v3/addons")]
    assert all(r["signature_ok"] for r in cloud.requests)
    assert cloud.requests[-1]["headers"]["x-project-id"] == PROJECT


def test_no_secret_in_the_result_or_the_invocation(cloud, capsys):
    serve(cloud, installed=[instance()])
    extra = {"security_token": "TemporarySecurityToken0001"}
    if "inject_invocation" in PASS_VARS:
        # ansible-core 2.21 adds the invocation only when asked (module_utils/common/parameters.py PASS_VARS).
        extra["_ansible_inject_invocation"] = True
    result = run(capsys, cloud, **extra)
    assert result["rc"] == 0, result
    text = json.dumps(result)
    for secret in (SK, "TemporarySecurityToken0001"):
        assert secret not in text
    assert result["invocation"]["module_args"]["secret_key"] == "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER"


# ---- the instance's status (AddonInstanceStatus.status, huaweicloudsdkcce 3.1.219: its docstring lists the values
# and what each needs; the endpoint answers them as CCE's list does, in status.status) ---------------------------

UID = "9d1c0000-0000-0000-0000-000000000001"
PUT = ("PUT", "/api/v3/addons/%s" % UID)


def test_a_failed_upgrade_is_repaired_by_an_update_even_with_the_same_version_and_values(cloud, capsys):
    serve(cloud, installed=[instance(status="upgradeFailed")])
    result = run(capsys, cloud, values=VALUES)
    assert result["rc"] == 0, result
    assert (result["changed"], result["action"], result["updated"], result["repaired"]) == (True, "update", True, True)
    assert result["reason"] == ("the add-on's upgrade failed (status upgradeFailed): retried as an update to version "
                                "1.5.28 with the values asked for")
    assert cloud.calls() == [("GET", "/api/v3/addons"), PUT]
    assert cloud.requests[-1].json() == {
        "kind": "Addon", "apiVersion": "v3",
        "metadata": {"annotations": {"addon.upgrade/type": "upgrade"}},
        "spec": {"clusterID": CLUSTER, "version": "1.5.28", "addonTemplateName": "virtual-kubelet",
                 "values": {"basic": BASIC, "flavor": VALUES["flavor"], "custom": VALUES["custom"]}},
    }
    assert result["addon"]["status"] == "upgrading"
    assert_signed(cloud)


def test_a_failed_upgrade_is_repaired_to_the_version_asked_for(cloud, capsys):
    serve(cloud, installed=[instance("1.5.10", status="upgradeFailed")])
    result = run(capsys, cloud, version="1.5.28", values={"flavor": {"replicas": 3}})
    assert result["rc"] == 0 and result["repaired"] is True and result["version"] == "1.5.28"
    sent = cloud.requests[-1].json()["spec"]
    assert sent["version"] == "1.5.28" and sent["values"]["flavor"] == {"name": "Small", "replicas": 3}


def test_check_mode_reports_the_repair_without_a_write(cloud, capsys):
    serve(cloud, installed=[instance(status="upgradeFailed")])
    result = run(capsys, cloud, check_mode=True, values=VALUES)
    assert result["rc"] == 0, result
    assert (result["changed"], result["action"], result["repaired"]) == (True, "update", True)
    assert cloud.calls() == [("GET", "/api/v3/addons")]


def test_a_running_add_on_is_not_repaired(cloud, capsys):
    serve(cloud, installed=[instance(status="running")])
    result = run(capsys, cloud, values=VALUES)
    assert (result["changed"], result["repaired"], result["reason"]) == (False, False, "")


@pytest.mark.parametrize("status, fix", [
    ("installFailed", "its installation failed (status installFailed), which CCE says only uninstalling and "
                      "installing again repairs. Fix: uninstall the add-on"),
    ("rollbackFailed", "its rollback failed (status rollbackFailed). Fix: retry the rollback"),
    ("deleteFailed", "its uninstallation failed (status deleteFailed). Fix: retry the uninstallation"),
    ("deleting", "it is being uninstalled (status deleting). Fix: run again once it is gone"),
    ("unknown", "CCE reports its state as unknown (status unknown: the add-on's template instance does not exist). "
                "Fix: uninstall the add-on"),
])
@pytest.mark.parametrize("check_mode", [False, True], ids=["run", "check"])
def test_a_state_an_update_cannot_repair_fails_naming_it_before_any_write(cloud, capsys, status, fix, check_mode):
    serve(cloud, installed=[instance(status=status)])
    result = run(capsys, cloud, check_mode=check_mode, values=VALUES)
    assert result["rc"] == 1 and result["failed"] is True
    assert result["msg"] == "add-on virtual-kubelet (instance %s) cannot be installed or updated: %s" % (
        UID, result["msg"].split(": ", 1)[1])
    assert fix in result["msg"]
    assert result["addon_status"] == status
    assert cloud.calls() == [("GET", "/api/v3/addons")]


@pytest.mark.parametrize("status, words", [("installing", "being installed"), ("upgrading", "being upgraded"),
                                           ("rollbacking", "being rolled back")])
def test_an_add_on_cce_is_busy_with_is_not_written_to(cloud, capsys, status, words):
    serve(cloud, installed=[instance(status=status)])
    # Nothing to change: ok, as the add-on is or will be as asked.
    result = run(capsys, cloud, values=VALUES)
    assert result["rc"] == 0 and result["changed"] is False
    # A change: refused until CCE has finished.
    result = run(capsys, cloud, values={"flavor": {"replicas": 3}})
    assert result["rc"] == 1 and result["addon_status"] == status
    assert result["msg"] == ("add-on virtual-kubelet (instance %s) is %s (status %s), and CCE takes no update "
                             "meanwhile. Fix: run again when it has finished" % (UID, words, status))
    assert cloud.writes() == []


def test_an_uninstalled_instance_still_listed_is_installed_again(cloud, capsys):
    serve(cloud, installed=[instance(status="deleteSuccess")])
    result = run(capsys, cloud, version="1.5.28", values=VALUES)
    assert result["rc"] == 0, result
    assert (result["action"], result["repaired"]) == ("install", False)
    assert result["reason"] == "the add-on's last instance was uninstalled (status deleteSuccess)"
    assert cloud.calls() == [("GET", "/api/v3/addons"), ("GET", "/api/v3/addontemplates"), ("POST", "/api/v3/addons")]


def test_an_abnormal_add_on_is_reported_not_written_to(cloud, capsys):
    serve(cloud, installed=[instance(status="abnormal")])
    result = run(capsys, cloud, values=VALUES)
    assert result["rc"] == 0 and result["changed"] is False
    # ansible-core 2.19+ returns each warning as a dict (its message inside), earlier ones as a string.
    messages = [str(w) for w in result["warnings"]]
    assert [m for m in messages if "CCE reports add-on virtual-kubelet abnormal" in m], messages
    assert cloud.writes() == []

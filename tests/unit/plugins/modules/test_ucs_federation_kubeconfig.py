# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Contract test of the ucs_federation_kubeconfig module against the local HTTPS endpoint (fakes.huaweicloud.UcsPlay).

From huaweicloudsdkucs 3.1.219: create_federation_connection is POST /v1/clustergroups/{id}/connection with
CreateFederationConnectionRequestBody (projectID, vpcID, subnetID), answered with ``id``;
download_federation_kubeconfig is POST /v1/clustergroups/{id}/kubeconfig with ``{"duration": n}``
(DownloadFederationKubeconfigRequestBody; days and 1-1825 from Huawei's API reference, not the SDK), answered
with DownloadFederationKubeconfigResponse (kind, apiVersion, clusters, users, contexts, current-context;
ClusterCert.insecure-skip-tls-verify a string, AuthInfo with client-certificate-data, client-key-data, token).
Not confirmed by the SDK or Huawei's reference: the names of the clusters, users and contexts in UCS's answer
(``federation-cluster``, ``federation-user``, ``karmada`` below are made up; the module renames the context
``federation`` whatever it is), and the error a download gets before the federation has a connection (the
endpoint answers 400 with an invented code).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import datetime
import json
import os
import stat

import pytest
import yaml

from ansible_collections.multicloud.federation.plugins.modules import ucs_federation_kubeconfig
# The contract fixtures: sdk_state (autouse) and cloud, the local endpoint that plays CCE, UCS and IAM.
from ansible_collections.multicloud.federation.tests.unit.fakes.huaweicloud_contract import (  # noqa: F401 pylint: disable=unused-import
    DOMAIN, PROJECT, SK, cloud, module_args, sdk_state,
)
from ansible_collections.multicloud.federation.tests.unit.fakes.huaweicloud import UcsPlay
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import run_module, umask
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.test_cce_kubeconfig import CA_DATA, client_cert


VPC = "11c9fe72-5a90-4295-bcfe-774726fb9066"
SUBNET = "0de91d89-1e06-4e24-b371-35d5d3d3779b"
SERVER = "https://192.168.0.200:5443"


class Answers(object):
    def __init__(self, days=365):
        self.days = days
        self.keys = []

    def __call__(self):
        cert, key = client_cert(self.days)
        self.keys.append(key)
        return {"kind": "Config", "apiVersion": "v1",
                "clusters": [{"name": "federation-cluster",
                              "cluster": {"server": SERVER, "certificate-authority-data": CA_DATA,
                                          "insecure-skip-tls-verify": "false"}}],
                "users": [{"name": "federation-user", "user": {"client-certificate-data": cert, "client-key-data": key}}],
                "contexts": [{"name": "karmada", "context": {"cluster": "federation-cluster", "user": "federation-user"}}],
                "current-context": "karmada"}


def federation(cloud, days=365, enabled=True):
    answers = Answers(days)
    play = UcsPlay(cloud, DOMAIN, kubeconfig=answers)
    return play, play.add_group("multicloud-fleet", federation=enabled), answers


def run(capsys, cloud, dest, check_mode=False, **extra):
    args = dict(dict(fleet="multicloud-fleet", dest=str(dest), duration=1825, domain_id=DOMAIN, vpc_id=VPC,
                     subnet_id=SUBNET), **extra)
    return run_module(ucs_federation_kubeconfig, capsys, module_args(cloud, check_mode, **args))


def test_connects_downloads_and_writes_0600_with_the_federation_context(cloud, capsys, tmp_path):
    play, fleet_id, answers = federation(cloud)
    dest = tmp_path / "federation.kubeconfig"
    with umask(0):
        result = run(capsys, cloud, dest)
    assert result["rc"] == 0, result
    assert (result["changed"], result["renewed"], result["connection_id"]) == (True, True, "conn-" + fleet_id)
    download = ("POST", "/v1/clustergroups/%s/kubeconfig" % fleet_id)
    assert cloud.calls() == [("GET", "/v1/clustergroups"), download,
                             ("POST", "/v1/clustergroups/%s/connection" % fleet_id), download]
    assert cloud.requests[1].json() == {"duration": 1825} and cloud.requests[3].json() == {"duration": 1825}
    assert cloud.requests[2].json() == {"projectID": PROJECT, "vpcID": VPC, "subnetID": SUBNET}
    for request in cloud.requests:
        assert request["signature_ok"], request["why"]
        assert request["query"] == [] and request["headers"]["x-domain-id"] == DOMAIN
    assert stat.S_IMODE(os.stat(str(dest)).st_mode) == 0o600
    written = yaml.safe_load(dest.read_text())
    assert written["current-context"] == "federation"
    assert written["contexts"] == [{"name": "federation", "context": {"cluster": "federation-cluster",
                                                                      "user": "federation-user"}}]
    assert written["clusters"] == [{"name": "federation-cluster",
                                    "cluster": {"server": SERVER, "certificate-authority-data": CA_DATA}}]
    assert written["users"][0]["user"]["client-key-data"] == answers.keys[-1]
    text = json.dumps(result)
    assert answers.keys[-1] not in text and SK not in text


def test_a_second_run_makes_no_write_call(cloud, capsys, tmp_path):
    federation(cloud)
    dest = tmp_path / "federation.kubeconfig"
    assert run(capsys, cloud, dest)["rc"] == 0
    before = dest.read_bytes()
    cloud.requests[:] = []
    result = run(capsys, cloud, dest)
    assert result["rc"] == 0 and (result["changed"], result["renewed"], result["reason"]) == (False, False, "")
    assert cloud.calls() == [("GET", "/v1/clustergroups")] and dest.read_bytes() == before


def test_an_existing_connection_is_not_created_again(cloud, capsys, tmp_path):
    play, fleet_id, _answers = federation(cloud)
    play.connections[fleet_id] = {}
    result = run(capsys, cloud, tmp_path / "kubeconfig", force=True)
    assert result["rc"] == 0 and result["connection_id"] is None
    assert cloud.calls() == [("GET", "/v1/clustergroups"), ("POST", "/v1/clustergroups/%s/kubeconfig" % fleet_id)]


def test_a_certificate_that_expires_soon_is_renewed(cloud, capsys, tmp_path):
    play, fleet_id, answers = federation(cloud, days=10)
    dest = tmp_path / "kubeconfig"
    run(capsys, cloud, dest)
    answers.days = 365
    cloud.requests[:] = []
    result = run(capsys, cloud, dest, renew_before_days=30)
    assert result["rc"] == 0 and result["reason"].endswith("within 30 days")
    assert result["previous_expires"] < result["expires"]
    assert cloud.calls() == [("GET", "/v1/clustergroups"), ("POST", "/v1/clustergroups/%s/kubeconfig" % fleet_id)]


def test_check_mode_makes_no_write_call_and_no_file(cloud, capsys, tmp_path):
    federation(cloud)
    dest = tmp_path / "kubeconfig"
    result = run(capsys, cloud, dest, check_mode=True)
    assert result["rc"] == 0 and (result["changed"], result["renewed"]) == (True, True)
    assert cloud.calls() == [("GET", "/v1/clustergroups")] and not dest.exists()


@pytest.mark.parametrize("duration", [0, 1826, 3650])
def test_an_expiry_over_five_years_stops_before_any_request(cloud, capsys, tmp_path, duration):
    federation(cloud)
    result = run(capsys, cloud, tmp_path / "kubeconfig", duration=duration)
    assert result["rc"] == 1 and result["msg"].startswith("duration %d is out of range: the federation's kubeconfig "
                                                          "is valid 1 to 1825 days" % duration)
    assert cloud.requests == []


def test_without_a_connection_and_no_vpc_the_fix_is_named(cloud, capsys, tmp_path):
    federation(cloud)
    result = run(capsys, cloud, tmp_path / "kubeconfig", vpc_id=None, subnet_id=None)
    assert result["rc"] == 1 and result["error_code"] == "UCS.00140001"
    assert "give vpc_id and subnet_id (and project_id) so that one is created" in result["msg"]
    assert [c for c in cloud.calls() if c[1].endswith("/connection")] == []


def test_a_fleet_without_federation_names_the_fix(cloud, capsys, tmp_path):
    federation(cloud, enabled=False)
    result = run(capsys, cloud, tmp_path / "kubeconfig")
    assert result["rc"] == 1 and "has no federation. Fix: enable it first" in result["msg"]
    assert cloud.writes() == []


def test_a_403_on_the_download_names_the_code(cloud, capsys, tmp_path):
    _play, fleet_id, _answers = federation(cloud)
    cloud.fail_next("POST", "/v1/clustergroups/%s/kubeconfig" % fleet_id, 403,
                    {"error_code": "IAM.0003", "error_msg": "Policy doesn't allow ucs:federation:get"})
    result = run(capsys, cloud, tmp_path / "kubeconfig")
    assert result["rc"] == 1 and result["error_code"] == "IAM.0003" and "UCS FullAccess" in result["msg"]
    assert not (tmp_path / "kubeconfig").exists()


# ---- renewal before expiry -------------------------------------------------------------------------------------

def jwt(days):
    """An unsigned JWT whose exp claim is ``days`` from now (only its exp is read)."""
    def part(data):
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")
    exp = int((datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=days)).timestamp())
    return "%s.%s.%s" % (part({"alg": "none"}), part({"sub": "federation-user", "exp": exp}), "c2ln")


def federation_file(dest, user):
    dest.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "federation",
        "clusters": [{"name": "federation-cluster", "cluster": {"server": SERVER, "certificate-authority-data": CA_DATA}}],
        "users": [{"name": "federation-user", "user": user}],
        "contexts": [{"name": "federation", "context": {"cluster": "federation-cluster", "user": "federation-user"}}]}))
    os.chmod(str(dest), 0o600)
    return dest.read_bytes()


def test_check_mode_inside_the_window_makes_no_download_and_no_write(cloud, capsys, tmp_path):
    federation(cloud, days=10)
    dest = tmp_path / "kubeconfig"
    run(capsys, cloud, dest)
    before = dest.read_bytes()
    cloud.requests[:] = []
    result = run(capsys, cloud, dest, check_mode=True, renew_before_days=30)
    assert result["rc"] == 0 and (result["changed"], result["renewed"]) == (True, True)
    assert result["reason"].startswith("the client certificate expires ") and result["previous_expires"]
    assert cloud.calls() == [("GET", "/v1/clustergroups")] and dest.read_bytes() == before


def test_a_certificate_beyond_the_window_is_kept_and_its_expiry_reported(cloud, capsys, tmp_path):
    federation(cloud)
    dest = tmp_path / "kubeconfig"
    cert, key = client_cert(200)
    before = federation_file(dest, {"client-certificate-data": cert, "client-key-data": key})
    result = run(capsys, cloud, dest, renew_before_days=30)
    assert result["rc"] == 0 and (result["changed"], result["renewed"]) == (False, False)
    assert result["expires"][:4].isdigit()
    assert cloud.calls() == [("GET", "/v1/clustergroups")] and dest.read_bytes() == before
    assert key not in json.dumps(result)


@pytest.mark.parametrize("days, renewed", [(200, False), (10, True)])
def test_a_token_is_renewed_by_its_exp_claim(cloud, capsys, tmp_path, days, renewed):
    play, fleet_id, _answers = federation(cloud)
    play.connections[fleet_id] = {}  # connected: a renewal is one download
    dest = tmp_path / "kubeconfig"
    token = jwt(days)
    federation_file(dest, {"token": token})
    result = run(capsys, cloud, dest, renew_before_days=30)
    assert result["rc"] == 0 and result["renewed"] is renewed
    downloads = [call for call in cloud.calls() if call == ("POST", "/v1/clustergroups/%s/kubeconfig" % fleet_id)]
    assert len(downloads) == int(renewed)
    if renewed:
        assert result["reason"].startswith("the token expires ")
    assert token not in json.dumps(result)


def test_an_opaque_token_cannot_say_when_it_expires_so_it_is_renewed(cloud, capsys, tmp_path):
    federation(cloud)
    dest = tmp_path / "kubeconfig"
    federation_file(dest, {"token": "opaque-token-0001"})
    result = run(capsys, cloud, dest)
    assert result["rc"] == 0 and result["renewed"] is True
    assert result["reason"].startswith("the kubeconfig in place has no expiry that can be read")

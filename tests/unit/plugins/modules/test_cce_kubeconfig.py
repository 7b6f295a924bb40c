# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Contract test of the cce_kubeconfig module against the local HTTPS endpoint (SDK-built, signed requests).

Shapes from huaweicloudsdkcce 3.1.219: ``create_kubernetes_cluster_cert`` is POST
/api/v3/projects/{project_id}/clusters/{cluster_id}/clustercert with ``CertDuration`` ``{"duration": days}``
(-1 or 1-1827); the answer's keys are CreateKubernetesClusterCertResponse's attribute_map (``clusters``,
``users``, ``contexts``, ``current-context``, ``certificate-authority-data``, ``client-certificate-data``,
``client-key-data``, ``insecure-skip-tls-verify``). The cluster and context names (``internalCluster``,
``externalCluster``, ``externalClusterTLSVerify``; ``internal``, ``external``, ``externalTLSVerify``) are
those of CCE's API reference example ("Obtaining a Cluster Certificate"), which the SDK does not fix.
``status.endpoints`` types ``Internal``/``External`` are from the reference as well (the SDK types them str).
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

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from ansible_collections.multicloud.federation.plugins.modules import cce_kubeconfig
# The contract fixtures: sdk_state (autouse) and cloud, the local endpoint that plays CCE, UCS and IAM.
from ansible_collections.multicloud.federation.tests.unit.fakes.huaweicloud_contract import (  # noqa: F401 pylint: disable=unused-import
    PROJECT, SK, cloud, module_args, sdk_state,
)
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import run_module, umask


CLUSTER = "4a2b1d8e-7c41-11ee-a6b4-0255ac100b05"
INTERNAL = "https://192.168.0.10:5443"
EXTERNAL = "https://203.0.113.7:5443"
CERT_PATH = "/api/v3/projects/%s/clusters/%s/clustercert" % (PROJECT, CLUSTER)
CLUSTER_PATH = "/api/v3/projects/%s/clusters/%s" % (PROJECT, CLUSTER)
CA_DATA = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n").decode()


def client_cert(days):
    """base64 PEM of a client certificate valid ``days`` more days, and of its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, u"user")])
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=days)).sign(key, hashes.SHA256()))
    pem_key = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return (base64.b64encode(cert.public_bytes(serialization.Encoding.PEM)).decode(), base64.b64encode(pem_key).decode())


def cluster_detail(external=True):
    endpoints = [{"url": INTERNAL, "type": "Internal"}] + ([{"url": EXTERNAL, "type": "External"}] if external else [])
    return {"kind": "Cluster", "apiVersion": "v3", "metadata": {"name": "test-ucs", "uid": CLUSTER},
            "spec": {"type": "VirtualMachine", "version": "v1.28"}, "status": {"phase": "Available", "endpoints": endpoints}}


def cert_answer(days=365, external=True):
    cert, key = client_cert(days)
    clusters = [{"name": "internalCluster", "cluster": {"server": INTERNAL, "certificate-authority-data": CA_DATA}}]
    contexts = [{"name": "internal", "context": {"cluster": "internalCluster", "user": "user"}}]
    if external:
        clusters += [{"name": "externalCluster", "cluster": {"server": EXTERNAL, "insecure-skip-tls-verify": True}},
                     {"name": "externalClusterTLSVerify", "cluster": {"server": EXTERNAL, "certificate-authority-data": CA_DATA}}]
        contexts += [{"name": "external", "context": {"cluster": "externalCluster", "user": "user"}},
                     {"name": "externalTLSVerify", "context": {"cluster": "externalClusterTLSVerify", "user": "user"}}]
    return {"kind": "Config", "apiVersion": "v1", "preferences": {}, "clusters": clusters,
            "users": [{"name": "user", "user": {"client-certificate-data": cert, "client-key-data": key}}],
            "contexts": contexts, "current-context": "external" if external else "internal"}, key


def serve(endpoint, external_address=True, external_in_answer=True, days=365):
    endpoint.route("GET", CLUSTER_PATH, (200, cluster_detail(external_address)))
    answer, key = cert_answer(days, external_in_answer)
    endpoint.route("POST", CERT_PATH, (201, answer, {"Port-ID": "port-1"}))
    return key


def run(capsys, endpoint, dest, check_mode=False, **extra):
    args = dict(dict(cluster_id=CLUSTER, dest=str(dest), duration=365), **extra)
    return run_module(cce_kubeconfig, capsys, module_args(endpoint, check_mode, **args))


def test_issues_and_writes_the_kubeconfig_0600(cloud, capsys, tmp_path):
    key = serve(cloud)
    dest = tmp_path / "test-ucs.kubeconfig"
    with umask(0):
        result = run(capsys, cloud, dest)
    assert result["rc"] == 0, result
    assert (result["changed"], result["renewed"], result["reason"]) == (True, True, "no kubeconfig at the destination")
    assert result["contexts"] == ["internal", "external", "externalTLSVerify"]
    assert result["expires"][:4].isdigit() and result["previous_expires"] is None
    assert cloud.calls() == [("GET", CLUSTER_PATH), ("POST", CERT_PATH)]
    get, post = cloud.requests
    assert get["query"] == [] and get["body"] == b""
    assert post["query"] == [] and post.json() == {"duration": 365}
    for request in cloud.requests:
        assert request["signature_ok"], request["why"]
        assert request["headers"]["x-project-id"] == PROJECT and request["headers"]["host"] == cloud.host
    assert stat.S_IMODE(os.stat(str(dest)).st_mode) == 0o600
    written = yaml.safe_load(dest.read_text())
    assert written["current-context"] == "external"
    assert [c["name"] for c in written["contexts"]] == ["internal", "external", "externalTLSVerify"]
    assert written["users"][0]["user"]["client-key-data"] == key
    text = json.dumps(result)
    assert key not in text and SK not in text


def test_a_second_run_makes_no_write_call(cloud, capsys, tmp_path):
    serve(cloud)
    dest = tmp_path / "kubeconfig"
    assert run(capsys, cloud, dest)["rc"] == 0
    before = dest.read_bytes()
    cloud.requests[:] = []
    result = run(capsys, cloud, dest)
    assert result["rc"] == 0, result
    assert (result["changed"], result["renewed"], result["reason"]) == (False, False, "")
    assert cloud.calls() == [("GET", CLUSTER_PATH)]
    assert dest.read_bytes() == before


def test_a_certificate_that_expires_soon_is_renewed(cloud, capsys, tmp_path):
    serve(cloud, days=10)
    dest = tmp_path / "kubeconfig"
    run(capsys, cloud, dest)
    serve(cloud, days=365)
    cloud.requests[:] = []
    result = run(capsys, cloud, dest, renew_before_days=30)
    assert result["rc"] == 0 and result["renewed"] is True
    assert result["reason"].startswith("the client certificate expires ") and result["reason"].endswith("within 30 days")
    assert result["previous_expires"] < result["expires"]
    assert cloud.calls() == [("GET", CLUSTER_PATH), ("POST", CERT_PATH)]


def test_another_clusters_file_is_replaced(cloud, capsys, tmp_path):
    serve(cloud)
    dest = tmp_path / "kubeconfig"
    cert, key = client_cert(365)
    dest.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "Config", "current-context": "internal",
                                    "clusters": [{"name": "x", "cluster": {"server": "https://10.9.9.9:5443"}}],
                                    "users": [{"name": "u", "user": {"client-certificate-data": cert, "client-key-data": key}}],
                                    "contexts": [{"name": "internal", "context": {"cluster": "x", "user": "u"}}]}))
    result = run(capsys, cloud, dest)
    assert result["rc"] == 0 and result["reason"].startswith("the kubeconfig in place is not this cluster's")
    assert result["previous_expires"] is not None


def test_a_file_that_is_no_kubeconfig_is_replaced(cloud, capsys, tmp_path):
    serve(cloud)
    dest = tmp_path / "kubeconfig"
    dest.write_text("not: [a kubeconfig")
    result = run(capsys, cloud, dest)
    assert result["rc"] == 0 and result["reason"] == "the file at dest is not a kubeconfig that can be read"
    assert stat.S_IMODE(os.stat(str(dest)).st_mode) == 0o600


def test_check_mode_makes_no_write_call_and_no_file(cloud, capsys, tmp_path):
    serve(cloud)
    dest = tmp_path / "kubeconfig"
    result = run(capsys, cloud, dest, check_mode=True)
    assert result["rc"] == 0 and (result["changed"], result["renewed"]) == (True, True)
    assert cloud.calls() == [("GET", CLUSTER_PATH)]
    assert not dest.exists()


@pytest.mark.parametrize("duration", [0, -2, 1828])
def test_a_duration_out_of_range_stops_before_any_request(cloud, capsys, tmp_path, duration):
    result = run(capsys, cloud, tmp_path / "kubeconfig", duration=duration)
    assert result["rc"] == 1
    assert result["msg"] == ("duration %d is out of range: give 1 to 1827 days, or -1 for the longest CCE issues "
                             "(five years)" % duration)
    assert cloud.requests == []


def test_external_without_an_address_fails_before_any_write(cloud, capsys, tmp_path):
    serve(cloud, external_address=False, external_in_answer=False)
    result = run(capsys, cloud, tmp_path / "kubeconfig", context="external")
    assert result["rc"] == 1
    assert result["msg"].startswith("cluster %s has no external (public) API address" % CLUSTER)
    assert "never binds" in result["msg"]
    assert cloud.writes() == []


def test_the_external_context_comes_from_the_clusters_address(cloud, capsys, tmp_path):
    serve(cloud, external_address=True, external_in_answer=False)
    dest = tmp_path / "kubeconfig"
    result = run(capsys, cloud, dest)
    assert result["rc"] == 0, result
    written = yaml.safe_load(dest.read_text())
    clusters = dict((c["name"], c["cluster"]) for c in written["clusters"])
    contexts = dict((c["name"], c["context"]) for c in written["contexts"])
    assert contexts["external"] == {"cluster": "externalClusterTLSVerify", "user": "user"}
    assert clusters["externalClusterTLSVerify"] == {"server": EXTERNAL, "certificate-authority-data": CA_DATA}
    assert written["current-context"] == "external"


def test_a_cluster_not_found_names_the_fix(cloud, capsys, tmp_path):
    cloud.fail_next("GET", CLUSTER_PATH, 404, {"error_code": "CCE.01404001", "error_msg": "Resource not found"})
    result = run(capsys, cloud, tmp_path / "kubeconfig")
    assert result["rc"] == 1 and result["error_code"] == "CCE.01404001"
    assert "Fix: cluster %s does not exist in this project and region" % CLUSTER in result["msg"]
    assert cloud.writes() == []


# ---- renewal before expiry: the file in place decides, and only a renewal issues a certificate -------------------

def kubeconfig_in_place(dest, days, mode=0o600):
    """A kubeconfig of this cluster at ``dest`` (as CCE issued it: both contexts), its certificate valid ``days``."""
    answer, _key = cert_answer(days)
    dest.write_text(yaml.safe_dump(answer))
    os.chmod(str(dest), mode)
    return dest.read_bytes()


def test_a_file_valid_beyond_the_window_is_kept_and_nothing_is_issued(cloud, capsys, tmp_path):
    serve(cloud)
    dest = tmp_path / "kubeconfig"
    before = kubeconfig_in_place(dest, days=400)
    result = run(capsys, cloud, dest, renew_before_days=30)
    assert result["rc"] == 0, result
    assert (result["changed"], result["renewed"], result["reason"]) == (False, False, "")
    expires = datetime.datetime.fromisoformat(result["expires"])
    assert 399 <= (expires - datetime.datetime.now(datetime.timezone.utc)).days <= 400
    assert cloud.calls() == [("GET", CLUSTER_PATH)] and dest.read_bytes() == before


def test_a_file_inside_the_window_gets_exactly_one_new_certificate_0600(cloud, capsys, tmp_path):
    serve(cloud, days=365)
    dest = tmp_path / "kubeconfig"
    before = kubeconfig_in_place(dest, days=20, mode=0o644)
    result = run(capsys, cloud, dest, renew_before_days=30)
    assert result["rc"] == 0, result
    assert (result["changed"], result["renewed"]) == (True, True)
    assert result["reason"].startswith("the client certificate expires ") and result["reason"].endswith(", within 30 days")
    assert [call for call in cloud.calls() if call[0] == "POST"] == [("POST", CERT_PATH)]
    assert result["previous_expires"] < result["expires"] and dest.read_bytes() != before
    # The new file is the writer's (mkstemp, 0600 from its first byte), whatever the replaced one's mode.
    assert stat.S_IMODE(os.stat(str(dest)).st_mode) == 0o600


def test_a_wider_window_renews_the_same_file(cloud, capsys, tmp_path):
    serve(cloud)
    dest = tmp_path / "kubeconfig"
    kubeconfig_in_place(dest, days=100)
    assert run(capsys, cloud, dest, renew_before_days=30)["renewed"] is False
    assert run(capsys, cloud, dest, renew_before_days=120)["renewed"] is True
    assert [call for call in cloud.calls() if call[0] == "POST"] == [("POST", CERT_PATH)]


def test_check_mode_inside_the_window_reports_a_renewal_without_a_request_or_a_write(cloud, capsys, tmp_path):
    serve(cloud)
    dest = tmp_path / "kubeconfig"
    before = kubeconfig_in_place(dest, days=5)
    result = run(capsys, cloud, dest, check_mode=True, renew_before_days=30)
    assert result["rc"] == 0, result
    assert (result["changed"], result["renewed"]) == (True, True) and result["reason"].endswith("within 30 days")
    assert result["previous_expires"] is not None
    assert cloud.calls() == [("GET", CLUSTER_PATH)] and dest.read_bytes() == before


def test_a_file_whose_certificate_cannot_be_read_is_renewed(cloud, capsys, tmp_path):
    serve(cloud)
    dest = tmp_path / "kubeconfig"
    answer, _key = cert_answer()
    answer["users"][0]["user"]["client-certificate-data"] = base64.b64encode(b"not a certificate").decode()
    dest.write_text(yaml.safe_dump(answer))
    result = run(capsys, cloud, dest)
    assert result["rc"] == 0 and result["renewed"] is True
    assert result["reason"] == ("the kubeconfig in place has no expiry that can be read (a client certificate, or a "
                                "token's exp claim)")
    assert result["previous_expires"] is None


def only_context(answer, name):
    """``answer`` reduced to its context ``name`` (with its cluster and user), as a host's file taken from a merged
    kubeconfig holds it (the AWX ucs_fleet job's files)."""
    (context,) = [c for c in answer["contexts"] if c["name"] == name]
    return dict(answer, contexts=[context], clusters=[c for c in answer["clusters"] if c["name"] == context["context"]["cluster"]],
                **{"current-context": name})


def test_an_internal_file_of_a_cluster_with_an_external_address_is_kept_for_context_internal(cloud, capsys, tmp_path):
    serve(cloud)
    dest = tmp_path / "kubeconfig"
    answer, _key = cert_answer(400)
    dest.write_text(yaml.safe_dump(only_context(answer, "internal")))
    before = dest.read_bytes()
    result = run(capsys, cloud, dest, context="internal")
    assert result["rc"] == 0, result
    assert (result["changed"], result["renewed"], result["reason"]) == (False, False, "")
    assert cloud.calls() == [("GET", CLUSTER_PATH)] and dest.read_bytes() == before
    # Without a context asked for, the same file lacks the external context the cluster has an address for.
    result = run(capsys, cloud, dest)
    assert result["renewed"] is True
    assert result["reason"] == "the cluster has an external address that the kubeconfig in place has no context for"


def test_a_file_without_the_context_asked_for_is_renewed(cloud, capsys, tmp_path):
    serve(cloud, external_address=False, external_in_answer=False)
    dest = tmp_path / "kubeconfig"
    answer, _key = cert_answer(400, external=False)
    answer["contexts"][0]["name"] = "idc1"
    answer["current-context"] = "idc1"
    dest.write_text(yaml.safe_dump(answer))
    result = run(capsys, cloud, dest, context="internal")
    assert result["rc"] == 0 and result["renewed"] is True, result
    assert result["reason"] == "the kubeconfig in place has no context internal"
    assert yaml.safe_load(dest.read_text())["current-context"] == "internal"

# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Secret and FederatedCluster that join a member to KubeAdmiral, built from its kubeconfig."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.engines.contract import EngineError
from ansible_collections.multicloud.federation.plugins.module_utils.engines.kubeadmiral import join as kj

CA, CERT, KEY = b"-----BEGIN CERTIFICATE-----\nca\n", b"-----BEGIN CERTIFICATE-----\nme\n", b"-----BEGIN KEY-----\nk\n"


def b64(data):
    return base64.b64encode(data).decode()


def kubeconfig(cluster=None, user=None):
    return {"apiVersion": "v1", "kind": "Config",
            "clusters": [{"name": "a", "cluster": dict({"server": "https://10.0.0.1:6443"}, **(cluster or {}))}],
            "users": [{"name": "admin", "user": user or {}}],
            "contexts": [{"name": "internal", "context": {"cluster": "a", "user": "admin"}}]}


def test_inline_client_certificate():
    found = kj.registration(kubeconfig({"certificate-authority-data": b64(CA)},
                                       {"client-certificate-data": b64(CERT), "client-key-data": b64(KEY)}),
                            "internal", "/nowhere", "a.kubeconfig")
    assert found == {"endpoint": "https://10.0.0.1:6443", "insecure": False, "credential_kind": "client-certificate",
                     "data": {"certificate-authority-data": b64(CA), "client-certificate-data": b64(CERT),
                              "client-key-data": b64(KEY)}}


def test_files_resolve_against_the_kubeconfig_directory(tmp_path):
    (tmp_path / "ca.crt").write_bytes(CA)
    (tmp_path / "token").write_text("abc.def\n")
    found = kj.registration(kubeconfig({"certificate-authority": "ca.crt"}, {"tokenFile": "token"}), "internal",
                            str(tmp_path), "a.kubeconfig")
    assert found["credential_kind"] == "token"
    assert found["data"] == {"certificate-authority-data": b64(CA), "bootstrap-token-data": b64(b"abc.def")}


def test_an_inline_token_becomes_the_bootstrap_token():
    found = kj.registration(kubeconfig({"certificate-authority-data": b64(CA)}, {"token": "t0k3n"}), "internal", "/",
                            "a")
    assert found["data"]["bootstrap-token-data"] == b64(b"t0k3n")


def test_insecure_needs_no_ca_and_says_so():
    found = kj.registration(kubeconfig({"insecure-skip-tls-verify": True}, {"token": "t"}), "internal", "/", "a")
    assert found["insecure"] is True and "certificate-authority-data" not in found["data"]
    assert kj.federated_cluster("m", found["endpoint"], True)["spec"]["insecure"] is True


@pytest.mark.parametrize("cluster, user, message", [
    ({}, {"token": "t"}, "cluster 'a' has no certificate-authority(-data)"),
    ({"certificate-authority-data": b64(CA)}, {"exec": {"command": "aws"}},
     "user 'admin' of context 'internal' has no client certificate and key and no token (it uses exec)"),
    ({"certificate-authority-data": b64(CA)}, {"client-certificate-data": b64(CERT)},
     "has no client certificate and key and no token"),
    ({"certificate-authority": "/no/such/ca.crt"}, {"token": "t"},
     "the certificate-authority file /no/such/ca.crt cannot be read"),
])
def test_what_cannot_be_stored_is_refused_without_the_credential(cluster, user, message):
    with pytest.raises(kj.JoinError) as raised:
        kj.registration(kubeconfig(cluster, user), "internal", "/", "a.kubeconfig")
    assert message in str(raised.value)
    assert b64(CERT) not in str(raised.value) and "aws" not in str(raised.value)


def test_a_context_the_file_does_not_have():
    with pytest.raises(kj.JoinError, match="context 'external' does not exist in a.kubeconfig"):
        kj.registration(kubeconfig(), "external", "/", "a.kubeconfig")


def test_secret_and_federated_cluster_shapes():
    assert kj.member_secret("cluster-a", {"k": "v"}) == {
        "apiVersion": "v1", "kind": "Secret", "type": "Opaque",
        "metadata": {"name": "cluster-a", "namespace": "kube-admiral-system"}, "data": {"k": "v"}}
    assert kj.federated_cluster("cluster-a", "https://x:6443", False) == {
        "apiVersion": "core.kubeadmiral.io/v1alpha1", "kind": "FederatedCluster", "metadata": {"name": "cluster-a"},
        "spec": {"apiEndpoint": "https://x:6443", "secretRef": {"name": "cluster-a"}, "useServiceAccount": False}}


def test_a_join_refusal_is_an_engine_error():
    # kubeadmiral_member turns the one engine error into its failure message.
    assert issubclass(kj.JoinError, EngineError)

"""kubeconfig and inventory files the stack hands to users and the collection."""

import base64
import stat

import yaml

from tests.stack import inventory, kubeconfigs, topology
from tests.stack.layout import load_versions


CA, CERT, KEY = b"ca-pem", b"cert-pem", b"key-pem"


def contexts(config):
    clusters = {c["name"]: c["cluster"] for c in config["clusters"]}
    users = {u["name"]: u["user"] for u in config["users"]}
    return {c["name"]: (clusters[c["context"]["cluster"]], users[c["context"]["user"]]) for c in config["contexts"]}


def test_member_kubeconfig_has_internal_and_external_endpoints():
    member = topology.members(2)[1]
    config = kubeconfigs.member(member, CA, CERT, KEY)
    by_context = contexts(config)
    assert set(by_context) == {"internal", "external"}
    assert config["current-context"] == "internal"
    assert by_context["internal"][0]["server"] == f"https://127.0.0.1:{member.apiserver_port}"
    assert by_context["external"][0]["server"] == f"https://127.0.0.2:{member.apiserver_port}"
    for cluster, user in by_context.values():
        assert base64.b64decode(cluster["certificate-authority-data"]) == CA
        assert "insecure-skip-tls-verify" not in cluster
        assert base64.b64decode(user["client-certificate-data"]) == CERT


def test_federation_kubeconfig_uses_a_token_through_the_proxy_and_a_cert_directly():
    ports = topology.KarmadaPorts()
    config = kubeconfigs.federation(ports, CA, "secret-token", CERT, KEY)
    by_context = contexts(config)
    assert config["current-context"] == "federation"
    assert by_context["federation"][0]["server"] == f"https://127.0.0.1:{ports.federation_proxy}"
    assert by_context["federation"][1] == {"token": "secret-token"}
    assert by_context["karmada"][0]["server"] == f"https://127.0.0.1:{ports.apiserver}"
    assert "client-certificate-data" in by_context["karmada"][1]


def test_kubeconfig_written_private_and_only_when_changed(tmp_path):
    path = tmp_path / "sub" / "x.kubeconfig"
    config = kubeconfigs.component("c", "https://127.0.0.1:1", CA, CERT, KEY)
    assert kubeconfigs.write(path, config) is True
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert kubeconfigs.write(path, config) is False
    assert yaml.safe_load(path.read_text()) == config


def test_inventory_follows_the_collection_model(tmp_path):
    members = topology.members(3)
    data = inventory.build(members, tmp_path / "federation.kubeconfig",
                           {m.name: tmp_path / f"{m.name}.kubeconfig" for m in members},
                           load_versions(), "/venv/bin/python")
    all_group = data["all"]
    assert all_group["vars"]["ansible_connection"] == "local"
    assert all_group["vars"]["ansible_python_interpreter"] == "/venv/bin/python"
    assert all_group["vars"]["federation_karmada_version"].startswith("v")
    assert not all_group["vars"]["federation_kruise_chart_version"].startswith("v")
    # The reference runbook's Kruise chart, for a run with its version and chart ref passed with -e.
    assert all_group["vars"]["stack_kruise_runbook_chart_version"] == load_versions()["kruise_runbook"]["version"][1:]
    assert all_group["vars"]["stack_kruise_runbook_chart_ref"].endswith(
        f"/charts/kruise-{all_group['vars']['stack_kruise_runbook_chart_version']}")
    federation = all_group["children"]["federation"]["hosts"]
    assert list(federation) == ["karmada"]
    assert federation["karmada"]["cluster_access"] == "federation"
    hosts = all_group["children"]["members"]["hosts"]
    assert {name: h["cluster_weight"] for name, h in hosts.items()} == {"idc1": 1, "test-ucs": 2, "member3": 1}
    assert all(h["cluster_virtual_kubelet"] is True for h in hosts.values())
    path = tmp_path / "inv" / "hosts.yml"
    assert inventory.write(path, data) is True
    assert inventory.write(path, data) is False
    assert yaml.safe_load(path.read_text()) == data

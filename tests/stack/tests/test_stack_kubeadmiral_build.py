"""KubeAdmiral's part of the stack: its build, objects, processes, ports and inventory."""

import base64
import textwrap
from pathlib import Path

import pytest
import yaml

from tests.stack import build, inventory, kubeconfigs, manifests, topology
from tests.stack.components import Components
from tests.stack.layout import COMPONENT_INPUTS, layout, load_versions
from tests.stack.pki import Pki
from tests.stack.stack import processes_of_other_engines
from tests.stack.state import StatePaths, kubeadmiral_inventory_path

BOTH = topology.ENGINES
KARMADA_ONLY = (topology.KARMADA_ENGINE,)
KUBEADMIRAL_ONLY = (topology.KUBEADMIRAL_ENGINE,)


def ftc(name, version, group=""):
    return {"apiVersion": "core.kubeadmiral.io/v1alpha1", "kind": "FederatedTypeConfig", "metadata": {"name": name},
            "spec": {"sourceType": {"group": group, "version": version, "kind": name.split(".")[0].title(),
                                    "pluralName": name.split(".")[0], "scope": "Namespaced"}}}


def sample(tmp_path, docs):
    path = tmp_path / "ftc.yaml"
    path.write_text("---\n" + yaml.safe_dump_all(docs))
    return path


UPSTREAM_SHAPE = [ftc("deployments.apps", "v1", "apps"), ftc("cronjobs.batch", "v1beta1", "batch"),
                  ftc("horizontalpodautoscalers.autoscaling", "v2beta2", "autoscaling"),
                  ftc("endpointslices.discovery.k8s.io", "v1beta1", "discovery.k8s.io"),
                  ftc("serviceexports.multicluster.x-k8s.io", "v1alpha1", "multicluster.x-k8s.io"),
                  ftc("serviceimports.multicluster.x-k8s.io", "v1alpha1", "multicluster.x-k8s.io")]


def components(tmp_path, engines, karmada_members=2):
    member_list = topology.members(karmada_members) if topology.KARMADA_ENGINE in engines else []
    return Components(layout(), StatePaths(tmp_path), Pki(tmp_path / "pki"), member_list, engines)


# ---------------------------------------------------------------------------------------- objects
def test_ftcs_move_the_removed_api_versions_to_ga_and_leave_out_mcs(tmp_path):
    ftcs = {f["metadata"]["name"]: f for f in manifests.kubeadmiral_ftcs(sample(tmp_path, UPSTREAM_SHAPE))}
    assert sorted(ftcs) == ["cronjobs.batch", "deployments.apps", "endpointslices.discovery.k8s.io",
                            "horizontalpodautoscalers.autoscaling"]
    versions = {name: f["spec"]["sourceType"]["version"] for name, f in ftcs.items()}
    assert versions == {"cronjobs.batch": "v1", "deployments.apps": "v1", "endpointslices.discovery.k8s.io": "v1",
                        "horizontalpodautoscalers.autoscaling": "v2"}


@pytest.mark.parametrize("changed", ["cronjobs.batch", "endpointslices.discovery.k8s.io"])
def test_ftcs_refuse_a_sample_whose_versions_they_were_not_written_for(tmp_path, changed):
    docs = [ftc(d["metadata"]["name"], "v1" if d["metadata"]["name"] == changed else d["spec"]["sourceType"]["version"])
            for d in UPSTREAM_SHAPE]
    with pytest.raises(ValueError, match=changed):
        manifests.kubeadmiral_ftcs(sample(tmp_path, docs))


def test_the_modules_own_sample_ftcs_all_name_apis_a_132_host_serves():
    """On what the build read from the pinned module (config/sample/host/01-ftc.yaml)."""
    ftcs = manifests.kubeadmiral_ftcs(layout().kubeadmiral_ftcs)
    served = {f"{f['spec']['sourceType'].get('group') or 'core'}/{f['spec']['sourceType']['version']}" for f in ftcs}
    assert not {api for api in served if "beta" in api or "alpha" in api}, served
    by_name = {f["metadata"]["name"]: f for f in ftcs}
    assert not set(by_name) & set(manifests.KUBEADMIRAL_FTCS_LEFT_OUT)
    # What the runbook federalizes is placed by policies and overridden per cluster (kubeadmiral.md §1.2).
    for name in ("deployments.apps", "configmaps", "secrets", "services"):
        assert by_name[name]["spec"]["controllers"] == [["kubeadmiral.io/global-scheduler"],
                                                        ["kubeadmiral.io/overridepolicy-controller"]], name


def test_the_modules_own_crds_are_kubeadmirals_core_api():
    crds = manifests.kubeadmiral_crds(layout().kubeadmiral_crds)
    assert {c["spec"]["group"] for c in crds} == {"core.kubeadmiral.io"}
    assert {"federatedclusters.core.kubeadmiral.io", "federatedtypeconfigs.core.kubeadmiral.io",
            "propagationpolicies.core.kubeadmiral.io", "overridepolicies.core.kubeadmiral.io"} <= {
                c["metadata"]["name"] for c in crds}


def test_crds_of_an_empty_directory_are_an_error(tmp_path):
    (tmp_path / "crds").mkdir()
    (tmp_path / "crds" / "x.yaml").write_text(textwrap.dedent("""\
        apiVersion: v1
        kind: Namespace
        metadata: {name: x}
        """))
    with pytest.raises(FileNotFoundError, match="no CustomResourceDefinition"):
        manifests.kubeadmiral_crds(tmp_path / "crds")


def test_member_registration_uses_its_client_certificate():
    member = topology.kubeadmiral_members()[1]
    secret = manifests.kubeadmiral_member_secret(member, b"CA", b"CERT", b"KEY")
    assert secret["metadata"] == {"name": "cluster-b", "namespace": "kube-admiral-system"}
    assert {k: base64.b64decode(v) for k, v in secret["data"].items()} == {
        "certificate-authority-data": b"CA", "client-certificate-data": b"CERT", "client-key-data": b"KEY"}
    cluster = manifests.kubeadmiral_federated_cluster(member)
    assert cluster["spec"] == {"apiEndpoint": f"https://127.0.0.1:{member.apiserver_port}",
                               "secretRef": {"name": "cluster-b"}, "useServiceAccount": False}


def test_only_unmarked_host_objects_are_marked_not_to_be_federated():
    items = [{"metadata": {"name": "kubernetes", "namespace": "default"}},
             {"metadata": {"name": "marked", "namespace": "default",
                           "annotations": {"kubeadmiral.io/no-federated-resource": "1"}}}]
    assert manifests.kubeadmiral_not_federated_patches("/api/v1/services", items) == [
        ("/api/v1/namespaces/default/services/kubernetes",
         {"metadata": {"annotations": {"kubeadmiral.io/no-federated-resource": "1"}}})]
    cluster_scoped = manifests.kubeadmiral_not_federated_patches(
        "/apis/rbac.authorization.k8s.io/v1/clusterroles", [{"metadata": {"name": "system:basic-user"}}])
    assert cluster_scoped[0][0] == "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:basic-user"


# ---------------------------------------------------------------------------------------- topology
def test_kubeadmiral_members_take_slots_after_every_karmada_member():
    kubeadmiral = topology.kubeadmiral_members()
    karmada = topology.members(topology.MAX_MEMBERS)
    assert [(m.name, m.weight) for m in kubeadmiral] == [("cluster-a", 1), ("cluster-b", 2)]
    for attribute in ("apiserver_port", "kube_controller_manager_port", "kwok_port", "pod_cidr",
                      "load_balancer_prefix", "etcd_prefix"):
        assert not {getattr(m, attribute) for m in kubeadmiral} & {getattr(m, attribute) for m in karmada}, attribute
    assert len({manifests.node_address(m, 3) for m in [*karmada, *kubeadmiral]}) == topology.MAX_MEMBERS + 2


def test_engines_are_parsed_in_the_stacks_order():
    assert topology.parse_engines("kubeadmiral, karmada") == BOTH
    assert topology.parse_engines("kubeadmiral") == KUBEADMIRAL_ONLY
    for bad in ("", "karmada,volcano", ","):
        with pytest.raises(ValueError, match="--engines"):
            topology.parse_engines(bad)


def test_port_offset_moves_kubeadmirals_ports(monkeypatch):
    plain = topology.kubeadmiral_ports()
    monkeypatch.setenv("MCF_STACK_PORT_OFFSET", "10000")
    assert topology.kubeadmiral_ports().apiserver == plain.apiserver + 10000
    assert topology.kubeadmiral_members()[0].apiserver_port == 16443 + topology.MAX_MEMBERS + 10000


# ---------------------------------------------------------------------------------------- processes
def test_each_engine_runs_only_its_own_processes(tmp_path):
    karmada = {s.name for s in components(tmp_path, KARMADA_ONLY).all_started_by_up()}
    kubeadmiral = {s.name for s in components(tmp_path, KUBEADMIRAL_ONLY).all_started_by_up()}
    both = components(tmp_path, BOTH).all_started_by_up()
    assert karmada & kubeadmiral == {"etcd", "supervisor"}
    assert not {n for n in karmada if n.startswith(("kubeadmiral.", "cluster-a.", "cluster-b."))}
    assert kubeadmiral == {"etcd", "supervisor", "kubeadmiral.kube-apiserver", "kubeadmiral.kube-controller-manager",
                           "kubeadmiral.kubeadmiral-controller-manager",
                           *[f"{m}.{c}" for m in ("cluster-a", "cluster-b")
                             for c in ("kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok")]}
    assert {s.name for s in both} == karmada | kubeadmiral
    ports = [s.port for s in both if s.port is not None]
    assert len(ports) == len(set(ports))


def test_kubeadmiral_host_and_members_follow_upstreams_deployment(tmp_path):
    comps = components(tmp_path, BOTH)
    host = comps.apiserver("kubeadmiral").argv
    assert "--etcd-prefix=/kubeadmiral" in host
    assert "--disable-admission-plugins=StorageObjectInUseProtection,ServiceAccount" in host
    assert not [a for a in host if a.startswith("--egress-selector-config-file")]
    member = comps.apiserver("cluster-a").argv
    assert "--etcd-prefix=/members/cluster-a" in member
    assert not [a for a in member if a.startswith("--egress-selector-config-file")], "no Kruise webhooks to route"
    assert [a for a in comps.apiserver("idc1").argv if a.startswith("--egress-selector-config-file")]
    assert "--controllers=namespace,garbagecollector" in comps.kubeadmiral_kube_controller_manager().argv
    manager = comps.kubeadmiral_controller_manager()
    ports = comps.kubeadmiral_ports
    assert manager.argv[1:] == [
        f"--kubeconfig={tmp_path / 'kubeconfigs' / 'components' / 'kubeadmiral.kubeconfig'}",
        "--enable-leader-elect=false", "--controllers=*,-serviceexport,-serviceimport", "--worker-count=5",
        f"--port={ports.controller_manager_health}", "--prometheus-addr=127.0.0.1",
        f"--prometheus-port={ports.controller_manager_metrics}", "--cluster-health-check-period=15s"]


def test_the_supervisor_knows_the_engines_and_without_karmada_checks_a_forwarder(tmp_path):
    with_karmada = components(tmp_path, BOTH).supervisor()
    assert "--engines=karmada,kubeadmiral" in with_karmada.argv
    assert with_karmada.port == topology.karmada_ports().federation_proxy
    alone = components(tmp_path, KUBEADMIRAL_ONLY).supervisor()
    assert "--engines=kubeadmiral" in alone.argv
    assert alone.port is None, "its listeners are on 127.0.0.2, where the port check does not look"


def test_processes_of_an_engine_left_out_are_found_by_their_cluster():
    names = ["etcd", "supervisor", "karmada.kube-apiserver", "idc1.kwok", "member7.kruise-manager",
             "kubeadmiral.kubeadmiral-controller-manager", "cluster-b.kube-apiserver"]
    assert processes_of_other_engines(names, KUBEADMIRAL_ONLY) == [
        "karmada.kube-apiserver", "idc1.kwok", "member7.kruise-manager"]
    assert processes_of_other_engines(names, KARMADA_ONLY) == [
        "kubeadmiral.kubeadmiral-controller-manager", "cluster-b.kube-apiserver"]
    assert processes_of_other_engines(names, BOTH) == []


# ---------------------------------------------------------------------------------------- inventory, build
def test_kubeadmiral_inventory_has_the_karmada_inventorys_variables(tmp_path):
    karmada_members, kubeadmiral_members = topology.members(2), topology.kubeadmiral_members()
    kubeconfig_paths = {m.name: tmp_path / f"{m.name}.kubeconfig" for m in [*karmada_members, *kubeadmiral_members]}
    karmada = inventory.build(karmada_members, tmp_path / "f.kubeconfig", kubeconfig_paths, load_versions(), "/py")
    kubeadmiral = inventory.build_kubeadmiral(kubeadmiral_members, tmp_path / "k.kubeconfig", kubeconfig_paths, "/py")
    assert karmada["all"]["vars"]["federation_engine"] == "karmada"
    assert kubeadmiral["all"]["vars"] == {"ansible_connection": "local", "ansible_python_interpreter": "/py",
                                          "federation_engine": "kubeadmiral"}
    groups = kubeadmiral["all"]["children"]
    assert groups["federation"]["hosts"] == {"kubeadmiral": {"cluster_kubeconfig": str(tmp_path / "k.kubeconfig"),
                                                             "cluster_access": "federation"}}
    assert list(groups["members"]["hosts"]) == ["cluster-a", "cluster-b"]
    karmada_host_vars = next(iter(karmada["all"]["children"]["members"]["hosts"].values()))
    for host_vars in groups["members"]["hosts"].values():
        assert set(host_vars) == set(karmada_host_vars)


def test_kubeadmiral_federation_kubeconfig_is_the_host_itself():
    config = kubeconfigs.kubeadmiral_federation("https://127.0.0.1:19443", b"CA", b"CERT", b"KEY")
    assert config["current-context"] == "federation"
    assert [c["cluster"]["server"] for c in config["clusters"]] == ["https://127.0.0.1:19443"]
    assert base64.b64decode(config["users"][0]["user"]["client-certificate-data"]) == b"CERT"


def test_kubeadmiral_inventory_moves_with_the_karmada_one(monkeypatch, tmp_path):
    monkeypatch.delenv("MCF_STACK_KUBEADMIRAL_INVENTORY", raising=False)
    monkeypatch.setenv("MCF_STACK_INVENTORY", str(tmp_path / "second" / "hosts.yml"))
    assert kubeadmiral_inventory_path() == tmp_path / "second-kubeadmiral" / "hosts.yml"
    monkeypatch.setenv("MCF_STACK_KUBEADMIRAL_INVENTORY", str(tmp_path / "elsewhere.yml"))
    assert kubeadmiral_inventory_path() == tmp_path / "elsewhere.yml"
    monkeypatch.delenv("MCF_STACK_INVENTORY")
    monkeypatch.delenv("MCF_STACK_KUBEADMIRAL_INVENTORY")
    assert kubeadmiral_inventory_path().parts[-3:] == ("inventories", "local-kubeadmiral", "hosts.yml")


def test_the_build_makes_kubeadmiral_from_its_pinned_version():
    component = next(c for c in build.components(layout()) if c.name == "kubeadmiral")
    assert component.binaries == ("kubeadmiral-controller-manager",)
    assert COMPONENT_INPUTS["kubeadmiral"] == ("kubeadmiral",)
    version = load_versions()["kubeadmiral"]["version"]
    assert layout().component_dir("kubeadmiral").name == f"kubeadmiral-{version}"
    assert Path(layout().kubeadmiral_ftcs).parent.name == f"kubeadmiral-{version}"


def test_the_inventory_says_which_members_have_no_virtual_kubelet_node(tmp_path):
    members = topology.members(2, without_virtual_kubelet=("idc1",))
    paths = {m.name: tmp_path / f"{m.name}.kubeconfig" for m in members}
    hosts = inventory.build(members, tmp_path / "f.kubeconfig", paths, load_versions(), "/py")["all"]["children"]["members"]["hosts"]
    assert {name: host["cluster_virtual_kubelet"] for name, host in hosts.items()} == {"idc1": False, "test-ucs": True}

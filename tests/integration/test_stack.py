"""Acceptance tests of the local federation stack (issue 3), against the real processes.

Within the file, order is deliberate: read-only and additive checks first, then the destructive
process tests (kill, down/up) which restore what they disturb, and last the Kruise uninstall. The
file needs nothing from the rest of the suite and leaves the stack as it found it: Kruise's
cluster-scoped objects admit one release per cluster, so a Kruise release of the collection's
(test_kruise.py, site.yml, `make demo`) is uninstalled with its history kept while the file's own
release is tested, and rolled back to its revision afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests
import yaml

from tests.integration.cluster_objects import deployment, ready_condition, running_ready_pods
from tests.integration.conftest import stack_cli
from tests.stack.waiting import wait_for
from tests.stack.layout import layout

L = layout()
KRUISE_MEMBER = "idc1"
# This file's own release; the collection's roles name theirs COLLECTION_KRUISE_RELEASE.
KRUISE_RELEASE = "stack-test-kruise"
COLLECTION_KRUISE_RELEASE = "kruise"
# As upstream's install instructions (and the collection's kruise role): the release lives in
# `default`, the chart creates kruise-system itself.
KRUISE_RELEASE_NAMESPACE = "default"
# The collection's kruise_control_plane role keeps its release record in kruise-system.
CONTROL_PLANE_RELEASE_NAMESPACE = "kruise-system"
WEBHOOK_CONFIGURATIONS = ("mutatingwebhookconfiguration/kruise-mutating-webhook-configuration",
                          "validatingwebhookconfiguration/kruise-validating-webhook-configuration")
CHART_WAIT_SECONDS = 1800
# KWOK never pulls images; the name only has to be valid.
IMAGE = "registry.invalid/stack-test/pause:3.10"


def kwok_nodes(cluster) -> dict[str, dict]:
    nodes = cluster.get("nodes")["items"]
    return {n["metadata"]["name"]: n for n in nodes
            if n["metadata"].get("annotations", {}).get("kwok.x-k8s.io/node") == "fake"}


# ---------------------------------------------------------------------------------------- control plane
def test_members_are_ready_clusters_in_karmada(stack):
    clusters = {c["metadata"]["name"]: c for c in stack.karmada().get("clusters")["items"]}
    for name in ("idc1", "test-ucs"):
        assert name in clusters, f"Cluster {name} missing; got {sorted(clusters)}"
        assert ready_condition(clusters[name]), clusters[name]["status"]
        assert clusters[name]["spec"]["syncMode"] == "Push"


def test_federation_endpoint_answers_version_with_an_unmatchable_git_version(stack):
    ca = stack.env["MCF_STACK_CA"]
    federation = stack.federation()
    config = yaml.safe_load(Path(federation.kubeconfig).read_text())
    servers = {c["name"]: c["cluster"]["server"] for c in config["clusters"]}
    through_proxy = requests.get(servers["federation"] + "/version", verify=ca, timeout=10)
    direct = requests.get(servers["karmada-apiserver"] + "/version", verify=ca, timeout=10)
    assert through_proxy.status_code == 200
    assert through_proxy.json()["gitVersion"] == ""
    assert direct.json()["gitVersion"] == L.versions["kubernetes"]["version"]
    # Everything else passes through, authenticated with the federation user's bearer token.
    assert "idc1" in federation.kubectl("get", "clusters", "-o", "name").stdout
    whoami = json.loads(federation.kubectl("auth", "whoami", "-o", "json").stdout)
    assert whoami["status"]["userInfo"]["username"] == "federation-admin"


def test_member_kubeconfigs_have_working_internal_and_external_contexts(stack):
    for name in stack.member_kubeconfigs:
        for context in ("internal", "external"):
            member = stack.member(name, context)
            nodes = kwok_nodes(member)
            assert len(nodes) == 3, (name, context, sorted(nodes))
        assert oct(stack.member_kubeconfigs[name].stat().st_mode & 0o777) == "0o600"


def test_member_nodes_shape(stack):
    nodes = kwok_nodes(stack.member("test-ucs"))
    virtual = [n for n in nodes.values() if n["metadata"]["labels"].get("type") == "virtual-kubelet"]
    regular = [n for n in nodes.values() if n["metadata"]["labels"].get("type") != "virtual-kubelet"]
    assert len(virtual) == 1 and len(regular) == 2
    assert virtual[0]["metadata"]["labels"]["kubernetes.io/role"] == "agent"
    assert {"key": "virtual-kubelet.io/provider", "value": "huawei", "effect": "NoSchedule"} in virtual[0]["spec"]["taints"]
    assert len({n["metadata"]["labels"]["topology.kubernetes.io/zone"] for n in regular}) == 2
    for node in nodes.values():
        assert ready_condition(node), node["metadata"]["name"]
        assert node["status"]["allocatable"]["pods"] != "1M", "allocatable must be realistic, not KWOK's default"


def test_a_pod_marked_not_ready_is_ready_again(stack):
    """What the node lifecycle controller does to every pod of a node whose lease lapsed (MarkPodsNotReady:
    Ready False, phase still Running) is undone as a kubelet would, by tests/stack/kwok_stages.yaml."""
    member = stack.member("idc1")
    name = "stack-ready-again"
    member.kubectl("delete", "pod", name, "-n", "default", "--ignore-not-found", "--wait=true")
    member.apply({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
                  "spec": {"nodeName": "idc1-node-a", "containers": [{"name": "c", "image": "registry.invalid/c:1"}]}})
    try:
        wait_for(lambda: ready_condition(member.get("pod", name, "-n", "default")), f"{name} Ready", timeout=60,
                 interval=0.5)
        marked = member.kubectl("patch", "pod", name, "-n", "default", "--subresource=status", "--type=strategic",
                                "-o", "json", "-p", json.dumps({"status": {"conditions": [
                                    {"type": "Ready", "status": "False", "reason": "NodeNotReady"}]}}))
        assert not ready_condition(json.loads(marked.stdout)), marked.stdout
        wait_for(lambda: ready_condition(member.get("pod", name, "-n", "default")), f"{name} Ready again",
                 timeout=30, interval=0.5)
        assert member.get("pod", name, "-n", "default")["status"]["phase"] == "Running"
    finally:
        member.kubectl("delete", "pod", name, "-n", "default", "--ignore-not-found", "--wait=false")


def test_inventory_is_generated(stack):
    inventory = yaml.safe_load(Path(stack.env["MCF_STACK_INVENTORY"]).read_text())
    members = inventory["all"]["children"]["members"]["hosts"]
    assert members["idc1"]["cluster_weight"] == 1 and members["test-ucs"]["cluster_weight"] == 2
    federation = inventory["all"]["children"]["federation"]["hosts"]["karmada"]
    assert federation["cluster_access"] == "federation"
    assert Path(federation["cluster_kubeconfig"]) == stack.federation_kubeconfig


# ---------------------------------------------------------------------------------------- propagation
def test_weighted_division_of_a_deployment(stack):
    karmada = stack.karmada()
    namespace = "stack-test-division"
    karmada.apply([
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
        deployment("division", namespace, 6, [{"name": "app", "image": IMAGE,
                                               "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}]),
        {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
         "metadata": {"name": "division", "namespace": namespace},
         "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "division"}],
                  "placement": {
                      "clusterAffinity": {"clusterNames": ["idc1", "test-ucs"]},
                      "replicaScheduling": {
                          "replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted",
                          "weightPreference": {"staticWeightList": [
                              {"targetCluster": {"clusterNames": ["idc1"]}, "weight": 1},
                              {"targetCluster": {"clusterNames": ["test-ucs"]}, "weight": 2}]}}}}},
    ])
    try:
        for member, expected in (("idc1", 2), ("test-ucs", 4)):
            cluster = stack.member(member)

            def expected_pods_ready():
                current = running_ready_pods(cluster, namespace, "app=division")
                return current if len(current) == expected else None

            pods = wait_for(expected_pods_ready, f"{expected} Running pods in {member}")
            nodes = kwok_nodes(cluster)
            assert all(p["spec"]["nodeName"] in nodes for p in pods)
            assert len(running_ready_pods(cluster, namespace, "app=division")) == expected
    finally:
        karmada.kubectl("delete", "namespace", namespace, "--wait=false", check=False)


def test_load_balancer_services_get_an_ingress_ip(stack):
    member = stack.member("test-ucs")
    member.apply({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "stack-test-lb", "namespace": "default"},
                  "spec": {"type": "LoadBalancer", "selector": {"app": "none"}, "ports": [{"port": 80}]}})
    try:
        def service_with_ingress():
            current = member.get("service", "-n", "default", "stack-test-lb")
            return current if current["status"].get("loadBalancer", {}).get("ingress") else None

        service = wait_for(service_with_ingress, "a load-balancer ingress IP", timeout=60)
        assert service["status"]["loadBalancer"]["ingress"][0]["ip"]
    finally:
        member.kubectl("delete", "service", "-n", "default", "stack-test-lb", check=False)


# ---------------------------------------------------------------------------------------- Kruise
def chart_path() -> Path:
    return wait_for(lambda: L.kruise_chart if (L.kruise_chart / "Chart.yaml").exists() else None,
                    f"the assembled Kruise chart at {L.kruise_chart}", timeout=CHART_WAIT_SECONDS, interval=15)


def kruise_ready(member) -> bool:
    """What a user relies on: admission accepts a UnitedDeployment, and both webhook configs carry a caBundle."""
    for kind in ("mutatingwebhookconfiguration", "validatingwebhookconfiguration"):
        config = member.get(kind, f"kruise-{kind.removesuffix('webhookconfiguration')}-webhook-configuration")
        if not config.get("webhooks") or not all(w["clientConfig"].get("caBundle") for w in config["webhooks"]):
            return False
    probe = united_deployment("stack-ready-probe", "default", 1)
    result = member.kubectl("create", "--dry-run=server", "-f", "-", input=json.dumps(probe), check=False)
    return result.returncode == 0


def united_deployment(name: str, namespace: str, replicas: int) -> dict:
    labels = {"app": name}
    return {
        "apiVersion": "apps.kruise.io/v1alpha1", "kind": "UnitedDeployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {"deploymentTemplate": {
                "metadata": {"labels": labels},
                "spec": {"selector": {"matchLabels": labels},
                         "template": {"metadata": {"labels": labels},
                                      "spec": {"containers": [{"name": "app", "image": IMAGE}]}}}}},
            "topology": {"subsets": [
                {"name": "regular", "replicas": "50%",
                 "nodeSelectorTerm": {"matchExpressions": [{"key": "type", "operator": "NotIn",
                                                            "values": ["virtual-kubelet"]}]}},
                {"name": "virtual-kubelet",
                 "nodeSelectorTerm": {"matchExpressions": [{"key": "type", "operator": "In",
                                                            "values": ["virtual-kubelet"]}]},
                 "tolerations": [{"key": "virtual-kubelet.io/provider", "operator": "Equal", "value": "huawei",
                                  "effect": "NoSchedule"}]},
            ]},
        },
    }


def helm_release(cluster, name: str, namespace: str) -> dict | None:
    """The release as `helm list` shows it, whatever its status (uninstalled ones with their history kept too)."""
    releases = json.loads(cluster.helm("list", "--all", "-n", namespace, "-o", "json").stdout or "[]")
    return next((r for r in releases if r["name"] == name), None)


@contextmanager
def collection_release_set_aside(cluster, namespace: str, *helm_flags: str):
    """The collection's Kruise release in `namespace` uninstalled with its history kept, and rolled
    back to the same revision on exit. A release a run of this file left uninstalled (interrupted
    before its rollback) is restored as well. helm_flags go to both helm commands."""
    release = helm_release(cluster, COLLECTION_KRUISE_RELEASE, namespace)
    if release and release["status"] != "uninstalled":
        cluster.helm("uninstall", COLLECTION_KRUISE_RELEASE, "-n", namespace, "--keep-history", *helm_flags)
    try:
        yield
    finally:
        if release:
            cluster.helm("rollback", COLLECTION_KRUISE_RELEASE, str(release["revision"]), "-n", namespace, *helm_flags)


@pytest.fixture(scope="module")
def kruise_installed(stack):
    """This file's Kruise release installed in one member by helm, as the collection's install step
    would; the collection's own release there set aside meanwhile (and ready again afterwards)."""
    member = stack.member(KRUISE_MEMBER)
    with collection_release_set_aside(member, KRUISE_RELEASE_NAMESPACE, "--wait", "--timeout", "10m"):
        wait_for(lambda: f"{KRUISE_MEMBER}.kruise-manager" not in stack.records(),
                 "the collection's kruise-manager to stop", timeout=120)
        if helm_release(member, KRUISE_RELEASE, KRUISE_RELEASE_NAMESPACE):
            member.helm("uninstall", KRUISE_RELEASE, "-n", KRUISE_RELEASE_NAMESPACE, "--wait")  # an earlier run's
        member.helm("install", KRUISE_RELEASE, str(chart_path()), "-n", KRUISE_RELEASE_NAMESPACE,
                    "--wait", "--timeout", "10m")
        wait_for(lambda: kruise_ready(member), "Kruise ready (dry-run UnitedDeployment, webhook caBundles)", timeout=300)
        yield KRUISE_RELEASE
        if helm_release(member, KRUISE_RELEASE, KRUISE_RELEASE_NAMESPACE):  # the uninstall test did not get to it
            member.helm("uninstall", KRUISE_RELEASE, "-n", KRUISE_RELEASE_NAMESPACE, "--wait", "--timeout", "5m")
    if helm_release(member, COLLECTION_KRUISE_RELEASE, KRUISE_RELEASE_NAMESPACE):
        wait_for(lambda: kruise_ready(member), "the collection's Kruise ready again", timeout=300)


def test_helm_install_of_kruise_starts_kruise_manager(stack, kruise_installed):
    records = stack.records()
    assert f"{KRUISE_MEMBER}.kruise-manager" in records
    status = json.loads(stack_cli("status", "--json", check=False).stdout)
    manager = next(row for row in status if row["name"] == f"{KRUISE_MEMBER}.kruise-manager")
    assert manager["state"] == "healthy", manager
    argv = records[f"{KRUISE_MEMBER}.kruise-manager"]["argv"]
    assert "--enable-leader-election=false" in argv and "--enable-pprof=false" in argv


def test_united_deployment_subsets_land_on_the_right_nodes(stack, kruise_installed):
    member = stack.member(KRUISE_MEMBER)
    namespace = "stack-test-ud"
    member.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    member.apply(united_deployment("ud", namespace, 4))
    try:
        nodes = kwok_nodes(member)
        virtual = {n for n, node in nodes.items() if node["metadata"]["labels"].get("type") == "virtual-kubelet"}
        regular = set(nodes) - virtual

        def placed():
            pods = running_ready_pods(member, namespace, "app=ud")
            by_subset = {}
            for pod in pods:
                by_subset.setdefault(pod["metadata"]["labels"].get("apps.kruise.io/subset-name"), []).append(pod)
            if {k: len(v) for k, v in by_subset.items()} != {"regular": 2, "virtual-kubelet": 2}:
                return AssertionError({k: len(v) for k, v in by_subset.items()})
            return by_subset
        by_subset = wait_for(placed, "UnitedDeployment pods Ready in both subsets", timeout=240)
        assert {p["spec"]["nodeName"] for p in by_subset["regular"]} <= regular
        assert {p["spec"]["nodeName"] for p in by_subset["virtual-kubelet"]} <= virtual
        deployments = member.get("deployments", "-n", namespace)["items"]
        assert len(deployments) == 2, [d["metadata"]["name"] for d in deployments]

        def ud_ready():
            current = member.get("uniteddeployment", "-n", namespace, "ud")
            return current if current.get("status", {}).get("readyReplicas") == 4 else None

        ud = wait_for(ud_ready, "UnitedDeployment status readyReplicas 4", timeout=120)
        assert ud["status"]["replicas"] == 4
    finally:
        member.kubectl("delete", "namespace", namespace, "--wait=false", check=False)


def test_helm_upgrade_of_kruise_restarts_kruise_manager_with_the_new_values(stack, kruise_installed):
    member = stack.member(KRUISE_MEMBER)
    name = f"{KRUISE_MEMBER}.kruise-manager"
    before = stack.records()[name]
    # Works only because the manager keeps the chart's Service-based webhook clientConfigs (a
    # url: rewrite makes helm's three-way merge produce both url and service).
    member.helm("upgrade", KRUISE_RELEASE, str(chart_path()), "-n", KRUISE_RELEASE_NAMESPACE, "--reuse-values",
                "--set", "featureGates=ImagePullJobGate=false", "--wait", "--timeout", "5m")

    def restarted_with_new_args():
        record = stack.records().get(name)
        if record and record["pid"] != before["pid"] and "--feature-gates=ImagePullJobGate=false" in record["argv"]:
            return record
        return None

    wait_for(restarted_with_new_args, "kruise-manager restarted with the upgraded release's arguments", timeout=120)

    def ready():
        return kruise_ready(member)

    wait_for(ready, "Kruise ready after the upgrade", timeout=300)


def test_helm_through_the_federation_endpoint_trips_on_kube_version(stack, tmp_path):
    federation = stack.federation()
    chart = chart_path()
    failed = federation.helm("install", "kubeversion-probe", str(chart), "-n", "stack-test-helm", check=False)
    assert failed.returncode != 0
    assert "kubeVersion" in failed.stderr and "incompatible" in failed.stderr, failed.stderr

    # With the line removed the chart installs through the same endpoint. A Kruise release of the
    # collection's control plane owns Kruise's cluster-scoped objects (helm checks ownership even on
    # a dry run): it is set aside meanwhile, and afterwards the webhook configurations its rollback
    # brings back are removed, as the collection's federation_webhooks step does after every install.
    patched = tmp_path / chart.name
    shutil.copytree(chart, patched)
    chart_yaml = patched / "Chart.yaml"
    lines = chart_yaml.read_text().splitlines(keepends=True)
    chart_yaml.write_text("".join(line for line in lines if not line.startswith("kubeVersion:")))
    # A real install into the control plane, removed again afterwards.
    namespace = "stack-test-helm"
    karmada = stack.karmada()
    federation.helm("uninstall", "kubeversion-probe", "-n", namespace, check=False)  # an interrupted run's
    # --no-hooks: as the collection's role, since no hook Job can run on a control plane.
    with collection_release_set_aside(karmada, CONTROL_PLANE_RELEASE_NAMESPACE, "--no-hooks"):
        karmada.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {
            "name": namespace, "labels": {"namespace.karmada.io/skip-auto-propagation": "true"}}})
        try:
            # Its own namespace (not propagated to the members) instead of the chart's kruise-system;
            # CRDs are left out, as the collection installs only CRDs into the control plane itself.
            federation.helm("install", "kubeversion-probe", str(patched), "-n", namespace,
                            "--set", f"installation.namespace={namespace}", "--set", "installation.createNamespace=false",
                            "--set", "crds.managed=false")
            assert helm_release(federation, "kubeversion-probe", namespace)["status"] == "deployed"
        finally:
            federation.helm("uninstall", "kubeversion-probe", "-n", namespace, check=False)
            karmada.kubectl("delete", "namespace", namespace, "--wait=false", check=False)
    if helm_release(karmada, COLLECTION_KRUISE_RELEASE, CONTROL_PLANE_RELEASE_NAMESPACE):
        karmada.kubectl("delete", *WEBHOOK_CONFIGURATIONS, "--ignore-not-found")
        assert helm_release(karmada, COLLECTION_KRUISE_RELEASE, CONTROL_PLANE_RELEASE_NAMESPACE)["status"] == "deployed"


# ---------------------------------------------------------------------------------------- processes
def test_status_shows_a_killed_component_and_up_restarts_it(stack):
    name = "test-ucs.kube-scheduler"
    record = stack.records()[name]
    os.kill(record["pid"], signal.SIGKILL)

    def killed():
        try:
            return Path(f"/proc/{record['pid']}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
        except FileNotFoundError:
            return True
    wait_for(killed, f"{name} (pid {record['pid']}) to die", timeout=30, interval=0.2)
    status = stack_cli("status", "--json", check=False)
    assert status.returncode == 1
    row = next(r for r in json.loads(status.stdout) if r["name"] == name)
    assert row["state"] == "crashed" and row["pid"] is None
    stack_cli("up")
    assert stack.records()[name]["pid"] != record["pid"]
    healthy = json.loads(stack_cli("status", "--json", check=False).stdout)
    assert next(r for r in healthy if r["name"] == name)["state"] == "healthy"


def live_commands() -> dict[int, list[str]]:
    """argv of every live (non-zombie) process on the machine."""
    found = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")[:-1]
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if argv and state != "Z":
            found[int(proc.name)] = [part.decode(errors="replace") for part in argv]
    return found


def test_down_stops_everything_and_up_restores_the_same_state(stack, kruise_installed):
    karmada = stack.karmada()
    marker = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "stack-persistence", "namespace": "default"},
              "data": {"written": str(time.time())}}
    karmada.apply(marker)
    stack.member("test-ucs").apply(marker)
    before = stack.records()
    assert f"{KRUISE_MEMBER}.kruise-manager" in before

    stack_cli("down")
    started = {tuple(record["argv"]) for record in before.values()}
    survivors = {pid: argv for pid, argv in live_commands().items() if tuple(argv) in started}
    assert survivors == {}, "down must leave no process of the stack running"
    assert stack.records() == {}

    stack_cli("up")
    assert karmada.get("configmap", "-n", "default", "stack-persistence")["data"] == marker["data"]
    assert stack.member("test-ucs").get("configmap", "-n", "default", "stack-persistence")["data"] == marker["data"]
    clusters = karmada.get("clusters")["items"]
    assert all(ready_condition(c) for c in clusters)
    wait_for(lambda: kruise_ready(stack.member(KRUISE_MEMBER)), "Kruise ready again after down/up", timeout=300)
    for cluster in (karmada, stack.member("test-ucs")):
        cluster.kubectl("delete", "configmap", "-n", "default", "stack-persistence", check=False)


def test_helm_uninstall_stops_kruise_manager(stack, kruise_installed):
    member = stack.member(KRUISE_MEMBER)
    member.helm("uninstall", KRUISE_RELEASE, "-n", KRUISE_RELEASE_NAMESPACE, "--wait", "--timeout", "5m")
    wait_for(lambda: f"{KRUISE_MEMBER}.kruise-manager" not in stack.records(),
             "kruise-manager to stop after the release is removed", timeout=120)

"""The resource federalization runbook's own scenario (issue 11), on both engines of the local stack.

Same playbooks, same variables; only the inventory differs (Karmada: idc1 -> test-ucs; KubeAdmiral:
cluster-a -> cluster-b). The variables name members by their position in the inventory's members
group, so one dict serves both.

Created directly in the first member, in this test's own namespace: Deployments fed-dp-01/02 mounting
ConfigMaps fed-cm-01/02 and Secret fed-secret-01, Service fed-service-01 (LoadBalancer, nodePort
31922, the source cloud's load balancer annotation). Then, in order:

1. federalize.yml: the control plane holds all six, the member's objects carry the engine's managed
   marker, pods and ReplicaSets keep their UIDs;
2. the runbook's volc-service-override as written (eight jsonpatch adds of Volcengine load balancer
   annotations, targetClusters the second member) with a bad operator or an unknown cluster: refused,
   nothing changed;
3. the override as written + migrate.yml: ready in the second member with the eight annotations and
   nodePort 31922, gone from the first; watches on both members' pods and Services show the second
   member's copies Ready (and the Service with an ingress) before anything in the first is deleted;
4. distribute.yml with the override pasted whole (issue 30: the engine's own OverridePolicy object as
   override_policy_definition - KubeAdmiral's as the runbook writes it, Karmada's with an annotations
   overrider): both members, the first one's Service without the second's annotations.

Every playbook's second run changes nothing, nor does check mode on the converged federation (the
two side by side: both find the federation converged). Each playbook's first run is at -vvv and
prints none of the stack's secrets (tests/integration/secret_scan.py), the application's Secret
included: the federalization playbooks' secret scan, on both engines.
"""

from __future__ import annotations

import copy
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.integration import cluster_objects, federalize_support, playbook_runner
from tests.integration.conftest import Cluster
from tests.integration.playbook_runner import PlaybookRun
from tests.integration.secret_scan import assert_no_secret_printed, stack_secrets

NAMESPACE = "fed-runbook"
NODE_PORT = 31922
# The source cloud's load balancer (a Huawei Cloud ELB, as the first runbook's fleet has).
SOURCE_LB_ANNOTATIONS = {"kubernetes.io/elb.id": "elb-source-0001"}
VOLC_PREFIX = "service.beta.kubernetes.io/volcengine-loadbalancer-"
# The target cloud's, the runbook's volc-service-override (keys as Volcengine's CCM documents them).
VOLC_LB_ANNOTATIONS = {
    VOLC_PREFIX + "name": "clb-fed-service-01",
    VOLC_PREFIX + "subnet-id": "subnet-fedrunbook0001",
    VOLC_PREFIX + "address-type": "PUBLIC",
    VOLC_PREFIX + "isp-type": "BGP",
    VOLC_PREFIX + "spec": "small_1",
    VOLC_PREFIX + "eip-billing-type": "3",
    VOLC_PREFIX + "eip-bandwidth": "10",
    VOLC_PREFIX + "health-check-flag": "on",
}
REPLICAS = {"fed-dp-01": 3, "fed-dp-02": 2}
APP = [("deployment", "fed-dp-01"), ("deployment", "fed-dp-02"), ("service", "fed-service-01"),
       ("configmap", "fed-cm-01"), ("configmap", "fed-cm-02"), ("secret", "fed-secret-01")]

# Members by their place in the inventory's members group: the same text for either inventory.
FIRST, SECOND = "{{ groups['members'][0] }}", "{{ groups['members'][1] }}"
SECOND_CLUSTER = "{{ (groups['members'] | multicloud.federation.member_clusters(hostvars))[1].name }}"

# The reference scenario's, with this test's namespace and the first member by position.
FEDERALIZE_VARS = {**federalize_support.FEDERALIZE_VARS, "federalize_source": FIRST, "federalize_namespace": NAMESPACE,
                   "federalize_policy_name": "fed-runbook-app"}


def escaped(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def volc_service_override(operator: str = "add", cluster: str = SECOND_CLUSTER) -> dict:
    """The runbook's OverridePolicy rules as written (spec.overrideRules of volc-service-override)."""
    return {
        "override_policy_name": "volc-service-override",
        "override_policy_namespace": NAMESPACE,
        "override_policy_resource_selectors": [{"api_version": "v1", "kind": "Service", "name": "fed-service-01"}],
        "override_policy_rules": [{
            "targetClusters": {"clusters": [cluster]},
            "overriders": {"jsonpatch": [
                {"operator": operator, "path": "/metadata/annotations/" + escaped(key), "value": value}
                for key, value in VOLC_LB_ANNOTATIONS.items()]},
        }],
    }


def whole_override(engine: str) -> dict:
    """The runbook's volc-service-override pasted whole (override_policy_definition): the engine's own
    OverridePolicy object - KubeAdmiral's as the runbook writes it, Karmada's with its selectors and an
    annotations overrider."""
    metadata = {"name": "volc-service-override", "namespace": NAMESPACE}
    if engine == "kubeadmiral":
        rules = volc_service_override()
        definition = {"apiVersion": "core.kubeadmiral.io/v1alpha1", "kind": "OverridePolicy", "metadata": metadata,
                      "spec": {"overrideRules": rules["override_policy_rules"]}}
        # KubeAdmiral's policy names no objects: the federated objects carry its name in a label.
        return {"override_policy_definition": definition,
                "override_policy_resource_selectors": rules["override_policy_resource_selectors"]}
    return {"override_policy_definition": {
        "apiVersion": "policy.karmada.io/v1alpha1", "kind": "OverridePolicy", "metadata": metadata,
        "spec": {"resourceSelectors": [{"apiVersion": "v1", "kind": "Service", "name": "fed-service-01"}],
                 "overrideRules": [{"targetCluster": {"clusterNames": [SECOND_CLUSTER]},
                                    "overriders": {"annotationsOverrider": [
                                        {"operator": "add", "value": VOLC_LB_ANNOTATIONS}]}}]}}}


OVERRIDE_VARS = volc_service_override()
MIGRATE_VARS = {**FEDERALIZE_VARS, **OVERRIDE_VARS, "federalize_target": SECOND}
# Distribution takes the override pasted whole.
DISTRIBUTE_VARS = {**FEDERALIZE_VARS, "federalize_clusters": "{{ groups['members'] }}"}


# --- the two federations ---------------------------------------------------------------------------

@dataclass
class Federation:
    engine: str
    inventory: Path
    control_plane: Cluster
    first: Cluster
    second: Cluster
    env: dict
    # The label a member's object carries once the engine manages it.
    managed_label: str
    # Namespaces of other tests whose Services may still hold NODE_PORT: removed first.
    foreign_namespaces: tuple = ()
    # The secrets a run must not print (read once the application runs in the first member).
    needles: dict = field(default_factory=dict)

    def playbook(self, name: str, extra_vars: dict, check: bool = False, verbosity: int = 0) -> PlaybookRun:
        return playbook_runner.playbook(self.env, name, extra_vars, check=check, inventory=self.inventory,
                                        verbosity=verbosity, timeout=900)

    def first_run(self, name: str, extra_vars: dict) -> PlaybookRun:
        """A playbook's first run, at -vvv: it prints what it creates, so it is also the secret scan."""
        run = self.playbook(name, extra_vars, verbosity=3)
        assert_no_secret_printed(run, self.needles, f"{name} -vvv on {self.engine}")
        return run


def karmada(stack) -> Federation:
    return Federation("karmada", Path(stack.env["MCF_STACK_INVENTORY"]), stack.karmada(), stack.member("idc1"),
                      stack.member("test-ucs"), stack.env, "karmada.io/managed",
                      foreign_namespaces=(federalize_support.NAMESPACE,))


def kubeadmiral(stack) -> Federation:
    env = stack.env
    if "MCF_KUBEADMIRAL_KUBECONFIG" not in env:
        pytest.fail("the stack runs no KubeAdmiral federation: `python -m tests.stack up` (both engines) starts it")

    def member(name):
        key = "MCF_KUBEADMIRAL_MEMBER_KUBECONFIG_" + name.upper().replace("-", "_")
        return Cluster(name, Path(env[key]), "internal", env)
    return Federation("kubeadmiral", Path(env["MCF_KUBEADMIRAL_INVENTORY"]),
                      Cluster("kubeadmiral", Path(env["MCF_KUBEADMIRAL_KUBECONFIG"]), "federation", env),
                      member("cluster-a"), member("cluster-b"), env, "kubeadmiral.io/managed")


# --- small helpers -------------------------------------------------------------------------------

def eventually(condition, what: str, timeout: float = 120):
    """condition() until truthy, pausing 0.2 s and growing by half up to 3 s; fails naming what was awaited."""
    deadline, pause, last = time.monotonic() + timeout, 0.2, None
    while True:
        last = condition()
        if last:
            return last
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}; last: {str(last)[:2000]}")
        time.sleep(min(pause, max(deadline - time.monotonic(), 0)))
        pause = min(pause * 1.5, 3.0)


def pod_uids(cluster: Cluster) -> dict[str, str]:
    return {p["metadata"]["name"]: p["metadata"]["uid"] for p in cluster.get("pods", "-n", NAMESPACE)["items"]
            if not p["metadata"].get("deletionTimestamp")}


def replicaset_uids(cluster: Cluster) -> dict[str, str]:
    return {r["metadata"]["name"]: r["metadata"]["uid"] for r in cluster.get("replicasets", "-n", NAMESPACE)["items"]}


def deployments_ready(cluster: Cluster) -> bool:
    for name, replicas in REPLICAS.items():
        found = cluster.kubectl("get", "deployment", name, "-n", NAMESPACE, "--ignore-not-found", "-o", "json").stdout
        if not found.strip():
            return False
        status = cluster.get("deployment", name, "-n", NAMESPACE).get("status", {})
        if status.get("readyReplicas", 0) != replicas or status.get("updatedReplicas", 0) != replicas:
            return False
    return True


def annotations(cluster: Cluster) -> dict:
    return cluster.get("service", "fed-service-01", "-n", NAMESPACE)["metadata"].get("annotations", {})


def scenario() -> list[dict]:
    """The runbook's application (federalize_support's reference scenario) in this test's namespace,
    with the source cloud's load balancer annotation."""
    objects = copy.deepcopy(federalize_support.reference_scenario())
    for obj in objects:
        if obj["kind"] == "Namespace":
            obj["metadata"]["name"] = NAMESPACE
        else:
            obj["metadata"]["namespace"] = NAMESPACE
        if obj["kind"] == "Service":
            obj["metadata"]["annotations"] = dict(SOURCE_LB_ANNOTATIONS)
            assert obj["spec"]["ports"][0]["nodePort"] == NODE_PORT
        if obj["kind"] == "Deployment":
            assert obj["spec"]["replicas"] == REPLICAS[obj["metadata"]["name"]]
    return objects


def node_port_holders(cluster: Cluster) -> list[tuple[str, str]]:
    return [(s["metadata"]["namespace"], s["metadata"]["name"]) for s in cluster.get("services", "-A")["items"]
            if any(p.get("nodePort") == NODE_PORT for p in s["spec"].get("ports", []))]


def clean(federation: Federation) -> None:
    """The control plane first (its templates and policies), then what stays in the members. Also
    other tests' leftovers that hold NODE_PORT (each starts from scratch itself)."""
    clusters = (federation.control_plane, federation.first, federation.second)
    for namespace in (NAMESPACE, *federation.foreign_namespaces):
        for cluster in clusters:
            cluster_objects.remove_namespace(namespace, cluster)
    for cluster in clusters:
        holders = node_port_holders(cluster)
        assert not holders, (f"nodePort {NODE_PORT} is held in {cluster.name} by {holders}: this test needs it; "
                             "delete those Services")


@pytest.fixture(scope="module", params=["karmada", "kubeadmiral"])
def federation(request, stack):
    federation = {"karmada": karmada, "kubeadmiral": kubeadmiral}[request.param](stack)
    clean(federation)
    federation.first.apply(scenario())
    eventually(lambda: deployments_ready(federation.first), f"the runbook's Deployments Ready in {federation.first.name}",
               timeout=180)
    federation.needles = stack_secrets(stack, (federation.control_plane, federation.first, federation.second))
    assert any(federalize_support.SECRET_VALUE in needle for needle in federation.needles), \
        "the application's Secret was not read"
    yield federation
    clean(federation)


def assert_converged(federation: Federation, name: str, extra_vars: dict) -> None:
    """A second run and check mode on the converged federation change nothing (side by side: each
    finds what the first run left)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        again, checked = pool.map(lambda check: federation.playbook(name, extra_vars, check=check), (False, True))
    assert again.returncode == 0 and again.changed == 0, again
    assert checked.returncode == 0 and checked.changed == 0, checked


# --- watching both members during the move --------------------------------------------------------

class Timeline:
    """Watches the test namespace's pods and Services in one member from threads and records, on the
    local monotonic clock (all clusters run on this machine), when each object was seen Ready (a
    Service: with a load balancer ingress) and when deleting (a deletionTimestamp, or gone)."""

    def __init__(self, cluster: Cluster):
        from kubernetes import client, config

        api = client.CoreV1Api(config.new_client_from_config(config_file=str(cluster.kubeconfig),
                                                             context=cluster.context))
        self.name = cluster.name
        self.events: list[tuple[float, str, str, str, bool, bool]] = []  # (t, kind, name, app, ready, deleting)
        self.errors: list[str] = []
        self.stopped = threading.Event()
        self.watches = [(threading.Thread(target=self.watch, args=(kind, lister, listed), daemon=True), listed)
                        for kind, lister, listed in (("Pod", api.list_namespaced_pod, threading.Event()),
                                                     ("Service", api.list_namespaced_service, threading.Event()))]

    def __enter__(self):
        for thread, listed in self.watches:
            thread.start()
            # The timeline starts once the watch has recorded what exists.
            assert listed.wait(30), f"the {self.name} watch did not start: {self.errors}"
        return self

    def __exit__(self, *exc):
        self.stopped.set()
        for thread, _listed in self.watches:
            thread.join(timeout=15)
        assert not self.errors, f"watching {self.name} failed: {self.errors}"

    def record(self, kind: str, obj, deleted: bool = False) -> None:
        metadata = obj.metadata
        if kind == "Pod":
            ready = any(c.type == "Ready" and c.status == "True" for c in (obj.status.conditions or []))
        else:
            ready = bool(obj.status.load_balancer and obj.status.load_balancer.ingress)
        self.events.append((time.monotonic(), kind, metadata.name, (metadata.labels or {}).get("app", ""), ready,
                            deleted or metadata.deletion_timestamp is not None))

    def watch(self, kind: str, lister, listed: threading.Event) -> None:
        from kubernetes import watch

        try:
            current = lister(NAMESPACE)
            for obj in current.items:
                self.record(kind, obj)
            version = current.metadata.resource_version
            listed.set()
            # Short server-side timeouts, so that a stop is noticed without an event.
            while not self.stopped.is_set():
                for event in watch.Watch().stream(lister, NAMESPACE, resource_version=version, timeout_seconds=2):
                    version = event["object"].metadata.resource_version
                    self.record(kind, event["object"], deleted=event["type"] == "DELETED")
        except Exception as error:  # noqa: BLE001 - reported by __exit__, the thread has no other way out
            self.errors.append(f"{kind}: {error!r}")
            listed.set()

    def all_ready_at(self) -> float | None:
        """When the Deployments' pods (all replicas) and the Service were first Ready together."""
        state: dict[tuple[str, str], tuple[str, bool]] = {}
        for at, kind, name, app, ready, deleting in self.events:
            state[(kind, name)] = (app, ready and not deleting)
            pods = [app for (k, _n), (app, ok) in state.items() if k == "Pod" and ok]
            service = state.get(("Service", "fed-service-01"), ("", False))[1]
            if service and all(pods.count(app) >= count for app, count in REPLICAS.items()):
                return at
        return None

    def first_deletion_at(self) -> float | None:
        return next((at for at, _kind, _name, _app, _ready, deleting in self.events if deleting), None)


# --- the scenario ------------------------------------------------------------------------------------

def test_federalize_adopts_the_running_application(federation):
    first = federation.first
    pods_before, replicasets_before = pod_uids(first), replicaset_uids(first)
    assert len(pods_before) == sum(REPLICAS.values())

    run = federation.first_run("federalize.yml", FEDERALIZE_VARS)
    assert run.returncode == 0 and run.changed > 0, run

    for kind, name in APP:
        assert federation.control_plane.has(kind, name, "-n", NAMESPACE), f"{kind} {name} missing in the control plane"

    def managed():
        return all(first.get(kind, name, "-n", NAMESPACE)["metadata"].get("labels", {}).get(federation.managed_label)
                   == "true" for kind, name in APP)
    eventually(managed, f"every object in {first.name} labelled {federation.managed_label}=true", timeout=60)
    assert pod_uids(first) == pods_before, "pods were replaced"
    assert replicaset_uids(first) == replicasets_before, "ReplicaSets were replaced"
    assert not federation.second.has("deployment", "fed-dp-01", "-n", NAMESPACE)
    assert_converged(federation, "federalize.yml", FEDERALIZE_VARS)


@pytest.mark.parametrize("override,message", [
    (volc_service_override(operator="move"), "operator 'move' is not supported: use one of add, remove, replace"),
    (volc_service_override(cluster="cluster-z"), "cluster-z is not a cluster of the members group"),
], ids=["unknown-operator", "unknown-cluster"])
def test_a_bad_override_stops_before_any_change(federation, override, message):
    run = federation.playbook("migrate.yml", {**FEDERALIZE_VARS, **override, "federalize_target": SECOND})
    assert run.returncode != 0 and message in run.output, run
    assert run.changed == 0, run
    policies = federation.control_plane.kubectl("get", "overridepolicies", "-n", NAMESPACE, "-o", "name").stdout
    assert "volc-service-override" not in policies
    assert not federation.second.has("deployment", "fed-dp-01", "-n", NAMESPACE) and deployments_ready(federation.first)


def test_override_and_migrate_without_a_moment_without_a_ready_copy(federation):
    first, second = federation.first, federation.second
    with Timeline(first) as source, Timeline(second) as target:
        run = federation.first_run("migrate.yml", MIGRATE_VARS)
        assert run.returncode == 0 and run.changed > 0, run
        eventually(lambda: all(not first.has(kind, name, "-n", NAMESPACE) for kind, name in APP),
                   f"the application gone from {first.name}", timeout=120)

    assert deployments_ready(second), f"not Ready in {second.name}"
    for kind, name in APP:
        assert second.has(kind, name, "-n", NAMESPACE), f"{kind} {name} missing in {second.name}"
    service = second.get("service", "fed-service-01", "-n", NAMESPACE)
    assert {k: service["metadata"]["annotations"].get(k) for k in VOLC_LB_ANNOTATIONS} == VOLC_LB_ANNOTATIONS
    assert service["spec"]["ports"][0]["nodePort"] == NODE_PORT

    ready_at, deleted_at = target.all_ready_at(), source.first_deletion_at()
    assert ready_at is not None, f"{second.name} never had every pod and the Service ingress Ready: {target.events}"
    assert deleted_at is not None, f"nothing was seen deleted in {first.name}: {source.events}"
    # Shown with -s or on a failure: how much earlier the new copies were ready.
    print(f"{federation.engine}: {second.name} Ready {deleted_at - ready_at:.2f}s before {first.name} started deleting")
    assert ready_at < deleted_at, (f"{first.name} started deleting {ready_at - deleted_at:.2f}s before "
                                   f"{second.name} was Ready")
    assert_converged(federation, "migrate.yml", MIGRATE_VARS)


def test_distribute_runs_in_both_with_the_overrides_only_in_the_second(federation):
    first, second = federation.first, federation.second
    distribute_vars = {**DISTRIBUTE_VARS, **whole_override(federation.engine)}
    run = federation.first_run("distribute.yml", distribute_vars)
    assert run.returncode == 0 and run.changed > 0, run
    for member in (first, second):
        for kind, name in APP:
            assert member.has(kind, name, "-n", NAMESPACE), f"{kind} {name} missing in {member.name}"
        eventually(lambda m=member: deployments_ready(m), f"the Deployments Ready in {member.name}", timeout=120)
    assert not set(VOLC_LB_ANNOTATIONS) & set(annotations(first)), annotations(first)
    assert {k: annotations(second).get(k) for k in VOLC_LB_ANNOTATIONS} == VOLC_LB_ANNOTATIONS
    assert first.get("service", "fed-service-01", "-n", NAMESPACE)["spec"]["ports"][0]["nodePort"] == NODE_PORT
    assert_converged(federation, "distribute.yml", distribute_vars)

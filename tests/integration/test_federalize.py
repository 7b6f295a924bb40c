"""Resource federalization on the local stack, the runbook's reference scenario end to end.

Created directly in idc1: Deployments fed-dp-01/02 mounting ConfigMaps fed-cm-01/02 and Secret fed-secret-01,
Service fed-service-01 (LoadBalancer, source-cloud annotation, nodePort 31922). Then, in order: bad input
changes nothing; check mode shows templates without Secret data; federalize adopts without restarting pods;
a nodePort taken in test-ucs stops the migration; override + migrate moves it to test-ucs (a drift run started
meanwhile is refused by the run lock); distribute runs
it in both, duplicated then weighted. Every playbook's second run reports 0 changed.
"""

from __future__ import annotations

import json

import pytest

from tests.stack.waiting import wait_for
from tests.integration.cluster_objects import ReadyCopiesWatch, deployment_ready, remove_namespace, uids
from tests.integration.fault_support import migrate_with_the_controller_lost
from tests.integration.federalize_support import (
    FEDERALIZE_VARS,
    NAMESPACE,
    NODE_PORT,
    OVERRIDE_VARS,
    SECRET_VALUE,
    SOURCE_LB_ANNOTATION,
    TARGET_LB_ANNOTATIONS,
    reference_scenario,
)
from tests.integration.playbook_runner import OLDEST_CORE, playbook, side_by_side
from tests.integration.secret_scan import b64

APP = [("deployment", "fed-dp-01"), ("deployment", "fed-dp-02"), ("service", "fed-service-01"),
       ("configmap", "fed-cm-01"), ("configmap", "fed-cm-02"), ("secret", "fed-secret-01")]


def replicas(cluster, name) -> int:
    return cluster.get("deployment", name, "-n", NAMESPACE)["spec"]["replicas"]


def policy(karmada):
    return karmada.get("propagationpolicy", "fed-app", "-n", NAMESPACE)


@pytest.fixture(scope="module")
def clusters(stack):
    karmada = stack.karmada()
    idc1, ucs = stack.member("idc1"), stack.member("test-ucs")
    # Start from scratch: a previous run's templates and policies, then the member copies.
    karmada.kubectl("delete", "overridepolicy,propagationpolicy", "--all", "-n", NAMESPACE, "--ignore-not-found")
    remove_namespace(NAMESPACE, karmada)
    remove_namespace("fed-crd", karmada)
    karmada.kubectl("delete", "crd", "widgets.fedtest.example.com", "--ignore-not-found")
    for member in (idc1, ucs):
        remove_namespace(NAMESPACE, member)
        remove_namespace("fed-crd", member)
        member.kubectl("delete", "service", "squatter", "-n", "default", "--ignore-not-found")
        member.kubectl("delete", "crd", "widgets.fedtest.example.com", "--ignore-not-found")
    idc1.apply(reference_scenario())
    wait_for(lambda: all(deployment_ready(idc1, n, NAMESPACE) for n in ("fed-dp-01", "fed-dp-02")),
             "the reference Deployments Ready in idc1", timeout=240)
    return {"karmada": karmada, "idc1": idc1, "test-ucs": ucs, "env": stack.env}


def assert_nothing_federated(karmada):
    assert not karmada.has("namespace", NAMESPACE, "-n", "default"), "fed-demo created in the control plane"
    assert karmada.kubectl("get", "propagationpolicy", "-A", "-o", "name").stdout.find("fed-app") < 0


# --- bad input: a clear error, nothing changed ----------------------------------------------------

@pytest.mark.parametrize("extra,message", [
    ({"federalize_resources": [{"api_version": "apps/v1", "kind": "Deployment", "names": ["fed-dp-99"]}]},
     "Deployment fed-demo/fed-dp-99 not found in cluster idc1"),
    ({"federalize_resources": [{"api_version": "apps/v1", "kind": "Deploymint", "names": ["fed-dp-01"]}]},
     "does not serve apps/v1 Deploymint"),
    ({"federalize_namespace": "no-such-namespace"}, "namespace no-such-namespace does not exist in cluster idc1"),
    ({"federalize_source": "nowhere"}, "federalize_source 'nowhere' is not a host of the members group"),
])
def test_bad_input_stops_before_any_change(clusters, extra, message):
    run = playbook(clusters["env"], "federalize.yml", {**FEDERALIZE_VARS, **extra})
    assert run.returncode != 0, run
    assert message in run.stdout, run
    assert run.changed == 0, run
    assert_nothing_federated(clusters["karmada"])


def test_unknown_karmada_cluster_stops_before_any_change(clusters):
    # The inventory host exists but its cluster_name is not a Karmada member.
    overlay = {"members": {"hosts": {"idc1": {"cluster_name": "ghost"}}}}
    run = playbook(clusters["env"], "federalize.yml", FEDERALIZE_VARS, extra_inventory=overlay)
    assert run.returncode != 0, run
    assert "Karmada does not list member cluster 'ghost'" in run.stdout, run
    assert_nothing_federated(clusters["karmada"])


def test_control_plane_dropping_fields_is_refused(clusters):
    """A CRD whose control-plane schema lacks a field the member has: the dry-run drops it -> refusal."""
    karmada, idc1 = clusters["karmada"], clusters["idc1"]

    def crd(with_extra: bool) -> dict:
        props = {"size": {"type": "integer"}}
        if with_extra:
            props["extra"] = {"type": "object", "properties": {"newField": {"type": "boolean"}}}
        return {
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.fedtest.example.com"},
            "spec": {"group": "fedtest.example.com", "scope": "Namespaced",
                     "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "properties": {"spec": {"type": "object", "properties": props}}}}}]},
        }

    idc1.apply(crd(True))
    karmada.apply(crd(False))
    for cluster in (idc1, karmada):
        wait_for(lambda c=cluster: c.kubectl("get", "widgets", "-A", check=False).returncode == 0,
                 "the Widget CRD served", timeout=60)
    idc1.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "fed-crd"}},
                {"apiVersion": "fedtest.example.com/v1", "kind": "Widget",
                 "metadata": {"name": "w1", "namespace": "fed-crd"}, "spec": {"size": 1, "extra": {"newField": True}}}])
    run = playbook(clusters["env"], "federalize.yml", {
        "federalize_source": "idc1", "federalize_namespace": "fed-crd", "federalize_policy_name": "widget",
        "federalize_resources": [{"api_version": "fedtest.example.com/v1", "kind": "Widget", "names": ["w1"]}],
    })
    assert run.returncode != 0, run
    assert "would alter /spec of Widget fed-crd/w1" in run.stdout and "/spec/extra" in run.stdout, run
    assert not karmada.has("namespace", "fed-crd", "-n", "default")


# --- check mode -----------------------------------------------------------------------------------

def test_check_mode_shows_templates_without_secret_data(clusters):
    run = playbook(clusters["env"], "federalize.yml", FEDERALIZE_VARS, check=True, diff=True)
    assert run.returncode == 0, run
    assert run.changed > 0, run
    for name in ("fed-dp-01", "fed-dp-02", "fed-service-01", "fed-cm-01", "fed-cm-02", "fed-secret-01"):
        assert name in run.stdout, (name, str(run))
    assert SECRET_VALUE not in run.stdout and b64(SECRET_VALUE) not in run.stdout, "Secret data printed"
    assert "nodePort" in run.stdout and str(NODE_PORT) in run.stdout
    assert_nothing_federated(clusters["karmada"])


# --- federalize -----------------------------------------------------------------------------------

def test_federalize_adopts_without_restarting(clusters):
    karmada, idc1 = clusters["karmada"], clusters["idc1"]
    pods_before, rs_before = uids(idc1, "pods", NAMESPACE, deleting=False), uids(idc1, "replicasets", NAMESPACE)
    specs = {n: idc1.get("deployment", n, "-n", NAMESPACE)["spec"] for n in ("fed-dp-01", "fed-dp-02")}
    assert len(pods_before) == 5

    # On the oldest ansible-core the collection supports (the other runs use the newest).
    run = playbook(clusters["env"], "federalize.yml", FEDERALIZE_VARS, core=OLDEST_CORE)
    assert run.returncode == 0, run
    assert run.changed > 0, run
    assert run.argv[0] == str(OLDEST_CORE / "ansible-playbook")
    # Warnings are wrapped to the terminal width: compare with whitespace collapsed.
    assert "keeps fixed node ports 31922" in " ".join((run.stdout + run.stderr).split()), "no nodePort warning"

    for kind, name in APP:
        assert karmada.has(kind, name, "-n", NAMESPACE), f"{kind} {name} missing in the control plane"
        member = idc1.get(kind, name, "-n", NAMESPACE)
        assert member["metadata"].get("labels", {}).get("karmada.io/managed") == "true", f"{kind} {name} not adopted"
    template = karmada.get("service", "fed-service-01", "-n", NAMESPACE)
    assert template["spec"]["ports"][0]["nodePort"] == NODE_PORT
    assert template["metadata"]["annotations"]["work.karmada.io/conflict-resolution"] == "overwrite"
    assert karmada.get("secret", "fed-secret-01", "-n", NAMESPACE)["data"]["password"] == b64(SECRET_VALUE)
    spec = policy(karmada)["spec"]
    assert spec["placement"]["clusterAffinity"]["clusterNames"] == ["idc1"]
    assert spec["conflictResolution"] == "Overwrite" and spec["propagateDeps"] is True
    assert spec["preserveResourcesOnDeletion"] is True

    # Nothing restarted: the same pods, ReplicaSets and specs, and nothing new in test-ucs. (The
    # generation moves by one: kube-apiserver bumps it for Karmada's annotations, strategy.go.)
    assert uids(idc1, "pods", NAMESPACE, deleting=False) == pods_before
    assert uids(idc1, "replicasets", NAMESPACE) == rs_before
    for name, spec in specs.items():
        assert idc1.get("deployment", name, "-n", NAMESPACE)["spec"] == spec
    assert not clusters["test-ucs"].has("deployment", "fed-dp-01", "-n", NAMESPACE)


def test_federalize_second_run_changes_nothing(clusters):
    run = playbook(clusters["env"], "federalize.yml", FEDERALIZE_VARS)
    assert run.returncode == 0, run
    assert run.changed == 0, run
    assert "already_federated" in run.stdout


# --- migrate --------------------------------------------------------------------------------------

def test_migrate_refuses_a_taken_node_port(clusters):
    karmada, ucs = clusters["karmada"], clusters["test-ucs"]
    ucs.apply({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "squatter", "namespace": "default"},
               "spec": {"type": "NodePort", "selector": {"app": "x"},
                        "ports": [{"port": 80, "nodePort": NODE_PORT}]}})
    try:
        run = playbook(clusters["env"], "migrate.yml", {**FEDERALIZE_VARS, "federalize_target": "test-ucs"})
        assert run.returncode != 0, run
        assert f"nodePort {NODE_PORT} of Service {NAMESPACE}/fed-service-01 is already allocated in cluster test-ucs" \
            in run.stdout, run
        assert run.changed == 0, run
        assert policy(karmada)["spec"]["placement"]["clusterAffinity"]["clusterNames"] == ["idc1"]
        assert not ucs.has("deployment", "fed-dp-01", "-n", NAMESPACE)
    finally:
        ucs.kubectl("delete", "service", "squatter", "-n", "default", "--ignore-not-found")


def test_migrate_to_unknown_cluster_stops(clusters):
    run = playbook(clusters["env"], "migrate.yml", {**FEDERALIZE_VARS, "federalize_target": "nowhere"})
    assert run.returncode != 0 and "federalize_target 'nowhere' is not a host of the members group" in run.stdout, run
    assert policy(clusters["karmada"])["spec"]["placement"]["clusterAffinity"]["clusterNames"] == ["idc1"]


def test_override_and_migrate_to_test_ucs(clusters):
    karmada, idc1, ucs = clusters["karmada"], clusters["idc1"], clusters["test-ucs"]
    # A drift run (a schedule) starts while the migration runs: the run lock refuses it before it reads or
    # changes anything, and the migration goes on alone (issue 14, concurrent runs).
    migration, drift = side_by_side(
        lambda watch: playbook(clusters["env"], "migrate.yml",
                               {**FEDERALIZE_VARS, **OVERRIDE_VARS, "federalize_target": "test-ucs"}, on_line=watch),
        lambda: playbook(clusters["env"], "drift.yml", {"remediate": True}),
        "TASK [Apply the per-cluster overrides]")
    run = migration.run
    assert run.returncode == 0, run
    assert drift.run.returncode != 0 and drift.ended < migration.ended, (migration, drift)
    assert "another run holds the federation's run lock" in " ".join(drift.run.output.split()), drift.run.describe()
    assert drift.run.changed_tasks() == [], drift.run.describe()

    for name in ("fed-dp-01", "fed-dp-02"):
        assert deployment_ready(ucs, name, NAMESPACE), f"{name} not Ready in test-ucs"
    service = ucs.get("service", "fed-service-01", "-n", NAMESPACE)
    for key, value in TARGET_LB_ANNOTATIONS.items():
        assert service["metadata"]["annotations"].get(key) == value
    assert SOURCE_LB_ANNOTATION not in service["metadata"]["annotations"]
    assert service["spec"]["ports"][0]["nodePort"] == NODE_PORT
    for kind, name in APP:
        assert ucs.has(kind, name, "-n", NAMESPACE), f"{kind} {name} missing in test-ucs"
        wait_for(lambda k=kind, n=name: not idc1.has(k, n, "-n", NAMESPACE), f"{kind} {name} gone from idc1", timeout=60)
    spec = policy(karmada)["spec"]
    assert spec["placement"]["clusterAffinity"]["clusterNames"] == ["test-ucs"]
    # The flag was lifted for the move only.
    assert spec["preserveResourcesOnDeletion"] is True


def test_migrate_second_run_changes_nothing(clusters):
    run = playbook(clusters["env"], "migrate.yml", {**FEDERALIZE_VARS, **OVERRIDE_VARS, "federalize_target": "test-ucs"})
    assert run.returncode == 0, run
    assert run.changed == 0, run


def test_an_interrupted_migration_is_finished_by_the_rerun(stack, clusters):
    """The controller is lost while the move waits for the target (added to the placement, its pods not
    Ready: idc1's scheduler is stopped meanwhile, a slow cluster). The source keeps serving; the rerun,
    with idc1 back, finishes the move; at no moment has the application zero ready copies (issue 14)."""
    karmada, idc1, ucs = clusters["karmada"], clusters["idc1"], clusters["test-ucs"]
    vars_ = {**FEDERALIZE_VARS, **OVERRIDE_VARS, "federalize_target": "idc1"}
    # Read all along, from before the first run until after the rerun.
    watch = ReadyCopiesWatch([idc1, ucs], "fed-dp-01", NAMESPACE).start()
    try:
        rerun = migrate_with_the_controller_lost(
            stack, lambda on_line=None: playbook(clusters["env"], "migrate.yml", vars_, on_line=on_line),
            lambda: set(policy(karmada)["spec"]["placement"]["clusterAffinity"]["clusterNames"]), "test-ucs", "idc1")
    finally:
        watch.stop()
    assert rerun.returncode == 0, rerun
    assert policy(karmada)["spec"]["placement"]["clusterAffinity"]["clusterNames"] == ["idc1"]
    assert deployment_ready(idc1, "fed-dp-01", NAMESPACE)
    watch.assert_never_zero()
    # Back where the tests below expect the application: on test-ucs.
    back = playbook(clusters["env"], "migrate.yml", {**vars_, "federalize_target": "test-ucs"})
    assert back.returncode == 0, back


# --- distribute -----------------------------------------------------------------------------------

def test_distribute_duplicated_runs_in_both(clusters):
    vars_ = {**FEDERALIZE_VARS, **OVERRIDE_VARS, "federalize_clusters": ["idc1", "test-ucs"]}
    run = playbook(clusters["env"], "distribute.yml", vars_)
    assert run.returncode == 0, run
    for member in (clusters["idc1"], clusters["test-ucs"]):
        for kind, name in APP:
            assert member.has(kind, name, "-n", NAMESPACE), f"{kind} {name} missing in {member.name}"
        assert deployment_ready(member, "fed-dp-01", NAMESPACE, 3) and deployment_ready(member, "fed-dp-02", NAMESPACE, 2)
    idc1_service = clusters["idc1"].get("service", "fed-service-01", "-n", NAMESPACE)
    assert "kubernetes.io/elb.id" not in idc1_service["metadata"].get("annotations", {})
    again = playbook(clusters["env"], "distribute.yml", vars_)
    assert again.returncode == 0 and again.changed == 0, again


def test_distribute_weighted_by_cluster_weight(clusters):
    # The inventory's static weights idc1:1, test-ucs:2 divide fed-dp-01's 3 replicas 1:2.
    vars_ = {**FEDERALIZE_VARS, **OVERRIDE_VARS, "federalize_clusters": ["idc1", "test-ucs"],
             "federalize_distribution": "weighted"}
    run = playbook(clusters["env"], "distribute.yml", vars_)
    assert run.returncode == 0, run
    # The division is what this step decides; readiness was waited for by the step itself.
    wait_for(lambda: replicas(clusters["idc1"], "fed-dp-01") == 1 and replicas(clusters["test-ucs"], "fed-dp-01") == 2,
             "fed-dp-01 divided 1:2", timeout=180)
    again = playbook(clusters["env"], "distribute.yml", vars_)
    assert again.returncode == 0 and again.changed == 0, again


def test_distribute_to_unknown_cluster_stops(clusters):
    before = json.dumps(policy(clusters["karmada"])["spec"], sort_keys=True)
    run = playbook(clusters["env"], "distribute.yml", {**FEDERALIZE_VARS, "federalize_clusters": ["idc1", "nowhere"]})
    assert run.returncode != 0 and "are not hosts of the members group" in run.stdout, run
    assert json.dumps(policy(clusters["karmada"])["spec"], sort_keys=True) == before


def test_migrate_keeping_copies_reports_them(clusters):
    """Asked to, the move leaves the old copies running, unmanaged, and says which."""
    karmada, idc1, ucs = clusters["karmada"], clusters["idc1"], clusters["test-ucs"]
    run = playbook(clusters["env"], "migrate.yml", {**FEDERALIZE_VARS, "federalize_target": "idc1",
                                                    "federalize_keep_removed_copies": True})
    assert run.returncode == 0, run
    assert "Deployment fed-demo/fed-dp-01" in run.stdout, run
    assert policy(karmada)["spec"]["placement"]["clusterAffinity"]["clusterNames"] == ["idc1"]
    assert replicas(idc1, "fed-dp-01") == 3

    def unmanaged():
        labels = ucs.get("deployment", "fed-dp-01", "-n", NAMESPACE)["metadata"].get("labels", {})
        return "karmada.io/managed" not in labels
    wait_for(unmanaged, "test-ucs's fed-dp-01 released by Karmada", timeout=120)

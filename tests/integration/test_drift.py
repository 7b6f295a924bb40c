"""Drift detection and remediation with playbooks/drift.yml (issue 13), on both engines at once.

The module fixture converges both federations with the runbooks' own playbooks - on Karmada site.yml
(conftest's converged_karmada, shared with test_bad_input.py), then an application adopted from idc1
(federalize.yml) with per-cluster overrides (distribute.yml); on KubeAdmiral an application adopted
from cluster-a - concurrently (they share no cluster). The test
then edits by hand, all at once, what a person or a `helm upgrade` would: a Kruise webhook
configuration recreated on the control plane, a static weight of the PropagationPolicy, a
UnitedDeployment field, the interpreter's Lua, kruise-daemon's node affinity in a member (a
Helm-owned object: Helm's release-against-release comparison does not see it), the adopted
application's overrides (Karmada) and its placement (KubeAdmiral). Then drift.yml -e remediate=true
runs on both engines at once, and its three phases are checked one by one:

1. the evaluation (drift-evaluate.json) names cluster, object, field and the step that owns the object
   of every edit, and nothing else (drift.yml runs every step in check and diff mode: what site.yml
   --check would report, step by step). It changed nothing: had it reverted an edit, the remediation
   would have found nothing to repair there;
2. the remediation (drift-remediate.json) repaired each edit;
3. the second evaluation (drift-recheck.json: every step in check mode again, what a later scheduled run
   sees) is clean, the run exits 0 and the clusters read as the runbooks left them.

A drift.yml without remediate exits non-zero on drift, with the hint to remediate: test_check_mode.py,
on a federation where nothing is installed yet. Both drift.yml runs are at -vvv and print none of the
stack's secrets (tests/integration/secret_scan.py), the adopted applications' Secret included:
drift.yml's secret scan, evaluation and remediation, on both engines.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from tests.integration.conftest import Cluster
from tests.stack.waiting import wait_for
from tests.integration.cluster_objects import deployment_ready, remove_namespace
from tests.integration.federalize_support import web_deployment
from tests.integration.kruise_support import recreated_webhook_configuration
from tests.integration.playbook_runner import PlaybookRun, playbook
from tests.integration.secret_scan import add_needles, assert_no_secret_printed, b64, stack_secrets
# The fixture (host and members) of the KubeAdmiral stack test: imported so pytest uses it here.
from tests.integration.test_stack_kubeadmiral import kubeadmiral  # noqa: F401 pylint: disable=unused-import

ROOT = Path(__file__).resolve().parents[2]
NAMESPACE = "fed-drift"
INTERPRETER = "declarative-configuration-uniteddeployment"
HEALTH_LUA = (ROOT / "roles" / "resource_interpreter" / "files" / "uniteddeployment" / "interpret_health.lua")
EDITED_LUA = "function InterpretHealth(observedObj)\n  return true\nend"
LB_ID, EDITED_LB_ID = "elb-drift-0001", "elb-edited-by-hand"
WEBHOOK = "kruise-validating-webhook-configuration"
TIMEOUT = 2400
SECRET_VALUE = "drift-secret-value-7d2e91c4"
AFFINITY_TERMS = [{"matchExpressions": [{"key": "type", "operator": "NotIn", "values": ["virtual-kubelet"]}]}]


def application(image: str) -> list[dict]:
    labels = {"app": "drift-web"}
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "drift-conf", "namespace": NAMESPACE},
         "data": {"app.conf": "listen 8080\n"}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "drift-secret", "namespace": NAMESPACE},
         "type": "Opaque", "data": {"password": b64(SECRET_VALUE)}},
        web_deployment("drift-web", 1, "drift-conf", namespace=NAMESPACE, secret="drift-secret", image=image),
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "drift-web", "namespace": NAMESPACE},
         "spec": {"selector": labels, "ports": [{"name": "http", "port": 80, "targetPort": 8080}]}},
    ]


def app_vars(source: str) -> dict:
    return {
        "federalize_source": source,
        "federalize_namespace": NAMESPACE,
        "federalize_policy_name": "drift-web",
        "federalize_resources": [{"api_version": "apps/v1", "kind": "Deployment", "names": ["drift-web"]},
                                 {"api_version": "v1", "kind": "Service", "names": ["drift-web"]}],
        "federalize_wait_timeout": 240,
    }


KARMADA_APP = {
    **app_vars("idc1"),
    "override_policy_name": "drift-web-lb",
    "override_policy_namespace": NAMESPACE,
    "override_policy_resource_selectors": [{"api_version": "v1", "kind": "Service", "name": "drift-web"}],
    "override_policy_rules": [{"target_clusters": ["test-ucs"], "annotations": {"kubernetes.io/elb.id": LB_ID}}],
}
KUBEADMIRAL_APP = app_vars("cluster-a")


def concurrently(**runs) -> dict[str, PlaybookRun]:
    """Run each callable in its own thread (the playbooks of two federations, or runs that only read)."""
    results, errors = {}, {}

    def call(name, function):
        try:
            results[name] = function()
        except BaseException as error:  # noqa: B036 - re-raised below, in the test's thread
            errors[name] = error

    threads = [threading.Thread(target=call, args=item) for item in runs.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise AssertionError(f"{sorted(errors)} failed: {errors}") from next(iter(errors.values()))
    return results


class Federations:
    def __init__(self, stack, kubeadmiral_clusters, report_dir: Path):
        self.stack = stack
        self.env = stack.env
        self.karmada = stack.karmada()
        self.idc1 = stack.member("idc1")
        self.host, members = kubeadmiral_clusters
        self.cluster_a, self.cluster_b = members["cluster-a"], members["cluster-b"]
        self.report_dir = report_dir
        # The secrets no run may print: read once both applications are adopted.
        self.needles: dict[str, str] = {}

    def remediate(self, engine: str) -> tuple[PlaybookRun, Path]:
        """drift.yml -e remediate=true at -vvv: its evaluation, remediation and second evaluation."""
        reports = self.report_dir / engine
        extra = {"drift_report_dir": str(reports), "remediate": True,
                 "drift_applications": [KARMADA_APP if engine == "karmada" else KUBEADMIRAL_APP]}
        inventory = self.env["MCF_KUBEADMIRAL_INVENTORY"] if engine == "kubeadmiral" else None
        run = playbook(self.env, "drift.yml", extra, inventory=inventory, timeout=TIMEOUT, verbosity=3)
        assert_no_secret_printed(run, self.needles, f"drift.yml -e remediate=true -vvv on {engine}")
        return run, reports

    def read_needles(self) -> None:
        self.needles = stack_secrets(self.stack)
        add_needles(self.needles, stack_secrets(self.stack, (self.host, self.cluster_a, self.cluster_b)))
        assert any(SECRET_VALUE in needle for needle in self.needles), "the applications' Secret was not read"


def report(directory: Path, phase: str) -> dict:
    return json.loads((directory / f"drift-{phase}.json").read_text())


@pytest.fixture(scope="module")
def federations(stack, kubeadmiral, converged_karmada, tmp_path_factory):  # noqa: F811 pylint: disable=unused-argument
    fed = Federations(stack, kubeadmiral, tmp_path_factory.mktemp("drift-reports"))
    remove_namespace(NAMESPACE, fed.karmada, fed.idc1, stack.member("test-ucs"))
    remove_namespace(NAMESPACE, fed.host, fed.cluster_a, fed.cluster_b)

    def karmada():
        fed.idc1.apply(application("nginx:1.27"))
        wait_for(lambda: deployment_ready(fed.idc1, "drift-web", NAMESPACE, 1), "drift-web Ready in idc1", timeout=120)
        runs = [playbook(fed.env, "federalize.yml", KARMADA_APP, timeout=TIMEOUT),
                playbook(fed.env, "distribute.yml", {**KARMADA_APP, "federalize_clusters": ["idc1"]}, timeout=TIMEOUT)]
        for run in runs:
            assert run.returncode == 0, run

    def kubeadmiral_app():
        fed.cluster_a.apply(application("registry.invalid/drift/web:1.0"))
        wait_for(lambda: deployment_ready(fed.cluster_a, "drift-web", NAMESPACE, 1), "drift-web Ready in cluster-a", timeout=120)
        run = playbook(fed.env, "federalize.yml", KUBEADMIRAL_APP, inventory=fed.env["MCF_KUBEADMIRAL_INVENTORY"],
                       timeout=TIMEOUT)
        assert run.returncode == 0, run

    concurrently(karmada=karmada, kubeadmiral=kubeadmiral_app)
    fed.read_needles()
    yield fed
    remove_namespace(NAMESPACE, fed.karmada, fed.idc1, stack.member("test-ucs"))
    remove_namespace(NAMESPACE, fed.host, fed.cluster_a, fed.cluster_b)


def override_policy(karmada: Cluster) -> dict:
    return karmada.get("overridepolicies.policy.karmada.io", "drift-web-lb", "-n", NAMESPACE)


def apply_the_drifts(fed: Federations) -> None:
    karmada = fed.karmada
    karmada.apply(recreated_webhook_configuration(WEBHOOK))
    weights = karmada.get("propagationpolicy", "demo", "-n", "default")["spec"]["placement"]["replicaScheduling"][
        "weightPreference"]["staticWeightList"]
    assert weights[0]["targetCluster"]["clusterNames"] == ["idc1"] and weights[0]["weight"] == 1, weights
    karmada.kubectl("patch", "propagationpolicy", "demo", "-n", "default", "--type=json", "-p", json.dumps([
        {"op": "replace", "path": "/spec/placement/replicaScheduling/weightPreference/staticWeightList/0/weight",
         "value": 3}]))
    karmada.kubectl("patch", "uniteddeployment", "demo", "-n", "default", "--type=merge", "-p",
                    json.dumps({"spec": {"revisionHistoryLimit": 5}}))
    karmada.kubectl("patch", "resourceinterpretercustomization", INTERPRETER, "--type=merge", "-p", json.dumps(
        {"spec": {"customizations": {"healthInterpretation": {"luaScript": EDITED_LUA}}}}))
    fed.idc1.kubectl("patch", "daemonset", "kruise-daemon", "-n", "kruise-system", "--type=json", "-p",
                     json.dumps([{"op": "remove", "path": "/spec/template/spec/affinity"}]))
    edited = json.loads(json.dumps(override_policy(karmada)).replace(LB_ID, EDITED_LB_ID))
    karmada.kubectl("replace", "-f", "-", input=json.dumps(edited))
    fed.host.kubectl("patch", "propagationpolicies.core.kubeadmiral.io", "drift-web", "-n", NAMESPACE,
                     "--type=json", "-p", json.dumps([{"op": "add", "path": "/spec/placement/-",
                                                       "value": {"cluster": "cluster-b"}}]))


def rows_of(found: dict) -> set[tuple[str, str, str, str]]:
    return {(r["cluster"], r["step"], r["object"], r["field"]) for r in found["rows"]}


def field_row(found: dict, cluster: str, obj: str, prefix: str) -> dict:
    matches = [r for r in found["rows"] if r["cluster"] == cluster and r["object"] == obj
               and r["field"].startswith(prefix)]
    assert matches, f"no row for {cluster} {obj} {prefix}*: {sorted(rows_of(found))}"
    return matches[0]


def assert_karmada_report(found: dict) -> None:
    """Each hand edit is a row naming cluster, object and field; nothing else drifted."""
    assert found["drift"] and not found["failures"], found["failures"]
    webhook = field_row(found, "karmada", f"ValidatingWebhookConfiguration {WEBHOOK}", "(object)")
    assert (webhook["step"], webhook["desired"], webhook["actual"]) == ("federation_webhooks", "absent", "present")
    weight = field_row(found, "karmada", "PropagationPolicy default/demo",
                       "spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight")
    assert (weight["step"], weight["desired"], weight["actual"]) == ("propagation_policy", 1, 3)
    history = field_row(found, "karmada", "UnitedDeployment default/demo", "spec.revisionHistoryLimit")
    assert (history["step"], history["desired"], history["actual"]) == ("united_deployment", 10, 5)
    lua = field_row(found, "karmada", f"ResourceInterpreterCustomization {INTERPRETER}",
                    "spec.customizations.healthInterpretation.luaScript")
    assert lua["step"] == "resource_interpreter" and lua["actual"] == EDITED_LUA
    assert lua["desired"] == HEALTH_LUA.read_text().rstrip("\n") or lua["desired"] == HEALTH_LUA.read_text()
    affinity = field_row(found, "idc1", "DaemonSet kruise-system/kruise-daemon", "spec.template.spec.affinity")
    assert affinity["step"] == "kruise" and affinity["actual"] is None
    assert affinity["desired"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"] == AFFINITY_TERMS
    override = field_row(found, "karmada", f"OverridePolicy {NAMESPACE}/drift-web-lb", "spec.overrideRules")
    assert override["step"] == "override_policy"
    assert LB_ID in json.dumps(override["desired"]) and EDITED_LB_ID in json.dumps(override["actual"])
    objects = {(r["cluster"], r["object"]) for r in found["rows"]}
    assert objects == {
        ("karmada", f"ValidatingWebhookConfiguration {WEBHOOK}"), ("karmada", "PropagationPolicy default/demo"),
        ("karmada", "UnitedDeployment default/demo"), ("karmada", f"ResourceInterpreterCustomization {INTERPRETER}"),
        ("idc1", "DaemonSet kruise-system/kruise-daemon"), ("karmada", f"OverridePolicy {NAMESPACE}/drift-web-lb"),
    }, sorted(rows_of(found))


def assert_kubeadmiral_report(found: dict) -> None:
    assert found["drift"] and not found["failures"], found["failures"]
    placement = field_row(found, "kubeadmiral", f"PropagationPolicy {NAMESPACE}/drift-web", "spec.placement")
    assert placement["step"] == "federalize"
    assert "cluster-b" in json.dumps(placement["actual"]) and "cluster-b" not in json.dumps(placement["desired"])
    assert {(r["cluster"], r["object"]) for r in found["rows"]} == {
        ("kubeadmiral", f"PropagationPolicy {NAMESPACE}/drift-web")}, sorted(rows_of(found))


def test_drift_is_detected_reported_and_repaired_on_both_engines(federations):
    fed = federations
    apply_the_drifts(fed)
    runs = concurrently(karmada=lambda: fed.remediate("karmada"), kubeadmiral=lambda: fed.remediate("kubeadmiral"))

    # 1. detection. drift.yml runs every step in check and diff mode, so its rows are what site.yml
    # --check reports, step by step: each edit in the step that owns the object.
    assert_karmada_report(report(runs["karmada"][1], "evaluate"))
    assert_kubeadmiral_report(report(runs["kubeadmiral"][1], "evaluate"))
    markdown = (runs["karmada"][1] / "drift-evaluate.md").read_text()
    assert "| idc1 | kruise | DaemonSet kruise-system/kruise-daemon | spec.template.spec.affinity |" in markdown

    # 2. remediation, 3. the second evaluation
    for engine in ("karmada", "kubeadmiral"):
        run, reports = runs[engine]
        assert run.returncode == 0, run
        assert report(reports, "recheck")["clean"], report(reports, "recheck")
    repaired = report(runs["karmada"][1], "remediate")
    assert {("karmada", f"ValidatingWebhookConfiguration {WEBHOOK}"), ("idc1", "DaemonSet kruise-system/kruise-daemon"),
            ("karmada", "PropagationPolicy default/demo"), ("karmada", "UnitedDeployment default/demo"),
            ("karmada", f"ResourceInterpreterCustomization {INTERPRETER}"),
            ("karmada", f"OverridePolicy {NAMESPACE}/drift-web-lb")} <= {
        (r["cluster"], r["object"]) for r in repaired["rows"]}, repaired["rows"]
    assert report(runs["kubeadmiral"][1], "remediate")["rows"], "the KubeAdmiral remediation changed nothing"
    assert_repaired(fed)


def assert_repaired(fed: Federations) -> None:
    karmada = fed.karmada
    assert not karmada.has("validatingwebhookconfiguration", WEBHOOK)
    policy = karmada.get("propagationpolicy", "demo", "-n", "default")
    assert policy["spec"]["placement"]["replicaScheduling"]["weightPreference"]["staticWeightList"][0]["weight"] == 1
    assert karmada.get("uniteddeployment", "demo", "-n", "default")["spec"]["revisionHistoryLimit"] == 10
    customization = karmada.get("resourceinterpretercustomization", INTERPRETER)
    assert customization["spec"]["customizations"]["healthInterpretation"]["luaScript"] != EDITED_LUA
    assert EDITED_LB_ID not in json.dumps(override_policy(karmada)) and LB_ID in json.dumps(override_policy(karmada))
    daemonset = fed.idc1.get("daemonset", "kruise-daemon", "-n", "kruise-system")
    assert daemonset["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"] == AFFINITY_TERMS
    placement = fed.host.get("propagationpolicies.core.kubeadmiral.io", "drift-web", "-n", NAMESPACE)["spec"]["placement"]
    assert [entry["cluster"] for entry in placement] == ["cluster-a"], placement
    wait_for(lambda: not fed.cluster_b.has("deployment", "drift-web", "-n", NAMESPACE), "drift-web gone from cluster-b",
             timeout=180)

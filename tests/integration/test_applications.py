"""Issue 12 acceptance on the local stack: the example inventory's applications (the first runbook's
sample-ud as written, a StatefulSet per subset, and a second CloneSet application with its own weights
and a ConfigMap) placed at once by the inventory's federation_united_deployments, on the example's
topology (idc1 without a virtual-kubelet node - the stack started so, weights 1:2), beside two
applications Karmada places by the members' capacity (Aggregated, and dynamic weights on a Deployment
template); a second run changes nothing; removing applications removes their objects everywhere and
leaves the other's untouched."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from tests.integration.cluster_objects import binding_split
from tests.integration.conftest import REPO_ROOT, stack_cli
from tests.stack.waiting import wait_for
from tests.integration.playbook_runner import run_playbook, stack_inventory

pytestmark = pytest.mark.usefixtures("stack", "converged_karmada")

EXAMPLE = REPO_ROOT / "inventories" / "example" / "group_vars" / "federation.yml"
APPLICATIONS = yaml.safe_load(EXAMPLE.read_text())["federation_united_deployments"]
STEPS = ("propagation_policy", "united_deployment", "verify")
# Placed by the estimator (the members' available replicas): their split is read back, not predicted.
BY_CAPACITY = [
    {"name": "packed", "replicas": 3, "scheduling": "aggregated", "image": "nginx:1.25-alpine",
     "resources": {"requests": {"cpu": "50m", "memory": "50Mi"}}},
    {"name": "burst", "replicas": 4, "scheduling": "dynamic", "template_kind": "deployment", "image": "nginx:1.25-alpine",
     "resources": {"requests": {"cpu": "50m", "memory": "50Mi"}}},
]
MEMBERS = ("idc1", "test-ucs")
UD_KIND = "uniteddeployment.apps.kruise.io"
OVERRIDE_TASK = ("Keep members without virtual-kubelet nodes on their regular nodes (an OverridePolicy of each "
                 "UnitedDeployment)")
VERIFY_TASK = "Verify each UnitedDeployment's split across clusters and subsets"


def place(stack, applications, report_dir: Path):
    """The application steps of site.yml (the others have nothing to do for an application) with the list,
    on the topology the stack's inventory describes."""
    return run_playbook("site.yml", stack_inventory(stack.env),
                        env=stack.env, tags=STEPS,
                        extra_vars={"federation_united_deployments": applications,
                                    "verify_report_dir": str(report_dir)}, expect_failure=None, timeout=1200)


def removed(applications, name):
    changed = copy.deepcopy(applications)
    for application in changed:
        if application["name"] == name:
            application["state"] = "absent"
    return changed


def member_topology(stack, member, name):
    ud = stack.member(member).get(UD_KIND, name, "-n", "default")
    return [subset["name"] for subset in ud["spec"]["topology"]["subsets"]]


def running_pods(cluster, selector):
    pods = cluster.get("pods", "-n", "default", "-l", selector)["items"]
    return sorted((p["spec"].get("nodeName") or "", p["status"].get("phase"), p["metadata"]["ownerReferences"][0]["kind"])
                  for p in pods if not p["metadata"].get("deletionTimestamp"))


def versions(cluster, *objects):
    """resourceVersion of each (kind, name): objects nobody but the collection writes (no status)."""
    return {obj: cluster.get(obj[0], obj[1], "-n", "default")["metadata"]["resourceVersion"] for obj in objects}


def generations(stack, name):
    """metadata.generation of the UnitedDeployment on the control plane and in each member (their status
    moves with every pod; their spec only with a change)."""
    return {cluster: (stack.karmada() if cluster == "karmada" else stack.member(cluster)).get(
        UD_KIND, name, "-n", "default")["metadata"]["generation"] for cluster in ("karmada", *MEMBERS)}


def test_the_example_applications_converge_and_one_is_removed_alone(stack, tmp_path):
    karmada, idc1 = stack.karmada(), stack.member("idc1")
    # The example's topology: idc1 without a virtual-kubelet node, as the stack's inventory then says.
    stack_cli("up", "--join", "--without-virtual-kubelet", "idc1")
    assert not idc1.has("node", "idc1-virtual-kubelet")
    try:
        first = place(stack, APPLICATIONS + BY_CAPACITY, tmp_path)
        assert first.returncode == 0 and first.changed > 0, first.describe()
        # Static weights: 1:2 for sample-ud (the members' cluster_weight), its own 1:1 for web.
        assert binding_split(karmada, "sample-ud-uniteddeployment", "default") == {"idc1": 2, "test-ucs": 4}
        assert binding_split(karmada, "web-uniteddeployment", "default") == {"idc1": 2, "test-ucs": 2}
        for name, subsets in (("sample-ud", ["subset-a", "subset-b"]), ("web", ["regular", "virtual-kubelet"])):
            # idc1 has no virtual-kubelet node: its copy lost that subset; the template keeps both.
            assert member_topology(stack, "idc1", name) == subsets[:1]
            assert member_topology(stack, "test-ucs", name) == subsets
            assert [s["name"] for s in karmada.get(UD_KIND, name, "-n", "default")["spec"]["topology"]["subsets"]] == subsets
        for member in MEMBERS:
            cluster = stack.member(member)
            service = cluster.get("service", "sample-ud", "-n", "default")
            assert service["spec"]["clusterIP"] == "None", service
            assert cluster.get("configmap", "web-settings", "-n", "default")["data"] == {
                "GREETING": "hello from the federation"}
        # Every pod Running, sample-ud's from StatefulSets, none of idc1's on a missing node.
        on_idc1 = running_pods(idc1, "app=sample")
        assert len(on_idc1) == 2 and all(node.startswith("idc1-node-") and (phase, kind) == ("Running", "StatefulSet")
                                         for node, phase, kind in on_idc1), on_idc1
        test_ucs = running_pods(stack.member("test-ucs"), "app=sample")
        assert len(test_ucs) == 4 and {pod[1] for pod in test_ucs} == {"Running"}, test_ucs
        assert sum(pod[0] == "test-ucs-virtual-kubelet" for pod in test_ucs) == 2, test_ucs
        web = running_pods(idc1, "app=web") + running_pods(stack.member("test-ucs"), "app=web")
        assert len(web) == 4 and {pod[1:] for pod in web} == {("Running", "CloneSet")}, web
        # Aggregated: on the one member with room for all three (verify checked it needs no second); dynamic
        # weights: every replica placed, each member running what its binding says (verify read both).
        packed = binding_split(karmada, "packed-uniteddeployment", "default")
        burst = binding_split(karmada, "burst-uniteddeployment", "default")
        assert len([n for n in packed.values() if n]) == 1 and sum(packed.values()) == 3, packed
        assert sum(burst.values()) == 4 and set(burst) <= set(MEMBERS), burst
        for member, share in burst.items():
            assert stack.member(member).get(UD_KIND, "burst", "-n", "default")["spec"]["replicas"] == share
        for name in ("sample-ud", "web", "packed", "burst"):
            assert "Verdict: **verified**" in (tmp_path / f"verify-default-{name}.md").read_text()

        again = place(stack, APPLICATIONS + BY_CAPACITY, tmp_path)
        assert again.returncode == 0 and again.changed == 0, again.describe()

        kept = (("propagationpolicy.policy.karmada.io", "ud-propagation"), ("service", "sample-ud"),
                ("overridepolicy.policy.karmada.io", "sample-ud-regular-nodes-only"))
        before = versions(karmada, *kept), generations(stack, "sample-ud")
        gone = place(stack, removed(APPLICATIONS, "web") + [dict(app, state="absent") for app in BY_CAPACITY], tmp_path)
        assert gone.returncode == 0 and gone.changed > 0, gone.describe()
        web_objects = ((UD_KIND, "web"), ("configmap", "web-settings"), (UD_KIND, "packed"), (UD_KIND, "burst"))
        for kind, name in (*web_objects, ("propagationpolicy.policy.karmada.io", "web"),
                           ("overridepolicy.policy.karmada.io", "web-regular-nodes-only"),
                           ("propagationpolicy.policy.karmada.io", "packed"),
                           ("overridepolicy.policy.karmada.io", "burst-regular-nodes-only")):
            assert not karmada.has(kind, name, "-n", "default"), (kind, name)
        for member in MEMBERS:
            cluster = stack.member(member)
            wait_for(lambda: not any(cluster.has(kind, name, "-n", "default") for kind, name in web_objects),
                     f"web's UnitedDeployment and ConfigMap gone from {member}")
            wait_for(lambda: not running_pods(cluster, "app=web"), f"web's pods gone from {member}")
        assert (versions(karmada, *kept), generations(stack, "sample-ud")) == before
        assert binding_split(karmada, "sample-ud-uniteddeployment", "default") == {"idc1": 2, "test-ucs": 4}
    finally:
        stack_cli("up", "--join")
        # Every member has virtual-kubelet nodes again: the OverridePolicy goes (also after a failure
        # above), and idc1 runs sample-ud's subset-b again.
        back = place(stack, removed(APPLICATIONS, "web"), tmp_path)
        # All removed: the suite's other modules find the federation as site.yml leaves it.
        cleanup = place(stack, removed(removed(APPLICATIONS, "web"), "sample-ud")
                        + [dict(app, state="absent") for app in BY_CAPACITY], tmp_path)
    # The OverridePolicy deleted, and verify's report rewritten for idc1's new split: nothing else.
    assert back.returncode == 0 and [(task, items) for _host, task, items in back.changed_tasks()] == [
        (OVERRIDE_TASK, ["UnitedDeployment default/sample-ud"]),
        (VERIFY_TASK, ["UnitedDeployment default/sample-ud"])], back.describe()
    assert not karmada.has("overridepolicy.policy.karmada.io", "sample-ud-regular-nodes-only", "-n", "default")
    assert "Verdict: **verified**" in (tmp_path / "verify-default-sample-ud.md").read_text()
    assert cleanup.returncode == 0, cleanup.describe()
    for kind, name in ((UD_KIND, "sample-ud"), ("service", "sample-ud"),
                       ("propagationpolicy.policy.karmada.io", "ud-propagation")):
        assert not karmada.has(kind, name, "-n", "default"), (kind, name)


# The first runbook's UnitedDeployment as its reader pastes it (tests/unit/plugins/module_utils): apiVersion
# apps.kruise.io/v1alpha1, no namespace. In a namespace of its own, where its labels (app: sample) select
# nothing of the example's sample-ud.
RUNBOOK_UD = yaml.safe_load((REPO_ROOT / "tests" / "unit" / "plugins" / "module_utils" /
                             "runbook_united_deployment.yml").read_text())
VERBATIM = {"name": "sample-ud", "namespace": "runbook", "policy_name": "ud-propagation", "definition": RUNBOOK_UD}


def test_the_runbooks_united_deployment_verbatim_runs_with_the_1_9_0_chart(stack, tmp_path):
    """Issue 30: the 1.9.0 chart serves UnitedDeployment in v1alpha1 and v1beta1 and prefers v1beta1; the runbook's
    v1alpha1 object is accepted as written, its policy selects what Karmada matches (the preferred version: it
    compares the selector's apiVersion literally), and the split is verified in the members."""
    karmada = stack.karmada()
    try:
        run = place(stack, [VERBATIM], tmp_path)
        assert run.returncode == 0 and run.changed > 0, run.describe()
        policy = karmada.get("propagationpolicy.policy.karmada.io", "ud-propagation", "-n", "runbook")
        assert policy["spec"]["resourceSelectors"] == [
            {"apiVersion": "apps.kruise.io/v1beta1", "kind": "UnitedDeployment", "name": "sample-ud", "namespace": "runbook"}], \
            policy["spec"]
        binding = karmada.get("resourcebinding.work.karmada.io", "sample-ud-uniteddeployment", "-n", "runbook")
        assert {c["name"]: c.get("replicas", 0) for c in binding["spec"]["clusters"]} == {"idc1": 2, "test-ucs": 4}
        for member, share in (("idc1", 2), ("test-ucs", 4)):
            cluster = stack.member(member)
            assert cluster.get(UD_KIND, "sample-ud", "-n", "runbook")["spec"]["replicas"] == share
            pods = [p for p in cluster.get("pods", "-n", "runbook", "-l", "app=sample")["items"]
                    if p["status"].get("phase") == "Running"]
            assert len(pods) == share, (member, [p["metadata"]["name"] for p in pods])
        assert "Verdict: **verified**" in (tmp_path / "verify-runbook-sample-ud.md").read_text()
        again = place(stack, [VERBATIM], tmp_path)
        assert again.returncode == 0 and again.changed == 0, again.describe()
    finally:
        gone = place(stack, [dict(VERBATIM, state="absent")], tmp_path)
        karmada.kubectl("delete", "namespace", "runbook", "--ignore-not-found", "--wait=false")
    assert gone.returncode == 0, gone.describe()
    assert not karmada.has(UD_KIND, "sample-ud", "-n", "runbook")

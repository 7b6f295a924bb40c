"""Issue 12 acceptance on the local stack: the example inventory's applications (the first runbook's
sample-ud as written, a StatefulSet per subset, and a second CloneSet application with its own weights
and a ConfigMap) placed at once by the inventory's federation_united_deployments, on the example's
topology (idc1 without a virtual-kubelet node, weights 1:2); a second run changes nothing; removing one
application removes its objects everywhere and leaves the other's untouched."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from tests.integration.conftest import REPO_ROOT, wait_for
from tests.integration.playbook_runner import run_playbook, stack_inventory

pytestmark = pytest.mark.usefixtures("stack", "converged_karmada")

EXAMPLE = REPO_ROOT / "inventories" / "example" / "group_vars" / "federation.yml"
APPLICATIONS = yaml.safe_load(EXAMPLE.read_text())["federation_united_deployments"]
STEPS = ("propagation_policy", "united_deployment", "verify")
VK_NODE = "idc1-virtual-kubelet"
# The example inventory's idc1.
WITHOUT_VK = {"members": {"hosts": {"idc1": {"cluster_virtual_kubelet": False}}}}
MEMBERS = ("idc1", "test-ucs")
UD_KIND = "uniteddeployment.apps.kruise.io"
OVERRIDE_TASK = ("Keep members without virtual-kubelet nodes on their regular nodes (an OverridePolicy of each "
                 "UnitedDeployment)")
VERIFY_TASK = "Verify each UnitedDeployment's split across clusters and subsets"


def place(stack, applications, report_dir: Path, overlay: dict | None = None):
    """The application steps of site.yml (the others have nothing to do for an application) with the list,
    on the example's topology unless told otherwise."""
    return run_playbook("site.yml", [stack_inventory(stack.env), WITHOUT_VK if overlay is None else overlay],
                        env=stack.env, tags=STEPS,
                        extra_vars={"federation_united_deployments": applications,
                                    "verify_report_dir": str(report_dir)}, expect_failure=None, timeout=1200)


def removed(applications, name):
    changed = copy.deepcopy(applications)
    for application in changed:
        if application["name"] == name:
            application["state"] = "absent"
    return changed


def binding_split(karmada, name):
    binding = karmada.get("resourcebinding.work.karmada.io", f"{name}-uniteddeployment", "-n", "default")
    return {c["name"]: c.get("replicas", 0) for c in binding["spec"].get("clusters") or []}


def member_topology(stack, member, name):
    ud = stack.member(member).get(UD_KIND, name, "-n", "default")
    return [subset["name"] for subset in ud["spec"]["topology"]["subsets"]]


def running_pods(cluster, selector):
    pods = cluster.get("pods", "-n", "default", "-l", selector)["items"]
    return sorted((p["spec"].get("nodeName") or "", p["status"].get("phase"), p["metadata"]["ownerReferences"][0]["kind"])
                  for p in pods if not p["metadata"].get("deletionTimestamp"))


def restore_node(cluster, saved):
    """Create the stack's node again as it was (KWOK takes it over by its annotations), with its status."""
    metadata = {key: saved["metadata"][key] for key in ("name", "labels", "annotations") if key in saved["metadata"]}
    cluster.kubectl("create", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "Node", "metadata": metadata,
                                                          "spec": saved["spec"]}))
    status = {key: saved["status"][key] for key in ("capacity", "allocatable", "addresses", "nodeInfo")}
    cluster.kubectl("patch", "node", saved["metadata"]["name"], "--subresource=status", "--type=merge",
                    "-p", json.dumps({"status": status}))


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
    saved = idc1.get("node", VK_NODE)
    idc1.kubectl("delete", "node", VK_NODE, "--wait=true")
    try:
        first = place(stack, APPLICATIONS, tmp_path)
        assert first.returncode == 0 and first.changed > 0, first.describe()
        # Static weights: 1:2 for sample-ud (the members' cluster_weight), its own 1:1 for web.
        assert binding_split(karmada, "sample-ud") == {"idc1": 2, "test-ucs": 4}
        assert binding_split(karmada, "web") == {"idc1": 2, "test-ucs": 2}
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
        for name in ("sample-ud", "web"):
            assert "Verdict: **verified**" in (tmp_path / f"verify-default-{name}.md").read_text()

        again = place(stack, APPLICATIONS, tmp_path)
        assert again.returncode == 0 and again.changed == 0, again.describe()

        kept = (("propagationpolicy.policy.karmada.io", "ud-propagation"), ("service", "sample-ud"),
                ("overridepolicy.policy.karmada.io", "sample-ud-regular-nodes-only"))
        before = versions(karmada, *kept), generations(stack, "sample-ud")
        gone = place(stack, removed(APPLICATIONS, "web"), tmp_path)
        assert gone.returncode == 0 and gone.changed > 0, gone.describe()
        web_objects = ((UD_KIND, "web"), ("configmap", "web-settings"))
        for kind, name in (*web_objects, ("propagationpolicy.policy.karmada.io", "web"),
                           ("overridepolicy.policy.karmada.io", "web-regular-nodes-only")):
            assert not karmada.has(kind, name, "-n", "default"), (kind, name)
        for member in MEMBERS:
            cluster = stack.member(member)
            wait_for(lambda: not any(cluster.has(kind, name, "-n", "default") for kind, name in web_objects),
                     f"web's UnitedDeployment and ConfigMap gone from {member}")
            wait_for(lambda: not running_pods(cluster, "app=web"), f"web's pods gone from {member}")
        assert (versions(karmada, *kept), generations(stack, "sample-ud")) == before
        assert binding_split(karmada, "sample-ud") == {"idc1": 2, "test-ucs": 4}
    finally:
        restore_node(idc1, saved)
        # Every member has virtual-kubelet nodes again: the OverridePolicy goes (also after a failure
        # above), and idc1 runs sample-ud's subset-b again.
        back = place(stack, removed(APPLICATIONS, "web"), tmp_path, overlay={})
        # Both removed: the suite's other modules find the federation as site.yml leaves it.
        cleanup = place(stack, removed(removed(APPLICATIONS, "web"), "sample-ud"), tmp_path, overlay={})
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

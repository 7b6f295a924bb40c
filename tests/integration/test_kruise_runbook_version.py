"""Issue 12: the first runbook with the Kruise version the runbook installs (chart 1.5.1), beside the
suite's 1.9.0.

The stack builds kruise-manager v1.5.1 from its own module and assembles its chart from that module's
config/ (``kruise_runbook`` in tests/stack/versions.toml); its inventory names the chart
(``stack_kruise_runbook_chart_ref``). On 1.5.1 UnitedDeployment is ``apps.kruise.io/v1alpha1`` only,
and its status has ``subsetReplicas`` and no ``subsetStatuses``.

- The chart's rendered fields that the collection's install path relies on, with ``helm template``
  (no stack needed): the kubeVersion line, the webhook configurations' names, ``daemon.affinity``,
  the UnitedDeployment CRD's served versions.
- site.yml from a bare federation with ``federation_kruise_chart_version=1.5.1`` end to end (the
  control plane's kubeVersion patch on the UCS-like endpoint, its webhooks deleted, the members'
  UnitedDeployments v1alpha1 and Ready), then a second run that changes nothing. The module removes
  the runbook before and after, so the modules after it start from a bare federation and install
  the suite's 1.9.0.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest
import yaml

from tests.integration.conftest import wait_for
from tests.integration.federalize_support import playbook
from tests.integration.kruise_support import APPLICATION, helm_releases, remove_the_runbook
from tests.integration.playbook_runner import stack_inventory
from tests.stack.layout import layout

L = layout()
VERSION = L.versions["kruise_runbook"]["version"]  # v1.5.1
CHART_VERSION = VERSION.lstrip("v")
CHART = L.kruise_runbook_chart
UNITED_DEPLOYMENT_CRD = "uniteddeployments.apps.kruise.io"
WEBHOOK_CONFIGURATIONS = {
    "MutatingWebhookConfiguration": "kruise-mutating-webhook-configuration",
    "ValidatingWebhookConfiguration": "kruise-validating-webhook-configuration",
}
VIRTUAL_KUBELET_AFFINITY = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "type", "operator": "NotIn", "values": ["virtual-kubelet"]}]}]}}}
# The runbook's split of the roles' 6 replicas (weights idc1:1, test-ucs:2), each member's half on
# regular nodes and the rest on its virtual-kubelet node.
SPLIT = {"idc1": {"regular": 1, "virtual-kubelet": 1}, "test-ucs": {"regular": 2, "virtual-kubelet": 2}}
PREPARE_TASK = "Prepare the chart, without kubeVersion when Helm would refuse it on this server"


# ---------------------------------------------------------------------------------------- the chart
@pytest.fixture(scope="module")
def helm_template(tmp_path_factory):
    binary = L.binary("helm")
    if not binary.exists() or not (CHART / "Chart.yaml").exists():
        pytest.fail(f"helm ({binary}) or the 1.5.1 chart ({CHART}) is missing: run `make stack-build`")
    home = tmp_path_factory.mktemp("helm-home")
    env = {**os.environ, **{f"HELM_{kind}_HOME": str(home / kind.lower()) for kind in ("CACHE", "CONFIG", "DATA")}}

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
        result = subprocess.run([str(binary), *args], capture_output=True, text=True, env=env, timeout=120,
                                check=False)  # judged here, with helm's output in the message
        if check and result.returncode != 0:
            pytest.fail(f"helm {' '.join(args)} failed: {result.stderr}")
        return result

    return run


def rendered(helm_template, *args: str) -> list[dict]:
    # The .tgz: what a chart repository would serve (the control plane is given the directory's twin).
    text = helm_template("template", "kruise", f"{CHART}.tgz", "--namespace", "default", *args).stdout
    return [doc for doc in yaml.safe_load_all(text) if doc]


def one(docs: list[dict], kind: str, name: str) -> dict:
    (found,) = [doc for doc in docs if doc["kind"] == kind and doc["metadata"]["name"] == name]
    return found


def test_the_chart_carries_upstreams_kube_version_line(helm_template):
    assert f"version: {CHART_VERSION}\n" in (CHART / "Chart.yaml").read_text()
    assert "kubeVersion: '>= 1.16.0-0'\n" in (CHART / "Chart.yaml").read_text()
    shown = yaml.safe_load(helm_template("show", "chart", f"{CHART}.tgz").stdout)
    assert (shown["version"], shown["appVersion"], shown["kubeVersion"]) == (CHART_VERSION, CHART_VERSION, ">= 1.16.0-0")
    old = helm_template("template", "kruise", str(CHART), "--kube-version", "1.15.0", check=False)
    assert old.returncode != 0
    assert "chart requires kubeVersion: >= 1.16.0-0 which is incompatible with Kubernetes v1.15.0" in old.stderr


def test_the_chart_renders_the_objects_the_collection_names(helm_template):
    docs = rendered(helm_template, "--set-json", f"daemon.affinity={json.dumps(VIRTUAL_KUBELET_AFFINITY)}")
    # The webhook configurations federation_webhooks deletes from the control plane, by name; the
    # UnitedDeployment ones are v1alpha1's.
    hooks = {kind: {hook["name"]: hook for hook in one(docs, kind, name)["webhooks"]}
             for kind, name in WEBHOOK_CONFIGURATIONS.items()}
    for kind, name in (("MutatingWebhookConfiguration", "muniteddeployment.kb.io"),
                       ("ValidatingWebhookConfiguration", "vuniteddeployment.kb.io")):
        assert [rule["apiVersions"] for rule in hooks[kind][name]["rules"]] == [["v1alpha1"]], hooks[kind][name]
    # daemon.affinity lands in the DaemonSet, beside the tolerate-all toleration it cannot remove.
    daemon = one(docs, "DaemonSet", "kruise-daemon")["spec"]["template"]["spec"]
    assert daemon["affinity"] == VIRTUAL_KUBELET_AFFINITY
    assert daemon["tolerations"] == [{"operator": "Exists"}]
    # Without it there is none: 1.5.x's default is {} (1.7.0 added the virtual-kubelet one).
    assert "affinity" not in one(rendered(helm_template), "DaemonSet", "kruise-daemon")["spec"]["template"]["spec"]
    # The manager pod's image tag is what makes the stack run the 1.5.1 kruise-manager.
    manager = one(docs, "Deployment", "kruise-controller-manager")["spec"]["template"]["spec"]["containers"][0]
    assert manager["image"] == f"openkruise/kruise-manager:{VERSION}"
    # UnitedDeployment is v1alpha1 only, with subsetReplicas in its status and no subsetStatuses.
    crd = one(docs, "CustomResourceDefinition", UNITED_DEPLOYMENT_CRD)
    assert [(v["name"], v["served"], v["storage"]) for v in crd["spec"]["versions"]] == [("v1alpha1", True, True)]
    status = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]
    assert "subsetReplicas" in status and "subsetStatuses" not in status
    # No kruise-daemon-config Namespace: that came with 1.6.
    assert [doc["metadata"]["name"] for doc in docs if doc["kind"] == "Namespace"] == ["kruise-system"]


# ---------------------------------------------------------------------------------------- end to end
@pytest.fixture(scope="module")
def runbook_kruise(stack, tmp_path_factory):
    """The chart as the stack's inventory names it, on a federation without the runbook's objects;
    a bare federation again after the module."""
    group_vars = yaml.safe_load(stack_inventory(stack.env).read_text())["all"]["vars"]
    assert group_vars["stack_kruise_runbook_chart_version"] == CHART_VERSION
    remove_the_runbook(stack)
    yield {
        "federation_kruise_chart_version": group_vars["stack_kruise_runbook_chart_version"],
        "federation_kruise_chart_ref": group_vars["stack_kruise_runbook_chart_ref"],
        # Its own chart cache: the prepared (kubeVersion-free) 1.5.1 chart stays this module's.
        "kruise_control_plane_chart_cache": str(tmp_path_factory.mktemp("chart-cache")),
    }
    remove_the_runbook(stack)


def member_status(stack, name: str) -> tuple[str, dict]:
    """A member's UnitedDeployment: its apiVersion, and (replicas, ready, subsetReplicas) from its status."""
    ud = stack.member(name).get(*APPLICATION)
    status = ud.get("status") or {}
    assert "subsetStatuses" not in status, status
    return ud["apiVersion"], {"replicas": ud["spec"]["replicas"], "ready": status.get("readyReplicas"),
                              "subsets": status.get("subsetReplicas")}


def status_is(stack, name: str, expected: tuple[str, dict]) -> bool:
    """True, or an AssertionError naming what it is (wait_for shows the last one)."""
    actual = member_status(stack, name)
    if actual != expected:
        raise AssertionError(f"{name}: {actual}")
    return True


def test_first_runbook_with_kruise_1_5_1(stack, runbook_kruise, tmp_path):
    extra_vars = {**runbook_kruise, "verify_report_dir": str(tmp_path)}
    first = playbook(stack.env, "site.yml", extra_vars=extra_vars)
    assert first.returncode == 0, first
    assert first.changed > 0
    assert first.result(PREPARE_TASK, "karmada")["kube_version_removed"] is True, first
    assert "Verdict: **verified**" in (tmp_path / "verify-default-demo.md").read_text()

    karmada = stack.karmada()
    crd = karmada.get("customresourcedefinition", UNITED_DEPLOYMENT_CRD)
    assert [(v["name"], v["served"]) for v in crd["spec"]["versions"]] == [("v1alpha1", True)]
    assert not [name for kind, name in WEBHOOK_CONFIGURATIONS.items() if karmada.has(kind, name)]
    assert json.loads(karmada.helm("list", "-n", "kruise-system", "-o", "json").stdout)[0]["chart"] == f"kruise-{CHART_VERSION}"
    assert karmada.get(*APPLICATION)["apiVersion"] == "apps.kruise.io/v1alpha1"
    for name, subsets in SPLIT.items():
        member = stack.member(name)
        assert helm_releases(member, "default") == ["kruise"]
        assert json.loads(member.helm("list", "-n", "default", "-o", "json").stdout)[0]["chart"] == f"kruise-{CHART_VERSION}"
        # The stack ran the 1.5.1 build for the release's manager pod.
        assert stack.records()[f"{name}.kruise-manager"]["argv"][0] == str(L.binary(f"kruise-manager-{VERSION}"))
        replicas = sum(subsets.values())
        expected = ("apps.kruise.io/v1alpha1", {"replicas": replicas, "ready": replicas, "subsets": subsets})
        wait_for(lambda: status_is(stack, name, expected), f"{name}'s UnitedDeployment {expected}", timeout=60)
    assert karmada.get(*APPLICATION)["status"]["readyReplicas"] == 6

    second = playbook(stack.env, "site.yml", extra_vars=extra_vars)
    assert second.returncode == 0, second
    assert second.changed_tasks() == [], second

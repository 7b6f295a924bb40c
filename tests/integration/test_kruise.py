"""Issue 5 acceptance: OpenKruise on the members and on the control plane, webhook removal.

Runs playbooks/kruise.yml and playbooks/federation_webhooks.yml against the local stack: members
idc1 and test-ucs (KWOK nodes, two regular and one virtual-kubelet node each; the stack runs a
member's real kruise-manager once the release's manager pod is Running) and the Karmada control
plane reached through the UCS-like `federation` context, whose /version has an empty gitVersion.

The tests run in file order and build on each other: control plane first, then the members; the
idempotence, check-mode and drift checks on the converged stack; the refusals; then a full
uninstall and the other install order (members first), which leaves Kruise installed.
"""

from __future__ import annotations

import json
import time

import pytest
import yaml

from tests.stack.waiting import wait_for
from tests.integration.kruise_support import (INVENTORY, helm_releases, kruise_crds, names,
                                              recreated_webhook_configuration, remove_kruise)
from tests.integration.playbook_runner import play
from tests.stack.layout import layout

L = layout()
MEMBERS = ("idc1", "test-ucs")
KRUISE_PLAYBOOK = "playbooks/kruise.yml"
WEBHOOKS_PLAYBOOK = "playbooks/federation_webhooks.yml"
WEBHOOK_KINDS = {
    "mutatingwebhookconfiguration": "kruise-mutating-webhook-configuration",
    "validatingwebhookconfiguration": "kruise-validating-webhook-configuration",
}
SKIP_LABEL = "namespace.karmada.io/skip-auto-propagation"
CHART_WAIT_SECONDS = 1800


@pytest.fixture(scope="module")
def chart_vars(stack, tmp_path_factory):
    """The stack's assembled chart: a directory for the members, the .tgz for the control plane."""
    wait_for((L.kruise_chart / "Chart.yaml").exists, f"the assembled Kruise chart at {L.kruise_chart}",
             timeout=CHART_WAIT_SECONDS, interval=15)
    return {
        "federation_kruise_chart_ref": str(L.kruise_chart),
        "kruise_control_plane_chart_ref": str(L.kruise_chart) + ".tgz",
        "kruise_control_plane_chart_cache": str(tmp_path_factory.mktemp("chart-cache")),
    }


def kruise(stack, chart_vars, *args, **extra):
    return play(KRUISE_PLAYBOOK, INVENTORY, *args, env=stack.env, extra_vars={**chart_vars, **extra})


def webhook_configurations(cluster) -> list[str]:
    return sorted(name for kind, name in WEBHOOK_KINDS.items()
                  if cluster.has(kind, name))


def daemon_pods_on_virtual_nodes(member) -> list[str]:
    virtual = set(names(member, "nodes", "-l", "type=virtual-kubelet"))
    assert virtual, "the stack member has no virtual-kubelet node"
    pods = member.get("pods", "-n", "kruise-system")["items"]
    return [p["metadata"]["name"] for p in pods
            if p["metadata"]["name"].startswith("kruise-daemon-") and p["spec"].get("nodeName") in virtual]


def assert_members_ready(stack):
    for name in MEMBERS:
        member = stack.member(name)
        assert helm_releases(member, "default") == ["kruise"]
        assert "uniteddeployments.apps.kruise.io" in kruise_crds(member)
        # The stack started this member's real kruise-manager from the release's manager pod.
        wait_for(lambda: f"{name}.kruise-manager" in stack.records(), f"{name}'s kruise-manager", timeout=120)
        # Both webhook configurations are there, with a caBundle (the role waited for it).
        for kind, config in WEBHOOK_KINDS.items():
            hooks = member.get(kind, config)["webhooks"]
            assert hooks and all(h["clientConfig"].get("caBundle") for h in hooks), (name, config)
        # A daemon pod runs on each regular node, none on the virtual-kubelet node.
        wait_for(lambda: not daemon_pods_on_virtual_nodes(member), f"no kruise-daemon on {name}'s virtual node",
                 timeout=120)


def assert_control_plane_installed(stack):
    karmada = stack.karmada()
    namespace = karmada.get("namespace", "kruise-system")
    assert namespace["metadata"]["labels"].get(SKIP_LABEL) == "true"
    assert helm_releases(karmada, "kruise-system") == ["kruise"]
    assert "uniteddeployments.apps.kruise.io" in kruise_crds(karmada)
    assert webhook_configurations(karmada) == []


def namespace_works(karmada) -> list[str]:
    """Karmada Works (in any member's execution namespace) that carry the Namespace kruise-system."""
    found = []
    for work in karmada.get("works.work.karmada.io", "-A")["items"]:
        for manifest in work["spec"].get("workload", {}).get("manifests", []):
            if manifest.get("kind") == "Namespace" and manifest["metadata"]["name"] == "kruise-system":
                found.append(f"{work['metadata']['namespace']}/{work['metadata']['name']}")
    return found


def assert_not_propagated(stack, seconds=15):
    """Karmada never copies the control plane's kruise-system to a member (the label is what stops it)."""
    karmada = stack.karmada()
    deadline = time.monotonic() + seconds
    while True:
        assert namespace_works(karmada) == []
        for name in MEMBERS:
            ns = stack.member(name).kubectl("get", "namespace", "kruise-system", "--ignore-not-found", "-o", "json").stdout
            if ns.strip():
                labels = json.loads(ns)["metadata"].get("labels", {})
                assert "karmada.io/managed" not in labels, f"Karmada propagated kruise-system to {name}: {labels}"
        if time.monotonic() >= deadline:
            return
        time.sleep(3)


@pytest.fixture(scope="module")
def without_kruise(stack):
    """Start from a stack without Kruise anywhere, whatever ran before (test_stack.py, for one,
    leaves the release `kruise` installed on idc1). Plain helm and kubectl, not the roles under test."""
    remove_kruise(stack)


def test_control_plane_first_through_the_ucs_like_endpoint(stack, chart_vars, without_kruise):
    federation = stack.federation()
    version = json.loads(federation.kubectl("get", "--raw", "/version").stdout)
    assert version.get("gitVersion", "") == "", "the federation context should answer like UCS"

    run = kruise(stack, chart_vars, "--tags", "kruise_control_plane")
    assert run.returncode == 0, run.describe()
    assert run.changed_by_host["karmada"] > 0
    prepared = run.result("Prepare the chart, without kubeVersion when Helm would refuse it on this server", "karmada")
    assert prepared["kube_version_removed"] is True
    assert "empty gitVersion" in prepared["reason"]
    assert_control_plane_installed(stack)
    assert_not_propagated(stack)
    for name in MEMBERS:
        member = stack.member(name)
        assert helm_releases(member, "default") == []
        assert not member.has("namespace", "kruise-system")


def test_unpatched_chart_fails_on_the_ucs_like_endpoint(stack, chart_vars, tmp_path):
    run = kruise(stack, {**chart_vars, "kruise_control_plane_chart_cache": str(tmp_path)}, "--tags",
                 "kruise_control_plane", kruise_control_plane_remove_kube_version="never")
    assert run.returncode != 0
    assert "incompatible with Kubernetes" in run.messages(), run.describe()
    assert_control_plane_installed(stack)


def test_members_after_the_control_plane(stack, chart_vars):
    run = kruise(stack, chart_vars, "--tags", "kruise_members")
    assert run.returncode == 0, run.describe()
    assert all(run.changed_by_host[name] > 0 for name in MEMBERS), run.changed_by_host
    assert_members_ready(stack)
    for name in MEMBERS:
        daemonset = stack.member(name).get("daemonset", "kruise-daemon", "-n", "kruise-system")
        terms = daemonset["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        assert terms == [{"matchExpressions": [{"key": "type", "operator": "NotIn", "values": ["virtual-kubelet"]}]}]
        ready = run.result("Wait until Kruise admits UnitedDeployments (CRDs Established, webhook caBundles, "
                           "dry-run create)", name)
        assert ready["ready"] is True and ready["dry_run"] == {"ok": True, "message": ""}
    assert_control_plane_installed(stack)


def converged_runs(stack, chart_vars, *args):
    return [kruise(stack, chart_vars, *args), play(WEBHOOKS_PLAYBOOK, INVENTORY, *args, env=stack.env)]


def test_second_run_changes_nothing(stack, chart_vars):
    for run in converged_runs(stack, chart_vars):
        assert run.returncode == 0, run.describe()
        assert run.changed_tasks() == [], run.describe()


def test_check_mode_on_the_converged_stack_changes_nothing(stack, chart_vars):
    for run in converged_runs(stack, chart_vars, "--check"):
        assert run.returncode == 0, run.describe()
        assert run.changed_tasks() == [], run.describe()


def test_recreated_webhook_configuration_is_reported_then_removed(stack):
    karmada = stack.karmada()
    karmada.apply(recreated_webhook_configuration())
    check = play(WEBHOOKS_PLAYBOOK, INVENTORY, "--check", env=stack.env)
    assert check.returncode == 0, check.describe()
    assert check.changed_tasks() == [(
        "karmada", "Delete Kruise's webhook configurations (nothing serves them on the control plane)",
        ["ValidatingWebhookConfiguration kruise-validating-webhook-configuration"])], check.describe()
    assert webhook_configurations(karmada) == ["kruise-validating-webhook-configuration"]

    fix = play(WEBHOOKS_PLAYBOOK, INVENTORY, env=stack.env)
    assert fix.returncode == 0, fix.describe()
    assert [t[2] for t in fix.changed_tasks()] == [["ValidatingWebhookConfiguration kruise-validating-webhook-configuration"]]
    assert webhook_configurations(karmada) == []


def test_webhook_role_aimed_at_a_member_fails_and_deletes_nothing(stack, tmp_path):
    inventory = yaml.safe_load(INVENTORY.read_text())
    federation_host = inventory["all"]["children"]["federation"]["hosts"]["karmada"]
    member = inventory["all"]["children"]["members"]["hosts"]["idc1"]
    federation_host.update(cluster_kubeconfig=member["cluster_kubeconfig"], cluster_access=member["cluster_access"])
    wrong = tmp_path / "hosts.yml"
    wrong.write_text(yaml.safe_dump(inventory))
    before = webhook_configurations(stack.member("idc1"))
    assert before == sorted(WEBHOOK_KINDS.values())

    run = play(WEBHOOKS_PLAYBOOK, wrong, env=stack.env)
    assert run.returncode != 0
    assert "is not a Karmada control plane" in run.messages(), run.describe()
    assert "does not serve karmada's member API (cluster.karmada.io/v1alpha1 Cluster)" in run.messages(), run.describe()
    assert run.changed_tasks() == []
    assert webhook_configurations(stack.member("idc1")) == before


UNITED_DEPLOYMENT = {
    "apiVersion": "apps.kruise.io/v1alpha1", "kind": "UnitedDeployment",
    "metadata": {"name": "uninstall-guard", "namespace": "default"},
    "spec": {
        "replicas": 2, "selector": {"matchLabels": {"app": "uninstall-guard"}},
        "template": {"cloneSetTemplate": {
            "metadata": {"labels": {"app": "uninstall-guard"}},
            "spec": {"selector": {"matchLabels": {"app": "uninstall-guard"}},
                     "template": {"metadata": {"labels": {"app": "uninstall-guard"}},
                                  "spec": {"containers": [{"name": "main", "image": "registry.invalid/pause:3.10"}]}}}}},
        "topology": {"subsets": [{"name": "regular"}]},
        "updateStrategy": {"type": "Manual", "manualUpdate": {}},
    },
}


def test_control_plane_uninstall_is_refused_while_a_united_deployment_exists(stack, chart_vars):
    karmada = stack.karmada()
    karmada.apply(UNITED_DEPLOYMENT)
    try:
        crds = kruise_crds(karmada)
        run = kruise(stack, chart_vars, "--tags", "kruise_control_plane", kruise_control_plane_state="absent")
        assert run.returncode != 0
        assert "UnitedDeployment default/uninstall-guard" in run.messages(), run.describe()
        assert "kruise_control_plane_force=true" in run.messages()
        assert run.changed_tasks() == []
        assert_control_plane_installed(stack)
        assert kruise_crds(karmada) == crds
        karmada.get("uniteddeployment.apps.kruise.io", "uninstall-guard", "-n", "default")
    finally:
        karmada.kubectl("delete", "uniteddeployment.apps.kruise.io", "uninstall-guard", "-n", "default",
                        "--ignore-not-found", "--wait=true")


def test_uninstall_everywhere(stack, chart_vars):
    run = kruise(stack, chart_vars, kruise_state="absent", kruise_control_plane_state="absent")
    assert run.returncode == 0, run.describe()
    karmada = stack.karmada()
    assert helm_releases(karmada, "kruise-system") == []
    assert kruise_crds(karmada) == []
    assert not karmada.has("namespace", "kruise-system")
    for name in MEMBERS:
        member = stack.member(name)
        assert helm_releases(member, "default") == []
        assert kruise_crds(member) == []
        wait_for(lambda: f"{name}.kruise-manager" not in stack.records(), f"{name}'s kruise-manager to stop",
                 timeout=120)
    again = kruise(stack, chart_vars, kruise_state="absent", kruise_control_plane_state="absent")
    assert again.returncode == 0 and again.changed_tasks() == [], again.describe()


def test_members_first_then_the_control_plane(stack, chart_vars):
    members = kruise(stack, chart_vars, "--tags", "kruise_members")
    assert members.returncode == 0, members.describe()
    assert_members_ready(stack)
    control_plane = kruise(stack, chart_vars, "--tags", "kruise_control_plane")
    assert control_plane.returncode == 0, control_plane.describe()
    assert_control_plane_installed(stack)
    assert_not_propagated(stack)
    # The members' own Kruise is untouched by the control plane's install.
    assert_members_ready(stack)
    second = kruise(stack, chart_vars)
    assert second.returncode == 0 and second.changed_tasks() == [], second.describe()

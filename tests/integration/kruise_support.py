"""The Kruise, webhook and virtual-kubelet tests' objects on the local stack: the runbook's application, its
policy and interpreter, Kruise's releases and CRDs, and a federation as a fresh fleet has it (no runbook)."""

from __future__ import annotations

import json

from tests.integration.conftest import Cluster, StackInfo
from tests.stack.waiting import wait_for
from tests.integration.playbook_runner import LOCAL_INVENTORY

INVENTORY = LOCAL_INVENTORY
# The runbook's application as the roles' defaults name it, and the interpreter of its kind.
APPLICATION = ("uniteddeployment.apps.kruise.io", "demo", "-n", "default")
POLICY = ("propagationpolicy.policy.karmada.io", "demo", "-n", "default")
INTERPRETER = ("resourceinterpretercustomization.config.karmada.io", "declarative-configuration-uniteddeployment")


def recreated_webhook_configuration(name: str = "kruise-validating-webhook-configuration") -> dict:
    """Kruise's validating webhook configuration as a `helm upgrade` on the control plane brings it back
    (nothing serves it there: the URL answers nothing)."""
    return {
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": name},
        "webhooks": [{
            "name": "vuniteddeployment.kb.io", "admissionReviewVersions": ["v1"], "sideEffects": "None",
            "failurePolicy": "Fail",
            "clientConfig": {"url": "https://127.0.0.1:1/validate-apps-kruise-io-v1alpha1-uniteddeployment"},
            "rules": [{"apiGroups": ["apps.kruise.io"], "apiVersions": ["v1alpha1"], "operations": ["CREATE"],
                       "resources": ["uniteddeployments"]}],
        }],
    }


def names(cluster: Cluster, kind: str, *args: str) -> list[str]:
    return sorted(item["metadata"]["name"] for item in cluster.get(kind, *args)["items"])


def kruise_crds(cluster: Cluster) -> list[str]:
    return [n for n in names(cluster, "customresourcedefinitions") if n.endswith(".kruise.io")]


def helm_releases(cluster: Cluster, namespace: str, *args: str) -> list[str]:
    return sorted(r["name"] for r in json.loads(cluster.helm("list", "-n", namespace, *args, "-o", "json").stdout))


def remove_the_application(stack: StackInfo) -> None:
    """No demo UnitedDeployment, PropagationPolicy or interpreter on the control plane, and no demo
    UnitedDeployment or pod left in any member. Plain kubectl, not the roles under test."""
    karmada = stack.karmada()
    deleted = karmada.kubectl("delete", *APPLICATION, "--ignore-not-found", "--wait=false", check=False)
    # Without Kruise's CRDs the control plane has no such kind, and nothing to delete.
    assert deleted.returncode == 0 or "doesn't have a resource type" in deleted.stderr, deleted.stderr
    karmada.kubectl("delete", *POLICY, "--ignore-not-found")
    karmada.kubectl("delete", *INTERPRETER, "--ignore-not-found")
    for name in sorted(stack.member_kubeconfigs):
        member = stack.member(name)
        # A member without Kruise has no UnitedDeployment kind: get fails, which is "none left" too.
        wait_for(lambda: member.kubectl("get", *APPLICATION, check=False).returncode != 0
                 and not member.get("pods", "-n", "default", "-l", "app=demo")["items"],
                 f"no demo UnitedDeployment and pods left in {name}", timeout=180)


def remove_kruise(stack: StackInfo) -> None:
    """No Kruise release, CRD or kruise-system namespace anywhere, and every member's kruise-manager
    stopped. Plain helm and kubectl, not the roles under test."""
    karmada = stack.karmada()
    members = [stack.member(name) for name in sorted(stack.member_kubeconfigs)]
    if "kruise" in helm_releases(karmada, "kruise-system", "-a"):
        # --no-hooks: the chart's pre-delete hook Job can never run on the control plane.
        karmada.helm("uninstall", "kruise", "-n", "kruise-system", "--no-hooks", "--wait")
    # The control plane's namespace first: created, then labelled skip-auto-propagation (bench/runbook.sh
    # does as the runbook says), Karmada has already made Works that copy it to every member. They fail
    # while a member's Helm release owns its kruise-system, and recreate it the moment that release is
    # uninstalled, so `helm uninstall --wait` would wait for a namespace that keeps coming back. Deleting
    # the namespace here deletes its Works.
    karmada.kubectl("delete", "namespace", "kruise-system", "--ignore-not-found", "--wait=false")
    wait_for(lambda: not karmada.has("namespace", "kruise-system"), "kruise-system gone from karmada", timeout=120)
    for member in members:
        if "kruise" in helm_releases(member, "default", "-a"):
            member.helm("uninstall", "kruise", "-n", "default", "--wait")
    for cluster in (karmada, *members):
        leftover = kruise_crds(cluster)
        if leftover:
            cluster.kubectl("delete", "customresourcedefinitions", *leftover, "--wait=true")
        cluster.kubectl("delete", "namespace", "kruise-system", "--ignore-not-found", "--wait=false")
    for cluster in (karmada, *members):
        wait_for(lambda: not cluster.has("namespace", "kruise-system"), f"kruise-system gone from {cluster.name}",
                 timeout=120)
    for member in members:
        wait_for(lambda: f"{member.name}.kruise-manager" not in stack.records(),
                 f"{member.name}'s kruise-manager to stop", timeout=120)


def remove_the_runbook(stack: StackInfo) -> None:
    """A federation as a fresh fleet has it: members joined, nothing of the first runbook anywhere."""
    remove_the_application(stack)
    remove_kruise(stack)

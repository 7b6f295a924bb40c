"""Run the collection's playbooks against the local stack for the Kruise, webhook and
virtual-kubelet tests, through the suite's one runner (playbook_runner), with their calling
convention: ansible-playbook options as positional arguments, per-host changed counts as a call."""

from __future__ import annotations

from pathlib import Path

from tests.integration.playbook_runner import LOCAL_INVENTORY, PlaybookRun, run_playbook as run_collection_playbook

INVENTORY = LOCAL_INVENTORY


class KruisePlaybookRun(PlaybookRun):
    def changed(self) -> dict[str, int]:  # type: ignore[override]
        """Changed tasks per host (these tests call it; PlaybookRun.changed is the sum)."""
        return self.changed_by_host


def run_playbook(stack_env: dict, playbook: str, *args: str, inventory: Path = INVENTORY,
                 extra_vars: dict | None = None, timeout: float = 1200) -> KruisePlaybookRun:
    """The tests judge the exit code themselves; a run without a readable recap raises."""
    run = run_collection_playbook(playbook, inventory, env=stack_env, extra_vars=extra_vars, args=args,
                                  expect_failure=None, timeout=timeout)
    return KruisePlaybookRun(**vars(run))


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

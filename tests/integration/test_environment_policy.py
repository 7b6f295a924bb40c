"""An environment that would redirect kubernetes.core's requests is refused by every step (issue 10).

kubernetes.core reads ``K8S_AUTH_*`` for every connection option a task leaves unset: with
``K8S_AUTH_HOST`` naming another cluster, the module_defaults' kubeconfig and context still supply
the credentials but the requests go to that host. An AWX credential of the bearer-token kind sets
exactly such variables. Each step playbook must refuse that environment in its first task that
reaches a cluster, naming the variables, before any change (the unit test
``tests/unit/roles/test_access_check_first.py`` checks the task order of every role statically; this
runs the playbooks). The redirect aims at a real cluster of the stack (the other member), so a
step that did not refuse would really write there.

The playbooks run concurrently: each only reads its inventory and stops at its first check.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import yaml

from tests.integration.playbook_runner import run_playbook, stack_inventory

STEP_PLAYBOOKS = (
    "member_join.yml", "kruise.yml", "virtual_kubelet.yml", "federation_webhooks.yml",
    "resource_interpreter.yml", "propagation_policy.yml", "united_deployment.yml", "verify.yml", "rebalance.yml",
)
TOKEN = "redirected-token-not-a-secret"


def server_of(kubeconfig) -> str:
    return yaml.safe_load(kubeconfig.read_text())["clusters"][0]["cluster"]["server"]


@pytest.fixture(scope="module")
def redirected_runs(stack):
    # Another real cluster of the stack: a step that honoured the variable would reach it.
    other = server_of(stack.member_kubeconfigs["test-ucs"])
    env = dict(stack.env, K8S_AUTH_HOST=other, K8S_AUTH_API_KEY=TOKEN)
    inventory = stack_inventory(stack.env)
    extra = {"federation_member_join": True}
    with ThreadPoolExecutor(max_workers=len(STEP_PLAYBOOKS)) as pool:
        runs = pool.map(
            lambda playbook: run_playbook(f"playbooks/{playbook}", inventory, env=env, extra_vars=extra,
                                          expect_failure=None),
            STEP_PLAYBOOKS)
        return dict(zip(STEP_PLAYBOOKS, runs))


@pytest.mark.parametrize("playbook", STEP_PLAYBOOKS)
def test_a_redirecting_environment_is_refused_before_any_change(redirected_runs, playbook):
    run = redirected_runs[playbook]
    assert run.returncode != 0, run.describe()
    assert "the environment sets K8S_AUTH_HOST, K8S_AUTH_API_KEY" in run.messages(), run.describe()
    assert run.changed_tasks() == [], run.describe()
    assert TOKEN not in run.output

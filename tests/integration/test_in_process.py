"""The collection's modules give the same result in Ansible's worker process as in their own.

plugins/plugin_utils/in_process.py runs a module's main() in the worker when the module would run
on the controller with the controller's Python anyway; anything else, or
multicloud_federation_in_process=false, takes Ansible's normal path (AnsiballZ in a new Python).
The same tasks run both ways here, on every cluster of the stack, and their results - successes and
a refusal - must be equal; -vvvv says which way each task ran, so the test cannot pass by running
one path twice.
"""

from __future__ import annotations

import textwrap

import pytest

from tests.integration.playbook_runner import run_playbook, stack_inventory

PLAYBOOK = textwrap.dedent("""\
    - name: Read each cluster both ways
      hosts: all
      gather_facts: false
      tasks:
        - name: Check the cluster
          multicloud.federation.cluster_info:
            kubeconfig: "{{ cluster_kubeconfig }}"
            context: "{{ cluster_access }}"
            federation: "{{ inventory_hostname in groups['federation'] }}"
        - name: Refuse a context the kubeconfig does not have
          multicloud.federation.cluster_info:
            kubeconfig: "{{ cluster_kubeconfig }}"
            context: no-such-context
          ignore_errors: true
    """)

MODULE_TASKS = ("Check the cluster", "Refuse a context the kubeconfig does not have")


@pytest.fixture(scope="module")
def runs(stack, tmp_path_factory):
    playbook = tmp_path_factory.mktemp("in-process") / "read.yml"
    playbook.write_text(PLAYBOOK)
    inventory = stack_inventory(stack.env)
    return {in_process: run_playbook(playbook, inventory, env=stack.env, verbosity=4,
                                     extra_vars={"multicloud_federation_in_process": in_process})
            for in_process in (True, False)}


def results(run):
    """{(host, task): result} without what differs between any two runs of a module."""
    found = {}
    for row in run.task_results():
        if row.task in MODULE_TASKS:
            found[(row.host, row.task)] = {key: value for key, value in row.result.items()
                                           if key not in ("invocation", "_ansible_no_log")}
    return found


def test_each_way_was_taken(runs):
    assert "multicloud.federation.cluster_info runs in the worker process" in runs[True].output
    assert "runs as a separate process" not in runs[True].output
    assert "multicloud.federation.cluster_info runs as a separate process: " \
           "multicloud_federation_in_process is false" in runs[False].output
    assert "runs in the worker process" not in runs[False].output


def test_the_results_are_the_same(runs):
    in_worker, separate = results(runs[True]), results(runs[False])
    hosts = set(runs[True].stats)
    assert len(hosts) >= 3 and set(in_worker) == {(host, task) for host in hosts for task in MODULE_TASKS}
    assert in_worker == separate


def test_the_refusal_is_reported_the_same_way(runs):
    for run in runs.values():
        refusals = [row.result for row in run.task_results() if row.task == MODULE_TASKS[1]]
        assert refusals and all(result.get("failed") for result in refusals)
        assert all("no-such-context" in result["msg"] for result in refusals)

"""member_join against the stack's real KubeAdmiral federation, through the same playbook and variables
as on Karmada (only the inventory's engine differs).

Over the stack's own registrations (a Secret with the member's client certificate and a FederatedCluster
each, what `python -m tests.stack up` creates) the role reports 0 changed, warns that the members run
Kubernetes v1.32, outside the 1.16-1.24 KubeAdmiral v1.0.0 documents, and prints no credential at -vvv.
A member whose kube-admiral-system namespace another registration claims is refused before any
change. Then cluster-b is unjoined (FederatedCluster and Secret gone, its kube-admiral-system namespace
gone; cluster-a untouched), joined again by the role (Joined and Ready), and a rerun reports 0
changed; that join runs at -vvv and prints none of the stack's secrets (secret_scan). cluster-b is left
joined whatever happens.
"""

from __future__ import annotations

import json

import pytest

from tests.integration.cluster_objects import ready_condition
from tests.stack.waiting import wait_for
from tests.integration.playbook_runner import kubeadmiral_playbook
from tests.integration.secret_scan import assert_no_secret_printed, stack_secrets
# The fixture (host and members) of the stack test: imported so pytest uses it here.
from tests.integration.test_stack_kubeadmiral import kubeadmiral  # noqa: F401 pylint: disable=unused-import

KEPT, REJOINED = "cluster-a", "cluster-b"
SYSTEM_NAMESPACE = "kube-admiral-system"
UID_ANNOTATION = "kubeadmiral.io/federated-cluster-uid"


def run(env: dict, extra_vars: dict | None = None, **options):
    """member_join.yml against the inventory `python -m tests.stack up` wrote for its KubeAdmiral federation."""
    return kubeadmiral_playbook(env, "member_join.yml", extra_vars, **options)


def federated_cluster(host, name) -> dict | None:
    found = host.kubectl("get", "federatedcluster", name, "-o", "json", "--ignore-not-found").stdout
    return json.loads(found) if found.strip() else None


def joined_and_ready(host, name) -> bool:
    cluster = federated_cluster(host, name)
    return bool(cluster) and ready_condition(cluster, "Joined") and ready_condition(cluster)


def system_namespace(member) -> dict | None:
    found = member.kubectl("get", "namespace", SYSTEM_NAMESPACE, "--ignore-not-found", "-o", "json").stdout
    return json.loads(found) if found.strip() else None


@pytest.fixture(scope="module")
def federation(kubeadmiral, stack):  # noqa: F811 (the imported fixture)
    host, members = kubeadmiral
    yield host, members, stack.env
    # Leave the stack as `up` made it: cluster-b joined, whatever a failed test left.
    members[REJOINED].kubectl("annotate", "namespace", SYSTEM_NAMESPACE, f"{UID_ANNOTATION}-", check=False)
    if not joined_and_ready(host, REJOINED):
        run(stack.env, limit=f"kubeadmiral,{REJOINED}")
        wait_for(lambda: joined_and_ready(host, REJOINED), f"{REJOINED} joined again", timeout=120)


def test_over_the_stack_s_registrations_nothing_changes_and_no_credential_is_printed(federation):
    host, _members, env = federation
    result = run(env, verbosity=3)
    assert result.returncode == 0 and result.changed == 0, result
    output = " ".join(result.output.split())
    for name in (KEPT, REJOINED):
        assert f"member cluster {name} runs Kubernetes v1.32" in output, result
    assert "outside the versions KubeAdmiral documents for its members (1.16 to 1.24)" in output
    for name in (KEPT, REJOINED):
        for key, value in host.get("secret", name, "-n", SYSTEM_NAMESPACE)["data"].items():
            assert value not in result.output, f"{key} of {name} printed"
            assert value[:40] not in result.output, f"{key} of {name} printed (in part)"


def owned_fields(federated: dict) -> tuple:
    metadata = federated["metadata"]
    return (metadata["generation"], metadata.get("labels"), metadata.get("annotations"), federated["spec"])


def test_a_member_another_registration_claims_is_refused_before_any_change(federation):
    host, members, env = federation
    member = members[REJOINED]
    # KubeAdmiral's cluster controller writes the FederatedCluster's status every few seconds, so its
    # resourceVersion moves by itself; what this step owns is the spec, the labels and annotations.
    before = owned_fields(federated_cluster(host, REJOINED))
    member.kubectl("annotate", "namespace", SYSTEM_NAMESPACE, "--overwrite", f"{UID_ANNOTATION}=some-other-uid")
    try:
        result = run(env)
        assert result.returncode != 0, result
        assert "cluster-b has the namespace kube-admiral-system from another KubeAdmiral registration" in \
            " ".join(result.output.split()), result
        assert result.changed == 0, result
        assert owned_fields(federated_cluster(host, REJOINED)) == before
    finally:
        # Give the namespace back the UID of the registration it belongs to.
        uid = federated_cluster(host, REJOINED)["metadata"]["uid"]
        member.kubectl("annotate", "namespace", SYSTEM_NAMESPACE, "--overwrite", f"{UID_ANNOTATION}={uid}")


def test_unjoin_removes_the_registration_and_leaves_the_member_clean(federation):
    host, members, env = federation
    assert system_namespace(members[REJOINED]) is not None
    result = run(env, {"member_join_state": "absent"}, limit=f"kubeadmiral,{REJOINED}")
    assert result.returncode == 0 and result.changed > 0, result
    assert federated_cluster(host, REJOINED) is None
    assert host.kubectl("get", "secret", REJOINED, "-n", SYSTEM_NAMESPACE, "--ignore-not-found",
                        "-o", "name").stdout.strip() == ""
    assert system_namespace(members[REJOINED]) is None, "the member keeps KubeAdmiral's namespace"
    assert joined_and_ready(host, KEPT), f"{KEPT} was touched"
    again = run(env, {"member_join_state": "absent"}, limit=f"kubeadmiral,{REJOINED}")
    assert again.returncode == 0 and again.changed == 0, again


def test_join_registers_the_member_until_joined_and_ready(federation, stack):
    host, members, env = federation
    checked = run(env, check=True, limit=f"kubeadmiral,{REJOINED}")
    assert checked.returncode == 0 and checked.changed > 0, checked
    assert federated_cluster(host, REJOINED) is None, "check mode registered it"

    result = run(env, limit=f"kubeadmiral,{REJOINED}", verbosity=3)
    assert result.returncode == 0 and result.changed > 0, result
    # Read after the run: the registration's new Secret, and every Secret of the host and members.
    assert_no_secret_printed(result, stack_secrets(stack, (host, *members.values())), "member_join.yml -vvv on KubeAdmiral")
    # The role waited for both conditions itself.
    assert joined_and_ready(host, REJOINED), federated_cluster(host, REJOINED)
    cluster = federated_cluster(host, REJOINED)
    assert cluster["spec"]["useServiceAccount"] is False and cluster["spec"]["secretRef"] == {"name": REJOINED}
    assert system_namespace(members[REJOINED])["metadata"]["annotations"][UID_ANNOTATION] == cluster["metadata"]["uid"]
    secret = host.get("secret", REJOINED, "-n", SYSTEM_NAMESPACE)
    assert sorted(secret["data"]) == ["certificate-authority-data", "client-certificate-data", "client-key-data"]

    again = run(env)
    assert again.returncode == 0 and again.changed == 0, again

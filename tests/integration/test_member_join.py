"""member_join against real Karmada: the role creates what `karmadactl join` creates.

On the session stack (joined by `karmadactl join`), test-ucs - idc1 stays registered throughout - is
unjoined by the role (state absent: everything of its registration gone on both sides, idc1
untouched), joined by the role from nothing - while the member's credentials namespace is still
Terminating, which the role waits out (Ready; a rerun reports 0 changed), unjoined again,
joined by the stack's real `karmadactl join` with the arguments the stack itself uses, and both
registrations are compared field by field. The role's rerun over both members reports 0 changed:
over its own registration (test-ucs's) and over karmadactl's (idc1's, made by the stack's karmadactl
join): every object it would create is already there, equal. The role's join runs at -vvv and prints no secret, the tokens it has just made included.
test-ucs is left joined by karmadactl, as `python -m tests.stack up` joined it, whatever happens.
(A second, --no-join stack would give the same paths at the cost of starting three more API servers.)
"""

from __future__ import annotations

import json
import subprocess

from tests.stack.waiting import wait_for
from tests.integration.federalize_support import serves_united_deployment
from tests.integration.playbook_runner import playbook
from tests.integration.secret_scan import assert_no_secret_printed, stack_secrets

NS = "karmada-cluster"
VOLATILE_META = ("uid", "resourceVersion", "creationTimestamp", "managedFields", "generation")


def stack_joined(stack) -> bool:
    config = json.loads((stack.state / "stack.json").read_text())
    return bool(config.get("join", True))


def region_overlay(stack) -> dict:
    """The region/zones `python -m tests.stack up` passes to karmadactl join (manifests.member_region)."""
    hosts = {}
    for index, name in enumerate(sorted(stack.member_kubeconfigs, key=lambda n: (n != "idc1", n != "test-ucs", n))):
        region = f"local-{index + 1}"
        hosts[name] = {"member_join_region": region, "member_join_zones": [f"{region}a", f"{region}b"]}
    return {"members": {"hosts": hosts}}


def cluster_ready(karmada, name) -> bool:
    cluster = karmada.kubectl("get", "cluster", name, "-o", "json", "--ignore-not-found").stdout
    if not cluster.strip():
        return False
    conditions = json.loads(cluster).get("status", {}).get("conditions", [])
    return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)


def normalized(obj: dict) -> dict:
    obj = json.loads(json.dumps(obj))
    meta = obj.get("metadata", {})
    for key in VOLATILE_META:
        meta.pop(key, None)
    for ref in meta.get("ownerReferences", []):
        ref.pop("uid", None)
    annotations = meta.get("annotations", {})
    annotations.pop("kubernetes.io/service-account.uid", None)
    if not annotations:
        meta.pop("annotations", None)
    obj.pop("status", None)
    if obj.get("kind") == "Secret" and isinstance(obj.get("data"), dict):
        # Token values differ between two registrations; which keys exist must not.
        obj["data"] = sorted(obj["data"])
    if obj.get("kind") == "Namespace":
        obj.get("spec", {}).pop("finalizers", None)
        meta.get("labels", {}).pop("kubernetes.io/metadata.name", None)
    return obj


def registration(stack, name: str) -> dict:
    """Everything a join of member `name` creates, from both sides, normalized."""
    member, karmada = stack.member(name), stack.karmada()
    account = f"karmada-{name}"
    role = f"karmada-controller-manager:{account}"
    objects = {
        "member/namespace": member.get("namespace", NS),
        "member/sa": member.get("serviceaccount", account, "-n", NS),
        "member/sa-impersonator": member.get("serviceaccount", "karmada-impersonator", "-n", NS),
        "member/clusterrole": member.get("clusterrole", role),
        "member/clusterrolebinding": member.get("clusterrolebinding", role),
        "member/secret": member.get("secret", account, "-n", NS),
        "member/secret-impersonator": member.get("secret", "karmada-impersonator", "-n", NS),
        "karmada/secret": karmada.get("secret", name, "-n", NS),
        "karmada/secret-impersonator": karmada.get("secret", f"{name}-impersonator", "-n", NS),
        "karmada/cluster": karmada.get("cluster", name),
    }
    cluster = objects["karmada/cluster"]
    # Spec fields Karmada's own controllers and webhook fill in are compared too: both paths must lead there.
    return {key: normalized(value) for key, value in objects.items()} | {"cluster-id-is-kube-system-uid": (
        cluster["spec"]["id"] == member.get("namespace", "kube-system")["metadata"]["uid"])}


MEMBER = "test-ucs"


def unjoin(stack, overlay: dict) -> None:
    """The role unjoins MEMBER: everything of its registration goes, on both sides; idc1 stays."""
    karmada, member = stack.karmada(), stack.member(MEMBER)
    gone = playbook(stack.env, "member_join.yml", {"member_join_state": "absent"}, extra_inventory=overlay,
                    limit=f"karmada,{MEMBER}")
    assert gone.returncode == 0, gone
    # Karmada's cluster controller finalizes the Cluster (its execution namespace first) after the run.
    wait_for(lambda: not karmada.has("cluster", MEMBER), f"the Cluster {MEMBER} gone", timeout=120)
    assert cluster_ready(karmada, "idc1")
    # The member's namespace terminates after the run (its ServiceAccounts and Secrets go with it).
    wait_for(lambda: not member.has("namespace", NS), f"{NS} gone from {MEMBER}", timeout=120)
    assert not member.has("clusterrole", f"karmada-controller-manager:karmada-{MEMBER}")
    wait_for(lambda: not karmada.has("secret", MEMBER, "-n", NS), "the credential Secret garbage-collected with its Cluster",
             timeout=120)


WAIT_FOR_TERMINATION = "Wait until a terminating namespace of Karmada's credentials is gone"


class TerminatingNamespace:
    """NS in a member, deleted but held Terminating by a ConfigMap's finalizer until release()."""

    FINALIZER = "multicloud.federation.test/hold"

    def __init__(self, member):
        self.member = member
        self.released = False

    def release(self) -> None:
        self.member.kubectl("patch", "configmap", "hold", "-n", NS, "--type=merge", "-p",
                            '{"metadata": {"finalizers": null}}')
        self.released = True

    def release_at(self, task: str):
        """An on_line callback: release the namespace once the run prints the TASK line of task."""
        def on_line(line, _proc):
            if not self.released and line.startswith("TASK [") and task in line:
                self.release()
        return on_line


def hold_namespace_terminating(member) -> TerminatingNamespace:
    member.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}},
                  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
                      "name": "hold", "namespace": NS, "finalizers": [TerminatingNamespace.FINALIZER]}}])
    member.kubectl("delete", "namespace", NS, "--wait=false")
    wait_for(lambda: member.get("namespace", NS)["status"].get("phase") == "Terminating", f"{NS} Terminating")
    return TerminatingNamespace(member)


def karmadactl_join(stack, overlay: dict) -> None:
    """The real thing, with the arguments the stack itself uses."""
    karmadactl = f"{stack.env['MCF_STACK_BIN']}/karmadactl"
    region = overlay["members"]["hosts"][MEMBER]["member_join_region"]
    argv = [karmadactl, "join", MEMBER, f"--kubeconfig={stack.federation_kubeconfig}", "--karmada-context=karmada",
            f"--cluster-kubeconfig={stack.member_kubeconfigs[MEMBER]}", "--cluster-context=internal",
            f"--cluster-region={region}", f"--cluster-zones={region}a,{region}b"]

    def joined():
        # Right after an unjoin, Karmada may still be tearing the old registration down (its cluster
        # controller removes the execution namespace asynchronously) and karmadactl refuses: try again.
        result = subprocess.run(argv, capture_output=True, text=True, timeout=180, check=False)
        if result.returncode != 0:
            raise AssertionError(f"karmadactl join exited {result.returncode}: {result.stdout}\n{result.stderr}")
        return True
    wait_for(joined, f"karmadactl join {MEMBER}", timeout=120, interval=10)
    wait_for(lambda: cluster_ready(stack.karmada(), MEMBER), f"{MEMBER} Ready after karmadactl join", timeout=300)


def test_the_role_s_join_equals_karmadactl_s(stack):
    assert stack_joined(stack)
    karmada = stack.karmada()
    overlay = region_overlay(stack)
    terminating = None
    try:
        unjoin(stack, overlay)
        terminating = hold_namespace_terminating(stack.member(MEMBER))

        # At -vvv, read once the join has made its tokens: also member_join.yml's secret scan (test_secrets.py).
        # The join finds the credentials namespace still Terminating (as right after a `karmadactl unjoin`,
        # which does not wait): it waits until the namespace is gone, then creates it anew.
        run = playbook(stack.env, "member_join.yml", extra_inventory=overlay, limit=f"karmada,{MEMBER}", verbosity=3,
                       on_line=terminating.release_at(WAIT_FOR_TERMINATION))
        assert run.returncode == 0 and run.changed > 0, run.describe()
        assert terminating.released, "the join never reached its wait for the terminating namespace"
        waited = run.result(WAIT_FOR_TERMINATION, MEMBER)
        assert not waited.get("skipped") and waited["resources"] == [], waited
        wait_for(lambda: cluster_ready(karmada, MEMBER), f"{MEMBER} Ready after the role's join", timeout=300)
        assert_no_secret_printed(run, stack_secrets(stack), "member_join.yml -vvv")
        # Both members: test-ucs as the role registered it, idc1 as the stack's karmadactl join did.
        again = playbook(stack.env, "member_join.yml", extra_inventory=overlay)
        assert again.returncode == 0 and again.changed == 0, again
        ours = registration(stack, MEMBER)

        unjoin(stack, overlay)
        karmadactl_join(stack, overlay)
        theirs = registration(stack, MEMBER)
        for key in sorted(theirs):
            assert ours[key] == theirs[key], f"{key} differs:\nrole:       {ours[key]}\nkarmadactl: {theirs[key]}"
    finally:
        if terminating and not terminating.released:
            terminating.release()
        if not cluster_ready(karmada, MEMBER):
            if karmada.has("cluster", MEMBER):
                unjoin(stack, overlay)
            karmadactl_join(stack, overlay)
        put_back_what_moved(stack)


def put_back_what_moved(stack) -> None:
    """While test-ucs was away, Karmada moved the runbook's UnitedDeployment (if one runs) to idc1, and a
    join triggers no scheduling (test_united_deployment.py's stale split): the rebalance step puts it
    back, so that the stack is left as the test found it."""
    karmada = stack.karmada()
    found = karmada.kubectl("get", "uniteddeployment.apps.kruise.io", "demo", "-n", "default", "--ignore-not-found",
                            "-o", "json", check=False)
    if found.returncode != 0 or not found.stdout.strip():
        return  # no UnitedDeployment CRD on the control plane, or no UnitedDeployment
    api_version = json.loads(found.stdout)["apiVersion"]
    wait_for(lambda: serves_united_deployment(karmada, MEMBER, api_version),
             f"{MEMBER} Ready and serving UnitedDeployment again", timeout=120)
    run = playbook(stack.env, "rebalance.yml")
    assert run.returncode == 0, run

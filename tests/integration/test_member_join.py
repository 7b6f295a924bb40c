"""member_join against real Karmada: the role creates what `karmadactl join` creates.

On the session stack (joined by `karmadactl join`): the role run over the karmadactl-made registrations
reports 0 changed, i.e. every object it would create is already there, equal.

On a second stack started beside it with `--no-join` (own MCF_STACK_STATE and inventory,
MCF_STACK_PORT_OFFSET=5000 by default): the role registers both members and each becomes Ready; a rerun reports
0 changed; idc1 is then unjoined by the role (state absent: everything gone, test-ucs untouched), joined
by the stack's real `karmadactl join` with the same arguments, and both registrations are compared field
by field; the role rerun over karmadactl's registration reports 0 changed again. The second stack is
stopped and wiped afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT, StackInfo, wait_for
from federalize_support import playbook

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


def test_role_over_karmadactl_registrations_changes_nothing(stack):
    assert stack_joined(stack)
    run = playbook(stack.env, "member_join.yml", extra_inventory=region_overlay(stack))
    assert run.returncode == 0, run
    assert run.changed == 0, run
    # Nothing leaked: the tokens the role handled are not in its output.
    secret = stack.karmada().get("secret", "idc1", "-n", NS)
    assert secret["data"]["token"] not in run.stdout


NO_JOIN_STATE = Path(os.environ.get("MCF_MEMBER_JOIN_STACK_STATE", "/tmp/mcf-member-join-stack"))
# 5000: clear of the session stack's ports (offset 0) and of a second stack at the documented 10000.
NO_JOIN_PORT_OFFSET = os.environ.get("MCF_MEMBER_JOIN_PORT_OFFSET", "5000")


def second_stack(*args: str, timeout: float = 1800) -> subprocess.CompletedProcess:
    env = dict(os.environ, MCF_STACK_STATE=str(NO_JOIN_STATE), MCF_STACK_INVENTORY=str(NO_JOIN_STATE / "hosts.yml"),
               MCF_STACK_PORT_OFFSET=NO_JOIN_PORT_OFFSET)
    result = subprocess.run([sys.executable, "-m", "tests.stack", *args], cwd=REPO_ROOT, env=env,
                            capture_output=True, text=True, timeout=timeout, check=False)
    assert result.returncode == 0, f"tests.stack {' '.join(args)}: {result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def no_join_stack(stack):
    """A 2-member stack beside the session's, members not registered in Karmada."""
    try:
        second_stack("up", "--no-join", "--members", "2", "--engines", "karmada")
        exported = {}
        for line in second_stack("env").stdout.splitlines():
            key, _equals, value = line.removeprefix("export ").partition("=")
            exported[key] = value.strip("'")
        env = dict(os.environ)
        env.update(exported)
        members = {key.removeprefix("MCF_MEMBER_KUBECONFIG_").lower().replace("_", "-"): Path(value)
                   for key, value in exported.items() if key.startswith("MCF_MEMBER_KUBECONFIG_")}
        yield StackInfo(env=env, state=Path(exported["MCF_STACK_STATE"]),
                        federation_kubeconfig=Path(exported["MCF_FEDERATION_KUBECONFIG"]), member_kubeconfigs=members)
    finally:
        second_stack("down", "--wipe", timeout=600)


def test_no_join_stack(no_join_stack):
    stack = no_join_stack
    karmada = stack.karmada()
    overlay = region_overlay(stack)
    assert not stack_joined(stack)
    assert karmada.kubectl("get", "clusters", "-o", "name").stdout.strip() == "", "members already registered"

    run = playbook(stack.env, "member_join.yml", extra_inventory=overlay)
    assert run.returncode == 0, run
    for name in stack.member_kubeconfigs:
        assert cluster_ready(karmada, name), f"{name} not Ready"
    assert stack.karmada().get("secret", "idc1", "-n", NS)["data"]["token"] not in run.stdout

    again = playbook(stack.env, "member_join.yml", extra_inventory=overlay)
    assert again.returncode == 0 and again.changed == 0, again

    ours = registration(stack, "idc1")

    # Unjoin idc1 with the role: everything it created goes, test-ucs stays.
    gone = playbook(stack.env, "member_join.yml", {"member_join_state": "absent"}, extra_inventory=overlay,
                    limit="karmada,idc1")
    assert gone.returncode == 0, gone
    assert karmada.kubectl("get", "cluster", "idc1", "--ignore-not-found", "-o", "name").stdout.strip() == ""
    assert cluster_ready(karmada, "test-ucs")
    idc1 = stack.member("idc1")
    assert idc1.kubectl("get", "namespace", NS, "--ignore-not-found", "-o", "name").stdout.strip() == ""
    assert idc1.kubectl("get", "clusterrole", "karmada-controller-manager:karmada-idc1", "--ignore-not-found",
                        "-o", "name").stdout.strip() == ""
    wait_for(lambda: karmada.kubectl("get", "secret", "idc1", "-n", NS, "--ignore-not-found", "-o", "name")
             .stdout.strip() == "", "the credential Secret garbage-collected with its Cluster", timeout=120)

    # The real thing, with the arguments the stack itself uses.
    karmadactl = f"{stack.env['MCF_STACK_BIN']}/karmadactl"
    region = overlay["members"]["hosts"]["idc1"]["member_join_region"]
    subprocess.run([karmadactl, "join", "idc1", f"--kubeconfig={stack.federation_kubeconfig}", "--karmada-context=karmada",
                    f"--cluster-kubeconfig={stack.member_kubeconfigs['idc1']}", "--cluster-context=internal",
                    f"--cluster-region={region}", f"--cluster-zones={region}a,{region}b"],
                   check=True, capture_output=True, text=True, timeout=180)
    wait_for(lambda: cluster_ready(karmada, "idc1"), "idc1 Ready after karmadactl join", timeout=300)
    theirs = registration(stack, "idc1")

    for key in sorted(theirs):
        assert ours[key] == theirs[key], f"{key} differs:\nrole:       {ours[key]}\nkarmadactl: {theirs[key]}"

    over = playbook(stack.env, "member_join.yml", extra_inventory=overlay)
    assert over.returncode == 0 and over.changed == 0, over

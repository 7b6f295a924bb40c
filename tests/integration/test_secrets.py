"""No playbook of the collection prints a secret, at any verbosity (issue 10).

Every playbook in playbooks/ runs once at -vvv against the local stack: site.yml (which imports
every runbook step), member_join.yml over the stack's own registrations, and federalize.yml,
migrate.yml and distribute.yml with a small application of this file's own. Their output (stdout
and stderr) must hold none of the secrets the stack holds: the tokens, private keys and
certificates of its kubeconfigs and PKI (the stack's state directory), and the value of every
Secret in every cluster. Each is looked for as it is, base64-encoded and JSON-escaped (how -vvv
prints a multi-line string); a PEM by each line of its body. Base64 runs in the output are also
decoded and searched, which finds a secret inside a printed file or object.

A failure names where the secret comes from and the task that printed it, never the secret.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import json
import re
from pathlib import Path

import pytest
import yaml

from tests.integration.conftest import wait_for
from tests.integration.federalize_support import joined_as_registered
from tests.integration.playbook_runner import REPO_ROOT, PlaybookRun, run_playbook, stack_inventory

PLAYBOOKS = REPO_ROOT / "playbooks"
# Shorter values (a namespace name in a ServiceAccount token Secret, "true") say nothing secret and
# appear in any output.
MIN_SECRET_LENGTH = 16
# A PEM body line shorter than this is the tail of a block, too short to tell apart.
MIN_PEM_LINE_LENGTH = 32
BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{40,}={0,2}")

NAMESPACE = "secret-scan"
SECRET_VALUE = "secret-scan-value-4f1c9e2a7b"
APP = "scan-app"
FEDERALIZE_VARS = {
    "federalize_source": "idc1",
    "federalize_namespace": NAMESPACE,
    "federalize_policy_name": APP,
    "federalize_resources": [{"api_version": "apps/v1", "kind": "Deployment", "names": [APP]}],
    "federalize_wait_timeout": 240,
}
OVERRIDE_VARS = {
    "override_policy_name": f"{APP}-test-ucs",
    "override_policy_namespace": NAMESPACE,
    "override_policy_resource_selectors": [{"api_version": "apps/v1", "kind": "Deployment", "name": APP}],
    "override_policy_rules": [{"target_clusters": ["test-ucs"], "annotations": {"example.com/secret-scan": "test-ucs"}}],
}
# The federalization steps, in the order that builds on the one before.
FEDERALIZATION_RUNS = {
    "federalize.yml": FEDERALIZE_VARS,
    "migrate.yml": {**FEDERALIZE_VARS, **OVERRIDE_VARS, "federalize_target": "test-ucs"},
    "distribute.yml": {**FEDERALIZE_VARS, **OVERRIDE_VARS, "federalize_clusters": ["idc1", "test-ucs"]},
}
DIRECT_RUNS = ["site.yml", "member_join.yml", "rebalance.yml", *FEDERALIZATION_RUNS, "drift.yml"]


# ---------------------------------------------------------------------------------------- the scan
def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def forms(value: str) -> set[str]:
    """The strings a printed secret value would show: as it is, base64-encoded, JSON-escaped and,
    for PEM blocks, each body line."""
    stripped = value.strip()
    if len(stripped) < MIN_SECRET_LENGTH:
        return set()
    # base64 of the value as it is (a file's trailing newline included) and without the whitespace around it.
    found = {stripped, b64(stripped), b64(value), json.dumps(stripped)[1:-1]}
    if "-----BEGIN" in stripped:
        found.update(line.strip() for line in stripped.splitlines()
                     if len(line.strip()) >= MIN_PEM_LINE_LENGTH and "-----" not in line)
    return found


def add_secret(needles: dict[str, str], value: str, source: str) -> None:
    """Index a secret's forms by the place it comes from (the first source named wins)."""
    for form in forms(value):
        needles.setdefault(form, source)


def decoded_base64_runs(text: str) -> tuple[str, list[tuple[int, int]]]:
    """Text hidden in the output as base64 (a file's content, an object's data), decoded: the
    decoded pieces joined, and for each piece (its start in the joined text, its run's position in text)."""
    pieces, starts, length = [], [], 0
    for match in BASE64_RUN.finditer(text):
        run = match.group()
        try:
            piece = base64.b64decode(run + "=" * (-len(run) % 4), validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            continue
        pieces.append(piece)
        starts.append((length, match.start()))
        length += len(piece) + 1
    return "\n".join(pieces), starts


def task_printing(stdout: str, position: int) -> str:
    """The TASK header the output at position belongs to."""
    # Searched with a newline in front, so that a header on the first line counts too.
    header = ("\n" + stdout).rfind("\nTASK [", 0, position + 1)
    return stdout[header:stdout.find("]", header) + 1] if header >= 0 else "(before the first task)"


def leaks(output: str, needles: dict[str, str]) -> list[str]:
    """Where each secret found in output comes from and which task printed it; no secret itself."""
    decoded, starts = decoded_base64_runs(output)
    printed_as_is: dict[tuple[str, str], bool] = {}
    for needle, source in needles.items():
        position = output.find(needle)
        if position >= 0:
            printed_as_is[(source, task_printing(output, position))] = True
            continue
        position = decoded.find(needle)
        if position >= 0:
            run_position = starts[bisect.bisect_right(starts, (position, len(output))) - 1][1]
            printed_as_is.setdefault((source, task_printing(output, run_position)), False)
    return sorted(f"{source} — {task}" + ("" if as_is else " (inside a longer base64 text)")
                  for (source, task), as_is in printed_as_is.items())


# ---------------------------------------------------------------------------------------- the stack's secrets
def kubeconfig_secrets(needles: dict[str, str], path: Path) -> None:
    config = yaml.safe_load(path.read_text()) or {}
    for entry in config.get("users") or []:
        user = entry.get("user") or {}
        if user.get("token"):
            add_secret(needles, user["token"], f"token of user {entry.get('name')} in {path.name}")
        for key in ("client-key-data", "client-certificate-data"):
            if user.get(key):
                add_secret(needles, base64.b64decode(user[key]).decode(), f"{key} of user {entry.get('name')} in {path.name}")
    for entry in config.get("clusters") or []:
        data = (entry.get("cluster") or {}).get("certificate-authority-data")
        if data:
            add_secret(needles, base64.b64decode(data).decode(), f"certificate-authority-data of {entry.get('name')} in {path.name}")


def state_secrets(needles: dict[str, str], state: Path) -> None:
    """The stack's PKI (keys, certificates, the token files) and its kubeconfigs. The PKI comes first:
    a certificate both hold is named by its file there."""
    for path in sorted((state / "pki").rglob("*")):
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        if path.suffix == ".csv":  # kube-apiserver's token file: token,user,uid,"groups"
            for row in text.splitlines():
                add_secret(needles, row.split(",", 1)[0], f"a token of {path.name}")
        else:
            add_secret(needles, text, f"PKI file {path.name}")
    for path in sorted((state / "kubeconfigs").rglob("*")):
        if path.is_file():
            kubeconfig_secrets(needles, path)


def cluster_secrets(needles: dict[str, str], cluster) -> None:
    """The value of every Secret in the cluster, decoded and as stored (its base64)."""
    for secret in cluster.get("secrets", "--all-namespaces")["items"]:
        meta = secret["metadata"]
        for key, stored in (secret.get("data") or {}).items():
            source = f"Secret {meta['namespace']}/{meta['name']} key {key} in {cluster.name}"
            raw = base64.b64decode(stored)
            try:
                add_secret(needles, raw.decode(), source)
            except UnicodeDecodeError:  # binary (a Helm release, a keystore): found by its stored form only
                needles.setdefault(stored, source)


def stack_secrets(stack) -> dict[str, str]:
    needles: dict[str, str] = {}
    state_secrets(needles, stack.state)
    for cluster in (stack.karmada(), *(stack.member(name) for name in sorted(stack.member_kubeconfigs))):
        cluster_secrets(needles, cluster)
    return needles


# ---------------------------------------------------------------------------------------- the runs
def application() -> list[dict]:
    """A Deployment in idc1 that reads a ConfigMap and a Secret (federalize follows both)."""
    labels = {"app": APP}
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{APP}-config", "namespace": NAMESPACE},
         "data": {"app.conf": "listen 8080\n"}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": f"{APP}-secret", "namespace": NAMESPACE},
         "type": "Opaque", "data": {"password": b64(SECRET_VALUE)}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": APP, "namespace": NAMESPACE, "labels": labels},
         "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                  "template": {"metadata": {"labels": labels}, "spec": {
                      "containers": [{"name": "app", "image": "registry.invalid/secret-scan/app:1",
                                      "env": [{"name": "PASSWORD", "valueFrom": {"secretKeyRef": {
                                          "name": f"{APP}-secret", "key": "password"}}}],
                                      "volumeMounts": [{"name": "config", "mountPath": "/etc/app"}]}],
                      "volumes": [{"name": "config", "configMap": {"name": f"{APP}-config"}}]}}}},
    ]


def remove_application(stack) -> None:
    karmada = stack.karmada()
    # The policies first: with preserveResourcesOnDeletion the member copies stay, and go with their namespace.
    karmada.kubectl("delete", "overridepolicy,propagationpolicy", "--all", "-n", NAMESPACE, "--ignore-not-found")
    for cluster in (karmada, *(stack.member(name) for name in sorted(stack.member_kubeconfigs))):
        cluster.kubectl("delete", "namespace", NAMESPACE, "--ignore-not-found", "--wait=true", "--timeout=180s")


@pytest.fixture(scope="module")
def scanned(stack, tmp_path_factory) -> tuple[dict[str, PlaybookRun], dict[str, str]]:
    """One -vvv run of each playbook, and the stack's secrets (read while the application exists)."""
    inventory = stack_inventory(stack.env)

    def vvv(playbook: str, extra_vars: dict, *overlays: dict) -> PlaybookRun:
        return run_playbook(Path("playbooks") / playbook, [inventory, *overlays], env=stack.env, extra_vars=extra_vars,
                            verbosity=3, expect_failure=None)

    # Read before the runs (a Secret they replace) and again while the application exists (what they create).
    needles = stack_secrets(stack)
    runs = {"site.yml": vvv("site.yml", {"verify_report_dir": str(tmp_path_factory.mktemp("verify"))}),
            "member_join.yml": vvv("member_join.yml", {}, joined_as_registered(stack)),
            "rebalance.yml": vvv("rebalance.yml", {})}
    remove_application(stack)
    idc1 = stack.member("idc1")
    idc1.apply(application())
    try:
        wait_for(lambda: idc1.get("deployment", APP, "-n", NAMESPACE).get("status", {}).get("readyReplicas") == 1,
                 f"{APP} Ready in idc1", timeout=240)
        for playbook, extra_vars in FEDERALIZATION_RUNS.items():
            runs[playbook] = vvv(playbook, extra_vars)
        # Every step in check and diff mode, the distributed application with its Secret included; the
        # scan reads the whole run whatever it finds (drift_fail false: a finding is no early stop).
        runs["drift.yml"] = vvv("drift.yml", {"drift_report_dir": str(tmp_path_factory.mktemp("drift")), "drift_fail": False,
                                              "drift_applications": [FEDERALIZATION_RUNS["distribute.yml"]]})
        for needle, source in stack_secrets(stack).items():
            needles.setdefault(needle, source)
    finally:
        remove_application(stack)
    return runs, needles


# ---------------------------------------------------------------------------------------- the tests
def site_imports() -> set[str]:
    return {Path(entry["ansible.builtin.import_playbook"]).name
            for entry in yaml.safe_load((PLAYBOOKS / "site.yml").read_text()) if "ansible.builtin.import_playbook" in entry}


def test_every_playbook_is_scanned():
    covered = set(DIRECT_RUNS) | site_imports()
    assert {path.name for path in PLAYBOOKS.glob("*.yml")} <= covered, "a playbook the scan does not run"


@pytest.mark.parametrize("playbook", DIRECT_RUNS)
def test_no_secret_in_the_vvv_output(scanned, playbook):
    runs, needles = scanned
    assert any(SECRET_VALUE in needle for needle in needles), "the application's Secret was not read"
    run = runs[playbook]
    leaked = leaks(run.output, needles)
    assert not leaked, f"{playbook} -vvv printed {len(leaked)} secret(s):\n" + "\n".join(leaked)
    # A run that stopped early did not show what its later tasks print.
    assert run.returncode == 0, run.describe()


def test_the_scan_finds_secrets_however_printed():
    """No stack: the forms -vvv prints a value in, and a secret inside printed base64."""
    pem = "-----BEGIN EC PRIVATE KEY-----\n" + "\n".join(["MHcCAQEEI" + "A" * 55, "B" * 64, "C" * 20]) \
          + "\n-----END EC PRIVATE KEY-----\n"
    needles: dict[str, str] = {}
    add_secret(needles, pem, "a key")
    add_secret(needles, "token-0123456789abcdef", "a token")
    add_secret(needles, "kube-system", "a namespace name")
    assert "kube-system" not in needles
    quiet = "TASK [Report] ***\nok: [karmada] => {\"msg\": \"nothing here\"}\n"
    assert leaks(quiet, needles) == []
    for output, source in [
        ('TASK [Read] ***\nok: [karmada] => {"data": "' + json.dumps(pem)[1:-1] + '"}', "a key"),
        ("TASK [Read] ***\nok: [karmada] => " + json.dumps({"b": "B" * 64}), "a key"),
        ("TASK [Read] ***\nok: [karmada] => {\"token\": \"" + b64("token-0123456789abcdef") + "\"}", "a token"),
        ("TASK [Slurp] ***\nok: [karmada] => {\"content\": \"" + b64("users:\n- token: token-0123456789abcdef\n") + "\"}",
         "a token"),
    ]:
        found = leaks("TASK [Before] ***\nok: [karmada]\n" + output, needles)
        assert len(found) == 1 and found[0].startswith(source), (output, found)
        assert "TASK [Before]" not in found[0] and "TASK [" in found[0], found
    assert "TASK [Read]" in leaks('TASK [Read] ***\nok: [karmada] => {"token": "token-0123456789abcdef"}', needles)[0]

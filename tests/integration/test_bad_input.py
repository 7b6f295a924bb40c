"""Bad input stops before any change, with a message that names the value and the fix (issue 14).

Each case runs the playbook a user would run with one mistake in the inventory or the extra vars,
on the converged Karmada stack (the module fixture runs site.yml once). Every case asserts its own
message: specific text that names the offending variable or value and what to do, not just "failed".
All cases run concurrently (each only reads the clusters before it refuses); one snapshot of every
object of the kinds the steps write, on every cluster, is taken before the first and after the last
(``cluster_snapshot``), and must be equal: no case changed anything.
"""

from __future__ import annotations

import base64
import copy
import datetime
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.integration import cluster_snapshot
from tests.integration.playbook_runner import run_playbook, stack_inventory

MATCH_VIRTUAL_KUBELET = {"matchExpressions": [{"key": "type", "operator": "NotIn", "values": ["virtual-kubelet"]}]}
NOT_JOINED = "idc9"
LEAKED_TOKEN = "rejected-token-bad-input-case"


def private_file(path: Path, text: str) -> str:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    return str(path)


def another_ca() -> bytes:
    """A CA certificate that signed nothing of the stack's."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "not-the-stack-ca")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now)
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM)


class Inventory:
    """The stack's inventory, and copies of it with one mistake."""

    def __init__(self, stack, workdir: Path):
        self.base = yaml.safe_load(stack_inventory(stack.env).read_text())
        self.workdir = workdir

    def copy(self) -> dict:
        return copy.deepcopy(self.base)

    @staticmethod
    def members(inventory: dict) -> dict:
        return inventory["all"]["children"]["members"]["hosts"]

    def member_kubeconfig(self, name: str, change) -> str:
        """A copy of a member's kubeconfig with change(data) applied, as a private file."""
        data = yaml.safe_load(Path(self.members(self.base)[name]["cluster_kubeconfig"]).read_text())
        change(data)
        return private_file(self.workdir / f"{name}-{len(list(self.workdir.iterdir()))}.kubeconfig",
                            yaml.safe_dump(data))

    def with_member(self, name: str, **hostvars) -> dict:
        inventory = self.copy()
        self.members(inventory)[name].update(hostvars)
        return inventory


def cases(inv: Inventory, workdir: Path) -> dict[str, tuple[str, dict | None, dict, tuple[str, ...]]]:
    """id: (playbook, inventory (None: the stack's), extra vars, texts the output must hold)."""
    def unreachable(data):
        data["clusters"][0]["cluster"]["server"] = "https://127.0.0.1:1"

    def rejected_token(data):
        data["users"][0]["user"] = {"token": LEAKED_TOKEN}

    def other_ca(data):
        data["clusters"][0]["cluster"]["certificate-authority-data"] = base64.b64encode(another_ca()).decode()

    not_a_chart = workdir / "not-a-chart"
    not_a_chart.mkdir()
    (not_a_chart / "README.md").write_text("a directory without Chart.yaml\n")
    two_federation_hosts = inv.copy()
    federation = two_federation_hosts["all"]["children"]["federation"]["hosts"]
    federation["second-fleet"] = dict(next(iter(federation.values())))
    no_members = inv.copy()
    no_members["all"]["children"]["members"]["hosts"] = {}
    not_joined = inv.copy()
    inv.members(not_joined)[NOT_JOINED] = dict(inv.members(not_joined)["idc1"], cluster_name=NOT_JOINED)
    subset = {"name": "regular", "replicas": "50%", "node_selector_term": MATCH_VIRTUAL_KUBELET}
    app = {"federalize_source": "idc1", "federalize_namespace": "default"}
    return {
        # kubeconfig: the first step of site.yml checks every cluster's access before any change.
        "kubeconfig-malformed": ("site.yml", inv.with_member(
            "idc1", cluster_kubeconfig=private_file(workdir / "malformed.kubeconfig", "clusters: [unclosed\n  - : :")),
            {}, ("malformed.kubeconfig is neither YAML nor JSON", "download the kubeconfig again")),
        "kubeconfig-unknown-context": ("site.yml", inv.with_member("idc1", cluster_context="nosuch"), {},
                                       ("context 'nosuch' does not exist in", "(it has: external, internal)",
                                        "set cluster_context, or cluster_access, to one of them")),
        "api-unreachable": ("site.yml", inv.with_member("idc1", cluster_kubeconfig=inv.member_kubeconfig(
            "idc1", unreachable)), {}, ("the API server https://127.0.0.1:1 of context 'internal'",
                                        "the API server cannot be reached", "Check the access mode")),
        "token-rejected": ("site.yml", inv.with_member("idc1", cluster_kubeconfig=inv.member_kubeconfig(
            "idc1", rejected_token)), {}, ("rejects the kubeconfig's credentials (HTTP 401 Unauthorized)",
                                           "Download the kubeconfig again")),
        "certificate-of-another-ca": ("site.yml", inv.with_member("idc1", cluster_kubeconfig=inv.member_kubeconfig(
            "idc1", other_ca)), {}, ("certificate verify failed", "Check the access mode")),
        # The static weights (inventory cluster_weight, propagation_policy_weights).
        "weight-zero": ("site.yml", inv.with_member("idc1", cluster_weight=0), {},
                        ("cluster_weight of idc1 must be a whole number >= 1", "got 0",
                         "set cluster_weight on inventory host idc1")),
        "weight-negative": ("site.yml", inv.with_member("idc1", cluster_weight=-2), {},
                            ("cluster_weight of idc1 must be a whole number >= 1", "got -2")),
        "weight-not-a-number": ("site.yml", inv.with_member("idc1", cluster_weight="two"), {},
                                ("cluster_weight of idc1 must be a whole number >= 1", "got 'two'")),
        "weight-for-an-unknown-cluster": ("playbooks/propagation_policy.yml", None,
                                          {"propagation_policy_weights": {NOT_JOINED: 1}},
                                          (f"Static weights name {NOT_JOINED}, which are not among the policy's "
                                           "clusters (idc1, test-ucs)",)),
        # The UnitedDeployment, validated as Kruise's webhook would (the control plane has none).
        "replicas-negative": ("playbooks/united_deployment.yml", None, {"united_deployment_replicas": -1},
                              ("united_deployment_replicas must be a whole number >= 0", "got -1")),
        "subset-percent-over-100": ("playbooks/united_deployment.yml", None,
                                    {"united_deployment_regular_subset": dict(subset, replicas="150%")},
                                    ("refused before applying", 'Invalid value: "150%"',
                                     "should be in range [0, 100]")),
        "subset-name-kruise-refuses": ("playbooks/united_deployment.yml", None,
                                       {"united_deployment_regular_subset": dict(subset, name="Regular_A")},
                                       ('Invalid value: "Regular_A": invalid subset name',
                                        "a lowercase RFC 1123 label")),
        "partition-of-an-unknown-subset": ("playbooks/united_deployment.yml", None,
                                           {"united_deployment_partitions": {"nosuch": 1}},
                                           ("spec.updateStrategy.manualUpdate.partitions",
                                            "subset nosuch does not exist")),
        "application-name-invalid": ("playbooks/united_deployment.yml", None, {"united_deployment_name": "Bad_Name"},
                                     ('metadata.name: Invalid value: "Bad_Name"', "a lowercase RFC 1123 subdomain")),
        # The applications as data (federation_united_deployments): checked before the first write.
        "applications-with-one-name": ("site.yml", None, {"federation_united_deployments": [
            {"name": "web"}, {"name": "web", "replicas": 2}]},
            ("applications web and web both name the UnitedDeployment default/web",
             "give each application its own name")),
        "application-on-an-unknown-cluster": ("site.yml", None, {"federation_united_deployments": [
            {"name": "web", "clusters": ["idc1", NOT_JOINED]}]},
            (f"application web: clusters name {NOT_JOINED}, which the federation does not know",
             "add the cluster to the inventory group members")),
        "application-subset-percent-over-100": ("playbooks/united_deployment.yml", None, {
            "federation_united_deployments": [{"name": "web", "subsets": [
                {"name": "a", "replicas": "150%", "node_selector_term": MATCH_VIRTUAL_KUBELET}, {"name": "b"}]}]},
            ("refused before applying", 'Invalid value: "150%"', "should be in range [0, 100]")),
        "application-subset-name-kruise-refuses": ("playbooks/united_deployment.yml", None, {
            "federation_united_deployments": [{"name": "web", "subsets": [{"name": "Subset_A"}, {"name": "b"}]}]},
            ('Invalid value: "Subset_A": invalid subset name', "a lowercase RFC 1123 label")),
        "application-field-misspelt": ("site.yml", None, {"federation_united_deployments": [
            {"name": "web", "replica": 2}]},
            ("application web has unknown field(s) replica", "the fields an application takes are name,")),
        # Kruise's chart.
        "chart-version-not-in-the-chart": ("playbooks/kruise.yml", None, {"federation_kruise_chart_version": "9.9.9"},
                                           ("holds chart kruise 1.9.0, not version 9.9.9",
                                            "point the chart reference at a kruise 9.9.9 chart")),
        "chart-reference-not-a-chart": ("playbooks/kruise.yml", None, {"federation_kruise_chart_ref": str(not_a_chart)},
                                        (f"{not_a_chart} has no Chart.yaml",)),
        # The resource interpreter's Lua, run offline before the apply.
        "lua-syntax-error": ("playbooks/resource_interpreter.yml", None, {"resource_interpreter_scripts": {
            "replicaResource": "function GetReplicas(obj) return obj.spec.replicas"}},
            ("replicaResource.luaScript: error loading code", "'end' expected near '<eof>'")),
        "lua-global": ("playbooks/resource_interpreter.yml", None, {"resource_interpreter_scripts": {
            "replicaResource": "function GetReplicas(obj)\n  seen = 1\n  return obj.spec.replicas, nil\nend"}},
            ("assigns the global variable(s) seen", "declare them local")),
        # Federalization.
        "federalize-a-resource-that-does-not-exist": (
            "playbooks/federalize.yml", None,
            {**app, "federalize_resources": [{"kind": "Deployment", "names": ["does-not-exist"]}]},
            ("Deployment default/does-not-exist not found in cluster idc1",
             "check the resource names and the namespace (federalize_resources, federalize_namespace)")),
        "federalize-from-a-member-not-joined": (
            "playbooks/federalize.yml", not_joined,
            {**app, "federalize_source": NOT_JOINED, "federalize_resources": [{"kind": "Deployment", "names": ["x"]}]},
            (f"Karmada does not list member cluster '{NOT_JOINED}' (it lists: idc1, test-ucs)",
             "join it (karmadactl join, or the member_join playbook)")),
        "migrate-to-a-host-that-is-not-a-member": (
            "playbooks/migrate.yml", None, {**app, "federalize_target": "karmada", "federalize_policy_name": "x"},
            ("federalize_target 'karmada' is not a host of the members group (idc1, test-ucs)",)),
        # The inventory's shape.
        "two-federation-hosts": ("site.yml", two_federation_hosts, {},
                                 ("group federation must hold exactly one host, the federation control plane, "
                                  "but holds 2 (karmada, second-fleet)", "move the others to group members")),
        "no-members": ("site.yml", no_members, {}, ("group members is empty: add one host per member cluster",)),
        # A string where a list is expected (argument_specs would split it at commas).
        "string-for-the-policy-clusters": ("playbooks/propagation_policy.yml", None,
                                           {"propagation_policy_clusters": "idc1"},
                                           ("propagation_policy_clusters must be a YAML list of cluster names",
                                            "got the string 'idc1'")),
        "string-for-the-distribute-clusters": ("playbooks/distribute.yml", None,
                                               {**app, "federalize_clusters": "idc1,test-ucs",
                                                "federalize_policy_name": "x"},
                                               ("federalize_clusters must be a YAML list of members-group hosts",
                                                "got the string 'idc1,test-ucs'")),
        "string-for-the-member-zones": ("playbooks/member_join.yml", None,
                                        {"federation_member_join": True, "member_join_zones": "zone-a"},
                                        ("member_join_zones must be a YAML list of zone names",
                                         "got the string 'zone-a'")),
        "string-for-the-resources": ("playbooks/federalize.yml", None, {**app, "federalize_resources": "deployment/x"},
                                     ("option 'federalize_resources' is of type str",)),
        "string-for-the-resource-selectors": ("playbooks/propagation_policy.yml", None,
                                              {"propagation_policy_resource_selectors": "x"},
                                              ("option 'propagation_policy_resource_selectors' is of type str",)),
        "string-for-the-override-rules": ("playbooks/migrate.yml", None,
                                          {**app, "federalize_target": "test-ucs", "override_policy_name": "o",
                                           "override_policy_rules": "x"},
                                          ("option 'override_policy_rules' is of type str",)),
        "string-for-the-interpreter-samples": ("playbooks/resource_interpreter.yml", None,
                                               {"resource_interpreter_samples": "x"},
                                               ("option 'resource_interpreter_samples' is of type str",)),
        "string-for-the-kruise-values": ("playbooks/kruise.yml", None, {"kruise_values": "x"},
                                         ("argument 'kruise_values' is of type str",)),
        # Two actors on one member: Karmada evicts by detection + toleration, failover.yml must come after.
        "failover-grace-within-detection": ("playbooks/propagation_policy.yml", None,
                                            {"failover_method": "engine", "failover_grace_seconds": 90,
                                             "failover_detection_seconds": 72, "failover_toleration_seconds": 30},
                                            ("failover_grace_seconds 90 must exceed failover_detection_seconds 72 + "
                                             "failover_toleration_seconds 30",)),
        "failover-negative-toleration": ("playbooks/failover.yml", None, {"failover_toleration_seconds": -5},
                                         ("failover_toleration_seconds must be 0 or more seconds, not -5",)),
    }


@pytest.fixture(scope="module")
def refused(stack, converged_karmada, tmp_path_factory):  # pylint: disable=unused-argument
    """Every case's run, after site.yml converged the stack; and the snapshots around them."""
    workdir = tmp_path_factory.mktemp("bad-input")
    inv = Inventory(stack, workdir)
    all_cases = cases(inv, workdir)
    control_planes, members = [stack.karmada()], [stack.member(name) for name in inv.members(inv.base)]
    before = cluster_snapshot.snapshot(control_planes, members)

    def run(case):
        playbook, inventory, extra_vars, _texts = all_cases[case]
        # The cases run side by side: each its own run lock, so that none is refused because another case
        # holds the federation's (the lock has its own tests in test_concurrent_runs.py).
        return case, run_playbook(playbook, inventory if inventory is not None else inv.copy(), env=stack.env,
                                  extra_vars={"run_lock_name": f"bad-input-{case}", **extra_vars},
                                  expect_failure=None)

    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = dict(pool.map(run, all_cases))
    after = cluster_snapshot.snapshot(control_planes, members)
    return all_cases, runs, before, after


CASE_IDS = (
    "kubeconfig-malformed", "kubeconfig-unknown-context", "api-unreachable", "token-rejected",
    "certificate-of-another-ca", "weight-zero", "weight-negative", "weight-not-a-number",
    "weight-for-an-unknown-cluster", "replicas-negative", "subset-percent-over-100", "subset-name-kruise-refuses",
    "partition-of-an-unknown-subset", "application-name-invalid", "applications-with-one-name",
    "application-on-an-unknown-cluster", "application-subset-percent-over-100", "application-subset-name-kruise-refuses",
    "application-field-misspelt", "chart-version-not-in-the-chart",
    "chart-reference-not-a-chart", "lua-syntax-error", "lua-global", "federalize-a-resource-that-does-not-exist",
    "federalize-from-a-member-not-joined", "migrate-to-a-host-that-is-not-a-member", "two-federation-hosts",
    "no-members", "string-for-the-policy-clusters", "string-for-the-distribute-clusters",
    "string-for-the-member-zones", "string-for-the-resources", "string-for-the-resource-selectors",
    "string-for-the-override-rules", "string-for-the-interpreter-samples", "string-for-the-kruise-values",
    "failover-grace-within-detection", "failover-negative-toleration",
)


def test_every_case_is_listed(refused):
    all_cases, _runs, _before, _after = refused
    assert sorted(all_cases) == sorted(CASE_IDS)


@pytest.mark.parametrize("case", CASE_IDS)
def test_bad_input_is_refused_with_a_message_naming_the_fix(refused, case):
    all_cases, runs, _before, _after = refused
    run = runs[case]
    assert run.returncode != 0, run.describe()
    said = " ".join(run.output.split())
    for text in all_cases[case][3]:
        assert text in said, f"{text!r} not in the output of {case}: {run.describe()}"
    assert run.changed_tasks() == [], run.describe()
    assert LEAKED_TOKEN not in run.output


def test_no_case_changed_anything_on_any_cluster(refused):
    _cases, _runs, before, after = refused
    assert len(before) > 100, "the snapshot read almost nothing"
    assert cluster_snapshot.changes(before, after) == []

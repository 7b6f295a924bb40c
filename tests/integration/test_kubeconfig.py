"""The kubeconfig step (playbooks/kubeconfig.yml) against the local stack's real API servers.

Each test installs the stack's console-like kubeconfigs (inventories/local/hosts.yml names them)
into a fresh directory, the way a user installs downloaded files: first run changes, second run
changes nothing, files are 0600, and nothing secret is printed even at -vvv. Every bad input stops
the play before any file is written, with a message that names what to fix.
"""

from __future__ import annotations

import base64
import copy
import os
import re
import socket
import stat
from pathlib import Path

import pytest
import yaml

from tests.integration.playbook_runner import PlaybookRun, play

NOT_READY_CLUSTER = "kubeconfig-test-notready"
PLAYBOOK = "playbooks/kubeconfig.yml"


def changed(result: PlaybookRun) -> int:
    return result.changed


def describe(result: PlaybookRun) -> str:
    return result.describe()


def local_inventory(stack) -> dict:
    return yaml.safe_load(Path(stack.env["MCF_STACK_INVENTORY"]).read_text())


def install_inventory(stack, dest: Path) -> dict:
    """The stack's inventory with each stack kubeconfig as a download to install under dest."""
    inventory = copy.deepcopy(local_inventory(stack))
    for group in ("federation", "members"):
        for host, hostvars in inventory["all"]["children"][group]["hosts"].items():
            hostvars["cluster_kubeconfig_source"] = hostvars["cluster_kubeconfig"]
            hostvars["cluster_kubeconfig"] = str(dest / f"{host}.kubeconfig")
    inventory["all"]["vars"]["kubeconfig_merged_path"] = str(dest / "merged.kubeconfig")
    return inventory


def hosts(inventory: dict, group: str) -> dict:
    return inventory["all"]["children"][group]["hosts"]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def secrets_of(kubeconfig: Path) -> set[str]:
    """Every token, key and certificate of a kubeconfig: as written (base64), decoded, and the
    decoded PEM's own base64 lines; tokens raw and base64-encoded."""
    data = yaml.safe_load(kubeconfig.read_text())
    found: set[str] = set()
    fields = [(entry.get("user") or {}) for entry in data.get("users") or []]
    fields += [(entry.get("cluster") or {}) for entry in data.get("clusters") or []]
    for values in fields:
        for key in ("client-key-data", "client-certificate-data", "certificate-authority-data"):
            if values.get(key):
                found.add(values[key])
                pem = base64.b64decode(values[key]).decode()
                found.add(pem.strip())
                found.update(line for line in pem.splitlines() if len(line) >= 40 and "-----" not in line)
        if values.get("token"):
            found.add(values["token"])
            found.add(base64.b64encode(values["token"].encode()).decode())
    return found


@pytest.fixture
def dest(tmp_path) -> Path:
    path = tmp_path / "kube"
    return path


def test_install_is_idempotent_private_and_prints_no_secret(stack, dest):
    inventory = install_inventory(stack, dest)
    first = play(PLAYBOOK, inventory, "-vvv", env=stack.env, timeout=600)
    assert first.returncode == 0, describe(first)
    assert changed(first) >= 4, describe(first)  # three installed files and the merged one

    for group, context in (("federation", "federation"), ("members", "internal")):
        for host, hostvars in hosts(inventory, group).items():
            installed = Path(hostvars["cluster_kubeconfig"])
            assert mode(installed) == 0o600, host
            data = yaml.safe_load(installed.read_text())
            assert data["current-context"] == context
            source = yaml.safe_load(Path(hostvars["cluster_kubeconfig_source"]).read_text())
            assert {**source, "current-context": context} == data
    merged = yaml.safe_load((dest / "merged.kubeconfig").read_text())
    assert mode(dest / "merged.kubeconfig") == 0o600
    assert sorted(c["name"] for c in merged["contexts"]) == sorted(
        list(hosts(inventory, "federation")) + list(hosts(inventory, "members")))
    assert merged["current-context"] == next(iter(hosts(inventory, "federation")))

    # The federation endpoint answers /version with gitVersion "": reported, not an error.
    assert "(unusable: federation_karmada_version is used)" in first.stdout
    for member in hosts(inventory, "members"):
        assert re.search(rf"federation members: .*\b{re.escape(member)}\b", first.stdout), describe(first)

    second = play(PLAYBOOK, inventory, "-vvv", env=stack.env, timeout=600)
    assert second.returncode == 0 and changed(second) == 0, describe(second)
    check = play(PLAYBOOK, inventory, "--check", "--diff", "-vvv", env=stack.env, timeout=600)
    assert check.returncode == 0 and changed(check) == 0, describe(check)

    secrets: set[str] = set()
    for group in ("federation", "members"):
        for hostvars in hosts(inventory, group).values():
            secrets |= secrets_of(Path(hostvars["cluster_kubeconfig_source"]))
    assert len(secrets) > 10
    for result in (first, second, check):
        output = result.stdout + result.stderr
        leaked = [secret[:12] + "..." for secret in secrets if secret in output]
        assert not leaked, f"secrets in -vvv output: {leaked}"


def test_check_mode_reports_changes_and_writes_nothing(stack, dest):
    inventory = install_inventory(stack, dest)
    result = play(PLAYBOOK, inventory, "--check", "--diff", env=stack.env, timeout=600)
    assert result.returncode == 0, describe(result)
    assert changed(result) >= 4, describe(result)
    assert not dest.exists()
    assert "<redacted sha256:" in result.stdout


def changed_tasks(result: PlaybookRun) -> list[str]:
    """The names of the tasks that reported changed on some host, in order."""
    return list(dict.fromkeys(task for _host, task, _items in result.changed_tasks()))


def merged_server(merged: Path, name: str) -> str:
    data = yaml.safe_load(merged.read_text())
    (context,) = [c for c in data["contexts"] if c["name"] == name]
    (cluster,) = [c for c in data["clusters"] if c["name"] == context["context"]["cluster"]]
    return cluster["cluster"]["server"]


def test_a_changed_context_is_switched_with_a_private_backup(stack, dest):
    inventory = install_inventory(stack, dest)
    assert play(PLAYBOOK, inventory, env=stack.env, timeout=600).returncode == 0
    member, hostvars = next(iter(hosts(inventory, "members").items()))
    source = yaml.safe_load(Path(hostvars["cluster_kubeconfig_source"]).read_text())
    servers = {c["name"]: c["cluster"]["server"] for c in source["clusters"]}
    endpoint = {c["name"]: servers[c["context"]["cluster"]] for c in source["contexts"]}
    assert endpoint["internal"] != endpoint["external"]
    merged = dest / "merged.kubeconfig"
    assert merged_server(merged, member) == endpoint["internal"]

    hostvars["cluster_context"] = "external"
    hostvars["cluster_access"] = "external"
    result = play(PLAYBOOK, inventory, "--limit", member, env=stack.env, timeout=600)
    # The stack serves each member's external endpoint through a TCP forwarder, as a cloud LB does.
    # Two files change: the member's own kubeconfig (current-context) and the merged one, whose
    # context for the member now reaches its external endpoint (a merged file left on the internal
    # one would send AWX jobs where this host can no longer go).
    assert result.returncode == 0 and changed(result) == 2, describe(result)
    assert changed_tasks(result) == ["Install the kubeconfig with the access mode's context selected",
                                     "Merge every cluster's context into one kubeconfig"], describe(result)
    installed = Path(hostvars["cluster_kubeconfig"])
    assert yaml.safe_load(installed.read_text())["current-context"] == "external"
    assert mode(installed) == 0o600
    backups = [p for p in dest.iterdir() if p.name.startswith(installed.name + ".")]
    assert len(backups) == 1 and mode(backups[0]) == 0o600
    assert yaml.safe_load(backups[0].read_text())["current-context"] == "internal"

    assert merged_server(merged, member) == endpoint["external"]
    assert mode(merged) == 0o600
    merged_backups = [p for p in dest.iterdir() if p.name.startswith(merged.name + ".")]
    assert len(merged_backups) == 1 and mode(merged_backups[0]) == 0o600
    assert merged_server(merged_backups[0], member) == endpoint["internal"]

    again = play(PLAYBOOK, inventory, "--limit", member, env=stack.env, timeout=600)
    assert again.returncode == 0 and changed(again) == 0, describe(again)


def refused(stack, dest: Path, inventory: dict, *expected: str) -> str:
    result = play(PLAYBOOK, inventory, env=stack.env, timeout=600)
    assert result.returncode != 0, describe(result)
    for text in expected:
        assert text in result.stdout, describe(result)
    assert not dest.exists() or not any(dest.iterdir()), f"files written: {list(dest.iterdir())}"
    return result.stdout


def test_missing_kubeconfig_file(stack, dest, tmp_path):
    inventory = install_inventory(stack, dest)
    member, hostvars = next(iter(hosts(inventory, "members").items()))
    missing = tmp_path / "Downloads" / f"{member}-kubeconfig.json"
    hostvars["cluster_kubeconfig_source"] = str(missing)
    refused(stack, dest, inventory, f"kubeconfig file {missing} does not exist: download")


def test_context_that_does_not_exist(stack, dest):
    inventory = install_inventory(stack, dest)
    member, hostvars = next(iter(hosts(inventory, "members").items()))
    hostvars["cluster_context"] = "federation"
    refused(stack, dest, inventory, "context 'federation' does not exist in",
            "(it has: external, internal): set cluster_context, or cluster_access")


def test_unreachable_api(stack, dest, tmp_path):
    inventory = install_inventory(stack, dest)
    member, hostvars = next(iter(hosts(inventory, "members").items()))
    data = yaml.safe_load(Path(hostvars["cluster_kubeconfig_source"]).read_text())
    port = closed_port()
    for cluster in data["clusters"]:
        cluster["cluster"]["server"] = f"https://127.0.0.1:{port}"
    download = tmp_path / "unreachable.yaml"
    download.write_text(yaml.safe_dump(data))
    download.chmod(0o600)
    hostvars["cluster_kubeconfig_source"] = str(download)
    refused(stack, dest, inventory, f"the API server https://127.0.0.1:{port} of context 'internal'",
            "cannot be reached")


def test_two_hosts_in_federation(stack, dest):
    inventory = install_inventory(stack, dest)
    federation = hosts(inventory, "federation")
    (name, hostvars), = federation.items()
    federation["second-fleet"] = dict(hostvars, cluster_kubeconfig=str(dest / "second-fleet.kubeconfig"))
    refused(stack, dest, inventory,
            f"group federation must hold exactly one host, the federation control plane, but holds 2 ({name}, second-fleet)")


def test_member_karmada_does_not_list(stack, dest):
    inventory = install_inventory(stack, dest)
    members = hosts(inventory, "members")
    template = next(iter(members.values()))
    members["idc9"] = dict(template, cluster_kubeconfig=str(dest / "idc9.kubeconfig"))
    refused(stack, dest, inventory, "does not list member cluster 'idc9' (it lists: ")


@pytest.fixture
def not_ready_cluster(stack):
    """A Cluster Karmada lists but cannot reach: push mode, an endpoint nobody serves, no secret."""
    karmada = stack.karmada()
    karmada.apply({
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": NOT_READY_CLUSTER},
        "spec": {"syncMode": "Push", "apiEndpoint": f"https://127.0.0.1:{closed_port()}"},
    })
    yield NOT_READY_CLUSTER
    karmada.kubectl("delete", "clusters.cluster.karmada.io", NOT_READY_CLUSTER, "--ignore-not-found", "--wait=false")


def test_member_listed_but_not_ready(stack, dest, not_ready_cluster):
    inventory = install_inventory(stack, dest)
    members = hosts(inventory, "members")
    template = next(iter(members.values()))
    members[not_ready_cluster] = dict(template, cluster_kubeconfig=str(dest / "notready.kubeconfig"))
    refused(stack, dest, inventory, f"member cluster '{not_ready_cluster}' is listed by Karmada at ", "but not Ready (")


def test_member_join_skips_the_membership_check(stack, dest):
    """With federation_member_join the members are joined by a later step, so they need not be listed yet."""
    inventory = install_inventory(stack, dest)
    members = hosts(inventory, "members")
    members["idc9"] = dict(next(iter(members.values())), cluster_kubeconfig=str(dest / "idc9.kubeconfig"))
    inventory["all"]["vars"]["federation_member_join"] = True
    result = play(PLAYBOOK, inventory, "--check", env=stack.env, timeout=600)
    assert result.returncode == 0, describe(result)


def test_the_files_the_step_writes_are_private_whatever_the_umask_and_the_download(stack, tmp_path):
    """The modes of what the collection itself writes, not of the stack's own files: downloads saved
    world-readable (0644, as a browser saves them under umask 022), installed under a destination whose
    directories do not exist yet, by a run under umask 022. Every installed file and the merged one are
    0600, and the directory the step created for them 0700 (plugins/modules/kubeconfig_file.py's contract)."""
    dest = tmp_path / "fresh" / "kube"
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    inventory = install_inventory(stack, dest)
    for group in ("federation", "members"):
        for host, hostvars in hosts(inventory, group).items():
            download = downloads / f"{host}.yaml"
            download.write_text(Path(hostvars["cluster_kubeconfig_source"]).read_text())
            download.chmod(0o644)
            hostvars["cluster_kubeconfig_source"] = str(download)
    assert not dest.parent.exists()
    previous = os.umask(0o022)
    try:
        result = play(PLAYBOOK, inventory, env=stack.env, timeout=600)
    finally:
        os.umask(previous)
    assert result.returncode == 0, describe(result)
    written = [Path(hostvars["cluster_kubeconfig"]) for group in ("federation", "members")
               for hostvars in hosts(inventory, group).values()] + [dest / "merged.kubeconfig"]
    assert len(written) == 4, written
    assert {path.name: oct(mode(path)) for path in written} == {path.name: oct(0o600) for path in written}
    # The directory that holds them (os.makedirs gives its mode to the last directory only).
    assert oct(mode(dest)) == oct(0o700)
    # The downloads are left as they were: the modes above are the step's own.
    assert {oct(mode(path)) for path in downloads.iterdir()} == {oct(0o644)}


def test_environment_credentials_that_would_redirect_requests_are_refused_before_any_install(stack, dest):
    """K8S_AUTH_* (set by AWX credentials) would send every kubernetes.core request of a later step to
    another cluster than the inventory's file: the kubeconfig step refuses them, naming each variable,
    before it installs anything."""
    inventory = install_inventory(stack, dest)
    env = dict(stack.env, K8S_AUTH_HOST=f"https://127.0.0.1:{closed_port()}", K8S_AUTH_API_KEY="not-a-token")
    result = play(PLAYBOOK, inventory, env=env, timeout=600)
    assert result.returncode != 0, describe(result)
    assert "the environment sets K8S_AUTH_HOST, K8S_AUTH_API_KEY" in result.stdout, describe(result)
    assert "Unset them" in result.stdout, describe(result)
    assert "not-a-token" not in result.stdout
    assert not list(dest.glob("*.kubeconfig")), "a kubeconfig was installed before the refusal"

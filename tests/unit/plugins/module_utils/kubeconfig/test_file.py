# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubeconfig parsing, context selection, path resolution, merging, redaction and private writes."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import stat

import pytest
import yaml

from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig import file as kc

SECRET_TOKEN = "tok-3f9a8b7c6d5e4f30"
SECRET_KEY = "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tc2VjcmV0"


def member_config():
    """Shaped like a CCE console download: contexts internal and external, one user."""
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "preferences": {},
        "clusters": [
            {"name": "internalCluster", "cluster": {"server": "https://192.168.0.10:5443", "certificate-authority-data": "Q0E="}},
            {"name": "externalCluster", "cluster": {"server": "https://203.0.113.10:5443", "insecure-skip-tls-verify": True}},
        ],
        "users": [{"name": "user", "user": {"client-certificate-data": "Q0VSVA==", "client-key-data": SECRET_KEY}}],
        "contexts": [
            {"name": "internal", "context": {"cluster": "internalCluster", "user": "user"}},
            {"name": "external", "context": {"cluster": "externalCluster", "user": "user"}},
        ],
        "current-context": "external",
    }


def fleet_config():
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "fleet", "cluster": {"server": "https://198.51.100.7:443"}}],
        "users": [{"name": "fleet-user", "user": {"token": SECRET_TOKEN}}],
        "contexts": [{"name": "federation", "context": {"cluster": "fleet", "user": "fleet-user"}}],
    }


def test_json_download_and_yaml_give_the_same_data():
    data = member_config()
    assert kc.parse_kubeconfig(json.dumps(data, indent=2), "k.json") == data
    assert kc.parse_kubeconfig(yaml.safe_dump(data), "k.yaml") == data


@pytest.mark.parametrize("text, expected", [
    ("", "is empty"),
    ("{\"clusters\": [", "is not valid JSON (line 1"),
    ("clusters: [\n  token: " + SECRET_TOKEN + ": x\n", "is neither YAML nor JSON (line"),
    ("- just\n- a list\n", "is not a kubeconfig"),
    ("kind: Pod\ncontexts: [{name: a}]\n", "has kind 'Pod'"),
    ("contexts: []\n", "has no contexts"),
    ("contexts: {a: b}\n", "contexts must be a list"),
    ("contexts: [{context: {}}]\n", "contexts[0] has no name"),
    ("contexts: [{name: a}, {name: a}]\n", "two entries named 'a'"),
])
def test_bad_files_are_named_and_never_quoted(text, expected):
    with pytest.raises(kc.KubeconfigError) as error:
        kc.parse_kubeconfig(text, "/dl/k.yaml")
    message = str(error.value)
    assert expected in message and "/dl/k.yaml" in message
    assert SECRET_TOKEN not in message


def test_select_context_returns_its_cluster_and_user():
    context, cluster, user = kc.select_context(member_config(), "internal", "k")
    assert context["name"] == "internal"
    assert cluster["cluster"]["server"] == "https://192.168.0.10:5443"
    assert user["name"] == "user"


def test_missing_context_lists_the_ones_there_are():
    with pytest.raises(kc.KubeconfigError) as error:
        kc.select_context(member_config(), "federation", "/dl/idc1.json")
    assert str(error.value) == (
        "context 'federation' does not exist in /dl/idc1.json (it has: external, internal): "
        "set cluster_context, or cluster_access, to one of them"
    )


@pytest.mark.parametrize("change, expected", [
    (lambda d: d["contexts"][0]["context"].update(cluster="gone"), "refers to cluster 'gone'"),
    (lambda d: d["contexts"][0]["context"].update(user="gone"), "refers to user 'gone'"),
    (lambda d: d["clusters"][0]["cluster"].pop("server"), "has no server URL"),
])
def test_dangling_references_are_errors(change, expected):
    data = member_config()
    change(data)
    with pytest.raises(kc.KubeconfigError, match=expected):
        kc.select_context(data, "internal", "k")


def test_relative_file_references_become_absolute_and_absolute_ones_stay():
    data = {
        "clusters": [{"name": "c", "cluster": {"server": "https://h", "certificate-authority": "pki/ca.crt"}}],
        "users": [{"name": "u", "user": {"client-certificate": "/etc/pki/u.crt", "client-key": "u.key", "tokenFile": "../t"}}],
        "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
    }
    resolved = kc.resolve_paths(data, "/home/ops/Downloads")
    assert resolved["clusters"][0]["cluster"]["certificate-authority"] == "/home/ops/Downloads/pki/ca.crt"
    user = resolved["users"][0]["user"]
    assert user == {"client-certificate": "/etc/pki/u.crt", "client-key": "/home/ops/Downloads/u.key", "tokenFile": "/home/ops/t"}
    assert data["users"][0]["user"]["client-key"] == "u.key", "the input is not modified"


def test_current_context_is_set_on_a_copy():
    data = member_config()
    assert kc.with_current_context(data, "internal")["current-context"] == "internal"
    assert data["current-context"] == "external"


def test_merge_renames_each_cluster_so_equal_context_names_cannot_collide():
    merged = kc.merge_kubeconfigs(
        [("ucs-fleet", fleet_config(), "federation"), ("idc1", member_config(), "internal"),
         ("test-ucs", member_config(), "external")],
        current_context="ucs-fleet",
    )
    assert [c["name"] for c in merged["contexts"]] == ["ucs-fleet", "idc1", "test-ucs"]
    assert merged["contexts"][1] == {"name": "idc1", "context": {"cluster": "idc1", "user": "idc1"}}
    servers = dict((c["name"], c["cluster"]["server"]) for c in merged["clusters"])
    assert servers == {"ucs-fleet": "https://198.51.100.7:443", "idc1": "https://192.168.0.10:5443",
                       "test-ucs": "https://203.0.113.10:5443"}
    assert merged["users"][0]["user"] == {"token": SECRET_TOKEN}
    assert merged["current-context"] == "ucs-fleet"


def test_merge_keeps_a_context_namespace():
    data = member_config()
    data["contexts"][0]["context"]["namespace"] = "apps"
    merged = kc.merge_kubeconfigs([("idc1", data, "internal")])
    assert merged["contexts"][0]["context"] == {"cluster": "idc1", "user": "idc1", "namespace": "apps"}
    assert "current-context" not in merged


@pytest.mark.parametrize("sources, current, expected", [
    ([("a", member_config(), "internal"), ("a", member_config(), "external")], None, "both named 'a'"),
    ([("a", member_config(), "internal")], "b", "current context 'b' is none of the merged clusters (a)"),
    ([("a", member_config(), "nope")], None, "context 'nope' does not exist in a"),
])
def test_merge_errors(sources, current, expected):
    with pytest.raises(kc.KubeconfigError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        kc.merge_kubeconfigs(sources, current)


def test_redact_hides_every_credential_and_shows_that_it_changed():
    data = member_config()
    data["users"].append({"name": "oidc", "user": {
        "token": SECRET_TOKEN, "password": "pw-123",
        "auth-provider": {"name": "oidc", "config": {"id-token": "idt-1", "client-secret": "cs-1"}},
        "exec": {"command": "hcloud", "env": [{"name": "HW_SK", "value": "sk-1"}]},
    }})
    redacted = kc.redact(data)
    text = kc.render(redacted)
    for secret in (SECRET_TOKEN, SECRET_KEY, "Q0VSVA==", "Q0E=", "pw-123", "idt-1", "cs-1", "sk-1"):
        assert secret not in text
    assert "hcloud" in text and "https://192.168.0.10:5443" in text
    assert data["users"][0]["user"]["client-key-data"] == SECRET_KEY, "the input is not modified"
    other = member_config()
    other["users"][0]["user"]["client-key-data"] = "Y2hhbmdlZA=="
    assert kc.redact(other) != kc.redact(member_config())
    assert kc.redact(member_config()) == kc.redact(member_config())


def test_render_is_block_yaml_in_the_given_order():
    text = kc.render(fleet_config())
    assert text.splitlines()[0] == "apiVersion: v1"
    assert yaml.safe_load(text) == fleet_config()
    assert "{" not in text


def test_insecure_clusters():
    assert kc.insecure_clusters(member_config()) == ["externalCluster"]


def test_redact_hides_exec_arguments_and_environment_values():
    data = member_config()
    data["users"][0]["user"] = {"exec": {
        "apiVersion": "client.authentication.k8s.io/v1beta1",
        "command": "kubectl-oidc",
        "args": ["get-token", "--client-secret=cs-2", "--password", "pw-456"],
        "env": [{"name": "HW_SK", "value": "sk-2"}],
    }}
    redacted = kc.redact(data)
    text = kc.render(redacted)
    for secret in ("cs-2", "pw-456", "sk-2"):
        assert secret not in text
    exec_config = redacted["users"][0]["user"]["exec"]
    assert exec_config["command"] == "kubectl-oidc" and exec_config["env"][0]["name"] == "HW_SK"
    assert len(exec_config["args"]) == 4 and all(arg.startswith("<redacted sha256:") for arg in exec_config["args"])
    changed = member_config()
    changed["users"][0]["user"] = copy_of_exec(data, args=["get-token", "--client-secret=other", "--password", "pw-456"])
    assert kc.redact(changed)["users"][0]["user"]["exec"]["args"][1] != exec_config["args"][1], "a diff shows which changed"
    assert kc.redact(changed)["users"][0]["user"]["exec"]["args"][3] == exec_config["args"][3]


def copy_of_exec(data, **changes):
    user = json.loads(json.dumps(data["users"][0]["user"]))
    user["exec"].update(changes)
    return user


def mode(path):
    return stat.S_IMODE(os.stat(str(path)).st_mode)


def old_file(path, text, file_mode):
    """A file created with ``file_mode`` (under the open umask), as a kubeconfig left readable would be."""
    with os.fdopen(os.open(str(path), os.O_WRONLY | os.O_CREAT, file_mode), "w") as out:
        out.write(text)
    assert mode(path) == file_mode
    return path


@pytest.fixture
def open_umask():
    """A umask that narrows nothing, so only the mode the code asks for counts."""
    previous = os.umask(0)
    yield
    os.umask(previous)


@pytest.fixture
def no_chmod(monkeypatch):
    """A mode fixed up after the file exists would leave a moment with the wrong one: forbid it."""
    def refuse(*args, **kwargs):
        raise AssertionError("chmod after the file exists")
    monkeypatch.setattr(os, "chmod", refuse)
    monkeypatch.setattr(os, "fchmod", refuse)


def test_a_backup_is_private_from_its_first_byte(tmp_path, monkeypatch, open_umask, no_chmod):
    dest = old_file(tmp_path / "idc1.kubeconfig", "token: old\n", 0o644)
    modes_while_writing = []
    copy = kc.shutil.copyfileobj

    def watched_copy(source, out, *args):
        modes_while_writing.append(stat.S_IMODE(os.fstat(out.fileno()).st_mode))
        return copy(source, out, *args)

    monkeypatch.setattr(kc.shutil, "copyfileobj", watched_copy)
    backup = kc.private_backup(str(dest))
    assert modes_while_writing == [0o600]
    assert mode(backup) == 0o600 and mode(dest) == 0o644
    assert open(backup).read() == "token: old\n"
    assert os.path.basename(backup).startswith("idc1.kubeconfig.%d." % os.getpid()) and backup.endswith("~")


def test_a_backup_never_writes_through_an_existing_file_or_link(tmp_path, monkeypatch):
    dest = tmp_path / "idc1.kubeconfig"
    dest.write_text("token: old\n")
    monkeypatch.setattr(kc.time, "strftime", lambda *args: "2026-01-01@00:00:00~")
    planted = tmp_path / "elsewhere"
    os.symlink(str(planted), "%s.%d.2026-01-01@00:00:00~" % (dest, os.getpid()))
    with pytest.raises(OSError):
        kc.private_backup(str(dest))
    assert not planted.exists()


def test_a_written_kubeconfig_is_private_whatever_the_old_mode(tmp_path, monkeypatch, open_umask, no_chmod):
    dest = old_file(tmp_path / "idc1.kubeconfig", "old\n", 0o666)
    modes_at_rename = []
    replace = os.replace

    def watched_replace(tmp, target):
        modes_at_rename.append(mode(tmp))
        return replace(tmp, target)

    monkeypatch.setattr(kc.os, "replace", watched_replace)
    kc.write_private_file(str(dest), "new\n")
    assert modes_at_rename == [0o600]
    assert mode(dest) == 0o600 and dest.read_text() == "new\n"
    assert sorted(os.listdir(str(tmp_path))) == ["idc1.kubeconfig"], "no temporary file is left"


@pytest.fixture
def umask_022():
    """The usual umask, under which a directory made without an explicit mode is 0755."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_every_directory_made_for_a_kubeconfig_is_private(tmp_path, umask_022):
    existing = tmp_path / "home"
    existing.mkdir(mode=0o755)
    dest = existing / "kube" / "federation" / "members" / "idc1.kubeconfig"
    result = kc.install(str(dest), member_config(), backup=True, check_mode=False, diff=False)
    assert result["changed"] and mode(dest) == 0o600
    made = [existing / "kube", existing / "kube" / "federation", existing / "kube" / "federation" / "members"]
    assert [oct(mode(path)) for path in made] == ["0o700"] * 3
    assert mode(existing) == 0o755, "a directory that was there is left as it was"


def test_directories_that_exist_are_left_alone(tmp_path, umask_022):
    parent = tmp_path / "shared"
    parent.mkdir(mode=0o755)
    dest = parent / "idc1.kubeconfig"
    kc.install(str(dest), member_config(), backup=True, check_mode=False, diff=False)
    assert mode(parent) == 0o755 and mode(dest) == 0o600


def test_check_mode_makes_no_directory(tmp_path, umask_022):
    dest = tmp_path / "kube" / "idc1.kubeconfig"
    assert kc.install(str(dest), member_config(), backup=True, check_mode=True, diff=False)["changed"]
    assert not (tmp_path / "kube").exists()


# --- KubeconfigFile: the kubeconfig_file module's run ----------------------------------------------

def file_params(**changes):
    params = dict(src=None, dest=None, context="federation", set_current_context=True, backup=True, sources=None,
                  validate_api=True, federation_members=None, engine="auto", expiry_warning_days=30,
                  request_timeout=15)
    params.update(changes)
    return params


def test_the_run_checks_the_context_s_api_with_the_file_s_paths_and_installs_nothing_without_dest(tmp_path):
    data = fleet_config()
    data["clusters"][0]["cluster"]["insecure-skip-tls-verify"] = True
    src = tmp_path / "fleet.json"
    src.write_text(json.dumps(data))
    calls = []

    def check_api(*args):
        calls.append(args)
        return {"server_version": {"git_version": "v1.32.9"}, "engine": "karmada"}

    run = kc.KubeconfigFile(file_params(src=str(src), federation_members=["idc1"]), check_api=check_api)
    result = run.run()
    assert calls == [(kc.resolve_paths(data, str(tmp_path)), "federation", "https://198.51.100.7:443", str(src),
                      ["idc1"], "auto", 15)]
    assert result == {"changed": False, "src": str(src), "context": "federation", "server": "https://198.51.100.7:443",
                      "credential": {"user": "fleet-user", "kind": "token", "expires": None, "days_left": None,
                                     "status": "unknown"},
                      "server_version": {"git_version": "v1.32.9"}, "engine": "karmada"}
    assert run.warnings == ["cluster 'fleet' in %s disables TLS verification (insecure-skip-tls-verify): use a "
                            "kubeconfig with the cluster's CA" % src]


def test_a_refused_check_leaves_what_was_found_and_writes_nothing(tmp_path):
    src = tmp_path / "fleet.yaml"
    src.write_text(yaml.safe_dump(fleet_config()))

    def refuse(*_args):
        raise kc.KubeconfigError("Karmada does not list member cluster 'idc1'")

    run = kc.KubeconfigFile(file_params(src=str(src), dest=str(tmp_path / "kube" / "fleet")), check_api=refuse)
    with pytest.raises(kc.KubeconfigError, match="does not list member cluster 'idc1'"):
        run.run()
    assert run.result["server"] == "https://198.51.100.7:443" and run.result["credential"]["kind"] == "token"
    assert not (tmp_path / "kube").exists()


def test_a_missing_file_is_named_with_the_fix(tmp_path):
    with pytest.raises(kc.KubeconfigError, match="kubeconfig file %s does not exist: download" % (tmp_path / "nope")):
        kc.KubeconfigFile(file_params(src=str(tmp_path / "nope"), validate_api=False)).run()


def test_sources_are_merged_into_dest_in_check_mode_without_a_write(tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).write_text(json.dumps(fleet_config()))
    sources = [dict(name=name, kubeconfig=str(tmp_path / name), context="federation") for name in ("a", "b")]
    dest = tmp_path / "merged"
    run = kc.KubeconfigFile(file_params(sources=sources, dest=str(dest), context="b"), check_mode=True, diff=True)
    result = run.run()
    assert result["changed"] is True and result["dest"] == str(dest) and "diff" in result
    assert not dest.exists() and run.warnings == []

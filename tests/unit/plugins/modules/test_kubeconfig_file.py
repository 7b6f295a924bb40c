# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubeconfig module: install (0600, backup, context), check mode, diff, merge, refusals.

The API checks against real API servers are in tests/integration/test_kubeconfig.py; here the
only network use is a refused connection on the loopback address.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import datetime
import json
import os
import socket
import stat
from unittest import mock

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from ansible_collections.multicloud.federation.plugins.modules import kubeconfig_file as module
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import run_module, umask

KEY_DATA = base64.b64encode(b"-----BEGIN EC PRIVATE KEY-----\nnot-a-real-key\n").decode()


def certificate_data(days):
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, u"admin")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(7).not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=days)).sign(key, hashes.SHA256())
    )
    return base64.b64encode(cert.public_bytes(serialization.Encoding.PEM)).decode()


def closed_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def console_download(days=1825, server="https://192.168.0.10:5443"):
    return {
        "kind": "Config",
        "apiVersion": "v1",
        "preferences": {},
        "clusters": [
            {"name": "internalCluster", "cluster": {"server": server, "certificate-authority-data": "Q0E="}},
            {"name": "externalCluster", "cluster": {"server": "https://203.0.113.10:5443", "certificate-authority-data": "Q0E="}},
        ],
        "users": [{"name": "user", "user": {"client-certificate-data": certificate_data(days), "client-key-data": KEY_DATA}}],
        "contexts": [
            {"name": "internal", "context": {"cluster": "internalCluster", "user": "user"}},
            {"name": "external", "context": {"cluster": "externalCluster", "user": "user"}},
        ],
        "current-context": "external",
    }


def run(capsys, check_mode=False, diff=False, **args):
    args.setdefault("validate_api", False)
    return run_module(module, capsys, args, check_mode, diff)


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def download(tmp_path):
    path = tmp_path / "Downloads" / "idc1-kubeconfig.json"
    path.parent.mkdir()
    data = console_download()
    path.write_text(json.dumps(data, indent=2))
    return path, data


def test_install_json_download_selects_the_context_and_is_idempotent(capsys, tmp_path, download):
    src, data = download
    dest = tmp_path / "kube" / "multicloud" / "idc1.kubeconfig"
    first = run(capsys, src=str(src), dest=str(dest), context="internal")
    assert first["rc"] == 0 and first["changed"] is True
    assert first["dest"] == str(dest) and first["context"] == "internal"
    assert first["server"] == "https://192.168.0.10:5443"
    assert first["credential"]["kind"] == "client-certificate" and first["credential"]["status"] == "ok"
    assert "backup_file" not in first
    installed = yaml.safe_load(dest.read_text())
    expected = dict(data)
    expected["current-context"] = "internal"
    assert installed == expected
    assert mode(dest) == 0o600 and mode(dest.parent) == 0o700
    second = run(capsys, src=str(src), dest=str(dest), context="internal")
    assert second["rc"] == 0 and second["changed"] is False


def test_check_mode_reports_the_change_and_writes_nothing(capsys, tmp_path, download):
    src, _data = download
    dest = tmp_path / "idc1.kubeconfig"
    result = run(capsys, check_mode=True, src=str(src), dest=str(dest), context="internal")
    assert result["changed"] is True and not dest.exists()


def test_diff_shows_the_context_change_but_no_credential(capsys, tmp_path, download):
    src, data = download
    dest = tmp_path / "idc1.kubeconfig"
    run(capsys, src=str(src), dest=str(dest), context="internal")
    result = run(capsys, check_mode=True, diff=True, src=str(src), dest=str(dest), context="external")
    assert result["changed"] is True
    assert "current-context: internal" in result["diff"]["before"]
    assert "current-context: external" in result["diff"]["after"]
    output = json.dumps(result)
    for secret in (data["users"][0]["user"]["client-certificate-data"], KEY_DATA, "Q0E="):
        assert secret not in output
    assert yaml.safe_load(dest.read_text())["current-context"] == "internal", "check mode wrote nothing"


def test_a_permissive_file_with_the_right_content_is_only_chmodded(capsys, tmp_path, download):
    src, _data = download
    dest = tmp_path / "idc1.kubeconfig"
    run(capsys, src=str(src), dest=str(dest), context="internal")
    os.chmod(str(dest), 0o644)
    check = run(capsys, check_mode=True, src=str(src), dest=str(dest), context="internal")
    assert check["changed"] is True and mode(dest) == 0o644
    result = run(capsys, src=str(src), dest=str(dest), context="internal")
    assert result["changed"] is True and "backup_file" not in result
    assert mode(dest) == 0o600
    assert run(capsys, src=str(src), dest=str(dest), context="internal")["changed"] is False


def test_replacing_content_keeps_a_private_backup(capsys, tmp_path, download):
    src, _data = download
    dest = tmp_path / "idc1.kubeconfig"
    dest.write_text("stale: true\n")
    os.chmod(str(dest), 0o644)
    # Both files must be 0600 when created, not be narrowed afterwards.
    with umask(0), mock.patch.object(os, "chmod", side_effect=AssertionError("chmod after the file exists")):
        result = run(capsys, src=str(src), dest=str(dest), context="internal")
    assert result["changed"] is True
    backup = result["backup_file"]
    assert open(backup).read() == "stale: true\n" and mode(backup) == 0o600
    assert mode(dest) == 0o600
    no_backup = run(capsys, src=str(src), dest=str(dest), context="external", backup=False)
    assert no_backup["changed"] is True and "backup_file" not in no_backup


def test_without_src_the_installed_file_gets_its_context_selected(capsys, tmp_path):
    dest = tmp_path / "idc1.kubeconfig"
    dest.write_text(yaml.safe_dump(console_download()))
    result = run(capsys, dest=str(dest), context="internal")
    assert result["changed"] is True
    assert yaml.safe_load(dest.read_text())["current-context"] == "internal"
    kept = run(capsys, dest=str(dest), context="external", set_current_context=False)
    assert kept["changed"] is False


def test_without_dest_only_checks(capsys, download):
    src, _data = download
    before = src.read_text()
    result = run(capsys, src=str(src), context="external")
    assert result["rc"] == 0 and result["changed"] is False and "dest" not in result
    assert result["server"] == "https://203.0.113.10:5443"
    assert src.read_text() == before


def test_relative_references_are_made_absolute_when_installed_elsewhere(capsys, tmp_path):
    downloads = tmp_path / "Downloads"
    downloads.mkdir()
    (downloads / "user.crt").write_bytes(base64.b64decode(certificate_data(400)))
    data = console_download()
    data["users"][0]["user"] = {"client-certificate": "user.crt", "client-key": "user.key"}
    (downloads / "k.yaml").write_text(yaml.safe_dump(data))
    dest = tmp_path / "kube" / "idc1.kubeconfig"
    result = run(capsys, src=str(downloads / "k.yaml"), dest=str(dest), context="internal")
    assert result["credential"]["days_left"] in (399, 400)
    user = yaml.safe_load(dest.read_text())["users"][0]["user"]
    assert user == {"client-certificate": str(downloads / "user.crt"), "client-key": str(downloads / "user.key")}


def test_missing_file_is_refused(capsys, tmp_path):
    dest = tmp_path / "idc1.kubeconfig"
    result = run(capsys, src=str(tmp_path / "nope.json"), dest=str(dest), context="internal")
    assert result["rc"] == 1 and result["failed"] is True
    assert result["msg"].startswith("kubeconfig file %s does not exist: download" % (tmp_path / "nope.json"))
    assert not dest.exists()


def test_missing_context_is_refused_before_writing(capsys, tmp_path, download):
    src, _data = download
    dest = tmp_path / "idc1.kubeconfig"
    result = run(capsys, src=str(src), dest=str(dest), context="federation")
    assert result["failed"] is True
    assert "context 'federation' does not exist in %s (it has: external, internal)" % src in result["msg"]
    assert not dest.exists()


def test_unreachable_api_is_refused_before_writing(capsys, tmp_path):
    src = tmp_path / "k.json"
    src.write_text(json.dumps(console_download(server="https://127.0.0.1:%d" % closed_port())))
    dest = tmp_path / "idc1.kubeconfig"
    result = run(capsys, src=str(src), dest=str(dest), context="internal", validate_api=True, request_timeout=5)
    assert result["failed"] is True
    assert "the API server https://127.0.0.1:" in result["msg"] and "cannot be reached" in result["msg"]
    assert "cluster_access" in result["msg"]
    assert KEY_DATA not in json.dumps(result)
    assert not dest.exists()


def test_expiring_certificate_warns(capsys, tmp_path):
    src = tmp_path / "k.json"
    src.write_text(json.dumps(console_download(days=10)))
    result = run(capsys, src=str(src), context="internal")
    assert result["rc"] == 0 and result["credential"]["status"] == "expiring"
    # ansible-core 2.19+ returns each warning as a WarningSummary with the text in event.msg. Warnings
    # are collected process-wide, so another module test's may come along: pick this module's.
    texts = [w["event"]["msg"] if isinstance(w, dict) else w for w in result["warnings"]]
    (warning,) = [text for text in texts if text.startswith("the client certificate")]
    assert warning.startswith("the client certificate of user 'user' in %s expires on " % src)
    assert "(in 9 days)" in warning or "(in 10 days)" in warning


def test_expired_certificate_is_refused(capsys, tmp_path):
    src = tmp_path / "k.json"
    src.write_text(json.dumps(console_download(days=-1)))
    result = run(capsys, src=str(src), dest=str(tmp_path / "d"), context="internal")
    assert result["failed"] is True and " expired on " in result["msg"]
    assert not (tmp_path / "d").exists()


def test_merge_gives_one_context_per_cluster(capsys, tmp_path, download):
    src, _data = download
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(yaml.safe_dump({
        "clusters": [{"name": "f", "cluster": {"server": "https://198.51.100.7"}}],
        "users": [{"name": "u", "user": {"token": "fleet-token-value"}}],
        "contexts": [{"name": "federation", "context": {"cluster": "f", "user": "u"}}],
    }))
    dest = tmp_path / "merged.kubeconfig"
    sources = [
        {"name": "ucs-fleet", "kubeconfig": str(fleet), "context": "federation"},
        {"name": "idc1", "kubeconfig": str(src), "context": "internal"},
        {"name": "test-ucs", "kubeconfig": str(src), "context": "external"},
    ]
    first = run(capsys, dest=str(dest), sources=sources, context="ucs-fleet")
    assert first["changed"] is True and mode(dest) == 0o600
    merged = yaml.safe_load(dest.read_text())
    assert [c["name"] for c in merged["contexts"]] == ["ucs-fleet", "idc1", "test-ucs"]
    assert merged["current-context"] == "ucs-fleet"
    assert "fleet-token-value" not in json.dumps(first)
    assert run(capsys, dest=str(dest), sources=sources, context="ucs-fleet")["changed"] is False


@pytest.mark.parametrize("args, message", [
    ({"src": "/x"}, "context is required"),
    ({"src": "/x", "context": "a", "federation_members": ["idc1"]}, "federation_members needs validate_api=true"),
    ({"context": "a"}, "one of the following is required: src, dest"),
    ({"sources": [{"name": "a", "kubeconfig": "/x", "context": "c"}], "context": "a"}, "one of the following is required: src, dest"),
])
def test_argument_errors(capsys, args, message):
    result = run(capsys, **args)
    assert result["failed"] is True and message in result["msg"]

# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""helm_chart_prepare: kubeVersion removed only where Helm cannot read the server's version; idempotent."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import io
import os
import tarfile

import pytest

from ansible_collections.multicloud.federation.plugins.modules import helm_chart_prepare
from ansible_collections.multicloud.federation.tests.unit.plugins.modules.module_runner import run_module

CHART_YAML = b'apiVersion: v2\nname: kruise\nversion: 1.9.0\nkubeVersion: ">= 1.16.0-0"\n'


def run(capsys, check_mode=False, **args):
    return run_module(helm_chart_prepare, capsys, args, check_mode)


@pytest.fixture
def chart_dir(tmp_path):
    src = tmp_path / "src"
    (src / "templates").mkdir(parents=True)
    (src / "Chart.yaml").write_bytes(CHART_YAML)
    (src / "templates" / "crd.yaml").write_bytes(b"kind: CustomResourceDefinition\n")
    return src


def test_empty_git_version_removes_kube_version_once(capsys, tmp_path, chart_dir):
    dest = str(tmp_path / "prepared")
    first = run(capsys, src=str(chart_dir), dest=dest, server_version="")
    assert first["rc"] == 0 and first["changed"] is True and first["kube_version_removed"] is True
    assert first["chart"] == {"name": "kruise", "version": "1.9.0", "appVersion": "", "kubeVersion": ">= 1.16.0-0"}
    assert "empty gitVersion" in first["reason"]
    with open(os.path.join(dest, "Chart.yaml"), "rb") as handle:
        assert handle.read() == b"apiVersion: v2\nname: kruise\nversion: 1.9.0\n"
    second = run(capsys, src=str(chart_dir), dest=dest, server_version="")
    assert second["changed"] is False and second["files_written"] == []


def test_satisfied_version_keeps_the_chart_as_it_is(capsys, tmp_path, chart_dir):
    dest = str(tmp_path / "prepared")
    result = run(capsys, src=str(chart_dir), dest=dest, server_version="v1.32.9")
    assert result["kube_version_removed"] is False
    with open(os.path.join(dest, "Chart.yaml"), "rb") as handle:
        assert handle.read() == CHART_YAML
    # Asked to remove it anyway: only Chart.yaml changes.
    forced = run(capsys, src=str(chart_dir), dest=dest, server_version="v1.32.9", remove_kube_version="always")
    assert forced["changed"] is True and forced["files_written"] == ["Chart.yaml"]


def test_a_cluster_too_old_for_the_chart_keeps_kube_version_so_helm_refuses_it(capsys, tmp_path, chart_dir):
    dest = str(tmp_path / "prepared")
    result = run(capsys, src=str(chart_dir), dest=dest, server_version="v1.15.3")
    assert result["rc"] == 0 and result["kube_version_removed"] is False
    assert "refuses the chart when the server is too old" in result["reason"]
    with open(os.path.join(dest, "Chart.yaml"), "rb") as handle:
        assert handle.read() == CHART_YAML


def test_check_mode_writes_nothing(capsys, tmp_path, chart_dir):
    dest = tmp_path / "prepared"
    result = run(capsys, check_mode=True, src=str(chart_dir), dest=str(dest), server_version="")
    assert result["changed"] is True and sorted(result["files_written"]) == ["Chart.yaml", "templates/crd.yaml"]
    assert not dest.exists()


def test_archive_source_and_stale_files_removed(capsys, tmp_path, chart_dir):
    archive = tmp_path / "kruise-1.9.0.tgz"
    with tarfile.open(str(archive), "w:gz") as tar:
        for rel in ("Chart.yaml", "templates/crd.yaml"):
            data = (chart_dir / rel).read_bytes()
            info = tarfile.TarInfo("kruise/" + rel)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    dest = tmp_path / "prepared"
    (dest / "old").mkdir(parents=True)
    (dest / "old" / "stale.yaml").write_bytes(b"x")
    result = run(capsys, src=str(archive), dest=str(dest), server_version="")
    assert result["kube_version_removed"] is True
    assert sorted(result["files_written"]) == ["Chart.yaml", "old/stale.yaml", "templates/crd.yaml"]
    assert not (dest / "old").exists()


def test_missing_source_and_missing_server_version(capsys, tmp_path):
    result = run(capsys, src=str(tmp_path / "nope"), dest=str(tmp_path / "d"), server_version="v1.32.9")
    assert result["rc"] == 1 and "does not exist" in result["msg"]
    result = run(capsys, src=str(tmp_path), dest=str(tmp_path / "d"))
    assert result["rc"] == 1 and "server_version is required" in result["msg"]


def test_without_dest_the_chart_is_only_read_and_checked(capsys, tmp_path, chart_dir):
    before = sorted(os.listdir(str(tmp_path)))
    result = run(capsys, src=str(chart_dir), version="1.9.0", remove_kube_version="never")
    assert result["rc"] == 0 and result["changed"] is False, result
    assert result["chart"]["version"] == "1.9.0" and "path" not in result
    assert sorted(os.listdir(str(tmp_path))) == before


def test_a_chart_of_another_version_is_refused_before_anything_is_written(capsys, tmp_path, chart_dir):
    dest = tmp_path / "prepared"
    result = run(capsys, src=str(chart_dir), dest=str(dest), version="1.5.1", server_version="")
    assert result["rc"] == 1
    assert "holds chart kruise 1.9.0, not version 1.5.1" in result["msg"], result
    assert not dest.exists()


def test_a_directory_that_is_not_a_chart_is_refused(capsys, tmp_path):
    (tmp_path / "README.md").write_text("no chart here")
    result = run(capsys, src=str(tmp_path), version="1.9.0", remove_kube_version="never")
    assert result["rc"] == 1 and "has no Chart.yaml" in result["msg"], result

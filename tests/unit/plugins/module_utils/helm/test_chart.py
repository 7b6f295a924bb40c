# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""When kubeVersion is removed (only where Helm cannot read the server's version) and the Chart.yaml edit."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import io
import tarfile

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.helm.chart import (
    ChartSourceError,
    chart_kube_version,
    chart_metadata,
    check_chart_version,
    helm_can_parse_version,
    kube_version_removal,
    prepared_files,
    read_chart,
    read_chart_archive,
    read_tree,
    remove_kube_version,
)


# Each accepted or refused by github.com/Masterminds/semver/v3@v3.3.0 NewVersion, the parser
# helm's IsCompatibleRange calls on the server's gitVersion.
@pytest.mark.parametrize("version", ["v1.32.9", "1.2.3", "v1.25.3-gke.100", "v1.28.3-r0-28.0.8", "1.2", "v1",
                                     "1.2.3+meta", "v0.0.0-master", "01.2.3"])
def test_versions_helm_parses(version):
    assert helm_can_parse_version(version) is True


@pytest.mark.parametrize("version", ["", "v1.25+", "1.2.3-01", "1.2.3.4", "latest", "v", "18446744073709551616.0.0"])
def test_versions_helm_cannot_parse(version):
    assert helm_can_parse_version(version) is False


def test_empty_git_version_like_ucs_removes_kube_version():
    remove, reason = kube_version_removal("auto", ">= 1.18.0-0", "")
    assert remove is True
    assert reason == "the server reports an empty gitVersion, which Helm cannot parse"


def test_a_version_helm_cannot_parse_removes_kube_version():
    assert kube_version_removal("auto", ">= 1.18.0-0", "v1.25+") == (
        True, "Helm cannot parse the server's gitVersion 'v1.25+'")


@pytest.mark.parametrize("server_version", ["v1.32.9", "v1.15.3", "v1.25.3-gke.100"])
def test_a_readable_version_keeps_kube_version_for_helm_to_check(server_version):
    # Too old or not: Helm's own check decides, so a cluster that is too old stays refused.
    remove, reason = kube_version_removal("auto", ">= 1.16.0-0", server_version)
    assert remove is False
    assert reason == ("Helm checks kubeVersion '>= 1.16.0-0' against the server's %s itself and refuses the "
                      "chart when the server is too old" % server_version)


def test_always_never_and_a_chart_without_kube_version():
    assert kube_version_removal("always", ">= 1.16.0-0", "v1.32.9")[0] is True
    assert kube_version_removal("never", ">= 1.16.0-0", "")[0] is False
    for mode in ("auto", "always", "never"):
        assert kube_version_removal(mode, "", "") == (False, "the chart declares no kubeVersion")


CHART_YAML = """apiVersion: v1
name: kruise
description: Helm chart for kruise components
version: 1.8.3
appVersion: 1.8.3
kubeVersion: ">= 1.18.0-0"
keywords:
  - kubernetes
"""


def test_kube_version_is_read_and_removed_as_one_line():
    assert chart_kube_version(CHART_YAML) == ">= 1.18.0-0"
    patched = remove_kube_version(CHART_YAML)
    assert "kubeVersion" not in patched
    assert patched == CHART_YAML.replace('kubeVersion: ">= 1.18.0-0"\n', "")
    assert remove_kube_version(patched) == patched


def test_unquoted_kube_version_and_nested_keys():
    text = "name: x\nkubeVersion: >=1.16.0-0 # min\nannotations:\n  kubeVersion: keep\n"
    assert chart_kube_version(text) == ">=1.16.0-0"
    assert remove_kube_version(text) == "name: x\nannotations:\n  kubeVersion: keep\n"


def archive(files, top="kruise"):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for rel, body in files.items():
            info = tarfile.TarInfo("%s/%s" % (top, rel) if top else rel)
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    return buffer.getvalue()


def test_chart_archive_is_read_without_its_top_directory():
    files = read_chart_archive(archive({"Chart.yaml": CHART_YAML.encode(), "templates/a.yaml": b"a: 1\n"}))
    assert sorted(files) == ["Chart.yaml", "templates/a.yaml"]
    assert chart_metadata(files) == {"name": "kruise", "version": "1.8.3", "appVersion": "1.8.3",
                                     "kubeVersion": ">= 1.18.0-0"}
    patched = prepared_files(files, remove=True)
    assert b"kubeVersion" not in patched["Chart.yaml"]
    assert patched["templates/a.yaml"] == files["templates/a.yaml"]
    assert prepared_files(files, remove=False) == files


@pytest.mark.parametrize("files,top", [
    ({"templates/a.yaml": b""}, "kruise"),
    ({"Chart.yaml": b"name: x\n"}, ""),
    ({"../Chart.yaml": b"name: x\n"}, "kruise"),
])
def test_bad_chart_archives_are_refused(files, top):
    with pytest.raises(ChartSourceError):
        read_chart_archive(archive(files, top))


def test_not_an_archive():
    with pytest.raises(ChartSourceError):
        read_chart_archive(b"not a tarball")


def test_a_chart_of_the_version_asked_for_passes():
    check_chart_version({"name": "kruise", "version": "1.9.0"}, "1.9.0", "/charts/kruise")
    check_chart_version({"name": "kruise", "version": "1.9.0"}, None, "/charts/kruise")


def test_a_local_chart_of_another_version_is_refused_naming_both():
    with pytest.raises(ChartSourceError, match=r"/charts/kruise holds chart kruise 1\.9\.0, not version 9\.9\.9: "
                                               r"point the chart reference at a kruise 9\.9\.9 chart, or ask for version 1\.9\.0"):
        check_chart_version({"name": "kruise", "version": "1.9.0"}, "9.9.9", "/charts/kruise")


def test_a_local_chart_is_read_from_a_directory_or_an_archive(tmp_path):
    files = {"Chart.yaml": CHART_YAML.encode(), "templates/a.yaml": b"a: 1\n"}
    (tmp_path / "kruise" / "templates").mkdir(parents=True)
    for rel, body in files.items():
        (tmp_path / "kruise" / rel).write_bytes(body)
    (tmp_path / "kruise-1.8.3.tgz").write_bytes(archive(files))
    assert read_chart(str(tmp_path / "kruise")) == files
    assert read_chart(str(tmp_path / "kruise-1.8.3.tgz")) == files
    with pytest.raises(ChartSourceError, match="does not exist"):
        read_chart(str(tmp_path / "missing"))


def test_read_tree_gives_every_file_by_relative_path_and_nothing_for_a_missing_directory(tmp_path):
    (tmp_path / "dest" / "templates" / "crds").mkdir(parents=True)
    (tmp_path / "dest" / "values.yaml").write_bytes(b"a: 1\n")
    (tmp_path / "dest" / "templates" / "crds" / "c.yaml").write_bytes(b"kind: C\n")
    assert read_tree(str(tmp_path / "dest")) == {"values.yaml": b"a: 1\n", "templates/crds/c.yaml": b"kind: C\n"}
    assert read_tree(str(tmp_path / "missing")) == {} and read_tree(str(tmp_path / "dest" / "values.yaml")) == {}

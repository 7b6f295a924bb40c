# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Helm's kubeVersion check (Masterminds/semver v3 rules) and the Chart.yaml kubeVersion edit."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import io
import tarfile

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.helm_chart import (
    ChartSourceError,
    SemverError,
    chart_kube_version,
    chart_metadata,
    kube_version_verdict,
    parse_constraints,
    parse_version,
    prepared_files,
    read_chart_archive,
    remove_kube_version,
    satisfies,
)

# (constraint, version, Check result), each produced by github.com/Masterminds/semver/v3@v3.3.0
# NewConstraint(c).Check(NewVersion(v)) - the library behind helm's IsCompatibleRange - over a
# grid of 45 constraints x 32 versions; this is one true and one false row per constraint. The
# whole grid (1440 rows) matched when this module was written.
MASTERMINDS_VECTORS = [
    ('!= 1.2.3', '1.2.3', False),
    ('!= 1.2.3', '1.0.0-beta.11', True),
    ('!=1.2.3-0', '1.2.3-0', False),
    ('!=1.2.3-0', '0.0.3', True),
    ('!=1.2.x', '1.2.3-0', False),
    ('!=1.2.x', '1.5.9', True),
    ('!=1.x', '1.5.0', False),
    ('!=1.x', '0.0.4', True),
    ('*', 'v1.25.3-gke.100', False),
    ('*', '1.5.0', True),
    ('1.2 - 1.4.5', 'v1.32.9', False),
    ('1.2 - 1.4.5', '1.2.3+meta', True),
    ('1.2.3', 'v1.18.0-rc.1', False),
    ('1.2.3', '01.2.3', True),
    ('1.2.3 - 2', 'v1.26.0-alpha.0', False),
    ('1.2.3 - 2', '1.4.5', True),
    ('1.2.3 1.2.4', '1.4.5', False),
    ('1.2.x', '1.5.9', False),
    ('1.2.x', '01.2.3', True),
    ('1.x', '1.0.0-alpha', False),
    ('1.x', '1.6.0', True),
    ('< 1.0.0-rc.1', 'v1.18.0-rc.1', False),
    ('< 1.0.0-rc.1', '1.0.0-beta.11', True),
    ('< 1.25', 'v1.25.3-gke.100', False),
    ('< 1.25', '0.0.3', True),
    ('<= 1.2', '1.4.6', False),
    ('<= 1.2', '0.0.0', True),
    ('<=1.2.3', '1.0.0-beta.11', False),
    ('<=1.2.3', '1.2.3', True),
    ('=1.2.3', '1.2.3-0', False),
    ('=1.2.3', '1.2.3', True),
    ('=< 1.5', 'v1.25.3-gke.100', False),
    ('=< 1.5', '1.2.0', True),
    ('=> 1.5', '0.0.4', False),
    ('=> 1.5', 'v1.32.9', True),
    ('> 1.0.0-alpha', '0.0.3', False),
    ('> 1.0.0-alpha', '1.0.0-rc.1', True),
    ('> 1.2', '1.0.0-rc.1', False),
    ('> 1.2', '1.17.9', True),
    ('> 1.2.x', '1.0.0-rc.1', False),
    ('> 1.2.x', '1.5.9', True),
    ('>1.x', '1.18.0', False),
    ('>1.x', '2.0.0', True),
    ('>= 1.0.0-beta.2', '0.0.3', False),
    ('>= 1.0.0-beta.2', '1.2.3', True),
    ('>= 1.13.0 < 1.20.0', '1.32.9', False),
    ('>= 1.13.0 < 1.20.0', '1.17.9', True),
    ('>= 1.16.0-0', '0.0.0', False),
    ('>= 1.16.0-0', '2.0.0', True),
    ('>= 1.18.0', '0.0.3', False),
    ('>= 1.18.0', '1.18.0', True),
    ('>= 1.18.0-0', '1.5.9', False),
    ('>= 1.18.0-0', 'v1.26.0-alpha.0', True),
    ('>= 1.20.0-0 < 1.30.0-0', '0.2.9', False),
    ('>= 1.20.0-0 < 1.30.0-0', 'v1.26.0-alpha.0', True),
    ('>=1.18', '1.0.0-rc.1', False),
    ('>=1.18', '1.18.0', True),
    ('>=1.2, <1.4 || >= 2.0', '0.0.0', False),
    ('>=1.2, <1.4 || >= 2.0', '1.2', True),
    ('^0.0.3', '1.0.0-alpha', False),
    ('^0.0.3', '0.0.3', True),
    ('^0.2.3', '1.0.0-rc.1', False),
    ('^0.2.3', '0.2.3', True),
    ('^0.x', '1.17.9', False),
    ('^0.x', '0.2.3', True),
    ('^1.2', '0.0.0', False),
    ('^1.2', '1.2', True),
    ('^1.x', '1.0.0-beta.11', False),
    ('^1.x', '1.4.5', True),
    ('x', '1.0.0-rc.1', False),
    ('x', '0.0.3', True),
    ('~0', '1.0.0', False),
    ('~0', '0.0.0', True),
    ('~0.0.0', '1.0.0-beta.11', False),
    ('~0.0.0', '1.2.0', True),
    ('~1', '1.2.3-0', False),
    ('~1', '1.4.6', True),
    ('~1.2.3', '1.0.0', False),
    ('~1.2.3', '1.2.3+meta', True),
    ('~1.2.x', '0.0.3', False),
    ('~1.2.x', '1.2', True),
    ('~> 1.2', '1.4.5', False),
    ('~> 1.2', '1.2.3', True),
]


@pytest.mark.parametrize("constraint,version,expected", MASTERMINDS_VECTORS)
def test_satisfies_matches_masterminds_semver(constraint, version, expected):
    assert satisfies(constraint, version) is expected


@pytest.mark.parametrize("version", ["", "v1.25+", "1.2.3-01", "1.2.3.4", "latest", "v"])
def test_versions_helm_cannot_parse(version):
    with pytest.raises(SemverError):
        parse_version(version)


@pytest.mark.parametrize("constraint", ["junk", ">= 1.18.0-0 || junk", ">>1.2", "1.2.3 !"])
def test_constraints_helm_cannot_parse(constraint):
    with pytest.raises(SemverError):
        parse_constraints(constraint)


def test_kruise_charts_on_a_regular_server_are_accepted():
    assert kube_version_verdict(">= 1.18.0-0", "v1.32.9") == (
        True, "server version v1.32.9 satisfies kubeVersion '>= 1.18.0-0'")
    # The -0 suffix admits prerelease and vendor builds such as GKE's.
    assert kube_version_verdict(">= 1.16.0-0", "v1.25.3-gke.100")[0] is True


def test_empty_git_version_like_ucs_is_refused_with_the_reason():
    accepted, reason = kube_version_verdict(">= 1.18.0-0", "")
    assert accepted is False
    assert "empty gitVersion" in reason


def test_older_server_and_unparsable_values_are_refused():
    assert kube_version_verdict(">= 1.18.0-0", "v1.17.9")[0] is False
    accepted, reason = kube_version_verdict(">= 1.18.0-0", "v1.25+")
    assert accepted is False and "cannot evaluate" in reason
    assert kube_version_verdict("junk", "v1.32.9")[0] is False


def test_chart_without_kube_version_is_always_accepted():
    assert kube_version_verdict("", "")[0] is True


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
    assert chart_metadata(files) == {"name": "kruise", "version": "1.8.3", "kubeVersion": ">= 1.18.0-0"}
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

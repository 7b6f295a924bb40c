# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""When to remove ``kubeVersion`` from a chart, and removing it.

Helm refuses to install a chart whose ``Chart.yaml kubeVersion`` the server version does not
satisfy, and also when the server version cannot be parsed (helm.sh/helm/v3@v3.17.4
``pkg/chartutil/compatible.go IsCompatibleRange``: ``semver.NewVersion(gitVersion)`` first; the
version is the server's ``/version`` gitVersion, ``pkg/action/action.go getCapabilities``). A
Karmada control plane behind UCS answers ``/version`` with an empty gitVersion, so every chart
with a ``kubeVersion`` fails there although nothing is known to be too old.

Only that case needs the chart changed: when Helm can read the server's version, its own check is
the guard against a cluster that is too old, and the chart is kept as it is so that Helm refuses
such a cluster with its own message. ``helm_can_parse_version`` therefore follows
github.com/Masterminds/semver/v3@v3.3.0 ``version.go NewVersion`` (the non-strict parser Helm
calls) and nothing more.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import io
import os
import re
import tarfile

# version.go semVerRegex.
_VERSION = re.compile(
    r"^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?"
    r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?$"
)
_NUM = re.compile(r"^[0-9]+$")
_UINT64_MAX = 2 ** 64 - 1


def helm_can_parse_version(text):
    """Whether ``semver.NewVersion`` accepts ``text`` (``v`` prefix allowed, minor and patch optional)."""
    match = _VERSION.match(text or "")
    if not match:
        return False
    # Each of major, minor and patch must fit an uint64.
    if any(int(group.lstrip(".")) > _UINT64_MAX for group in match.groups()[:3] if group):
        return False
    prerelease = match.group(5) or ""
    # Numeric prerelease identifiers must not have leading zeros.
    return not any(_NUM.match(part) and len(part) > 1 and part[0] == "0"
                   for part in (prerelease.split(".") if prerelease else []))


def kube_version_removal(mode, chart_kube_version, server_version):
    """Whether the prepared chart lacks the chart's kubeVersion, and why: ``(remove, reason)``.

    ``mode`` is ``always``, ``never`` or ``auto``; ``auto`` removes it only when Helm cannot read the
    server's version, where Helm would refuse the chart whatever it requires. A version Helm can
    read leaves Helm's own check in place.
    """
    if not chart_kube_version:
        return False, "the chart declares no kubeVersion"
    if mode == "always":
        return True, "removal was asked for (remove_kube_version=always)"
    if mode == "never":
        return False, "removal was switched off (remove_kube_version=never)"
    if not server_version:
        return True, "the server reports an empty gitVersion, which Helm cannot parse"
    if not helm_can_parse_version(server_version):
        return True, "Helm cannot parse the server's gitVersion %r" % server_version
    return False, ("Helm checks kubeVersion %r against the server's %s itself and refuses the chart when the "
                   "server is too old" % (chart_kube_version, server_version))


# ---------------------------------------------------------------------------------------------
# Chart files.
# ---------------------------------------------------------------------------------------------

# A top-level kubeVersion key on one line (the form every published chart uses), with its
# value quoted or not; indented keys belong to other mappings and are left alone.
_KUBE_VERSION_LINE = re.compile(r"^kubeVersion[ \t]*:[^\n]*(\n|$)", re.MULTILINE)


def chart_kube_version(chart_yaml_text):
    """The kubeVersion value of a Chart.yaml text, or "" when there is none."""
    match = _KUBE_VERSION_LINE.search(chart_yaml_text)
    if not match:
        return ""
    value = match.group(0).split(":", 1)[1].strip()
    if "#" in value and not value.startswith(("'", '"')):
        value = value.split("#", 1)[0].strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in ("'", '"'):
        value = value[1:-1]
    return value


def remove_kube_version(chart_yaml_text):
    """Chart.yaml text without its top-level kubeVersion line (what ``sed -i '/kubeVersion/d'`` does)."""
    return _KUBE_VERSION_LINE.sub("", chart_yaml_text)


class ChartSourceError(ValueError):
    """The chart source is not a chart directory or a chart archive."""


def _safe_relative(path):
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        raise ChartSourceError("unsafe path in chart archive: %r" % path)
    return "/".join(parts)


def read_chart_archive(data):
    """Files of a chart archive (``helm package`` layout: one top directory), by relative path."""
    files = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
            for member in tar.getmembers():
                if not member.isfile():
                    continue
                rel = _safe_relative(member.name)
                if "/" not in rel:
                    raise ChartSourceError("chart archive entry %r is outside a top directory" % member.name)
                handle = tar.extractfile(member)
                files[rel] = handle.read() if handle else b""
    except tarfile.TarError as exc:
        raise ChartSourceError("not a chart archive: %s" % exc)
    tops = set(rel.split("/", 1)[0] for rel in files)
    if len(tops) != 1:
        raise ChartSourceError("a chart archive holds exactly one top directory, found %s" % sorted(tops))
    top = tops.pop()
    files = dict((rel.split("/", 1)[1], body) for rel, body in files.items())
    if "Chart.yaml" not in files:
        raise ChartSourceError("the chart archive has no %s/Chart.yaml" % top)
    return files


def read_chart(path):
    """Files of a local chart: a chart directory or a chart archive (``helm package``/``helm pull``)."""
    if os.path.isdir(path):
        return read_chart_directory(path)
    if os.path.isfile(path):
        with open(path, "rb") as handle:
            return read_chart_archive(handle.read())
    raise ChartSourceError("chart source %s does not exist" % path)


def read_chart_directory(directory):
    """Files of an unpacked chart directory, by relative path."""
    if not os.path.isfile(os.path.join(directory, "Chart.yaml")):
        raise ChartSourceError("%s has no Chart.yaml" % directory)
    return read_tree(directory)


def read_tree(directory):
    """Every file below ``directory``, {relative path with "/": bytes}; {} when there is no such directory
    (helm_chart_prepare's destination before its first run)."""
    files = {}
    for root, dirs, names in os.walk(directory):
        dirs.sort()
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as handle:
                files[os.path.relpath(path, directory).replace(os.sep, "/")] = handle.read()
    return files


def prepared_files(files, remove):
    """The chart's files with kubeVersion removed from Chart.yaml when ``remove`` is true."""
    if not remove:
        return dict(files)
    result = dict(files)
    text = files["Chart.yaml"].decode("utf-8")
    result["Chart.yaml"] = remove_kube_version(text).encode("utf-8")
    return result


def check_chart_version(meta, version, src):
    """Refuse a chart whose Chart.yaml version is not ``version``: Helm ignores ``--version`` for a
    local directory or archive, so a mismatch would silently install another version."""
    if version and meta["version"] != version:
        raise ChartSourceError(
            "%s holds chart %s %s, not version %s: point the chart reference at a %s %s chart, or ask for "
            "version %s" % (src, meta["name"], meta["version"], version, meta["name"] or "the", version, meta["version"]))


def chart_metadata(files):
    """name, version, appVersion and kubeVersion read from Chart.yaml (line-based, top-level keys
    only; "" for a key that is absent)."""
    text = files["Chart.yaml"].decode("utf-8")
    meta = {"kubeVersion": chart_kube_version(text)}
    for key in ("name", "version", "appVersion"):
        match = re.search(r"^%s[ \t]*:[ \t]*(.*)$" % key, text, re.MULTILINE)
        value = match.group(1).strip() if match else ""
        if len(value) >= 2 and value[0] == value[-1] and value[0] in ("'", '"'):
            value = value[1:-1]
        meta[key] = value
    return meta

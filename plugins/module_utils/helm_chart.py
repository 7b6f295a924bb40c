# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Helm's ``kubeVersion`` check, and removing ``kubeVersion`` from a chart.

Helm refuses to install a chart whose ``Chart.yaml kubeVersion`` the server version does not
satisfy, and also when either cannot be parsed (helm.sh/helm/v3@v3.17.4
``pkg/chartutil/compatible.go IsCompatibleRange``: ``semver.NewVersion(gitVersion)`` then
``semver.NewConstraint(kubeVersion).Check``; the version is the server's ``/version`` gitVersion,
``pkg/action/action.go getCapabilities``). A Karmada control plane behind UCS answers ``/version``
with an empty gitVersion, so every chart with a ``kubeVersion`` fails there.

``satisfies`` reproduces that check with the rules of github.com/Masterminds/semver/v3@v3.3.0
(``version.go NewVersion``/``Compare``, ``constraints.go``), the library Helm 3 uses, so the
collection removes ``kubeVersion`` exactly when Helm would refuse the chart.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import io
import os
import re
import tarfile

# version.go semVerRegex (NewVersion, the non-strict parser Helm calls).
_VERSION = re.compile(
    r"^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?"
    r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?$"
)
# constraints.go cvRegex, the version inside a constraint (x, X and * allowed).
_CV = (
    r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?"
    r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
)
_OPS = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^"
_CONSTRAINT = re.compile(r"^\s*(%s)\s*(%s)\s*$" % (_OPS, _CV))
_RANGE = re.compile(r"\s*(%s)\s+-\s+(%s)\s*" % (_CV, _CV))
_FIND = re.compile(r"(%s)\s*(%s)" % (_OPS, _CV))
_VALID = re.compile(r"^(\s*(%s)\s*(%s)\s*)((?:\s+|,\s*)(%s)\s*(%s)\s*)*$" % (_OPS, _CV, _OPS, _CV))
_NUM = re.compile(r"^[0-9]+$")
_ALLOWED = re.compile(r"^[0-9A-Za-z\-]*$")
_UINT64_MAX = 2 ** 64 - 1


class SemverError(ValueError):
    """A version or constraint Masterminds/semver would not parse."""


class Version(object):
    """A parsed version: major, minor, patch and the prerelease string."""

    def __init__(self, major, minor, patch, pre=""):
        self.major = major
        self.minor = minor
        self.patch = patch
        self.pre = pre

    def __repr__(self):
        return "Version(%d, %d, %d, %r)" % (self.major, self.minor, self.patch, self.pre)


def _segment(text):
    value = int(text)
    if value > _UINT64_MAX:
        raise SemverError("version segment out of range: %s" % text)
    return value


def parse_version(text):
    """``semver.NewVersion``: ``v`` prefix allowed, minor and patch optional."""
    match = _VERSION.match(text or "")
    if not match:
        raise SemverError("invalid semantic version: %r" % (text,))
    pre = match.group(5) or ""
    for part in pre.split(".") if pre else []:
        if _NUM.match(part):
            if len(part) > 1 and part[0] == "0":
                raise SemverError("version segment starts with 0: %r" % (text,))
        elif not _ALLOWED.match(part):
            raise SemverError("invalid prerelease: %r" % (text,))
    return Version(
        _segment(match.group(1)),
        _segment(match.group(2)[1:]) if match.group(2) else 0,
        _segment(match.group(3)[1:]) if match.group(3) else 0,
        pre,
    )


def _compare_pre_part(s, o):
    if s == o:
        return 0
    if s == "":
        return -1
    if o == "":
        return 1
    s_num = _NUM.match(s) is not None
    o_num = _NUM.match(o) is not None
    if not s_num and not o_num:
        return 1 if s > o else -1
    if not o_num:
        return -1
    if not s_num:
        return 1
    return 1 if int(s) > int(o) else -1


def _compare_prerelease(v, o):
    sparts = v.split(".")
    oparts = o.split(".")
    for i in range(max(len(sparts), len(oparts))):
        d = _compare_pre_part(sparts[i] if i < len(sparts) else "", oparts[i] if i < len(oparts) else "")
        if d:
            return d
    return 0


def compare(v, o):
    """``Version.Compare``: -1, 0 or 1; build metadata is ignored."""
    for a, b in ((v.major, o.major), (v.minor, o.minor), (v.patch, o.patch)):
        if a != b:
            return -1 if a < b else 1
    if v.pre == "" and o.pre == "":
        return 0
    if v.pre == "":
        return 1
    if o.pre == "":
        return -1
    return _compare_prerelease(v.pre, o.pre)


class _Constraint(object):
    def __init__(self, op, con, dirty=False, minor_dirty=False, patch_dirty=False):
        self.op = op
        self.con = con
        self.dirty = dirty
        self.minor_dirty = minor_dirty
        self.patch_dirty = patch_dirty


def _is_x(text):
    return text in ("x", "X", "*")


def _parse_constraint(text):
    match = _CONSTRAINT.match(text)
    if not match:
        raise SemverError("improper constraint: %s" % text)
    op = match.group(1)
    major, minor, patch, pre_part = match.group(3), match.group(4) or "", match.group(5) or "", match.group(6) or ""
    dirty = minor_dirty = patch_dirty = False
    ver = match.group(2)
    if _is_x(major) or major == "":
        ver = "0.0.0" + pre_part
        dirty = True
    elif _is_x(minor[1:]) or minor == "":
        minor_dirty = dirty = True
        ver = "%s.0.0%s" % (major, pre_part)
    elif _is_x(patch[1:]) or patch == "":
        dirty = patch_dirty = True
        ver = "%s%s.0%s" % (major, minor, pre_part)
    try:
        con = parse_version(ver)
    except SemverError:
        raise SemverError("constraint Parser Error")
    return _Constraint(op, con, dirty, minor_dirty, patch_dirty)


def parse_constraints(text):
    """``semver.NewConstraint``: a list of OR groups, each a list of AND constraints."""
    for match in _RANGE.finditer(text):
        text = text.replace(match.group(0), ">= %s, <= %s " % (match.group(1), match.group(11)), 1)
    groups = []
    for segment in text.split("||"):
        if not _VALID.match(segment):
            raise SemverError("improper constraint: %s" % segment)
        found = [m.group(0) for m in _FIND.finditer(segment)] or [segment]
        groups.append([_parse_constraint(item) for item in found])
    return groups


def _prerelease_excluded(v, c):
    return v.pre != "" and c.con.pre == ""


def _tilde(v, c):
    if _prerelease_excluded(v, c) or compare(v, c.con) < 0:
        return False
    if (c.con.major, c.con.minor, c.con.patch) == (0, 0, 0) and not c.minor_dirty and not c.patch_dirty:
        return True
    if v.major != c.con.major:
        return False
    return v.minor == c.con.minor or c.minor_dirty


def _tilde_or_equal(v, c):
    if _prerelease_excluded(v, c):
        return False
    if c.dirty:
        return _tilde(v, c)
    return compare(v, c.con) == 0


def _not_equal(v, c):
    if c.dirty:
        if _prerelease_excluded(v, c):
            return False
        if c.con.major != v.major:
            return True
        if c.con.minor != v.minor and not c.minor_dirty:
            return True
        if c.minor_dirty:
            return False
        if c.con.patch != v.patch and not c.patch_dirty:
            return True
        if c.patch_dirty:
            if v.pre != "" or c.con.pre != "":
                return _compare_prerelease(v.pre, c.con.pre) != 0
            return False
    return compare(v, c.con) != 0


def _greater(v, c):
    if _prerelease_excluded(v, c):
        return False
    if not c.dirty:
        return compare(v, c.con) == 1
    if v.major != c.con.major:
        return v.major > c.con.major
    if c.minor_dirty:
        return False
    if c.patch_dirty:
        return v.minor > c.con.minor
    return compare(v, c.con) == 1


def _less(v, c):
    return not _prerelease_excluded(v, c) and compare(v, c.con) < 0


def _greater_equal(v, c):
    return not _prerelease_excluded(v, c) and compare(v, c.con) >= 0


def _less_equal(v, c):
    if _prerelease_excluded(v, c):
        return False
    if not c.dirty:
        return compare(v, c.con) <= 0
    if v.major > c.con.major:
        return False
    return not (v.major == c.con.major and v.minor > c.con.minor and not c.minor_dirty)


def _caret(v, c):
    if _prerelease_excluded(v, c) or compare(v, c.con) < 0:
        return False
    if c.con.major > 0 or c.minor_dirty:
        return v.major == c.con.major
    if v.major > 0:
        return False
    if c.con.minor > 0 or c.patch_dirty:
        return v.minor == c.con.minor
    if v.minor > 0:
        return False
    return c.con.patch == v.patch


_CHECKS = {
    "": _tilde_or_equal,
    "=": _tilde_or_equal,
    "!=": _not_equal,
    ">": _greater,
    "<": _less,
    ">=": _greater_equal,
    "=>": _greater_equal,
    "<=": _less_equal,
    "=<": _less_equal,
    "~": _tilde,
    "~>": _tilde,
    "^": _caret,
}


def satisfies(constraint, version):
    """True when Helm's ``IsCompatibleRange(constraint, version)`` would be true.

    Raises SemverError (with the reason) where Helm returns false because one of the two does
    not parse, so callers can tell "too old" from "unreadable".
    """
    parsed = parse_version(version)
    groups = parse_constraints(constraint)
    return any(all(_CHECKS[c.op](parsed, c) for c in group) for group in groups)


def kube_version_verdict(constraint, server_version):
    """Whether Helm would accept a chart's kubeVersion against this server, and why.

    Returns ``(accepted, reason)``; a chart without kubeVersion is always accepted.
    """
    if not constraint:
        return True, "the chart declares no kubeVersion"
    if not server_version:
        return False, "the server reports an empty gitVersion, which Helm cannot parse"
    try:
        if satisfies(constraint, server_version):
            return True, "server version %s satisfies kubeVersion %r" % (server_version, constraint)
        return False, "server version %s does not satisfy kubeVersion %r" % (server_version, constraint)
    except SemverError as exc:
        return False, "Helm cannot evaluate kubeVersion %r against server version %r: %s" % (
            constraint, server_version, exc)


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


def read_chart_directory(directory):
    """Files of an unpacked chart directory, by relative path."""
    if not os.path.isfile(os.path.join(directory, "Chart.yaml")):
        raise ChartSourceError("%s has no Chart.yaml" % directory)
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


def chart_metadata(files):
    """name, version and kubeVersion read from Chart.yaml (line-based, top-level keys only)."""
    text = files["Chart.yaml"].decode("utf-8")
    meta = {"kubeVersion": chart_kube_version(text)}
    for key in ("name", "version"):
        match = re.search(r"^%s[ \t]*:[ \t]*(.*)$" % key, text, re.MULTILINE)
        value = match.group(1).strip() if match else ""
        if len(value) >= 2 and value[0] == value[-1] and value[0] in ("'", '"'):
            value = value[1:-1]
        meta[key] = value
    return meta

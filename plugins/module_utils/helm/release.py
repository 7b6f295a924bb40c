# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A Helm release left pending by an interrupted ``helm install``/``upgrade``/``rollback``, and
taking it over so that the next ``helm upgrade --install`` runs.

Upstream facts (helm.sh/helm/v3 at v3.17.4, the Helm of the local stack):

- Storage. Each revision of a release is one Secret ``sh.helm.release.v1.<release>.v<revision>``
  (``pkg/storage/storage.go makeKey``, ``HelmStorageType``) of type ``helm.sh/release.v1`` in the
  release namespace, labelled ``owner=helm``, ``name=<release>``, ``status=<status>``,
  ``version=<revision>``, plus ``createdAt``/``modifiedAt`` (Unix seconds of the helm client) on
  Create/Update (``pkg/storage/driver/secrets.go newSecretsObject``, ``Create``, ``Update``). Its
  ``data.release`` is base64(gzip(JSON of the release)) (``pkg/storage/driver/util.go
  encodeRelease``, gzip at BestCompression); ``decodeRelease`` also reads an uncompressed JSON,
  told apart by the gzip magic bytes. The Kubernetes API base64-encodes Secret data once more.
- Statuses (``pkg/release/status.go``): ``Status.IsPending`` is true for ``pending-install``,
  ``pending-upgrade`` and ``pending-rollback``. The release JSON holds it in ``info.status``, the
  revision in ``version`` and, in ``info.last_deployed``, when the operation started
  (``pkg/release/info.go``; RFC 3339 with nanoseconds, ``pkg/time/time.go``): ``install.go
  createRelease``, ``upgrade.go prepareUpgrade`` (``LastDeployed: Timestamper()`` with
  ``Status: StatusPendingUpgrade``) and ``rollback.go prepareRollback`` set it.
- The block. ``pkg/action/upgrade.go prepareUpgrade`` takes the last revision (``storage.go Last``:
  highest ``version``) and returns ``errPending`` ("another operation (install/upgrade/rollback) is
  in progress", ``pkg/action/action.go``) when ``lastRelease.Info.Status.IsPending()``; that is the
  only lock Helm has. ``cmd/helm/upgrade.go`` with ``--install`` installs only when there is no
  history or the last revision is ``uninstalled`` (``isReleaseUninstalled``), so a killed first
  install (``pending-install``) blocks ``upgrade --install`` as well.
- The way out. Helm's storage keeps one Secret per revision and nothing else: ``storage.go
  Deployed`` is a label query (``status=deployed``), ``Last`` the highest ``version``. Without the
  pending revision's Secret, the history is what it was before the interrupted operation: the
  last revision is the one the interrupted upgrade or rollback started from (a killed upgrade leaves
  it ``deployed``: ``upgrade.go releasingUpgrade`` supersedes it only after success), or, after a
  killed first install, there is no release, and ``helm upgrade --install`` installs it; the objects
  the killed install had created carry the release's ``meta.helm.sh/release-name`` and
  ``-namespace`` annotations and are adopted (``pkg/action/validate.go existingResourceConflict``).

This module removes the pending revision's Secret, and nothing else. Marking it ``failed`` instead,
as Helm's ``failRelease`` does for an operation that fails, would keep the interrupted operation's
values and chart as the last revision's, and kubernetes.core.helm decides whether to upgrade by
comparing the desired values and chart with the last revision's (``modules/helm.py
default_check``): a half-applied upgrade or install with the desired values would never be finished.
It never uninstalls the release (uninstalling Kruise's chart deletes its CRDs and every
UnitedDeployment with them). The release payload holds the chart values: it is decoded only to
read the status, and no part of it is returned or put into a message.

The same records tell whether the release already is what ``helm upgrade --install`` would make it:
its last revision ``deployed`` from the chart of that name, version and appVersion, with exactly these
user-supplied values (``config`` in the release JSON, what ``helm get values`` prints). That is
kubernetes.core.helm's own test (``modules/helm.py default_check`` after ``get_release_status``, which
lists deployed releases only); when it holds, kubernetes.core.helm changes nothing, so the roles skip
it and the five helm processes it would start (version, list, get values, show chart, plugin list).
With the helm-diff plugin, kubernetes.core.helm compares rendered manifests instead, which also
notices a chart whose files changed under the same version, and fails on a kubeVersion the server
does not satisfy: for a local chart (a directory or an archive, as air-gapped sites use, and the
control plane's prepared chart) its kubeVersion, templates and default values are compared too (the
release JSON's ``chart.metadata``, ``chart.templates``, ``chart.values``; a chart with subcharts is
left to Helm). A chart from a repository is known by name and version only: a published
version does not change. Templates whose output depends on the cluster (``lookup``,
``.Capabilities``) are not rendered here.

A pending revision is also what a helm process that is running right now looks like. It is taken
over only once it is ``grace`` seconds old, counted from the latest of ``info.last_deployed`` and
the Secret's ``createdAt``/``modifiedAt`` labels, on this machine's clock. The Secret is read again
right before it is removed: a helm process that wrote the revision in the meantime (a new
resourceVersion) wins, and nothing is removed.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import binascii
import calendar
import copy
import gzip
import io
import json
import os
import re
import time
import zlib

try:
    import yaml
    # libyaml's loader when PyYAML has it (its wheels do): a Kruise release manifest is ~0.8 MB of CRDs,
    # which the pure-Python loader takes over a second to read.
    _YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
except ImportError:  # kubernetes.core requires PyYAML; without it the default values are not compared
    yaml = None

from ansible_collections.multicloud.federation.plugins.module_utils.helm.chart import chart_metadata, read_chart


SECRET_API = ("v1", "Secret")
CRD_API = ("apiextensions.k8s.io/v1", "CustomResourceDefinition")
# pkg/action/validate.go: the ownership metadata Helm sets on the objects of a release.
MANAGED_BY_LABEL, MANAGED_BY_HELM = "app.kubernetes.io/managed-by", "Helm"
RELEASE_NAME_ANNOTATION = "meta.helm.sh/release-name"
RELEASE_NAMESPACE_ANNOTATION = "meta.helm.sh/release-namespace"
STORAGE_TYPE = "sh.helm.release.v1"
PENDING = ("pending-install", "pending-upgrade", "pending-rollback")
REMOVED = "removed"
# Helm's default --timeout (cmd/helm/upgrade.go, install.go: 300*time.Second) bounds each wait of
# an operation (hooks; --wait, which the Kruise roles do not use); an operation of the Kruise
# roles that is still pending after that long was interrupted.
DEFAULT_GRACE = 300

# pkg/chartutil/validate_name.go validName and maxReleaseNameLen. Checked before the name goes
# into a label selector.
_RELEASE_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_MAX_RELEASE_NAME = 53
_GZIP_MAGIC = b"\x1f\x8b\x08"
# Go's time.Time JSON form (RFC 3339, fraction up to nanoseconds, Z or an offset).
_TIMESTAMP = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


class ReleaseError(Exception):
    """The release cannot be recovered as it is; the message says what was found and what to do."""


def secret_name(release_name, revision):
    return "%s.%s.v%d" % (STORAGE_TYPE, release_name, revision)


def check_release_name(release_name):
    if not release_name or len(release_name) > _MAX_RELEASE_NAME or not _RELEASE_NAME.match(release_name):
        raise ReleaseError("%r is not a Helm release name (lower-case letters, digits, '-' and '.', at most %d "
                           "characters)" % (release_name, _MAX_RELEASE_NAME))


# --- the release payload ------------------------------------------------------------------------
def decode_release(secret):
    """The release (a dict) in a release Secret as the API returns it. Errors name the Secret and
    the step that failed, never any of the payload."""
    name = (secret.get("metadata") or {}).get("name")
    value = (secret.get("data") or {}).get("release")
    if not value:
        raise ReleaseError("Secret %s has no data.release" % name)
    try:
        stored = base64.b64decode(value, validate=True)  # the API's encoding of Secret data
        payload = base64.b64decode(stored, validate=True)  # Helm's own (util.go encodeRelease)
    except (binascii.Error, TypeError, ValueError):
        raise ReleaseError("Secret %s: data.release is not base64 as Helm stores it" % name)
    if payload[:3] == _GZIP_MAGIC:
        try:
            payload = gzip.GzipFile(fileobj=io.BytesIO(payload)).read()
        except (IOError, OSError, EOFError, ValueError, zlib.error):
            raise ReleaseError("Secret %s: data.release is not a readable gzip stream" % name)
    try:
        release = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ReleaseError("Secret %s: data.release does not hold a JSON document" % name)
    if not isinstance(release, dict) or not isinstance(release.get("info"), dict) \
            or not isinstance(release["info"].get("status"), str):
        raise ReleaseError("Secret %s: data.release is not a Helm release (no info.status)" % name)
    return release


# --- times ---------------------------------------------------------------------------------------
def parse_timestamp(text):
    """Seconds since the epoch of Go's JSON time (``2026-12-03T17:05:01.123456789+01:00``), or None."""
    match = _TIMESTAMP.match(text or "") if isinstance(text, str) else None
    if not match:
        return None
    year, month, day, hour, minute, second = (int(part) for part in match.groups()[:6])
    seconds = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0))
    seconds += float(match.group(7) or 0)
    zone = match.group(8)
    if zone != "Z":
        offset = int(zone[1:3]) * 3600 + int(zone[4:6]) * 60
        seconds -= offset if zone[0] == "+" else -offset
    return seconds


def _label_seconds(labels, key):
    try:
        return float(labels.get(key))
    except (TypeError, ValueError):
        return None


def last_activity(secret, release):
    """When Helm last wrote this revision: the latest of info.last_deployed and the createdAt and
    modifiedAt labels (None when none is readable)."""
    labels = (secret.get("metadata") or {}).get("labels") or {}
    moments = [parse_timestamp(release["info"].get("last_deployed")),
               _label_seconds(labels, "createdAt"), _label_seconds(labels, "modifiedAt")]
    moments = [moment for moment in moments if moment is not None]
    return max(moments) if moments else None


# --- revisions -----------------------------------------------------------------------------------
def revision_of(secret):
    """The revision of a release Secret: its ``version`` label (newSecretsObject), else its name's suffix."""
    meta = secret.get("metadata") or {}
    for text in ((meta.get("labels") or {}).get("version"), (meta.get("name") or "").rpartition(".v")[2]):
        if text and str(text).isdigit():
            return int(text)
    return None


def newest_revision(secrets):
    """The release Secret of the highest revision (storage.go Last), or None."""
    numbered = [(revision_of(secret), secret) for secret in secrets if revision_of(secret) is not None]
    return max(numbered, key=lambda pair: pair[0])[1] if numbered else None


def _summary(release_name, namespace, revision=None, status=None):
    return dict(name=release_name, namespace=namespace, revision=revision, status_before=status,
                status_after=status, pending_age=None)


def plan(release_name, namespace, secrets, grace, now):
    """What to do with the release: ``(summary, secret, release)``.

    ``secret``/``release`` are set when the newest revision is to be removed. Raises
    ReleaseError for a pending revision younger than ``grace`` seconds and for an unreadable one."""
    newest = newest_revision(secrets)
    if newest is None:
        return _summary(release_name, namespace), None, None
    revision = revision_of(newest)
    release = decode_release(newest)
    if release.get("name") not in (None, release_name) or release.get("version") not in (None, revision):
        raise ReleaseError("Secret %s holds release %s revision %s, not %s revision %s"
                           % (newest["metadata"].get("name"), release.get("name"), release.get("version"),
                              release_name, revision))
    status = release["info"]["status"]
    summary = _summary(release_name, namespace, revision, status)
    if status not in PENDING:
        return summary, None, None
    started = last_activity(newest, release)
    age = None if started is None else max(0, int(round(now - started)))
    summary["pending_age"] = age
    if grace > 0 and (age is None or age < grace):
        since = "for an unknown time (no readable info.last_deployed)" if age is None else "for %d s" % age
        raise ReleaseError(
            "Helm release %s in namespace %s: revision %d is %s %s, less than the grace period of %d s, so a helm "
            "install, upgrade or rollback may still be working on it (another run at the same moment?). Wait until "
            "it ends and run again. If no helm process is working on it (it was killed), run again %swith "
            "a pending-release grace of 0 (kruise_pending_release_grace, kruise_control_plane_pending_release_grace) "
            "to remove revision %d now. Never uninstall the release to get out of this."
            % (release_name, namespace, revision, status, since, grace,
               "in %d s, or " % (grace - age) if age is not None else "", revision))
    summary["status_after"] = REMOVED
    return summary, newest, release


# --- whether an upgrade would change anything --------------------------------------------------------
def desired_chart(chart_ref, chart_version=None, chart_repo_url=None):
    """Name, version, appVersion, kubeVersion, default values and templates (None: not known, not compared) of
    the chart Helm would install, or None when it cannot be told here.

    Like Helm (``pkg/action/install.go LocateChart``), a ``chart_ref`` that exists on disk is the
    chart, unless a repository URL is given; it is read from its Chart.yaml. Otherwise (a chart in a
    repository, ``repo/name``, ``oci://host/path/name``) the name is the reference's last segment and
    the version ``chart_version``; None when no version is asked for (the newest, unknown here)."""
    if chart_repo_url is None and os.path.exists(chart_ref):
        files = read_chart(chart_ref)
        if any(path.startswith("charts/") for path in files):
            return None  # subcharts are not in the release JSON (pkg/chart/chart.go: dependencies unexported)
        meta = chart_metadata(files)
        if yaml is None:
            return None
        try:
            values = yaml.load(files.get("values.yaml") or b"", Loader=_YAML_LOADER) or {}
        except yaml.YAMLError:
            return None  # Helm will say what is wrong with it
        return dict(name=meta["name"], version=meta["version"], app_version=meta["appVersion"],
                    kube_version=meta["kubeVersion"], values=values,
                    templates=dict((path, body) for path, body in files.items() if path.startswith("templates/")))
    if not chart_version:
        return None
    return dict(name=chart_ref.rstrip("/").rpartition("/")[2], version=chart_version, app_version=None,
                kube_version=None, values=None, templates=None)


def release_is_current(secrets, chart, values):
    """Whether the newest revision among ``secrets`` is ``deployed`` from ``chart`` (desired_chart)
    with exactly ``values`` as its user-supplied values (kubernetes.core.helm's default_check)."""
    newest = newest_revision(secrets)
    if newest is None or chart is None:
        return False
    try:
        release = decode_release(newest)
    except ReleaseError:
        return False  # not what Helm writes: the upgrade decides
    if release["info"]["status"] != "deployed":
        return False
    metadata = (release.get("chart") or {}).get("metadata") or {}
    if metadata.get("name") != chart["name"] or metadata.get("version") != chart["version"]:
        return False
    # An empty appVersion is left out of the JSON (omitempty) and read as "" from Chart.yaml.
    if chart["app_version"] is not None and (metadata.get("appVersion") or "") != chart["app_version"]:
        return False
    # A kubeVersion added or removed changes no manifest, but Helm checks it against the server on every
    # upgrade (helm-diff's too): a chart that Helm would refuse here is not taken as installed.
    if chart["kube_version"] is not None and (metadata.get("kubeVersion") or "") != chart["kube_version"]:
        return False
    if chart["values"] is not None and ((release.get("chart") or {}).get("values") or {}) != chart["values"]:
        return False
    if chart["templates"] is not None and _release_templates(release) != chart["templates"]:
        return False
    return (release.get("config") or {}) == (values or {})


def _release_templates(release):
    """The chart templates stored in a release, by path: ``[{name, data}]``, data as Go writes []byte (base64)."""
    try:
        return dict((entry["name"], base64.b64decode(entry["data"] or ""))
                    for entry in (release.get("chart") or {}).get("templates") or [])
    except (KeyError, TypeError, ValueError, binascii.Error):
        return None


# --- the release's CustomResourceDefinitions -------------------------------------------------------
def manifest_crds(release):
    """The CustomResourceDefinitions in a release's ``manifest`` (the chart's templated CRDs; those of a
    chart's ``crds/`` directory are installed once and are not in it: pkg/action/install.go installCRDs)."""
    if yaml is None:
        return []
    try:
        documents = list(yaml.load_all(release.get("manifest") or "", Loader=_YAML_LOADER))
    except yaml.YAMLError:
        return []
    return [document for document in documents
            if isinstance(document, dict) and document.get("kind") == "CustomResourceDefinition"
            and str(document.get("apiVersion", "")).startswith(CRD_API[0].partition("/")[0] + "/")
            and isinstance(document.get("metadata"), dict) and document["metadata"].get("name")]


def owned_by_release(body, release_name, namespace):
    """``body`` with the ownership Helm gives every object it creates (pkg/action/validate.go
    setMetadataVisitor: the managed-by label and the release name and namespace annotations), so that
    the next ``helm upgrade`` takes it as the release's own."""
    body = copy.deepcopy(body)
    metadata = body["metadata"]
    metadata["labels"] = dict(metadata.get("labels") or {}, **{MANAGED_BY_LABEL: MANAGED_BY_HELM})
    metadata["annotations"] = dict(metadata.get("annotations") or {},
                                   **{RELEASE_NAME_ANNOTATION: release_name, RELEASE_NAMESPACE_ANNOTATION: namespace})
    return body


def missing_crds(cluster, secrets):
    """The CRDs of the newest revision among ``secrets`` that the cluster does not have."""
    newest = newest_revision(secrets)
    if newest is None:
        return []
    try:
        release = decode_release(newest)
    except ReleaseError:
        return []
    return [crd for crd in manifest_crds(release) if cluster.get(CRD_API[0], CRD_API[1], crd["metadata"]["name"]) is None]


def _release_key(secret):
    meta = secret.get("metadata") or {}
    return (meta.get("namespace"), (meta.get("labels") or {}).get("name"))


def releases_of_chart(secrets, chart_name):
    """``[(release name, namespace, revision, status)]`` of the releases among ``secrets`` (Helm's release
    Secrets of any namespace) whose newest revision is a release of the chart named ``chart_name``
    (``chart.metadata.name``), sorted; an uninstalled one kept with ``--keep-history`` is not a release."""
    groups = {}
    for secret in secrets:
        key = _release_key(secret)
        if key[0] and key[1]:
            groups.setdefault(key, []).append(secret)
    found = []
    for (namespace, name), group in groups.items():
        newest = newest_revision(group)
        try:
            release = decode_release(newest)
        except ReleaseError:
            continue  # not what Helm writes: not a release of anything
        if ((release.get("chart") or {}).get("metadata") or {}).get("name") == chart_name \
                and release["info"]["status"] != "uninstalled":
            found.append((name, namespace, revision_of(newest), release["info"]["status"]))
    return sorted(found, key=lambda row: (row[1], row[0]))


def locate(cluster, release_name, namespace, chart_name):
    """Where the chart's release is: ``(release name, namespace, adopted)``.

    The release ``release_name`` in ``namespace`` when it has any revision there. Otherwise the one release of
    the chart ``chart_name`` anywhere on the cluster (a ``helm install`` typed by hand from a runbook, under
    another name or in another namespace), which is then the release to manage in place: a second release of
    the same chart would fail on the objects the first one owns (pkg/action/validate.go
    existingResourceConflict), and uninstalling the first would delete its CRDs and every custom resource with
    them. Two or more releases of the chart raise ReleaseError naming them; none gives the configured place."""
    check_release_name(release_name)
    if cluster.list(*SECRET_API, namespace=namespace, label_selector="owner=helm,name=%s" % release_name):
        return release_name, namespace, False
    found = releases_of_chart(cluster.list(*SECRET_API, label_selector="owner=helm"), chart_name)
    if not found:
        return release_name, namespace, False
    if len(found) > 1:
        raise ReleaseError(
            "the cluster has %d Helm releases of the chart %s (%s) and none is %s in namespace %s: it cannot tell "
            "which one to manage. Keep one: uninstall the others with helm (their CRDs are shared: uninstall with "
            "care, never the last one), or set the release name and namespace to the one to keep; nothing was "
            "changed" % (len(found), chart_name, ", ".join("%s in %s (revision %s, %s)" % row for row in found),
                         release_name, namespace))
    name, where, _revision, _status = found[0]
    return name, where, True


def recover(cluster, release_name, namespace, grace=DEFAULT_GRACE, check_mode=False, now=None, desired=None):
    """Read the release's revisions and remove a pending newest revision (see the module docstring).
    Returns ``(changed, summary)``; ``summary`` has name, namespace, revision, status_before,
    status_after (``removed`` when it was), pending_age, up_to_date and crds_recreated, never any of
    the payload.

    ``desired`` (``chart``: desired_chart's answer, ``values``) asks whether the release, once
    recovered, already is that chart with those values (``up_to_date``; None when not asked). When it
    is, no ``helm upgrade`` will run, and one that ran would create the objects of the release that
    are missing, CRDs included (pkg/kube/client.go Update creates a target it cannot find): the
    release's CRDs that were deleted (by hand, a cleanup, a ``kubectl delete -f``) are created here
    from its manifest instead (``crds_recreated``). Only CRDs: every custom resource hangs on them,
    while other objects of a release may be removed on purpose (the control plane's webhook
    configurations)."""
    check_release_name(release_name)
    now = time.time() if now is None else now
    secrets = cluster.list(*SECRET_API, namespace=namespace, label_selector="owner=helm,name=%s" % release_name)
    summary, secret, _release = plan(release_name, namespace, secrets, grace, now)
    remaining = [other for other in secrets if other is not secret]
    summary["up_to_date"] = None
    if desired is not None:
        summary["up_to_date"] = release_is_current(remaining, desired["chart"], desired["values"])
    missing = missing_crds(cluster, remaining) if summary["up_to_date"] else []
    summary["crds_recreated"] = sorted(crd["metadata"]["name"] for crd in missing)
    if check_mode:
        return bool(secret is not None or missing), summary
    if secret is not None:
        name = secret["metadata"]["name"]
        current = cluster.get(SECRET_API[0], SECRET_API[1], name, namespace)
        if current is None or current["metadata"].get("resourceVersion") != secret["metadata"].get("resourceVersion"):
            raise ReleaseError(
                "Helm release %s in namespace %s: revision %d changed while it was being removed, so a helm "
                "process is working on it; nothing was changed. Run again when it is done."
                % (release_name, namespace, summary["revision"]))
        cluster.delete(SECRET_API[0], SECRET_API[1], name, namespace)
    for crd in missing:
        cluster.create(owned_by_release(crd, release_name, namespace))
    return bool(secret is not None or missing), summary

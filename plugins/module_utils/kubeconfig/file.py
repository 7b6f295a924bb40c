# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure kubeconfig logic: parse, check, select a context, merge, redact, render, write privately; and
``KubeconfigFile``, the kubeconfig_file module's run of them.

No cluster and no Ansible here (the API check is handed to ``KubeconfigFile``), so unit tests exercise
every rule directly. The kubeconfig format
(clusters/users/contexts as lists of named entries, ``current-context``, relative file references
resolved against the kubeconfig's own directory) is client-go's:
k8s.io/client-go/tools/clientcmd/api/v1/types.go (field names) and
k8s.io/client-go/tools/clientcmd/loader.go (ResolveLocalPaths: which fields are file paths).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import datetime
import hashlib
import json
import os
import shutil
import tempfile
import time

try:
    import yaml

    HAS_YAML = True
except ImportError:  # pragma: no cover - reported by the module via missing_required_lib
    HAS_YAML = False

from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig import credentials as creds

# Fields holding file paths that client-go resolves relative to the kubeconfig's directory
# (clientcmd/loader.go: ResolveLocalPaths / GetClusterFileReferences / GetAuthInfoFileReferences).
CLUSTER_PATH_FIELDS = ("certificate-authority",)
USER_PATH_FIELDS = ("client-certificate", "client-key", "tokenFile")

# Secret or identifying material that must never appear in output (diffs, messages, results).
# Certificates are not secret, but they identify the credential; they are redacted as well.
SENSITIVE_USER_FIELDS = (
    "token",
    "password",
    "client-key-data",
    "client-certificate-data",
)
SENSITIVE_CLUSTER_FIELDS = ("certificate-authority-data",)

# A kubeconfig holds credentials: every file this collection writes with one is owner-only, and so
# is a directory it creates for one.
PRIVATE_FILE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700


class KubeconfigError(Exception):
    """Bad kubeconfig input; the message says what to fix and never contains file content."""


def parse_kubeconfig(text, origin):
    """Parse a kubeconfig given as YAML or as the cloud console's JSON download.

    ``origin`` names the file in error messages. Parser messages are reduced to line and column:
    PyYAML's own messages quote the offending line, which may be a key or a token.
    """
    if not text.strip():
        raise KubeconfigError("%s is empty: download the kubeconfig again" % origin)
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except ValueError as exc:
            lineno = getattr(exc, "lineno", "?")
            colno = getattr(exc, "colno", "?")
            raise KubeconfigError(
                "%s is not valid JSON (line %s, column %s): download the kubeconfig again"
                % (origin, lineno, colno)
            )
    else:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = " (line %d, column %d)" % (mark.line + 1, mark.column + 1) if mark else ""
            raise KubeconfigError(
                "%s is neither YAML nor JSON%s: download the kubeconfig again" % (origin, where)
            )
    check_structure(data, origin)
    return data


def check_structure(data, origin):
    """Check the shape client-go needs: named clusters, users and contexts that refer to each other."""
    if not isinstance(data, dict):
        raise KubeconfigError("%s is not a kubeconfig: expected a mapping with clusters, users and contexts" % origin)
    kind = data.get("kind")
    if kind not in (None, "Config"):
        raise KubeconfigError("%s has kind %r, a kubeconfig has kind Config" % (origin, kind))
    for section, body in (("clusters", "cluster"), ("users", "user"), ("contexts", "context")):
        entries = data.get(section)
        if entries is None:
            continue
        if not isinstance(entries, list):
            raise KubeconfigError("%s: %s must be a list" % (origin, section))
        seen = set()
        for index, entry in enumerate(entries):
            if not isinstance(entry, dict) or not entry.get("name"):
                raise KubeconfigError("%s: %s[%d] has no name" % (origin, section, index))
            if entry["name"] in seen:
                raise KubeconfigError("%s: %s has two entries named %r" % (origin, section, entry["name"]))
            seen.add(entry["name"])
            if not isinstance(entry.get(body) or {}, dict):
                raise KubeconfigError("%s: %s %r: %s must be a mapping" % (origin, section, entry["name"], body))
    if not data.get("contexts"):
        raise KubeconfigError("%s has no contexts: download the kubeconfig again" % origin)


def _by_name(data, section):
    return dict((entry["name"], entry) for entry in data.get(section) or [])


def context_names(data):
    return [entry["name"] for entry in data.get("contexts") or []]


def select_context(data, context, origin):
    """Return (context entry, cluster entry, user entry) of ``context``, or say what to set instead."""
    contexts = _by_name(data, "contexts")
    if context not in contexts:
        raise KubeconfigError(
            "context %r does not exist in %s (it has: %s): set cluster_context, or cluster_access, "
            "to one of them" % (context, origin, ", ".join(sorted(contexts)) or "none")
        )
    body = contexts[context].get("context") or {}
    cluster_name = body.get("cluster")
    user_name = body.get("user")
    clusters = _by_name(data, "clusters")
    users = _by_name(data, "users")
    if not cluster_name or cluster_name not in clusters:
        raise KubeconfigError(
            "context %r in %s refers to cluster %r, which is not in the file" % (context, origin, cluster_name)
        )
    cluster = clusters[cluster_name]
    if not (cluster.get("cluster") or {}).get("server"):
        raise KubeconfigError("cluster %r in %s has no server URL" % (cluster_name, origin))
    if user_name and user_name not in users:
        raise KubeconfigError(
            "context %r in %s refers to user %r, which is not in the file" % (context, origin, user_name)
        )
    user = users.get(user_name, {"name": user_name, "user": {}})
    return contexts[context], cluster, user


def resolve_paths(data, base_dir):
    """Make relative file references absolute, as client-go resolves them against the file's directory.

    Needed whenever a kubeconfig is installed or merged somewhere else than where it was downloaded.
    """
    result = copy.deepcopy(data)
    for section, body, fields in (("clusters", "cluster", CLUSTER_PATH_FIELDS), ("users", "user", USER_PATH_FIELDS)):
        for entry in result.get(section) or []:
            values = entry.get(body) or {}
            for field in fields:
                path = values.get(field)
                if path and not os.path.isabs(path):
                    values[field] = os.path.normpath(os.path.join(base_dir, path))
    return result


def with_current_context(data, context):
    result = copy.deepcopy(data)
    result["current-context"] = context
    return result


def merge_kubeconfigs(sources, current_context=None):
    """One kubeconfig holding one context per cluster, as AWX injects it (K8S_AUTH_KUBECONFIG).

    ``sources`` is a list of (name, data, context): each cluster's selected context, with its
    cluster and user, is renamed to ``name`` so that contexts downloaded with the same names
    (every CCE console download has ``internal`` and ``external``) cannot collide.
    """
    merged = {"apiVersion": "v1", "kind": "Config", "preferences": {}, "clusters": [], "users": [], "contexts": []}
    names = set()
    for name, data, context in sources:
        if name in names:
            raise KubeconfigError("two kubeconfigs to merge are both named %r" % name)
        names.add(name)
        context_entry, cluster, user = select_context(data, context, name)
        merged["clusters"].append({"name": name, "cluster": copy.deepcopy(cluster.get("cluster") or {})})
        merged["users"].append({"name": name, "user": copy.deepcopy(user.get("user") or {})})
        body = copy.deepcopy(context_entry.get("context") or {})
        body["cluster"] = name
        body["user"] = name
        merged["contexts"].append({"name": name, "context": body})
    if current_context is not None:
        if current_context not in names:
            raise KubeconfigError(
                "current context %r is none of the merged clusters (%s)" % (current_context, ", ".join(sorted(names)))
            )
        merged["current-context"] = current_context
    return merged


def _fingerprint(value):
    return "<redacted sha256:%s>" % hashlib.sha256(str(value).encode("utf-8")).hexdigest()[:12]


def redact(data):
    """A copy safe to show: credentials, keys and certificates replaced by a short fingerprint.

    The fingerprint lets a diff show *that* a credential changed without showing it.
    """
    result = copy.deepcopy(data)
    for entry in result.get("users") or []:
        values = entry.get("user") or {}
        for field in SENSITIVE_USER_FIELDS:
            if field in values:
                values[field] = _fingerprint(values[field])
        provider = values.get("auth-provider") or {}
        config = provider.get("config")
        if isinstance(config, dict):
            provider["config"] = dict((key, _fingerprint(value)) for key, value in config.items())
        # Exec plugins take their secrets as arguments (--token=..., a password) or environment values.
        exec_config = values.get("exec") or {}
        if isinstance(exec_config.get("args"), list):
            exec_config["args"] = [_fingerprint(arg) for arg in exec_config["args"]]
        for env in exec_config.get("env") or []:
            if isinstance(env, dict) and "value" in env:
                env["value"] = _fingerprint(env["value"])
    for entry in result.get("clusters") or []:
        values = entry.get("cluster") or {}
        for field in SENSITIVE_CLUSTER_FIELDS:
            if field in values:
                values[field] = _fingerprint(values[field])
    return result


def render(data):
    """The text written to disk: block-style YAML, keys in the order given (kubectl's order)."""
    return yaml.safe_dump(data, default_flow_style=False, sort_keys=False)


def insecure_clusters(data):
    """Names of clusters whose kubeconfig disables TLS verification."""
    return [
        entry["name"]
        for entry in data.get("clusters") or []
        if (entry.get("cluster") or {}).get("insecure-skip-tls-verify")
    ]


def write_private_file(path, text):
    """Replace ``path`` with ``text``, owner-only from the first byte.

    The text goes into a temporary file in the same directory, which mkstemp creates with mode
    0600 (never wider, whatever the umask or the old file's mode), and the rename then puts that
    file in place of the old one in one step. Nothing copies the old file's mode onto it.
    """
    handle, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".kubeconfig-")
    try:
        with os.fdopen(handle, "w") as out:
            out.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def private_backup(path):
    """Copy ``path`` to ``<path>.<pid>.<time>~`` (the name AnsibleModule.backup_local gives) and return that name.

    The copy is created with mode 0600 (O_CREAT|O_EXCL, so never an existing file or a planted
    link), not with the old file's mode: a kubeconfig left 0644 must not be copied readable.
    """
    backup = "%s.%s.%s" % (path, os.getpid(), time.strftime("%Y-%m-%d@%H:%M:%S~", time.localtime()))
    descriptor = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    with os.fdopen(descriptor, "wb") as out:
        with open(path, "rb") as source:
            shutil.copyfileobj(source, out)
    return backup


def make_private_dirs(path):
    """Create ``path`` and each missing directory above it, every one owner-only (0700).

    ``os.makedirs(path, mode)`` gives ``mode`` to the last directory only; the ones above it get
    0777 less the umask (0755 under the usual 022), so they are made one by one here. Directories
    that exist, and one another process makes meanwhile, are left as they are.
    """
    missing = []
    current = os.path.abspath(path)
    while not os.path.isdir(current):
        missing.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, PRIVATE_DIR_MODE)
        except OSError:
            if os.path.isdir(directory):
                continue
            raise
        # The umask can only take bits away: this gives back what it took from the owner, never more.
        os.chmod(directory, PRIVATE_DIR_MODE)


def load_installed(path):
    """The installed kubeconfig as data, or None when absent or unreadable (then it is replaced)."""
    if not os.path.exists(path):
        return None
    try:
        with open(path, "rb") as handle:
            return parse_kubeconfig(handle.read().decode("utf-8-sig"), path)
    except (OSError, UnicodeDecodeError, KubeconfigError):
        return None


def install(dest, desired, backup, check_mode, diff):
    """Put ``desired`` at ``dest`` (0600, backup of a replaced file) unless it is there already.

    Returns the module result's ``dest``, ``changed`` and, where they apply, ``diff`` (redacted)
    and ``backup_file``. In check mode nothing is written.
    """
    existing = load_installed(dest)
    content_changed = existing != desired
    mode_changed = os.path.exists(dest) and (os.stat(dest).st_mode & 0o7777) != PRIVATE_FILE_MODE
    result = {"dest": dest, "changed": content_changed or mode_changed}
    if diff and content_changed:
        result["diff"] = {
            "before_header": dest,
            "after_header": dest,
            "before": render(redact(existing)) if existing else "",
            "after": render(redact(desired)),
        }
    if check_mode or not result["changed"]:
        return result
    if not content_changed:
        # Only the mode is wrong: narrowing it exposes nothing.
        os.chmod(dest, PRIVATE_FILE_MODE)
        return result
    make_private_dirs(os.path.dirname(dest) or ".")
    # Both files are created 0600; AnsibleModule's backup_local and atomic_move would give them the
    # old file's mode first.
    if backup and os.path.exists(dest):
        result["backup_file"] = private_backup(dest)
    write_private_file(dest, render(desired))
    return result


def read_kubeconfig(path, what):
    """The kubeconfig at ``path`` (``what``: how messages name it), parsed and checked."""
    if not os.path.exists(path):
        raise KubeconfigError(
            "%s %s does not exist: download the cluster's kubeconfig from the cloud console and set "
            "cluster_kubeconfig_source (or cluster_kubeconfig) to its path" % (what, path)
        )
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise KubeconfigError("%s %s cannot be read: %s" % (what, path, getattr(exc, "strerror", None) or "not UTF-8"))
    return parse_kubeconfig(text, path)


class KubeconfigFile(object):
    """The kubeconfig_file module's run: one kubeconfig (``src``, its context's credential and, with
    ``validate_api``, the API behind it) installed at ``dest``, or several (``sources``) merged there.

    ``check_api``: the API check (``kubeconfig.check.check_cluster``, through the access layer), called
    as it is. ``result`` is what the module returns, also when a step fails (what was found so far);
    ``warnings`` what it warns about, in order. KubeconfigError (or the check's error) says what to fix.
    """

    def __init__(self, params, check_mode=False, diff=False, check_api=None):
        self.params = params
        self.check_mode = check_mode
        self.diff = diff
        self.check_api = check_api
        self.result = {"changed": False}
        self.warnings = []

    def run(self):
        if self.params["sources"]:
            self.merge()
        else:
            self.single()
        return self.result

    def single(self):
        params = self.params
        context = params["context"]
        src = params["src"] or params["dest"]
        data = read_kubeconfig(src, "kubeconfig file")
        base_dir = os.path.dirname(os.path.abspath(src))
        _context_entry, cluster, user = select_context(data, context, src)
        server = (cluster.get("cluster") or {}).get("server")
        self.result.update(src=src, context=context, server=server)
        for name in insecure_clusters(data):
            if name == cluster["name"]:
                self.warnings.append(
                    "cluster %r in %s disables TLS verification (insecure-skip-tls-verify): "
                    "use a kubeconfig with the cluster's CA" % (name, src)
                )
        self.check_credential(user, base_dir, src)
        if params["validate_api"]:
            self.result.update(self.check_api(
                resolve_paths(data, base_dir), context, server, src, params["federation_members"], params["engine"],
                params["request_timeout"]))
        if params["dest"] is None:
            return
        desired = data
        if os.path.dirname(os.path.abspath(params["dest"])) != base_dir:
            desired = resolve_paths(desired, base_dir)
        if params["set_current_context"]:
            desired = with_current_context(desired, context)
        self.result.update(install(params["dest"], desired, params["backup"], self.check_mode, self.diff))

    def check_credential(self, user, base_dir, origin):
        try:
            info = creds.credential_expiry(user, base_dir)
        except ValueError as exc:
            raise KubeconfigError("%s: %s" % (origin, exc))
        now = datetime.datetime.now(creds.UTC)
        level, days_left = creds.classify_expiry(info, now, self.params["expiry_warning_days"])
        expires = info["expires"].isoformat() if info["expires"] else None
        if level == "expired":
            raise KubeconfigError(
                "%s expired on %s: download a new kubeconfig from the console" % (creds.describe(info, origin), expires)
            )
        if level == "expiring":
            self.warnings.append(
                "%s expires on %s (in %d days): download a new kubeconfig from the console before then, "
                "scheduled jobs will fail after it" % (creds.describe(info, origin), expires, days_left)
            )
        self.result["credential"] = {
            "user": info["user"],
            "kind": info["kind"],
            "expires": expires,
            "days_left": days_left,
            "status": level,
        }

    def merge(self):
        entries = []
        for source in self.params["sources"]:
            data = read_kubeconfig(source["kubeconfig"], "kubeconfig")
            base_dir = os.path.dirname(os.path.abspath(source["kubeconfig"]))
            entries.append((source["name"], resolve_paths(data, base_dir), source["context"]))
        merged = merge_kubeconfigs(entries, self.params["context"])
        self.result.update(install(self.params["dest"], merged, self.params["backup"], self.check_mode, self.diff))

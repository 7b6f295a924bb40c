# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one way this collection's modules reach a Kubernetes API: the control plane and every member.

Built on kubernetes.core's own client factory (``get_api_client``: its configuration, client pool
and server-side dry-run handling). On top of it:

- one credential policy (``check_environment``): the kubeconfig and context that the inventory
  names for a host win. kubernetes.core fills every connection option the task leaves unset from
  ``K8S_AUTH_*`` variables, so an AWX job carrying, say, a bearer-token credential would check one
  cluster with the kubeconfig and write to another; such an environment is refused, naming the
  variable. ``K8S_AUTH_KUBECONFIG`` naming the inventory's own file is fine (that is how an AWX
  credential injects it).
- ``Cluster``: reads and writes as plain dicts, with one error type (``ApiError``, one text) and
  API groups that may appear or disappear between or during runs: the client's discovery cache
  (a file shared by every run) still lists an API whose CRD was deleted, and the server answers
  its path with a bare "404 page not found"; then the cache is refreshed and the request retried
  once, and a gone API reads as absent - never a traceback.
- ``poll``: the one wait loop, with a deadline and backoff (kubernetes.core's ``clock`` polls at a
  fixed interval).
- ``MEMBER_ACCESS_SPEC``: the one shape of "how to reach a member" in module options, as the
  ``member_clusters`` filter produces it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import socket
import time

try:
    from kubernetes.dynamic.exceptions import (
        DynamicApiError,
        ResourceNotFoundError,
        ResourceNotUniqueError,
    )
except ImportError:  # pragma: no cover - AnsibleK8SModule reports the missing library
    DynamicApiError = ResourceNotFoundError = ResourceNotUniqueError = type("Unavailable", (Exception,), {})

try:
    from urllib3.exceptions import HTTPError as TransportError
except ImportError:  # pragma: no cover
    TransportError = type("Unavailable", (Exception,), {})

from ansible_collections.kubernetes.core.plugins.module_utils.k8s.exceptions import CoreException

# kubernetes.core reads K8S_AUTH_<OPTION> for every connection option a task leaves unset
# (module_utils/k8s/client.py _create_auth_spec, _create_headers; both spellings of each option).
# Each of these would send requests somewhere, or as someone, other than the inventory's
# kubeconfig context says.
REDIRECTING_ENVIRONMENT = (
    "K8S_AUTH_HOST",
    "K8S_AUTH_API_KEY",
    "K8S_AUTH_USERNAME",
    "K8S_AUTH_PASSWORD",
    "K8S_AUTH_CLIENT_CERT",
    "K8S_AUTH_CERT_FILE",
    "K8S_AUTH_CLIENT_KEY",
    "K8S_AUTH_KEY_FILE",
    "K8S_AUTH_CA_CERT",
    "K8S_AUTH_SSL_CA_CERT",
    "K8S_AUTH_PROXY",
    "K8S_AUTH_IMPERSONATE_USER",
    "K8S_AUTH_IMPERSONATE_GROUPS",
)
PROXY_HEADERS_ENVIRONMENT_PREFIX = "K8S_AUTH_PROXY_HEADERS_"
# Accepted when they agree with the inventory.
KUBECONFIG_ENVIRONMENT = "K8S_AUTH_KUBECONFIG"
CONTEXT_ENVIRONMENT = "K8S_AUTH_CONTEXT"
VALIDATE_CERTS_ENVIRONMENT = ("K8S_AUTH_VALIDATE_CERTS", "K8S_AUTH_VERIFY_SSL")

# The member access shape: `members` options of every module, one entry per member, exactly the
# dicts the member_clusters filter returns (it adds host, weight and virtual_kubelet for the
# modules that use them).
MEMBER_ACCESS_SPEC = dict(
    type="list",
    elements="dict",
    options=dict(
        name=dict(type="str", required=True),
        kubeconfig=dict(type="path", required=True),
        context=dict(type="str"),
        host=dict(type="str"),
        weight=dict(type="int"),
        virtual_kubelet=dict(type="bool"),
    ),
)

DEFAULT_REQUEST_TIMEOUT = 30


class AccessError(Exception):
    """A cluster cannot be used as configured; the message says what to fix."""


class ApiError(Exception):
    """An API request failed. ``status`` is the HTTP status (None when no response came)."""

    def __init__(self, message, status=None, reason=None):
        super(ApiError, self).__init__(message)
        self.status = status
        self.reason = reason


def api_error_text(error):
    """One secret-free sentence for a failed request: ``HTTP 422 Invalid: <the API's message>``.

    Never the response headers or the request (DynamicApiError's own text carries both)."""
    status = getattr(error, "status", None)
    if status is None:
        text = str(getattr(error, "reason", None) or error).strip()
        return "no response: %s" % (text.splitlines()[0] if text else type(error).__name__)
    body = getattr(error, "body", None)
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    reason = getattr(error, "reason", None) or ""
    message = ""
    if body:
        try:
            decoded = json.loads(body)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict):
            reason = decoded.get("reason") or reason
            message = decoded.get("message") or ""
        else:
            message = body.strip().splitlines()[0] if body.strip() else ""
    text = "HTTP %s %s" % (status, reason)
    return "%s: %s" % (text.strip(), message) if message else text.strip()


def _same_file(left, right):
    try:
        return os.path.realpath(os.path.expanduser(left)) == os.path.realpath(os.path.expanduser(right))
    except (TypeError, ValueError):
        return False


def check_environment(kubeconfig, context, environ=None):
    """Refuse a ``K8S_AUTH_*`` environment that would reach another cluster than ``kubeconfig``'s
    ``context`` (see the module docstring). Raises AccessError naming the variable."""
    environ = os.environ if environ is None else environ
    found = [name for name in REDIRECTING_ENVIRONMENT if environ.get(name)]
    found.extend(sorted(name for name in environ if name.startswith(PROXY_HEADERS_ENVIRONMENT_PREFIX)))
    for name in VALIDATE_CERTS_ENVIRONMENT:
        if environ.get(name, "").strip().lower() in ("0", "false", "no"):
            found.append(name)
    env_kubeconfig = environ.get(KUBECONFIG_ENVIRONMENT)
    if env_kubeconfig and kubeconfig and not isinstance(kubeconfig, dict) and not _same_file(env_kubeconfig, kubeconfig):
        found.append(KUBECONFIG_ENVIRONMENT)
    env_context = environ.get(CONTEXT_ENVIRONMENT)
    if env_context and context and env_context != context:
        found.append(CONTEXT_ENVIRONMENT)
    if found:
        raise AccessError(
            "the environment sets %s, which would send this collection's requests to another cluster or "
            "identity than the inventory's kubeconfig and context (kubernetes.core reads K8S_AUTH_* for every "
            "option a task leaves unset). Unset %s; put the credential into the kubeconfig file that "
            "cluster_kubeconfig names (K8S_AUTH_KUBECONFIG may name that same file)"
            % (", ".join(found), "it" if len(found) == 1 else "them")
        )


def backoff_clock(total, interval=1.0, max_interval=10.0, factor=1.5, clock=time.monotonic, sleep=time.sleep):
    """Like kubernetes.core's waiter ``clock``, but the pause grows by ``factor`` up to
    ``max_interval``, and the last pause is cut so that the deadline is kept. Yields seconds waited."""
    started = clock()
    yield 0.0
    pause = max(float(interval), 0.05)
    while True:
        left = total - (clock() - started)
        if left <= 0:
            return
        sleep(min(pause, left))
        pause = min(pause * factor, max(float(max_interval), pause))
        yield clock() - started


def poll(probe, timeout, interval=1.0, max_interval=10.0, clock=time.monotonic, sleep=time.sleep):
    """Call ``probe()`` until it returns ``(True, value)`` or ``timeout`` seconds passed.

    Returns ``(done, value, waited)`` with the last value the probe gave."""
    done, value, waited = False, None, 0.0
    for waited in backoff_clock(timeout, interval, max_interval, clock=clock, sleep=sleep):
        done, value = probe()
        if done:
            break
    return done, value, round(waited, 1)


def pause(seconds, sleep=time.sleep):
    """A deliberate pause (a settle time the caller documents), kept here with the other waits."""
    if seconds > 0:
        sleep(seconds)


# How often a write guarded by the resourceVersion it read is tried on a fresh read after HTTP 409 Conflict:
# client-go's retry.RetryOnConflict with DefaultRetry (k8s.io/client-go/util/retry/util.go: Steps 5).
CONFLICT_ATTEMPTS = 5


def patch_on_fresh_read(cluster, api_version, kind, name, change, namespace=None, dry_run=False,
                        attempts=CONFLICT_ATTEMPTS):
    """Read, let ``change(obj)`` say the merge patch for the object as read (None: nothing to change), and
    write it under the read's resourceVersion, so that a change someone made meanwhile is never overwritten.
    When the API server answers 409 Conflict (the object changed between the read and the write: a Karmada
    Cluster's status does every few seconds), read again and ask ``change`` again, up to ``attempts`` times
    in all, as client-go's retry.RetryOnConflict does; then the last ApiError is raised.

    Returns (the object as last read, what the write returned or None when ``change`` said nothing);
    (None, None) when the object does not exist."""
    attempt = 0
    while True:
        attempt += 1
        current = cluster.get(api_version, kind, name, namespace)
        if current is None:
            return None, None
        patch = change(current)
        if patch is None:
            return current, None
        guarded = dict(patch, metadata=dict(patch.get("metadata") or {},
                                            resourceVersion=current["metadata"]["resourceVersion"]))
        try:
            return current, cluster.patch(api_version, kind, name, guarded, namespace=namespace, dry_run=dry_run)
        except ApiError as error:
            if error.status != 409 or attempt >= attempts:
                raise


def _as_dict(instance):
    return instance.to_dict() if hasattr(instance, "to_dict") else instance


def _is_missing_path(error):
    """A 404 for the path itself ("404 page not found": the API group is gone), as opposed to
    an object that does not exist (a JSON Status with reason NotFound)."""
    if getattr(error, "status", None) != 404:
        return False
    body = getattr(error, "body", None)
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    try:
        decoded = json.loads(body or "")
    except ValueError:
        return True
    return not (isinstance(decoded, dict) and decoded.get("kind") == "Status" and decoded.get("details"))


class Cluster(object):
    """One cluster's API, as plain dicts. ``name`` appears in every error message."""

    def __init__(self, client, name, request_timeout=DEFAULT_REQUEST_TIMEOUT):
        self._client = client  # kubernetes.core K8SClient
        self.name = name
        self.request_timeout = request_timeout

    # --- discovery ---------------------------------------------------------------------------
    def _refresh_discovery(self):
        try:
            self._client.client.resources.invalidate_cache()
        except (DynamicApiError, TransportError) as error:
            raise ApiError("%s: API discovery failed: %s" % (self.name, api_error_text(error)),
                           getattr(error, "status", None))

    def resource(self, api_version, kind):
        """The client's Resource for kind in api_version, or None when the cluster does not serve it.

        kubernetes' LazyDiscoverer already refreshes its cache on a miss, so an API added since
        the cache was written is found; the opposite case (cached, but gone) is ``_call``'s."""
        try:
            return self._client.resource(kind, api_version)
        except (ResourceNotFoundError, ResourceNotUniqueError):
            return None
        except (DynamicApiError, TransportError) as error:
            raise ApiError("%s: API discovery failed: %s" % (self.name, api_error_text(error)),
                           getattr(error, "status", None))

    def serves(self, api_version, kind):
        return self.resource(api_version, kind) is not None

    def serves_now(self, api_version, kind):
        """Whether the cluster serves kind now, confirmed by reading one object: a discovery cache
        written before the CRD was deleted still lists it (the read then refreshes discovery once)."""
        def call(resource):
            self._client.get(resource, **self._params(dict(limit=1)))
            return True
        return self._call(api_version, kind, call, lambda: False)

    def namespaced(self, api_version, kind):
        resource = self.require(api_version, kind)
        return bool(resource.namespaced)

    def require(self, api_version, kind):
        resource = self.resource(api_version, kind)
        if resource is None:
            raise ApiError("%s does not serve %s %s (is the CRD installed?)" % (self.name, api_version, kind), 404)
        return resource

    def _call(self, api_version, kind, call, missing):
        """Run ``call(resource)``; an API that disappeared since discovery is looked up again once,
        and ``missing()`` answers when it is gone."""
        for attempt in (0, 1):
            resource = self.resource(api_version, kind)
            if resource is None:
                return missing()
            try:
                return call(resource)
            except DynamicApiError as error:
                if _is_missing_path(error) and not attempt:
                    self._refresh_discovery()
                    continue
                if _is_missing_path(error):
                    return missing()
                raise ApiError("%s: %s" % (self.name, api_error_text(error)), error.status, error.reason)
            except TransportError as error:
                raise ApiError("%s: %s" % (self.name, api_error_text(error)))
        return missing()

    def _params(self, params):
        params = dict((k, v) for k, v in params.items() if v is not None)
        params["_request_timeout"] = self.request_timeout
        return params

    # --- reads ---------------------------------------------------------------------------------
    def get(self, api_version, kind, name, namespace=None):
        """The object, or None when it (or its API) does not exist."""
        def call(resource):
            try:
                return _as_dict(self._client.get(resource, **self._params(
                    dict(name=name, namespace=namespace if resource.namespaced else None))))
            except DynamicApiError as error:
                if error.status == 404 and not _is_missing_path(error):
                    return None
                raise
        return self._call(api_version, kind, call, lambda: None)

    def list(self, api_version, kind, namespace=None, label_selector=None, field_selector=None):
        """The objects ([] when the API does not exist), each with apiVersion and kind set."""
        def call(resource):
            listed = _as_dict(self._client.get(resource, **self._params(dict(
                namespace=namespace if resource.namespaced else None,
                label_selector=label_selector or None, field_selector=field_selector or None))))
            items = listed.get("items") or []
            for item in items:
                item.setdefault("apiVersion", api_version)
                item.setdefault("kind", kind)
            return items
        return self._call(api_version, kind, call, lambda: [])

    def version(self):
        """The server's ``/version`` document (as served; the federation endpoint's is empty)."""
        try:
            # Unserialized: the dynamic client would wrap the answer in a ResourceInstance, which needs
            # a "kind" that /version does not have (KeyError on a plain kube-apiserver).
            response = self._client.client.request("get", "/version", serialize=False,
                                                   _request_timeout=self.request_timeout)
        except DynamicApiError as error:
            raise ApiError("%s: %s" % (self.name, api_error_text(error)), error.status, error.reason)
        except TransportError as error:
            raise ApiError("%s: %s" % (self.name, api_error_text(error)))
        text = response.data.decode("utf-8", "replace") if isinstance(response.data, bytes) else response.data
        try:
            decoded = json.loads(text or "{}")
        except ValueError:
            raise ApiError("%s: /version answered with something that is not JSON" % self.name)
        return decoded if isinstance(decoded, dict) else {}

    # --- writes --------------------------------------------------------------------------------
    def _write_missing(self, api_version, kind):
        def missing():
            raise ApiError("%s does not serve %s %s (is the CRD installed?)" % (self.name, api_version, kind), 404)
        return missing

    def create(self, body, dry_run=False):
        api_version, kind = body["apiVersion"], body["kind"]
        namespace = (body.get("metadata") or {}).get("namespace")

        def call(resource):
            return _as_dict(self._client.create(resource, body, **self._params(dict(
                namespace=namespace if resource.namespaced else None, dry_run="All" if dry_run else None))))
        return self._call(api_version, kind, call, self._write_missing(api_version, kind))

    def patch(self, api_version, kind, name, patch, namespace=None, patch_type="merge", dry_run=False):
        """``patch_type``: merge (RFC 7386), json (RFC 6902) or strategic."""
        content_type = {"merge": "application/merge-patch+json", "json": "application/json-patch+json",
                        "strategic": "application/strategic-merge-patch+json"}[patch_type]

        def call(resource):
            return _as_dict(self._client.patch(resource, patch, **self._params(dict(
                name=name, namespace=namespace if resource.namespaced else None, content_type=content_type,
                dry_run="All" if dry_run else None))))
        return self._call(api_version, kind, call, self._write_missing(api_version, kind))

    def delete(self, api_version, kind, name, namespace=None, dry_run=False, propagation_policy=None):
        """Delete; False when it was not there."""
        def call(resource):
            try:
                self._client.delete(resource, **self._params(dict(
                    name=name, namespace=namespace if resource.namespaced else None,
                    dry_run="All" if dry_run else None, propagation_policy=propagation_policy)))
                return True
            except DynamicApiError as error:
                if error.status == 404 and not _is_missing_path(error):
                    return False
                raise
        return self._call(api_version, kind, call, lambda: False)


def _connect(name, request_timeout, **auth):
    # Imported here: kubernetes.core's client module imports the kubernetes library at import time,
    # and modules must be able to report a missing library through AnsibleK8SModule first.
    from ansible_collections.kubernetes.core.plugins.module_utils.k8s.client import get_api_client

    # The client's discovery sends its first request while the client is being built, before any
    # per-request timeout can be passed; urllib3 falls back to the socket default, and a module is
    # one short-lived process, so this bounds every connection attempt of the module.
    if request_timeout:
        socket.setdefaulttimeout(request_timeout)
    try:
        client = get_api_client(**auth)
    except CoreException as error:
        raise AccessError("%s: %s" % (name, error))
    except (DynamicApiError, TransportError) as error:
        raise AccessError("%s: the API server cannot be reached: %s" % (name, api_error_text(error)))
    except (IOError, OSError, ValueError, TypeError) as error:
        # kubernetes.config raises plain exceptions for unreadable files and bad contexts.
        raise AccessError("%s: the kubeconfig cannot be used: %s" % (name, str(error).splitlines()[0] if str(error) else type(error).__name__))
    return Cluster(client, name, request_timeout)


def connect_control_plane(module, name="the federation control plane", request_timeout=DEFAULT_REQUEST_TIMEOUT):
    """The cluster the task's own connection options (module_defaults: kubeconfig, context) name.

    Goes through the module so that kubernetes.core's server-side dry-run setting applies."""
    check_environment(module.params.get("kubeconfig"), module.params.get("context"))
    return _connect(name, request_timeout, module=module)


def connect(kubeconfig, context=None, name=None, request_timeout=DEFAULT_REQUEST_TIMEOUT):
    """A cluster from a kubeconfig (a path, or the parsed file as a dict) and context."""
    check_environment(kubeconfig, context)
    where = name or ("context %s of %s" % (context, kubeconfig if not isinstance(kubeconfig, dict) else "the kubeconfig"))
    return _connect(where, request_timeout, kubeconfig=kubeconfig, context=context)


def connect_member(member, request_timeout=DEFAULT_REQUEST_TIMEOUT):
    """A member from one MEMBER_ACCESS_SPEC entry; its name is the cluster's name in the federation."""
    if not member.get("name") or not member.get("kubeconfig"):
        raise AccessError("a members entry needs name and kubeconfig (the member_clusters filter gives them): %r"
                          % dict((k, v) for k, v in member.items() if k in ("name", "host", "context")))
    return connect(member["kubeconfig"], member.get("context"), "cluster %s" % member["name"], request_timeout)

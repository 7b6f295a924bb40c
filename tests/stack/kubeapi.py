"""A minimal Kubernetes REST client for the stack's own bootstrap objects and loops.

The stack talks to its apiservers directly over HTTPS with the admin client certificate (TLS
verified against the stack CA). It needs only a handful of kinds, so paths come from a table
instead of discovery; objects are written with server-side apply (``application/apply-patch+yaml``,
kubernetes/website ``content/en/docs/reference/using-api/server-side-apply.md``), which is idempotent
and has no size limit on the last-applied annotation (the Karmada CRDs are large).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import requests

FIELD_MANAGER = "mcf-stack"

# kind -> (API prefix, plural, namespaced)
KINDS = {
    "Namespace": ("/api/v1", "namespaces", False),
    "Node": ("/api/v1", "nodes", False),
    "Service": ("/api/v1", "services", True),
    "ConfigMap": ("/api/v1", "configmaps", True),
    "Secret": ("/api/v1", "secrets", True),
    "CustomResourceDefinition": ("/apis/apiextensions.k8s.io/v1", "customresourcedefinitions", False),
    "APIService": ("/apis/apiregistration.k8s.io/v1", "apiservices", False),
    "MutatingWebhookConfiguration": ("/apis/admissionregistration.k8s.io/v1", "mutatingwebhookconfigurations", False),
    "ValidatingWebhookConfiguration": ("/apis/admissionregistration.k8s.io/v1", "validatingwebhookconfigurations", False),
    "Cluster": ("/apis/cluster.karmada.io/v1alpha1", "clusters", False),
    "FederatedCluster": ("/apis/core.kubeadmiral.io/v1alpha1", "federatedclusters", False),
    "FederatedTypeConfig": ("/apis/core.kubeadmiral.io/v1alpha1", "federatedtypeconfigs", False),
}


class ApiError(RuntimeError):
    pass


def object_path(obj: dict) -> str:
    kind = obj["kind"]
    if kind not in KINDS:
        raise ApiError(f"the stack's client has no path for kind {kind}")
    prefix, plural, namespaced = KINDS[kind]
    meta = obj["metadata"]
    if namespaced:
        return f"{prefix}/namespaces/{meta.get('namespace', 'default')}/{plural}/{meta['name']}"
    return f"{prefix}/{plural}/{meta['name']}"


@dataclass
class Api:
    server: str
    ca_file: Path
    cert_file: Path | None = None
    key_file: Path | None = None
    token: str | None = None
    timeout: float = 15.0

    def __post_init__(self) -> None:
        self.session = requests.Session()
        if self.cert_file:
            self.session.cert = (str(self.cert_file), str(self.key_file))
        if self.token:
            self.session.headers["Authorization"] = f"Bearer {self.token}"

    def request(self, method: str, path: str, body=None, content_type: str = "application/json",
                params: dict | None = None, timeout: float | None = None) -> requests.Response:
        data = None
        headers = {}
        if body is not None:
            data = body if isinstance(body, (bytes, str)) else json.dumps(body)
            headers["Content-Type"] = content_type
        # verify is passed per request: a session-level value loses to $REQUESTS_CA_BUNDLE.
        return self.session.request(method, self.server + path, data=data, headers=headers, params=params,
                                    timeout=timeout or self.timeout, verify=str(self.ca_file))

    def get(self, path: str, params: dict | None = None) -> dict | None:
        response = self.request("GET", path, params=params)
        if response.status_code == 404:
            return None
        _check(response, "GET", path)
        return response.json()

    def apply(self, obj: dict) -> dict:
        path = object_path(obj)
        response = self.request("PATCH", path, body=obj, content_type="application/apply-patch+yaml",
                                params={"fieldManager": FIELD_MANAGER, "force": "true"})
        _check(response, "apply", path)
        return response.json()

    def merge_patch(self, path: str, patch: dict) -> dict:
        response = self.request("PATCH", path, body=patch, content_type="application/merge-patch+json")
        _check(response, "patch", path)
        return response.json()

    def create(self, path: str, obj: dict) -> dict | None:
        """POST to a collection; None if the object already exists."""
        response = self.request("POST", path, body=obj)
        if response.status_code == 409:
            return None
        _check(response, "create", path)
        return response.json()

    def delete(self, path: str) -> bool:
        """DELETE an object; False if it was not there."""
        response = self.request("DELETE", path)
        if response.status_code == 404:
            return False
        _check(response, "delete", path)
        return True

    def readyz(self) -> tuple[bool, str]:
        try:
            response = self.request("GET", "/readyz", timeout=3)
        except requests.RequestException as error:
            return False, _short(error)
        return response.status_code == 200, f"/readyz {response.status_code}"


def _check(response: requests.Response, verb: str, path: str) -> None:
    if response.status_code >= 400:
        raise ApiError(f"{verb} {path}: HTTP {response.status_code}: {response.text[:500]}")


def _short(error: Exception) -> str:
    text = str(error)
    if "Connection refused" in text:
        return "connection refused"
    return text[:160]

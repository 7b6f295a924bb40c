"""kubeconfig files shaped like the ones a cloud console hands out.

A member's file has two contexts, ``internal`` (the VPC endpoint) and ``external`` (the public
endpoint), as a CCE/UCS console download does; the federation file has ``federation`` (the
UCS-like endpoint, through the stack's proxy, with a bearer token) and ``karmada`` (the Karmada
apiserver itself, with the admin client certificate); KubeAdmiral's federation file has one context,
``federation``, for its host apiserver. Credentials are embedded, files are 0600.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

import yaml

from tests.stack.topology import EXTERNAL_ADDRESS, INTERNAL_ADDRESS, KarmadaPorts, Member

FEDERATION_CONTEXT = "federation"
KARMADA_CONTEXT = "karmada"
INTERNAL_CONTEXT = "internal"
EXTERNAL_CONTEXT = "external"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def build(clusters: dict[str, str], users: dict[str, dict], contexts: dict[str, tuple[str, str]],
          current: str, ca_pem: bytes) -> dict:
    """A kubeconfig: clusters name->server, users name->user fields, contexts name->(cluster, user)."""
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "preferences": {},
        "clusters": [{"name": name, "cluster": {"server": server, "certificate-authority-data": _b64(ca_pem)}}
                     for name, server in clusters.items()],
        "users": [{"name": name, "user": user} for name, user in users.items()],
        "contexts": [{"name": name, "context": {"cluster": cluster, "user": user}}
                     for name, (cluster, user) in contexts.items()],
        "current-context": current,
    }


def cert_user(cert_pem: bytes, key_pem: bytes) -> dict:
    return {"client-certificate-data": _b64(cert_pem), "client-key-data": _b64(key_pem)}


def member(m: Member, ca_pem: bytes, cert_pem: bytes, key_pem: bytes) -> dict:
    user = f"{m.name}-admin"
    return build(
        clusters={f"{m.name}-internal": f"https://{INTERNAL_ADDRESS}:{m.apiserver_port}",
                  f"{m.name}-external": f"https://{EXTERNAL_ADDRESS}:{m.apiserver_port}"},
        users={user: cert_user(cert_pem, key_pem)},
        contexts={INTERNAL_CONTEXT: (f"{m.name}-internal", user), EXTERNAL_CONTEXT: (f"{m.name}-external", user)},
        current=INTERNAL_CONTEXT, ca_pem=ca_pem)


def federation(ports: KarmadaPorts, ca_pem: bytes, token: str, cert_pem: bytes, key_pem: bytes) -> dict:
    return build(
        clusters={"federation": f"https://{INTERNAL_ADDRESS}:{ports.federation_proxy}",
                  "karmada-apiserver": f"https://{INTERNAL_ADDRESS}:{ports.apiserver}"},
        users={"federation-user": {"token": token}, "karmada-admin": cert_user(cert_pem, key_pem)},
        contexts={FEDERATION_CONTEXT: ("federation", "federation-user"),
                  KARMADA_CONTEXT: ("karmada-apiserver", "karmada-admin")},
        current=FEDERATION_CONTEXT, ca_pem=ca_pem)


def kubeadmiral_federation(server: str, ca_pem: bytes, cert_pem: bytes, key_pem: bytes) -> dict:
    """The KubeAdmiral federation's file: its host apiserver itself, context ``federation``."""
    return build(clusters={"kubeadmiral-host": server}, users={"kubeadmiral-admin": cert_user(cert_pem, key_pem)},
                 contexts={FEDERATION_CONTEXT: ("kubeadmiral-host", "kubeadmiral-admin")},
                 current=FEDERATION_CONTEXT, ca_pem=ca_pem)


def component(cluster: str, server: str, ca_pem: bytes, cert_pem: bytes, key_pem: bytes) -> dict:
    """Single-context admin kubeconfig for the stack's own processes (they use the current context)."""
    return build(clusters={cluster: server}, users={f"{cluster}-admin": cert_user(cert_pem, key_pem)},
                 contexts={cluster: (cluster, f"{cluster}-admin")}, current=cluster, ca_pem=ca_pem)


def write(path: Path, config: dict) -> bool:
    """Write 0600 if the content differs. Returns whether the file changed."""
    text = yaml.safe_dump(config, sort_keys=False)
    if path.exists() and path.read_text() == text:
        if path.stat().st_mode & 0o777 != 0o600:
            path.chmod(0o600)
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)
    return True

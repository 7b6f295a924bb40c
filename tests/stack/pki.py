"""The stack's PKI, made once with ``cryptography`` and kept in ``<state>/pki``.

The shape follows Kubernetes' PKI requirements (kubernetes/website
``content/en/docs/setup/best-practices/certificates.md``) and Karmada's deploy script
(karmada ``hack/deploy-karmada.sh``: one CA for clients and servers, a separate front-proxy CA whose
client cert is ``front-proxy-client``, a service-account key pair, serving certs with the service
DNS names plus ``localhost``/``127.0.0.1``). Every serving cert also carries the second loopback
address, because each cluster has an `internal` and an `external` endpoint.
Files are created only when missing, so a second ``up`` keeps every credential already handed out.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from tests.stack.topology import EXTERNAL_ADDRESS, INTERNAL_ADDRESS

CA_DAYS = 3650
LEAF_DAYS = 825

# In-cluster names of the `kubernetes` Service (kubeadm's apiserver cert SANs) and its first IP.
APISERVER_DNS = ["localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
                 "kubernetes.default.svc.cluster.local"]
SERVICE_CLUSTER_IP_RANGE = "10.96.0.0/16"
KUBERNETES_SERVICE_IP = "10.96.0.1"

FEDERATION_TOKEN_USER = "federation-admin"


@dataclass(frozen=True)
class CertSpec:
    name: str
    common_name: str
    organizations: tuple[str, ...] = ()
    dns: tuple[str, ...] = ()
    ips: tuple[str, ...] = ()
    server: bool = False
    client: bool = False
    ca: str = "ca"


@dataclass
class Pki:
    directory: Path
    clusters: list[str] = field(default_factory=list)

    # File locations -------------------------------------------------------------------------
    def crt(self, name: str) -> Path:
        return self.directory / f"{name}.crt"

    def key(self, name: str) -> Path:
        return self.directory / f"{name}.key"

    @property
    def ca_crt(self) -> Path:
        return self.crt("ca")

    @property
    def ca_key(self) -> Path:
        return self.key("ca")

    @property
    def front_proxy_ca_crt(self) -> Path:
        return self.crt("front-proxy-ca")

    def sa_key(self, cluster: str) -> Path:
        return self.directory / f"sa-{cluster}.key"

    def sa_pub(self, cluster: str) -> Path:
        return self.directory / f"sa-{cluster}.pub"

    @property
    def federation_token_file(self) -> Path:
        return self.directory / "federation.token"

    @property
    def token_auth_file(self) -> Path:
        """kube-apiserver --token-auth-file for the karmada apiserver (the federation endpoint's user)."""
        return self.directory / "karmada-tokens.csv"

    def federation_token(self) -> str:
        return self.federation_token_file.read_text().strip()

    def ca_pem(self) -> bytes:
        return self.ca_crt.read_bytes()

    # What the stack needs -----------------------------------------------------------------
    def cert_specs(self) -> list[CertSpec]:
        loopbacks = (INTERNAL_ADDRESS, EXTERNAL_ADDRESS)
        specs = [
            CertSpec("admin", "stack-admin", organizations=("system:masters",), client=True),
            CertSpec("front-proxy-client", "front-proxy-client", client=True, ca="front-proxy-ca"),
            CertSpec("karmada-aggregated-apiserver", "karmada-aggregated-apiserver", server=True,
                     dns=("localhost", "karmada-aggregated-apiserver.karmada-system.svc",
                          "karmada-aggregated-apiserver.karmada-system.svc.cluster.local"),
                     ips=loopbacks),
            CertSpec("karmada-webhook", "system:karmada:karmada-webhook", server=True,
                     dns=("localhost", "karmada-webhook.karmada-system.svc",
                          "karmada-webhook.karmada-system.svc.cluster.local"),
                     ips=loopbacks),
            CertSpec("federation-proxy", "federation-proxy", server=True, dns=("localhost",), ips=loopbacks),
            # kube-controller-manager and kube-scheduler serve /healthz with this instead of a
            # throw-away self-signed cert, so the stack's health checks verify TLS.
            CertSpec("components", "stack-components", server=True, dns=("localhost",), ips=loopbacks),
        ]
        for cluster in self.clusters:
            specs.append(CertSpec(
                f"apiserver-{cluster}", f"kube-apiserver-{cluster}", server=True,
                dns=tuple(APISERVER_DNS), ips=(*loopbacks, KUBERNETES_SERVICE_IP)))
        return specs

    def ensure(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.directory.chmod(0o700)
        for ca in ("ca", "front-proxy-ca"):
            if not (self.crt(ca).exists() and self.key(ca).exists()):
                key = _new_key()
                _write_key(self.key(ca), key)
                _write(self.crt(ca), _self_signed_ca(f"mcf-stack-{ca}", key).public_bytes(serialization.Encoding.PEM))
        for spec in self.cert_specs():
            if self.crt(spec.name).exists() and self.key(spec.name).exists():
                continue
            ca_cert = x509.load_pem_x509_certificate(self.crt(spec.ca).read_bytes())
            ca_key = serialization.load_pem_private_key(self.key(spec.ca).read_bytes(), password=None)
            key = _new_key()
            cert = _leaf(spec, key, ca_cert, ca_key)
            _write_key(self.key(spec.name), key)
            _write(self.crt(spec.name), cert.public_bytes(serialization.Encoding.PEM))
        for cluster in self.clusters:
            if not (self.sa_key(cluster).exists() and self.sa_pub(cluster).exists()):
                key = _new_key()
                _write_key(self.sa_key(cluster), key)
                _write(self.sa_pub(cluster), key.public_key().public_bytes(
                    serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
        if not self.federation_token_file.exists():
            _write(self.federation_token_file, (secrets.token_urlsafe(32) + "\n").encode(), private=True)
        # Static token file format: token,user,uid,"group1,group2"
        # (kubernetes/website content/en/docs/reference/access-authn-authz/authentication.md).
        line = f'{self.federation_token()},{FEDERATION_TOKEN_USER},{FEDERATION_TOKEN_USER},"system:masters"\n'
        if not self.token_auth_file.exists() or self.token_auth_file.read_text() != line:
            _write(self.token_auth_file, line.encode(), private=True)


def _new_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _write(path: Path, data: bytes, private: bool = False) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o644)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)


def _write_key(path: Path, key) -> None:
    _write(path, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                   serialization.NoEncryption()), private=True)


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def _self_signed_ca(common_name: str, key) -> x509.Certificate:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = _now()
    return (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=CA_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                     content_commitment=False, key_encipherment=False, data_encipherment=False,
                                     key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )


def _leaf(spec: CertSpec, key, ca_cert: x509.Certificate, ca_key) -> x509.Certificate:
    attrs = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, org) for org in spec.organizations]
    attrs.append(x509.NameAttribute(NameOID.COMMON_NAME, spec.common_name))
    usages = []
    if spec.server:
        usages.append(ExtendedKeyUsageOID.SERVER_AUTH)
    if spec.client:
        usages.append(ExtendedKeyUsageOID.CLIENT_AUTH)
    now = _now()
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name(attrs)).issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=LEAF_DAYS))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=False, key_cert_sign=False,
                                     crl_sign=False, content_commitment=False, data_encipherment=False,
                                     key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage(usages), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_cert.public_key()), critical=False)
    )
    sans = [x509.DNSName(name) for name in spec.dns] + [x509.IPAddress(ipaddress.ip_address(ip)) for ip in spec.ips]
    if sans:
        builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return builder.sign(ca_key, hashes.SHA256())

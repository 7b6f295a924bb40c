# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Expiry of client certificates and JWT tokens in a kubeconfig user."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import datetime
import json

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from ansible_collections.multicloud.federation.plugins.module_utils.kubeconfig import credentials as creds

UTC = datetime.timezone.utc
NOW = datetime.datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


def certificate_pem(not_after):
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, u"kubernetes-admin")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(not_after - datetime.timedelta(days=3650))
        .not_valid_after(not_after)
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM)


def jwt(claims):
    def segment(data):
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")
    return "%s.%s.%s" % (segment({"alg": "RS256", "kid": "k"}), segment(claims), "c2lnbmF0dXJl")


def test_jwt_exp_claim():
    expires = datetime.datetime(2031, 11, 29, 0, 0, tzinfo=UTC)
    assert creds.jwt_expiry(jwt({"sub": "system:serviceaccount:a:b", "exp": int(expires.timestamp())})) == expires


@pytest.mark.parametrize("token", [
    "opaque-bearer-token",
    jwt({"sub": "legacy service account token, no exp"}),
    jwt({"exp": "soon"}),
    jwt({"exp": True}),
    "a.%%%%.c",
    "a.bm90IGpzb24.c",
])
def test_tokens_without_a_readable_expiry(token):
    assert creds.jwt_expiry(token) is None


def test_certificate_from_embedded_data():
    not_after = datetime.datetime(2027, 1, 1, tzinfo=UTC)
    data = base64.b64encode(certificate_pem(not_after)).decode()
    info = creds.credential_expiry({"name": "admin", "user": {"client-certificate-data": data, "client-key-data": "x"}}, "/")
    assert info == {"user": "admin", "kind": "client-certificate", "expires": not_after}


def test_certificate_from_a_relative_file(tmp_path):
    not_after = datetime.datetime(2028, 6, 1, tzinfo=UTC)
    (tmp_path / "admin.crt").write_bytes(certificate_pem(not_after))
    info = creds.credential_expiry({"name": "admin", "user": {"client-certificate": "admin.crt"}}, str(tmp_path))
    assert info["expires"] == not_after


def test_unreadable_certificate_is_an_error_without_content():
    with pytest.raises(ValueError) as error:
        creds.credential_expiry({"name": "admin", "user": {"client-certificate-data": "bm90IGEgY2VydA=="}}, "/")
    assert str(error.value) == "the client certificate of user 'admin' cannot be read as PEM"


def test_token_file(tmp_path):
    expires = datetime.datetime(2027, 3, 1, tzinfo=UTC)
    (tmp_path / "token").write_text(jwt({"exp": int(expires.timestamp())}) + "\n")
    info = creds.credential_expiry({"name": "sa", "user": {"tokenFile": "token"}}, str(tmp_path))
    assert info == {"user": "sa", "kind": "token", "expires": expires}


@pytest.mark.parametrize("user, kind", [
    ({"exec": {"command": "cce-auth"}}, "exec"),
    ({"auth-provider": {"name": "oidc"}}, "auth-provider"),
    ({"username": "admin", "password": "p"}, "basic"),
    ({}, "none"),
])
def test_credentials_without_an_expiry(user, kind):
    assert creds.credential_expiry({"name": "u", "user": user}, "/") == {"user": "u", "kind": kind, "expires": None}


@pytest.mark.parametrize("expires, level, days_left", [
    (None, "unknown", None),
    (NOW + datetime.timedelta(days=1825), "ok", 1825),
    (NOW + datetime.timedelta(days=30, seconds=1), "ok", 30),
    (NOW + datetime.timedelta(days=30), "expiring", 30),
    (NOW + datetime.timedelta(days=10, hours=5), "expiring", 10),
    (NOW + datetime.timedelta(hours=1), "expiring", 0),
    (NOW, "expired", 0),
    (NOW - datetime.timedelta(days=2, hours=1), "expired", -3),
])
def test_classify_expiry(expires, level, days_left):
    assert creds.classify_expiry({"expires": expires}, NOW, 30) == (level, days_left)


def test_describe():
    assert creds.describe({"kind": "client-certificate", "user": "admin"}, "/k") == "the client certificate of user 'admin' in /k"
    assert creds.describe({"kind": "token", "user": "fleet"}, "/k") == "the token of user 'fleet' in /k"

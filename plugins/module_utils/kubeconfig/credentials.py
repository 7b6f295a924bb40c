# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""When does a kubeconfig user's credential stop working?

A fleet kubeconfig from the console is issued for up to five years, and scheduled jobs are the
first to hit its end, so the kubeconfig step warns ahead of time. Two kinds of credential carry an
end date: a client certificate (X.509 notAfter) and a JWT bearer token (RFC 7519 ``exp`` claim,
seconds since the epoch). Opaque tokens, exec plugins and auth providers do not say; they are
reported as having no known expiry.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import binascii
import datetime
import json
import math
import os

try:
    from cryptography import x509

    HAS_CRYPTOGRAPHY = True
except ImportError:  # pragma: no cover - reported by the module via missing_required_lib
    HAS_CRYPTOGRAPHY = False


UTC = datetime.timezone.utc


def _b64decode_loose(text):
    """Base64 (standard or URL alphabet) without requiring padding, as JWT segments are written."""
    text = text.strip()
    padded = text + "=" * (-len(text) % 4)
    if "-" in text or "_" in text:
        return base64.urlsafe_b64decode(padded)
    return base64.b64decode(padded)


def jwt_expiry(token):
    """The ``exp`` claim of a JWT as an aware datetime, or None for an opaque token / no claim."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        claims = json.loads(_b64decode_loose(parts[1]).decode("utf-8"))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None
    exp = claims.get("exp") if isinstance(claims, dict) else None
    if isinstance(exp, bool) or not isinstance(exp, (int, float)):
        return None
    return datetime.datetime.fromtimestamp(exp, tz=UTC)


def certificate_expiry(pem):
    """notAfter of the first certificate in a PEM bundle (bytes), as an aware datetime."""
    cert = x509.load_pem_x509_certificate(pem)
    try:
        return cert.not_valid_after_utc
    except AttributeError:  # cryptography < 42
        return cert.not_valid_after.replace(tzinfo=UTC)


def _read(path, base_dir):
    if not os.path.isabs(path):
        path = os.path.join(base_dir, path)
    with open(path, "rb") as handle:
        return handle.read()


def credential_expiry(user_entry, base_dir):
    """Describe one kubeconfig user's credential: its kind and when it expires (None: unknown/never).

    Raises ValueError with a content-free message when a certificate cannot be read.
    """
    name = user_entry.get("name")
    values = user_entry.get("user") or {}
    if values.get("client-certificate-data") or values.get("client-certificate"):
        try:
            if values.get("client-certificate-data"):
                pem = _b64decode_loose(values["client-certificate-data"])
            else:
                pem = _read(values["client-certificate"], base_dir)
            expires = certificate_expiry(pem)
        except (ValueError, binascii.Error, OSError, TypeError):
            raise ValueError("the client certificate of user %r cannot be read as PEM" % name)
        return {"user": name, "kind": "client-certificate", "expires": expires}
    token = values.get("token")
    if token is None and values.get("tokenFile"):
        try:
            token = _read(values["tokenFile"], base_dir).decode("utf-8").strip()
        except (OSError, UnicodeDecodeError):
            raise ValueError("the token file of user %r cannot be read" % name)
    if token:
        return {"user": name, "kind": "token", "expires": jwt_expiry(token)}
    for kind in ("exec", "auth-provider"):
        if values.get(kind):
            return {"user": name, "kind": kind, "expires": None}
    if values.get("username"):
        return {"user": name, "kind": "basic", "expires": None}
    return {"user": name, "kind": "none", "expires": None}


def classify_expiry(info, now, warning_days):
    """Return (level, days_left): level is 'expired', 'expiring', 'ok' or 'unknown'."""
    expires = info.get("expires")
    if expires is None:
        return "unknown", None
    remaining = expires - now
    # Whole days, rounded down: 0 on the last day, negative once expired.
    days_left = int(math.floor(remaining.total_seconds() / 86400))
    if remaining.total_seconds() <= 0:
        return "expired", days_left
    if remaining <= datetime.timedelta(days=warning_days):
        return "expiring", days_left
    return "ok", days_left


def describe(info, origin):
    """Words for a warning or an error about ``info`` (a credential_expiry result)."""
    what = "client certificate" if info["kind"] == "client-certificate" else "token"
    return "the %s of user %r in %s" % (what, info["user"], origin)

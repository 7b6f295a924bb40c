# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hand-made Helm release Secrets for the helm.release and helm_release_recover tests, stored as Helm
3 stores them (labels owner/name/status/version, data.release base64 over base64(gzip(JSON)))."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import gzip
import json

from ansible_collections.multicloud.federation.plugins.module_utils.helm.release import parse_timestamp

NOW = parse_timestamp("2026-12-03T17:00:00Z")
SECRET_VALUE = "s3cr3t-chart-value"


def stamp(seconds_ago):
    """info.last_deployed as Go writes it (nanoseconds, a zone offset), seconds_ago before NOW."""
    moment = NOW - seconds_ago + 3600  # written at +01:00
    hours, rest = divmod(int(moment) % 86400, 3600)
    return "2026-12-03T%02d:%02d:%02d.123456789+01:00" % (hours, rest // 60, rest % 60)


def release_document(name, revision, status, seconds_ago, namespace="default"):
    return {"name": name, "namespace": namespace, "version": revision,
            "info": {"first_deployed": stamp(3600), "last_deployed": stamp(seconds_ago), "deleted": "",
                     "description": "Preparing upgrade", "status": status},
            "chart": {"metadata": {"name": "kruise", "version": "1.9.0"}},
            "config": {"manager": {"password": SECRET_VALUE}},
            "manifest": "---\n# Source: kruise/templates/manager.yaml\n"}


def helm_data(document, compress=True):
    """data.release as the API returns it: base64 of Helm's base64(gzip(JSON))."""
    payload = json.dumps(document).encode()
    if compress:
        payload = gzip.compress(payload, mtime=0)
    return base64.b64encode(base64.b64encode(payload)).decode()


def release_secret(name, revision, status, seconds_ago=3600, namespace="default", data=None, compress=True):
    return {"apiVersion": "v1", "kind": "Secret", "type": "helm.sh/release.v1",
            "metadata": {"name": "sh.helm.release.v1.%s.v%d" % (name, revision), "namespace": namespace,
                         "labels": {"owner": "helm", "name": name, "status": status, "version": str(revision)}},
            "data": {"release": data if data is not None else
                     helm_data(release_document(name, revision, status, seconds_ago, namespace), compress)}}

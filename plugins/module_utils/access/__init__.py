# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reaching the clusters, and one run at a time.

- ``cluster``: the one way the modules reach a Kubernetes API (``Cluster``, ``ApiError``, ``poll``,
  the credential policy, ``MEMBER_ACCESS_SPEC``), on kubernetes.core's client.
- ``objects``: Kubernetes objects as plain dicts, whichever engine federates them: the one owner of object
  references, server-owned metadata, label and node selectors and JSON merge patches (no client: the
  filters and action plugins use it too).
- ``run_lock``: one run at a time per federation, a Lease on the federation control plane (the
  run_lock module and action plugin).
"""

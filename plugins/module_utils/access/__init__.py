# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reaching the clusters, and one run at a time.

- ``cluster``: the one way the modules reach a Kubernetes API (``Cluster``, ``ApiError``, ``poll``,
  the credential policy, ``MEMBER_ACCESS_SPEC``), on kubernetes.core's client.
- ``run_lock``: one run at a time per federation, a Lease on the federation control plane (the
  run_lock module and action plugin).
"""

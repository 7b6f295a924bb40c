# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Helm charts and releases, where Helm alone gets stuck.

- ``chart``: when to remove a chart's ``kubeVersion``, and removing it (the helm_chart_prepare module).
- ``release``: a release left pending by an interrupted operation, and taking it over (the
  helm_release_recover module).
"""

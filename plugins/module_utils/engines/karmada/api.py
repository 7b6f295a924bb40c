# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Names of Karmada's API that more than one part of this package uses (karmada-io/karmada v1.18.2).

Pure constants, no imports: the package's public surface (``engines.karmada``) re-exports them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# PropagationPolicy and OverridePolicy, and their cluster-scoped kinds (pkg/apis/policy/v1alpha1).
POLICY_API_VERSION = "policy.karmada.io/v1alpha1"

# What makes Karmada adopt a member's object in place instead of refusing it
# (pkg/apis/work/v1alpha2/well_known_constants.go; karmadactl promote sets it).
CONFLICT_RESOLUTION_ANNOTATION = "work.karmada.io/conflict-resolution"
CONFLICT_RESOLUTION_OVERWRITE = "overwrite"

# Karmada writes these onto member objects it manages (pkg/apis/work/v1alpha2/well_known_constants.go,
# pkg/util/constants.go, pkg/controllers/ctrlutil/work.go); a template must not carry them.
MEMBER_LABELS = (
    "karmada.io/managed",
    "work.karmada.io/permanent-id",
    "resourcebinding.karmada.io/permanent-id",
    "clusterresourcebinding.karmada.io/permanent-id",
    "propagationpolicy.karmada.io/permanent-id",
    "clusterpropagationpolicy.karmada.io/permanent-id",
)
MEMBER_ANNOTATION_PREFIXES = (
    "resourcetemplate.karmada.io/",
    "resourcebinding.karmada.io/",
    "clusterresourcebinding.karmada.io/",
    "work.karmada.io/name",
    "work.karmada.io/namespace",
    "propagationpolicy.karmada.io/",
    "clusterpropagationpolicy.karmada.io/",
    "policy.karmada.io/applied-overrides",
    "policy.karmada.io/applied-cluster-overrides",
)

# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""united_deployment_api_version filter: the UnitedDeployment apiVersion a Kruise version prefers (documented in united_deployment_api_version.yml)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.multicloud.federation.plugins.module_utils.applications.united_deployment import (
    UnitedDeploymentError,
    united_deployment_api_version as _api_version,
)


def united_deployment_api_version(kruise_version):
    """apps.kruise.io/v1beta1 from Kruise v1.9.0 on, apps.kruise.io/v1alpha1 before."""
    try:
        return _api_version(kruise_version)
    except UnitedDeploymentError as error:
        raise AnsibleFilterError("united_deployment_api_version: %s" % error)


class FilterModule(object):
    def filters(self):
        return {"united_deployment_api_version": united_deployment_api_version}

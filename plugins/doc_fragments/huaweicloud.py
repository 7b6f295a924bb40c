# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The credential, region and endpoint options of every module that calls Huawei Cloud's CCE through
Huawei's SDK (module_utils/huaweicloud/client.py HUAWEICLOUD_ARG_SPEC, without domain_id)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    DOCUMENTATION = r"""
requirements:
  - huaweicloudsdkcore
  - huaweicloudsdkcce
options:
  region:
    description:
      - The cluster's region, for example C(ap-southeast-3). Gives the SDK's CCE endpoint of the region
        unless O(endpoint) is set, and the project looked up in IAM when no O(project_id) is given.
      - Without it, E(HUAWEICLOUD_SDK_REGION) (the collection's variable, which the AWX credential type
        C(multicloud.federation Huawei Cloud access key) injects; Huawei's SDK reads no region from the
        environment). O(region), E(HUAWEICLOUD_SDK_REGION) or O(endpoint) is required.
    type: str
  endpoint:
    description:
      - The CCE endpoint, for example C(https://cce.ap-southeast-3.myhuaweicloud.com), instead of the
        region's. Must be C(https://).
    type: str
  iam_endpoint:
    description: The IAM endpoint for the project look-up, instead of the SDK's (E(HUAWEICLOUD_SDK_IAM_ENDPOINT)).
    type: str
  access_key:
    description:
      - Access key ID (AK). Without it, E(HUAWEICLOUD_SDK_AK) and E(HUAWEICLOUD_SDK_SK) (and
        E(HUAWEICLOUD_SDK_SECURITY_TOKEN)) are used; without either, the module fails before any call.
    type: str
  secret_key:
    description: Secret access key (SK), with O(access_key).
    type: str
  security_token:
    description: Security token of a temporary access key (sent as C(X-Security-Token)).
    type: str
  project_id:
    description:
      - Project ID of the cluster's region (sent as C(X-Project-Id)); else E(HUAWEICLOUD_SDK_PROJECT_ID),
        else looked up in IAM for O(region).
    type: str
  ca_path:
    description:
      - CA bundle to verify the endpoint's certificate with, instead of the SDK's (certifi). TLS
        verification cannot be turned off.
    type: path
  timeout:
    description: Seconds to wait to connect, and for each answer.
    type: int
    default: 30
notes:
  - Calls go through Huawei Cloud's Python SDK, which signs every request with the access key (AK/SK);
    no credential is ever shown. A failed call fails with the cloud's HTTP status, its error code and what
    to fix (for a 403, the IAM action the call needs). The SDK's retries are off.
"""

    # UCS is global: its modules (ucs_fleet, ucs_federation, ucs_federation_kubeconfig) sign with the account's
    # global credentials; listed before the fragment above, these descriptions take the place of its CCE ones.
    UCS = r"""
options:
  region:
    description:
      - UCS is a global service; the SDK serves it from C(cn-north-4) (the default). Only used without O(endpoint).
        E(HUAWEICLOUD_SDK_REGION), the CCE modules' region, is not used here.
    type: str
  endpoint:
    description:
      - The UCS endpoint, for example C(https://ucs.myhuaweicloud.com), instead of the SDK's. Must be C(https://).
    type: str
  iam_endpoint:
    description: The IAM endpoint for the domain look-up, instead of the SDK's (E(HUAWEICLOUD_SDK_IAM_ENDPOINT)).
    type: str
  project_id:
    description: Not used - UCS is global and signs with the account (O(domain_id)).
    type: str
  domain_id:
    description:
      - Account (domain) ID, sent as C(X-Domain-Id) (UCS signs with global credentials); else
        E(HUAWEICLOUD_SDK_DOMAIN_ID), else looked up in IAM (C(GET /v3/auth/domains)).
    type: str
"""

# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The AWX credential type "multicloud.federation Huawei Cloud access key" (awx/credential_types.yml) injects
exactly the environment variables the collection's Huawei Cloud client reads (module_utils/huaweicloud/client.py
ENV_NAMES and REGION_ENV_NAME), marks the key's secrets secret, and renders, as AWX renders it, to what the
client resolves: every field given, or only the required ones (an optional field injected empty reads as unset).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from jinja2.sandbox import ImmutableSandboxedEnvironment

from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import client as hwc
from ansible_collections.multicloud.federation.tests.unit.awx.test_controller_objects import load, named

NAME = "multicloud.federation Huawei Cloud access key"
SECRETS = {"secret_key", "security_token"}
INPUTS = {"access_key": "HPUAEXAMPLEAK0000001", "secret_key": "Example+SecretKey/0001",
          "security_token": "TemporarySecurityToken0001", "project_id": "0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e",
          "domain_id": "d0d1d2d3d4d5d6d7d8d9dadbdcdddedf", "region": "ap-southeast-3"}


def credential_type():
    return named("controller_credential_types", NAME)


def render(injectors, inputs):
    """AWX's rendering of injector templates (awx/main/models/credential: an immutable sandbox over the inputs)."""
    sandbox = ImmutableSandboxedEnvironment()
    return dict((name, sandbox.from_string(template).render(**inputs)) for name, template in injectors.items())


def test_the_injected_environment_is_exactly_what_the_client_reads():
    env = credential_type()["injectors"]["env"]
    assert set(env) == set(hwc.ENV_NAMES.values()) | {hwc.REGION_ENV_NAME}
    # Each variable carries its own field: HUAWEICLOUD_SDK_AK the access key, and so on.
    fields = dict((variable, name) for name, variable in hwc.ENV_NAMES.items())
    fields[hwc.REGION_ENV_NAME] = "region"
    assert env == dict((variable, "{{ %s }}" % field) for variable, field in fields.items())


def test_the_fields_are_the_clients_and_the_secrets_are_secret():
    inputs = credential_type()["inputs"]
    fields = dict((field["id"], field) for field in inputs["fields"])
    assert set(fields) == set(hwc.ENV_NAMES) | {"region"} == set(INPUTS)
    assert inputs["required"] == ["access_key", "secret_key"]
    for name, field in fields.items():
        assert field["type"] == "string" and field["label"], name
        # Secret: the SK and the token (AWX encrypts them and never shows them); the ids are not.
        assert field.get("secret", False) is (name in SECRETS), name
        assert not field.get("multiline"), name


def test_the_role_variables_carry_the_key_its_token_and_nothing_else():
    credential_type_ = credential_type()
    extra_vars = credential_type_["injectors"]["extra_vars"]
    # The virtual_kubelet role passes its key as module options; a key given so brings its token from the same
    # place (client.resolve_credentials), hence the token too. Ids and the region stay the environment's, where a
    # task's own option (a host's region or project) wins over them.
    assert extra_vars == {"virtual_kubelet_cce_access_key": "{{ access_key }}",
                          "virtual_kubelet_cce_secret_key": "{{ secret_key }}",
                          "virtual_kubelet_cce_security_token": "{{ security_token }}"}
    options = load("roles/virtual_kubelet/meta/argument_specs.yml")["argument_specs"]["main"]["options"]
    assert set(extra_vars) <= set(options)
    credential = named("controller_credentials", NAME)
    assert credential["credential_type"] == credential_type_["name"]
    # From a vault, as the kubeconfig is.
    assert all(value.startswith("{{ federation_awx_") for value in credential["inputs"].values())


@pytest.mark.parametrize("given", [INPUTS, {"access_key": INPUTS["access_key"], "secret_key": INPUTS["secret_key"]}],
                         ids=["every-field", "required-only"])
def test_what_awx_injects_is_what_the_client_resolves(given):
    environ = render(credential_type()["injectors"]["env"], given)
    assert hwc.resolve_credentials({}, environ=environ) == dict(
        (name, given.get(name)) for name in ("access_key", "secret_key", "security_token", "project_id", "domain_id"))
    assert hwc.cce_region({}, environ=environ) == given.get("region")
    # A task's own region wins over the credential's default.
    assert hwc.cce_region({"region": "cn-north-4"}, environ=environ) == "cn-north-4"

# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""huaweicloud.cce_addon's decisions without a cloud: values merged and compared, the template version chosen for
a cluster, the template's defaults, and what an instance's status lets the module do. Its calls: the cce_addon
module's contract test (tests/unit/plugins/modules/test_cce_addon.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from types import SimpleNamespace as Model

import pytest

from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud import cce_addon as ca


def version(number, clusters, stable=True, cluster_type="VirtualMachine", values=None):
    return Model(version=number, stable=stable, input=values,
                 support_versions=[Model(cluster_type=cluster_type, cluster_version=clusters)])


def template(*versions):
    return Model(spec=Model(versions=list(versions)))


def instance(status, uid="a1"):
    return Model(status=Model(status=status), metadata=Model(uid=uid))


def test_values_merge_recursively_and_leave_both_sides_alone():
    base = {"flavor": {"name": "Small", "replicas": 2}, "custom": {"subnet_id": ""}}
    override = {"flavor": {"replicas": 3}, "custom": {"subnet_id": "7f6e"}, "extra": [1]}
    merged = ca.deep_merge(base, override)
    assert merged == {"flavor": {"name": "Small", "replicas": 3}, "custom": {"subnet_id": "7f6e"}, "extra": [1]}
    assert base["flavor"]["replicas"] == 2 and ca.deep_merge(None, {"a": 1}) == {"a": 1}


def test_installed_values_contain_the_wanted_ones_only_when_every_value_is_there():
    actual = {"flavor": {"name": "Small", "replicas": 2}, "custom": {"subnet_id": "7f6e"}}
    assert ca.contains(actual, {"flavor": {"replicas": 2}}) and ca.contains(actual, {})
    assert not ca.contains(actual, {"flavor": {"replicas": 3}}) and not ca.contains(actual, {"other": 1})


def test_versions_sort_as_numbers():
    assert sorted(["1.10.2", "1.5.28", "1.9.0"], key=ca.version_key) == ["1.5.28", "1.9.0", "1.10.2"]


def test_the_stable_then_highest_version_that_lists_the_cluster_is_chosen():
    chosen = ca.choose_version(template(version("1.5.28", ["v1.28.*"]), version("1.6.0", ["v1.28.*"], stable=False),
                                        version("1.5.30", ["v1.28.*"]), version("1.7.0", ["v1.29.*"])), "v1.28.5")
    assert chosen.version == "1.5.30"
    assert ca.choose_version(template(version("1.5.28", ["v1.28.*"])), "v1.31.1") is None
    assert ca.choose_version(template(version("1.5.28", ["v1.28.*"], cluster_type="BareMetal")), "v1.28.5",
                             "VirtualMachine") is None


def test_a_template_versions_defaults_are_its_basic_and_custom_values():
    values = {"basic": {"swr_user": "hwofficial"}, "parameters": {"custom": {"subnet_id": ""}, "flavor1": {}}}
    entry = version("1.5.28", ["v1.28.*"], values=values)
    assert ca.template_defaults(entry) == {"basic": {"swr_user": "hwofficial"}, "custom": {"subnet_id": ""}}
    assert ca.template_defaults(version("1.5.28", ["v1.28.*"], values="not a dict")) == {}


@pytest.mark.parametrize("status, needs_update, plan", [
    ("running", True, "settled"), ("abnormal", False, "settled"), ("installing", False, "settled"),
    ("upgradeFailed", False, "repair"), ("deleteSuccess", True, "gone"), ("somethingNew", True, "settled"),
])
def test_what_an_instances_status_lets_the_module_do(status, needs_update, plan):
    assert ca.status_plan(instance(status), "autoscaler", needs_update) == plan


def test_a_state_no_update_repairs_and_an_update_while_busy_are_refused_with_the_status():
    with pytest.raises(ca.AddonStateError) as refused:
        ca.status_plan(instance("installFailed"), "autoscaler", False)
    assert str(refused.value).startswith("add-on autoscaler (instance a1) cannot be installed or updated: its "
                                         "installation failed")
    assert refused.value.result()["addon_status"] == "installFailed"
    with pytest.raises(ca.AddonStateError, match="is being upgraded \\(status upgrading\\), and CCE takes no update"):
        ca.status_plan(instance("upgrading"), "autoscaler", True)

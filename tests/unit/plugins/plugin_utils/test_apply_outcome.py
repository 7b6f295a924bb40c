# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a server-side apply wrote, told apart from a controller's status write between kubernetes.core's read
and its apply (the diffs are kubernetes.core's recursive_diff of the two objects)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible.module_utils.common.dict_transformations import recursive_diff

from ansible_collections.multicloud.federation.plugins.plugin_utils.apply_outcome import (
    drop_diffs, settle_changed, written_by_apply)

MANAGER = "multicloud.federation"


def entry(manager, time, subresource=None):
    found = {"manager": manager, "operation": "Apply" if manager == MANAGER else "Update", "time": time,
             "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}}
    if subresource:
        found["subresource"] = subresource
    return found


READ = {
    "apiVersion": "apps.kruise.io/v1alpha1", "kind": "UnitedDeployment",
    "metadata": {"name": "sample-ud", "namespace": "default", "resourceVersion": "100", "generation": 3,
                 "managedFields": [entry(MANAGER, "t1"), entry("karmada-controller-manager", "t1", "status")]},
    "spec": {"replicas": 6},
    "status": {"replicas": 4, "readyReplicas": 4},
}


def diff(before, after):
    found = recursive_diff(before, after)
    return {"before": found[0], "after": found[1]} if found else {}


def returned(**changes):
    """The object the apply returned: READ with a status written meanwhile, and changes."""
    after = copy.deepcopy(READ)
    after["metadata"]["resourceVersion"] = "101"
    after["status"] = {"replicas": 6, "readyReplicas": 5}
    after["metadata"]["managedFields"][1]["time"] = "t2"
    for path, value in changes.items():
        where = after
        keys = path.split("__")
        for key in keys[:-1]:
            where = where[key]
        where[keys[-1]] = value
    return after


def test_a_status_written_meanwhile_is_not_this_apply_s_write():
    assert not written_by_apply(diff(READ, returned()), MANAGER)


def test_a_changed_spec_is_a_write():
    assert written_by_apply(diff(READ, returned(spec__replicas=7)), MANAGER)


def test_a_changed_label_is_a_write():
    labelled = returned(metadata__labels={"app": "sample"})
    assert written_by_apply(diff(READ, labelled), MANAGER)


def test_the_manager_s_own_entry_moved_is_a_write_even_with_the_same_values():
    # force_conflicts took a field over from another manager: same value, the ownership changed.
    taken = returned()
    taken["metadata"]["managedFields"][0]["time"] = "t2"
    assert written_by_apply(diff(READ, taken), MANAGER)


def test_another_manager_s_entry_and_the_generation_are_not_this_apply_s():
    other = returned(metadata__generation=4)
    other["metadata"]["managedFields"].append(entry("kubectl", "t2"))
    assert not written_by_apply(diff(READ, other), MANAGER)


def test_anything_unexpected_counts_as_written():
    assert written_by_apply(None, MANAGER)
    assert written_by_apply({"before": "x", "after": {}}, MANAGER)
    assert written_by_apply(diff(READ, returned()), None)


def test_settle_changed_on_one_object_and_on_a_list():
    quiet = {"changed": True, "method": "apply", "diff": diff(READ, returned()), "result": {}}
    assert settle_changed(quiet, MANAGER)["changed"] is False
    written = {"changed": True, "method": "apply", "diff": diff(READ, returned(spec__replicas=7)), "result": {}}
    listed = {"changed": True, "result": {"results": [copy.deepcopy(quiet), written]}}
    assert settle_changed(listed, MANAGER)["changed"] is True
    assert [part["changed"] for part in listed["result"]["results"]] == [False, True]
    only_quiet = {"changed": True, "result": {"results": [dict(quiet, changed=True)]}}
    assert settle_changed(only_quiet, MANAGER)["changed"] is False


def test_a_creation_or_a_result_without_its_diff_keeps_changed():
    assert settle_changed({"changed": True, "method": "create", "result": {}}, MANAGER)["changed"] is True
    assert settle_changed({"changed": True, "method": "apply", "result": {}}, MANAGER)["changed"] is True


def test_drop_diffs_removes_what_the_task_did_not_ask_for():
    listed = {"changed": True, "result": {"results": [{"method": "apply", "diff": {}, "changed": True}]}}
    assert "diff" not in drop_diffs(listed)["result"]["results"][0]
    assert "diff" not in drop_diffs({"method": "apply", "diff": {}, "changed": False})

# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A CCE add-on (such as virtual-kubelet, the CCE Cloud Bursting Engine for CCI) through huaweicloudsdkcce.

Calls (huaweicloudsdkcce v3 ``cce_client.py``): ``list_addon_instances`` (GET /api/v3/addons?cluster_id=),
``list_addon_templates`` (GET /api/v3/addontemplates?addon_template_name=), ``show_cluster``
(GET /api/v3/projects/{project_id}/clusters/{cluster_id}), ``create_addon_instance`` (POST /api/v3/addons)
and ``update_addon_instance`` (PUT /api/v3/addons/{id}).

- Read first: the instance of the template, if any, decides; a second run with the same input makes no
  write call, and check mode never makes one.
- A version not given is chosen from the template's versions whose ``supportVersions`` match the
  cluster (``clusterVersion`` entries are patterns such as ``v1.(27|28).*``; ``clusterType`` the
  cluster's ``spec.type``): the stable ones first, then the highest.
- Values given are merged over the defaults: on install over the template version's ``input``
  (``input.basic`` and ``input.parameters.custom``, as Huawei's API reference shows them; the SDK types
  ``input`` as a plain object, so the shape is not confirmed by the SDK), on update over the instance's
  current values. An installed add-on whose values already hold every value given, at the version
  asked for (or any, when none is), is left alone.
- The instance's ``status.status`` (AddonInstanceStatus in the SDK, whose docstring lists the values and
  what each needs) decides first, see ``status_plan``: an upgrade that failed (``upgradeFailed``, "retry the
  upgrade or uninstall and reinstall") is repaired by an update to the wanted version and values, even when
  they are already the instance's; states an update cannot repair (``installFailed``: "must be uninstalled
  and installed again"; ``rollbackFailed``, ``deleteFailed``, ``deleting``, ``unknown``) fail naming the
  state and what to do; an add-on being installed, upgraded or rolled back is not written to meanwhile.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import re

from ansible_collections.multicloud.federation.plugins.module_utils.huaweicloud.errors import (
    HuaweiCloudError,
    sdk_call,
)

try:
    from huaweicloudsdkcce.v3 import (
        AddonMetadata,
        CreateAddonInstanceRequest,
        InstanceRequest,
        InstanceRequestSpec,
        ListAddonInstancesRequest,
        ListAddonTemplatesRequest,
        ShowClusterRequest,
        UpdateAddonInstanceRequest,
    )
except ImportError:  # reported by the module through client.HAS_HUAWEICLOUD_SDK
    pass

# AddonInstanceStatus.status (huaweicloudsdkcce 3.1.219 v3/model/addon_instance_status.py, the values and what
# its docstring says each needs). Anything else (a value added later) is taken as settled, as running is.
REPAIRED_BY_UPDATE = ("upgradeFailed",)
IN_PROGRESS = {"installing": "being installed", "upgrading": "being upgraded", "rollbacking": "being rolled back"}
GONE = ("deleteSuccess",)
WARNED = {
    "abnormal": "CCE reports add-on %(name)s abnormal (status abnormal: installed, but not usable). An update does not "
                "repair that: read the add-on's events (CCE console, Add-ons, %(name)s) and fix their cause",
}
REFUSED = {
    "installFailed": "its installation failed (status installFailed), which CCE says only uninstalling and installing "
                     "again repairs. Fix: uninstall the add-on (CCE console, Add-ons, or delete_addon_instance), wait "
                     "until it is gone, and run again: the module then installs it",
    "rollbackFailed": "its rollback failed (status rollbackFailed). Fix: retry the rollback (CCE console, Add-ons, or "
                      "rollback_addon_instance), or uninstall the add-on and run again to install it",
    "deleteFailed": "its uninstallation failed (status deleteFailed). Fix: retry the uninstallation (CCE console, "
                    "Add-ons, or delete_addon_instance) and run again once it is gone: the module then installs it",
    "deleting": "it is being uninstalled (status deleting). Fix: run again once it is gone: the module then installs it",
    "unknown": "CCE reports its state as unknown (status unknown: the add-on's template instance does not exist). "
               "Fix: uninstall the add-on (CCE console, Add-ons, or delete_addon_instance) and run again to install it",
}

INSTALL_ANNOTATION = {"addon.install/type": "install"}
UPGRADE_ANNOTATION = {"addon.upgrade/type": "upgrade"}


def deep_merge(base, override):
    """``override`` merged over ``base`` (dicts recursively; anything else replaced); neither is changed."""
    result = copy.deepcopy(base) if isinstance(base, dict) else {}
    for key, value in (override or {}).items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = deep_merge(result[key], value)
        else:
            result[key] = copy.deepcopy(value)
    return result


def contains(actual, wanted):
    """Whether ``actual`` already holds every value of ``wanted`` (dicts recursively)."""
    if isinstance(wanted, dict):
        return isinstance(actual, dict) and all(key in actual and contains(actual[key], value)
                                                for key, value in wanted.items())
    return actual == wanted


def version_key(version):
    """Sort key of an add-on version such as 1.5.28 (numbers compared as numbers)."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"[.\-+]", version or ""))


def _pattern_matches(pattern, value):
    if pattern == value:
        return True
    try:
        return re.fullmatch(pattern, value) is not None
    except re.error:
        return False


def supports_cluster(version_entry, cluster_version, cluster_type=None):
    """Whether a template version (a Versions model) lists the cluster's version (and type)."""
    for support in version_entry.support_versions or []:
        if cluster_type and support.cluster_type and support.cluster_type != cluster_type:
            continue
        if any(_pattern_matches(pattern, cluster_version) for pattern in support.cluster_version or []):
            return True
    return False


def choose_version(template, cluster_version, cluster_type=None):
    """The template's Versions entry for this cluster: stable first, then the highest; None when none fits."""
    fitting = [entry for entry in (template.spec.versions or []) if supports_cluster(entry, cluster_version, cluster_type)]
    if not fitting:
        return None
    return max(fitting, key=lambda entry: (entry.stable is not False, version_key(entry.version)))


def template_defaults(version_entry):
    """The values a template version installs with unless told otherwise: ``basic`` and ``custom``."""
    data = version_entry.input if isinstance(version_entry.input, dict) else {}
    defaults = {}
    if isinstance(data.get("basic"), dict):
        defaults["basic"] = copy.deepcopy(data["basic"])
    parameters = data.get("parameters") if isinstance(data.get("parameters"), dict) else {}
    if isinstance(parameters.get("custom"), dict):
        defaults["custom"] = copy.deepcopy(parameters["custom"])
    return defaults


def find_instance(items, template_name):
    for item in items or []:
        if item.spec is not None and item.spec.addon_template_name == template_name:
            return item
    return None


def find_template(items, template_name):
    for item in items or []:
        if item.metadata is not None and item.metadata.name == template_name:
            return item
    return None


def summary(instance):
    """The parts of an AddonInstance (or a create/update response) worth reporting; never its values."""
    metadata = instance.metadata
    spec = instance.spec
    status = instance.status
    return {
        "uid": metadata.uid if metadata else None,
        "name": metadata.name if metadata else None,
        "template": spec.addon_template_name if spec else None,
        "version": spec.version if spec else None,
        "cluster_id": spec.cluster_id if spec else None,
        "status": status.status if status else None,
        "message": (status.message if status else None) or "",
    }


class AddonStateError(HuaweiCloudError):
    """An add-on instance in a state the module does not write to; the result names the state."""

    def __init__(self, message, addon_status):
        super(AddonStateError, self).__init__(message)
        self.addon_status = addon_status

    def result(self):
        result = super(AddonStateError, self).result()
        result["addon_status"] = self.addon_status
        return result


def instance_status(instance):
    return (instance.status.status if instance.status is not None else None) or ""


def status_plan(instance, template_name, needs_update):
    """What the instance's status means: "gone" (install as if absent), "repair" (update even when nothing
    else differs), "settled" (decide on version and values); raises for a state no update repairs, and for an
    update needed while CCE is still busy with the add-on."""
    status = instance_status(instance)
    uid = instance.metadata.uid if instance.metadata is not None else None
    if status in GONE:
        return "gone"
    if status in REFUSED:
        raise AddonStateError("add-on %s (instance %s) cannot be installed or updated: %s"
                              % (template_name, uid, REFUSED[status]), status)
    if status in REPAIRED_BY_UPDATE:
        return "repair"
    if status in IN_PROGRESS and needs_update:
        raise AddonStateError("add-on %s (instance %s) is %s (status %s), and CCE takes no update meanwhile. Fix: run "
                              "again when it has finished" % (template_name, uid, IN_PROGRESS[status], status), status)
    return "settled"


def _request_body(cluster_id, template_name, version, values, annotations):
    return InstanceRequest(
        kind="Addon",
        api_version="v3",
        metadata=AddonMetadata(annotations=dict(annotations)),
        spec=InstanceRequestSpec(version=version, cluster_id=cluster_id, values=values,
                                 addon_template_name=template_name),
    )


def _install_version(client, cluster_id, template_name, version):
    """The template's Versions entry to install: ``version`` or the one chosen for the cluster."""
    with sdk_call("CCE list_addon_templates", "cce:addonTemplate:list", "add-on template %s" % template_name):
        templates = client.list_addon_templates(ListAddonTemplatesRequest(addon_template_name=template_name))
    template = find_template(templates.items, template_name)
    if template is None or template.spec is None:
        raise HuaweiCloudError("CCE offers no add-on template named %s in this region. Fix: check the add-on's "
                               "template name (virtual-kubelet is the CCE Cloud Bursting Engine for CCI)"
                               % template_name)
    offered = sorted((entry.version for entry in template.spec.versions or []), key=version_key)
    if version:
        for entry in template.spec.versions or []:
            if entry.version == version:
                return entry
        raise HuaweiCloudError("add-on %s has no version %s. Fix: use one of the versions CCE offers: %s, or give "
                               "none to have the one for the cluster chosen"
                               % (template_name, version, ", ".join(offered) or "none"))
    with sdk_call("CCE show_cluster", "cce:cluster:get", "cluster %s" % cluster_id):
        cluster = client.show_cluster(ShowClusterRequest(cluster_id=cluster_id))
    cluster_version = cluster.spec.version if cluster.spec else None
    cluster_type = cluster.spec.type if cluster.spec else None
    entry = choose_version(template, cluster_version or "", cluster_type)
    if entry is None:
        raise HuaweiCloudError("no version of add-on %s supports cluster %s (Kubernetes %s, type %s); offered: %s. "
                               "Fix: upgrade the cluster, or give a version" % (
                                   template_name, cluster_id, cluster_version, cluster_type, ", ".join(offered) or "none"))
    return entry


def ensure_addon(client, cluster_id, template_name, version=None, values=None, check_mode=False):
    """Install or update the add-on so that it runs ``version`` (when given) with ``values`` merged in.

    Returns {changed, action: none|install|update, addon (summary; absent when check mode would install),
    version (the version installed, or that would be), repaired (the update repairs a failed upgrade), reason
    (why it installs or updates; "" otherwise), warnings}. Raises AddonStateError for a state no write repairs
    (status_plan).
    """
    values = values or {}
    with sdk_call("CCE list_addon_instances", "cce:addonInstance:list", "cluster %s" % cluster_id):
        listing = client.list_addon_instances(ListAddonInstancesRequest(cluster_id=cluster_id))
    existing = find_instance(listing.items, template_name)
    plan = None
    if existing is not None:
        current_version = existing.spec.version
        current_values = existing.spec.values or {}
        target_version = version or current_version
        up_to_date = target_version == current_version and contains(current_values, values)
        plan = status_plan(existing, template_name, not up_to_date)
    if plan in ("repair", "settled"):
        status = instance_status(existing)
        warnings = [WARNED[status] % {"name": template_name}] if status in WARNED else []
        if plan == "settled" and up_to_date:
            return dict(changed=False, action="none", addon=summary(existing), version=current_version,
                        repaired=False, reason="", warnings=warnings)
        if plan == "repair":
            reason = ("the add-on's upgrade failed (status %s): retried as an update to version %s with the values "
                      "asked for" % (status, target_version))
        else:
            reason = "version %s or values differ from the add-on's" % target_version
        if check_mode:
            return dict(changed=True, action="update", addon=summary(existing), version=target_version,
                        repaired=plan == "repair", reason=reason, warnings=warnings)
        body = _request_body(cluster_id, template_name, target_version, deep_merge(current_values, values),
                             UPGRADE_ANNOTATION)
        with sdk_call("CCE update_addon_instance", "cce:addonInstance:update", "add-on instance %s" % existing.metadata.uid):
            updated = client.update_addon_instance(UpdateAddonInstanceRequest(id=existing.metadata.uid, body=body))
        return dict(changed=True, action="update", addon=summary(updated), version=target_version,
                    repaired=plan == "repair", reason=reason, warnings=warnings)

    reason = ("the add-on's last instance was uninstalled (status deleteSuccess)" if plan == "gone"
              else "the add-on is not installed")
    entry = _install_version(client, cluster_id, template_name, version)
    if check_mode:
        return dict(changed=True, action="install", version=entry.version, repaired=False, reason=reason, warnings=[])
    body = _request_body(cluster_id, template_name, entry.version, deep_merge(template_defaults(entry), values),
                         INSTALL_ANNOTATION)
    with sdk_call("CCE create_addon_instance", "cce:addonInstance:create", "cluster %s" % cluster_id):
        created = client.create_addon_instance(CreateAddonInstanceRequest(body=body))
    return dict(changed=True, action="install", addon=summary(created), version=entry.version, repaired=False,
                reason=reason, warnings=[])

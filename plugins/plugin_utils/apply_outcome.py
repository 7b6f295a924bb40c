# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Whether a server-side apply wrote anything, told apart from what controllers wrote meanwhile.

kubernetes.core.k8s reports ``changed`` when the object it read before its apply differs from the one
the apply returned (``module_utils/k8s/runner.py``, ``perform_action``: ``svc.retrieve`` then
``svc.apply``, then ``diff_objects`` on the two). A controller that writes the object's status
between that read and the apply - Karmada aggregating the members' status into a resource template
does so several times a second while a member's pods start - makes a no-op apply look like a change,
and a converged federation's second run report ``changed``. What this apply wrote shows in the diff
outside ``status`` and the server's bookkeeping, or in the field manager's own managedFields entry
(its time moves only when the apply changed a value or took a field over); anything else is another
writer's.
"""

from __future__ import annotations

from ansible_collections.multicloud.federation.plugins.module_utils.access.objects import without_server_fields


def _rest(side):
    """What ``side`` of the diff holds besides status and the apiserver's own metadata (the project's one
    list of it, access.objects.without_server_fields): an apply of a definition without status writes
    neither."""
    rest = without_server_fields(dict(side or {}))
    if not rest.get("metadata"):
        rest.pop("metadata", None)
    return rest


def _own_entries(metadata, field_manager):
    """The managedFields entries of field_manager for the object itself (not its status)."""
    entries = (metadata or {}).get("managedFields") or []
    return [entry for entry in entries
            if entry.get("manager") == field_manager and not entry.get("subresource")]


def written_by_apply(diff, field_manager):
    """True when the before/after diff of one applied object shows a write of this apply.

    ``diff`` is kubernetes.core's ``{"before": ..., "after": ...}`` (only what differs). Anything
    unexpected counts as written: the result is never made quieter than kubernetes.core's on a doubt.
    """
    if not isinstance(diff, dict) or not field_manager:
        return True
    before, after = diff.get("before"), diff.get("after")
    if not isinstance(before, dict) or not isinstance(after, dict):
        return True
    if _rest(before) or _rest(after):
        return True
    before_entries = _own_entries(before.get("metadata"), field_manager)
    after_entries = _own_entries(after.get("metadata"), field_manager)
    if "managedFields" in (before.get("metadata") or {}) or "managedFields" in (after.get("metadata") or {}):
        return before_entries != after_entries
    return False


def _parts(result):
    """The per-object results: the result itself (one definition) or its ``result.results`` (a list)."""
    nested = result.get("result")
    nested = nested.get("results") if isinstance(nested, dict) else None
    if "method" in result or not isinstance(nested, list):
        return [result], False
    return nested, True


def settle_changed(result, field_manager):
    """Correct ``changed`` in a kubernetes.core.k8s result (one object, or ``result.results`` for a list of
    definitions) of applies by field_manager; each per-object result needs its ``diff``. Returns it."""
    parts, nested = _parts(result)
    for part in parts:
        if part.get("changed") and part.get("method") == "apply" and "diff" in part \
                and not written_by_apply(part["diff"], field_manager):
            part["changed"] = False
    if nested:
        result["changed"] = any(part.get("changed") for part in parts)
    return result


def drop_diffs(result):
    """The result without the diffs asked for only to settle ``changed`` (the task did not ask for them)."""
    parts, _nested = _parts(result)
    for part in parts:
        part.pop("diff", None)
    return result

# -*- coding: utf-8 -*-
# Copyright (c) multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The drift report of playbooks/drift.yml: task results of the runbook's steps, run in check and
diff mode, turned into rows of (cluster, step, object, field, desired, actual).

The input is what the steps' tasks registered (kubernetes.core's ``diff`` {before, after} of an
apply or patch, its ``method`` create/delete, the collection modules' ``diff``), never the
playbook's output. Rules:

- ``before`` is the live object (actual), ``after`` what the step would make of it (desired).
  kubernetes.core's ``recursive_diff`` already left out what is equal; what the API server changes
  by itself (resourceVersion, generation, managedFields, status, ...) is no drift and is skipped.
- A changed result always yields at least one row, so nothing a step would change goes unreported,
  also when its diff is not a field diff (a Helm release, a result hidden by ``no_log``).
- Values of Secrets (``data``, ``stringData``) and of fields whose names say they hold credentials
  are masked: the report is published as a file and through ``set_stats``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import re

from ansible_collections.multicloud.federation.plugins.module_utils.access.objects import object_fields

MASK = "(masked)"
# Fields the API server or a controller writes, not the step: a difference there is no drift.
NOISE_FIELDS = (
    "metadata.resourceVersion",
    "metadata.generation",
    "metadata.managedFields",
    "metadata.creationTimestamp",
    "metadata.uid",
    "metadata.selfLink",
    "metadata.annotations.deprecated.daemonset.template.generation",
    "status",
)
# Field names that hold credentials, wherever they are (kubeconfig users, tokens, keys).
SENSITIVE_NAME = re.compile(r"(token|password|secret|credential|private|client-key|key-data|certificate-data)",
                            re.IGNORECASE)
SECRET_KINDS = ("Secret",)
SECRET_FIELDS = ("data", "stringData")
# A Markdown cell holds this much of a value; the JSON report keeps it whole.
CELL_LIMIT = 80


def ref_text(ref):
    """``Kind namespace/name`` (``Kind name`` when cluster-scoped)."""
    if not ref:
        return ""
    where = "%s/%s" % (ref["namespace"], ref["name"]) if ref.get("namespace") else ref.get("name", "")
    return ("%s %s" % (ref.get("kind", ""), where)).strip()


def is_noise(path):
    return any(path == field or path.startswith(field + ".") or path.startswith(field + "[")
               for field in NOISE_FIELDS)


def _join(path, key):
    return "%s.%s" % (path, key) if path else str(key)


def field_differences(actual, desired, path=""):
    """[(field path, desired, actual)] where ``actual`` and ``desired`` differ, noise skipped.

    Mappings are compared key by key; lists of the same length element by element (``[i]``), other
    lists and scalars as whole values. A key present on one side only has None on the other.
    """
    if is_noise(path):
        return []
    if isinstance(actual, dict) and isinstance(desired, dict):
        rows = []
        for key in sorted(set(actual) | set(desired), key=str):
            rows.extend(field_differences(actual.get(key), desired.get(key), _join(path, key)))
        return rows
    if isinstance(actual, list) and isinstance(desired, list) and len(actual) == len(desired):
        rows = []
        for index, (left, right) in enumerate(zip(actual, desired)):
            rows.extend(field_differences(left, right, "%s[%d]" % (path, index)))
        return rows
    if actual == desired:
        return []
    return [(path or "(object)", desired, actual)]


def _fingerprint(value):
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode("utf-8")).hexdigest()[:12]


def mask_value(kind, field, value):
    """The value as the report may show it: Secret data and credentials as a short fingerprint."""
    if value is None:
        return None
    top = field.split(".", 1)[0].split("[", 1)[0]
    secret = kind in SECRET_KINDS and top in SECRET_FIELDS
    if secret or any(SENSITIVE_NAME.search(part) for part in re.split(r"[.\[\]]", field) if part):
        return "%s sha256:%s" % (MASK, _fingerprint(value))
    if isinstance(value, (dict, list)):
        return mask_object(value, kind)
    return value


def mask_object(value, kind):
    """A copy of a whole object (or part) with Secret data and credential fields masked."""
    if isinstance(value, dict):
        masked = {}
        for key, item in value.items():
            if (kind in SECRET_KINDS and key in SECRET_FIELDS) or SENSITIVE_NAME.search(str(key)):
                masked[key] = "%s sha256:%s" % (MASK, _fingerprint(item))
            else:
                masked[key] = mask_object(item, kind)
        return masked
    if isinstance(value, list):
        return [mask_object(item, kind) for item in value]
    return value


def _row(cluster, step, task, ref, field, desired, actual, note=""):
    kind = (ref or {}).get("kind", "")
    return {
        "cluster": cluster,
        "step": step,
        "task": task,
        "object": ref_text(ref),
        "kind": kind,
        "namespace": (ref or {}).get("namespace", ""),
        "name": (ref or {}).get("name", ""),
        "field": field,
        "desired": mask_value(kind, field, desired),
        "actual": mask_value(kind, field, actual),
        "note": note,
    }


def _parse_ref(text):
    """{"kind", "namespace", "name"} from ``Kind namespace/name`` or ``Kind name``; None otherwise."""
    if not isinstance(text, str) or " " not in text.strip():
        return None
    kind, _space, rest = text.strip().partition(" ")
    namespace, _slash, name = rest.rpartition("/")
    return {"kind": kind, "namespace": namespace, "name": name}


def _result_ref(result, hint):
    for candidate in (result.get("result"), (result.get("diff") or {}).get("after"),
                      (result.get("diff") or {}).get("before")):
        ref = object_fields(candidate)
        if ref:
            return ref
    item = result.get("item")
    if isinstance(item, dict) and item.get("kind") and item.get("name"):
        return {"kind": item["kind"], "namespace": item.get("namespace") or "", "name": item["name"]}
    return _parse_ref(hint)


def result_rows(cluster, step, task, result, hint=None, masked=False, creates=False):
    """Drift rows of one registered task result (a loop's results item by item).

    ``hint``: ``Kind namespace/name`` of the object the task owns, for results that do not carry it
    (a Helm release, a placement change). ``masked``: every value is hidden (the task is no_log).
    ``creates``: a change of this task is the creation of ``hint`` (a step that says what it would
    create once the CRD an earlier step installs exists). A
    failed result is a row whose field is ``(failed)``: the step could not tell whether its objects
    drifted, which the report must not read as "no drift".
    """
    if not isinstance(result, dict) or result.get("skipped"):
        return []
    # A loop's items, or kubernetes.core.k8s given several definitions (one result per definition
    # under result.results; a single definition gives the plain result).
    nested = result.get("result")
    items = result.get("results")
    if not isinstance(items, list) and isinstance(nested, dict) and not nested.get("kind"):
        items = nested.get("results")
    if isinstance(items, list):
        rows = []
        for item in items:
            rows.extend(result_rows(cluster, step, task, item, hint, masked, creates))
        return rows
    ref = _result_ref(result, hint)
    if result.get("failed"):
        return [_row(cluster, step, task, ref, "(failed)", None, None, str(result.get("msg", ""))[:2000])]
    if not result.get("changed"):
        return []
    note = result.get("msg", "") if isinstance(result.get("msg"), str) and not masked else ""
    method = result.get("method")
    diff = result.get("diff")
    # An apply of an object that does not exist yet diffs against nothing.
    applied_to_nothing = isinstance(diff, dict) and diff.get("before") == {} and method in ("apply", "update")
    if method == "create" or creates or applied_to_nothing:
        return [_row(cluster, step, task, ref, "(object)", "present", "absent", note)]
    if method == "delete":
        return [_row(cluster, step, task, ref, "(object)", "absent", "present", note)]
    rows = []
    if isinstance(diff, dict) and isinstance(diff.get("before"), dict) and isinstance(diff.get("after"), dict):
        rows = [_row(cluster, step, task, ref, field, desired, actual, note)
                for field, desired, actual in field_differences(diff["before"], diff["after"])]
    if not rows:
        # Changed, without a field diff: a release upgrade, a hidden result, a pending object.
        rows = [_row(cluster, step, task, ref, "(changed)", None, None, note or _summary(result, masked))]
    if masked:
        for row in rows:
            for key in ("desired", "actual"):
                if row[key] is not None and row["field"] != "(object)":
                    row[key] = "%s sha256:%s" % (MASK, _fingerprint(row[key]))
    return rows


def _summary(result, masked=False):
    if result.get("censored") or masked:
        return "the result is hidden (no_log)"
    if result.get("command"):
        return "command: %s" % _strip_credentials(str(result["command"]))
    return "changed, without a field diff"


def _strip_credentials(command):
    """A helm command line without the values of credential options."""
    return re.sub(r"(--(?:kube-token|password|token)[= ])\S+", r"\1" + MASK, command)


def annotated_rows(cluster, step, task, result, annotation, note="", within=None):
    """Drift rows of a read (a k8s_info result): one per object it lists that carries ``annotation``, an object
    the step leaves as it is while another playbook holds it (e.g. a PropagationPolicy failover.yml is failing
    back). The row's field is the annotation, wanted absent, with its value as found; ``note`` says who
    finishes it. ``within``: the metadata ({namespace, name}) of the objects the step owns - the inventory's,
    not another federation's that shares the control plane; every object listed when None. A failed read is a
    ``(failed)`` row, as for a write."""
    if not isinstance(result, dict) or result.get("skipped"):
        return []
    if result.get("failed"):
        return [_row(cluster, step, task, None, "(failed)", None, None, str(result.get("msg", ""))[:2000])]
    owned = None if within is None else set(((m or {}).get("namespace") or "", (m or {}).get("name"))
                                            for m in within)
    rows = []
    for obj in result.get("resources") or []:
        metadata = (obj or {}).get("metadata") or {}
        if owned is not None and (metadata.get("namespace") or "", metadata.get("name")) not in owned:
            continue
        value = (metadata.get("annotations") or {}).get(annotation)
        if value is not None:
            rows.append(_row(cluster, step, task, object_fields(obj), "metadata.annotations.%s" % annotation, None, value,
                             note))
    return rows


def step_rows(cluster, step, entries, results):
    """Rows of one step on one cluster. ``entries``: [{"task", "object" (optional hint), "masked"}],
    ``results``: the registered result of each entry, in the same order. An entry's ``masked`` and
    ``creates`` are result_rows()'s; an entry with ``annotated`` (and ``note``) is a read whose listed objects
    carrying that annotation (and, with ``within``, owned by the step) are rows (annotated_rows())."""
    if len(entries or []) != len(results or []):
        raise ValueError("%d result(s) for %d task(s) of step %s" % (len(results or []), len(entries or []), step))
    rows = []
    for entry, result in zip(entries or [], results or []):
        if entry.get("annotated"):
            rows.extend(annotated_rows(cluster, step, entry.get("task", ""), result, entry["annotated"],
                                       entry.get("note") or "", entry.get("within")))
            continue
        rows.extend(result_rows(cluster, step, entry.get("task", ""), result, entry.get("object") or None,
                                bool(entry.get("masked")), bool(entry.get("creates"))))
    return rows


def build_report(rows, phase="evaluate", remediated=None):
    """The report: drift rows, failed steps apart, counts per cluster."""
    drift = [row for row in rows if row["field"] != "(failed)"]
    failures = [row for row in rows if row["field"] == "(failed)"]
    clusters = {}
    for row in rows:
        counts = clusters.setdefault(row["cluster"], {"drift": 0, "failed": 0})
        counts["failed" if row["field"] == "(failed)" else "drift"] += 1
    report = {
        "phase": phase,
        "drift": bool(drift),
        "failed": bool(failures),
        "clean": not rows,
        "count": len(drift),
        "clusters": clusters,
        "rows": drift,
        "failures": failures,
    }
    if remediated is not None:
        report["remediated"] = remediated
    return report


def cell(value, limit=CELL_LIMIT):
    """A value as one Markdown table cell: JSON, shortened with its length and fingerprint."""
    if value is None:
        return "-"
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    text = text.replace("\n", "\\n")
    if len(text) > limit:
        text = "%s... (%d chars, sha256:%s)" % (text[:limit], len(text), _fingerprint(value))
    return "`%s`" % text.replace("`", "'").replace("|", "\\|")


def render_markdown(report, title="Federation drift"):
    """The report as Markdown: a summary line, then one table row per field."""
    lines = ["# %s" % title, ""]
    if report["clean"]:
        lines.append("No drift: every step reports its objects as desired (phase %s)." % report["phase"])
    else:
        what = "field(s) changed by the remediation" if report["phase"] == "remediate" else "drifted field(s)"
        lines.append("%d %s, %d failed step(s) (phase %s)." % (
            report["count"], what, len(report["failures"]), report["phase"]))
    if report.get("remediated") is not None:
        lines.append("")
        lines.append("Remediation ran: %s." % ("yes" if report["remediated"] else "no"))
    if report["rows"]:
        lines += ["", "| cluster | step | object | field | desired | actual |", "|---|---|---|---|---|---|"]
        for row in report["rows"]:
            # A change without a field diff says in its note what it would do.
            desired = row["desired"] if row["desired"] is not None or not row["note"] else row["note"]
            lines.append("| %s | %s | %s | %s | %s | %s |" % (
                row["cluster"], row["step"], row["object"] or row["task"], row["field"], cell(desired, 160),
                cell(row["actual"])))
    if report["failures"]:
        lines += ["", "## Failed steps", "", "| cluster | step | task | message |", "|---|---|---|---|"]
        for row in report["failures"]:
            lines.append("| %s | %s | %s | %s |" % (row["cluster"], row["step"], row["task"], cell(row["note"], 300)))
    return "\n".join(lines) + "\n"

# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""OpenKruise UnitedDeployment subset replica allocation and its webhook's subset rules.

Upstream (openkruise/kruise, paths at tag v1.9.0):

- ``pkg/controller/uniteddeployment/uniteddeployment_controller_utils.go`` ``ParseSubsetReplicas``:
  an int is itself (error below 0); a string must be ``"N%"`` with ``strconv.ParseInt(N, 10, 32)``
  in 0..100, giving ``floor(replicas * N / 100 + 0.5)`` (round half up); a string is an error when
  ``spec.replicas`` is unset.
- ``pkg/controller/uniteddeployment/allocator.go``: ``NewReplicaAllocator`` picks the min/max
  allocator when any subset sets minReplicas/maxReplicas, else the specific allocator
  (``specificAllocator``: subsets with replicas get them; the rest share the remainder evenly, the
  extra ones going to the subsets whose current workload has the most replicas, ties by name
  descending). ``scheduleStrategy`` Adaptive and ``reserveUnschedulablePods`` pick allocators that
  depend on the live subsets' pod status and are not modelled here.
- ``pkg/webhook/uniteddeployment/validating/uniteddeployment_validation.go``
  ``validateSubsetReplicasV1beta1`` and the subset part of ``validateUnitedDeploymentSpecV1beta1``
  and ``validateUnitedDeploymentUpdateStrategyV1beta1``: the rules and messages of ``validate_topology``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import math
import re

INT32_MAX = 2 ** 31 - 1
INT32_MIN = -(2 ** 31)

_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"


class KruiseAllocationError(ValueError):
    """The allocator refused the spec (the controller logs it and changes no subset)."""


class SubsetReplicasError(ValueError):
    """``ParseSubsetReplicas`` refused a value; the message is Kruise's."""


class FieldError(object):
    """One ``field.Error`` of the Kubernetes validation framework, as Kruise's webhook returns it."""

    REQUIRED = "Required value"
    INVALID = "Invalid value"
    FORBIDDEN = "Forbidden"
    UNSUPPORTED = "Unsupported value"

    def __init__(self, error_type, field, detail, value=None, show_value=True):
        self.type = error_type
        self.field = field
        self.detail = detail
        self.value = value
        self.show_value = show_value and error_type in (self.INVALID, self.UNSUPPORTED)

    def __str__(self):
        text = "%s: %s" % (self.field, self.type)
        if self.show_value:
            text += ": %s" % json.dumps(self.value, sort_keys=True)
        if self.detail:
            text += ": %s" % self.detail
        return text

    def as_dict(self):
        return {"type": self.type, "field": self.field, "detail": self.detail}


def _go_quote(text):
    """``strconv.Quote`` for the strings Kruise puts in its messages."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char == "\r":
            out.append("\\r")
        elif code < 0x20 or code == 0x7F:
            out.append("\\x%02x" % code)
        elif code < 0x80 or char.isprintable():
            out.append(char)
        elif code <= 0xFFFF:
            out.append("\\u%04x" % code)
        else:
            out.append("\\U%08x" % code)
    out.append('"')
    return "".join(out)


def _go_parse_int32(text):
    """``strconv.ParseInt(text, 10, 32)``: (value, None) or (None, Go's error text)."""
    def fail(reason):
        return None, "strconv.ParseInt: parsing %s: %s" % (_go_quote(text), reason)

    digits = text
    negative = False
    if digits[:1] in ("+", "-"):
        negative = digits[0] == "-"
        digits = digits[1:]
    if not digits:
        return fail("invalid syntax")
    max_uint32 = 2 ** 32 - 1
    value = 0
    for char in digits.encode("utf-8"):
        # Go scans bytes; a digit beyond the 32-bit range stops it before a later bad byte.
        if not 0x30 <= char <= 0x39:
            return fail("invalid syntax")
        value = value * 10 + (char - 0x30)
        if value > max_uint32:
            return fail("value out of range")
    if (not negative and value > INT32_MAX) or (negative and value > -INT32_MIN):
        return fail("value out of range")
    return (-value if negative else value), None


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def parse_subset_replicas(ud_replicas, value):
    """``ParseSubsetReplicas(udReplicas, value)``; ``ud_replicas`` -1 means spec.replicas is unset.

    ``value`` is an int or a string (an IntOrString); raises SubsetReplicasError with Kruise's words.
    """
    if _is_int(value):
        if value < 0:
            raise SubsetReplicasError("subset replicas (%d) should not be less than 0" % value)
        return value
    if not isinstance(value, str):
        raise SubsetReplicasError("subset replicas (%r) must be an integer or a string such as '50%%'" % (value,))
    if ud_replicas < 0:
        raise SubsetReplicasError(
            "subsetReplicas (%s) should not be string when unitedDeployment replicas is empty" % value)
    if not value.endswith("%"):
        raise SubsetReplicasError(
            "subset replicas (%s) only support integer value or percentage value with a suffix '%%'" % value)
    percent, error = _go_parse_int32(value[:-1])
    if error:
        raise SubsetReplicasError("subset replicas (%s) should be correct percentage integer: %s" % (value, error))
    if percent > 100 or percent < 0:
        raise SubsetReplicasError("subset replicas (%s) should be in range [0, 100]" % value)
    # Go: int32(math.Floor(float64(ud) * float64(percent) / 100 + 0.5)); the same IEEE operations.
    return int(math.floor(float(ud_replicas) * float(percent) / 100 + 0.5))


def _subset_name(subset, index):
    if not isinstance(subset, dict):
        raise KruiseAllocationError("spec.topology.subsets[%d] must be a mapping, got %r" % (index, subset))
    name = subset.get("name", "")
    if name is None:
        name = ""
    if not isinstance(name, str):
        raise KruiseAllocationError("spec.topology.subsets[%d].name must be a string, got %r" % (index, name))
    return name


def _check_spec_replicas(spec_replicas):
    if spec_replicas is None:
        return -1
    if not _is_int(spec_replicas) or spec_replicas < INT32_MIN or spec_replicas > INT32_MAX:
        raise KruiseAllocationError("spec.replicas must be an integer (int32) or None, got %r" % (spec_replicas,))
    return spec_replicas


def _check_subsets(subsets):
    if subsets is None:
        return []
    if not isinstance(subsets, list):
        raise KruiseAllocationError("spec.topology.subsets must be a list, got %r" % (subsets,))
    return subsets


def _check_int_or_string(subset, key, index):
    value = subset.get(key)
    if value is None or _is_int(value) or isinstance(value, str):
        if _is_int(value) and not INT32_MIN <= value <= INT32_MAX:
            raise KruiseAllocationError("spec.topology.subsets[%d].%s is out of the int32 range: %d" % (index, key, value))
        return value
    raise KruiseAllocationError(
        "spec.topology.subsets[%d].%s must be an integer or a string such as '50%%', got %r" % (index, key, value))


def _schedule_type(schedule_strategy):
    strategy = schedule_strategy or {}
    if not isinstance(strategy, dict):
        raise KruiseAllocationError("scheduleStrategy must be a mapping, got %r" % (strategy,))
    return strategy.get("type") or "Fixed", strategy


def validate_topology(spec_replicas, subsets, schedule_strategy=None, update_strategy=None):
    """The webhook's rules for ``spec.replicas``, ``spec.topology`` and ``spec.updateStrategy``.

    Returns a list of FieldError (empty when the webhook would accept these parts). Template and
    selector rules are not covered; ``nodeSelectorTerm``/``tolerations`` only as far as their shape.
    """
    errors = []
    path = "spec.topology.subsets"
    expected = _check_spec_replicas(spec_replicas)
    if spec_replicas is not None and spec_replicas < 0:
        errors.append(FieldError(FieldError.INVALID, "spec.replicas", "must be greater than or equal to 0", spec_replicas))
    subsets = _check_subsets(subsets)
    errors.extend(_validate_subset_replicas(expected, subsets, path))

    schedule_type, _strategy = _schedule_type(schedule_strategy)
    names = set()
    for index, subset in enumerate(subsets):
        name = _subset_name(subset, index)
        field = "%s[%d].name" % (path, index)
        if not name:
            errors.append(FieldError(FieldError.REQUIRED, field, ""))
        if name in names:
            errors.append(FieldError(FieldError.INVALID, field, "duplicated subset name %s" % name, name))
        names.add(name)
        label_errors = _dns1123_label_errors(name)
        if label_errors:
            errors.append(FieldError(FieldError.INVALID, field, "invalid subset name %s" % ", ".join(label_errors), name))
        if subset.get("replicas") is not None and schedule_type == "Adaptive":
            errors.append(FieldError(FieldError.FORBIDDEN, "%s[%d].replicas" % (path, index),
                                     "specify replicas use minReplicas/maxReplicas to enable adaptive strategy"))
    errors.extend(_validate_update_strategy(update_strategy, names))
    return errors


def _dns1123_label_errors(name):
    """``apimachinery validation.IsDNS1123Label`` (what ``NameIsDNSLabel(name, false)`` returns)."""
    errors = []
    if len(name) > 63:
        errors.append("must be no more than 63 characters")
    if not _DNS1123_LABEL.match(name):
        errors.append(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
            "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
            "validation is '%s')" % _DNS1123_LABEL_FMT)
    return errors


def _validate_update_strategy(update_strategy, names):
    errors = []
    strategy = update_strategy or {}
    if not isinstance(strategy, dict):
        raise KruiseAllocationError("updateStrategy must be a mapping, got %r" % (strategy,))
    strategy_type = strategy.get("type") or "Manual"
    if strategy_type != "Manual":
        errors.append(FieldError(FieldError.UNSUPPORTED, "spec.updateStrategy.type",
                                 'supported values: "Manual", ""', strategy.get("type")))
        return errors
    manual = strategy.get("manualUpdate") or {}
    partitions = manual.get("partitions") or {}
    for subset in sorted(partitions):
        if subset not in names:
            errors.append(FieldError(FieldError.INVALID, "spec.updateStrategy.manualUpdate.partitions",
                                     "subset %s does not exist" % subset, partitions))
    return errors


def _validate_subset_replicas(expected, subsets, path):
    """``validateSubsetReplicasV1beta1``; ``expected`` is -1 when spec.replicas is unset."""
    errors = []
    sum_replicas = sum_min = sum_max = 0
    count_replicas = count_max = 0
    has_replicas = has_capacity = False
    for index, subset in enumerate(subsets):
        _subset_name(subset, index)
        values = dict((key, _check_int_or_string(subset, key, index))
                      for key in ("replicas", "minReplicas", "maxReplicas"))
        parsed = {"replicas": 0, "minReplicas": 0, "maxReplicas": 1000000}
        for key in ("replicas", "minReplicas", "maxReplicas"):
            if values[key] is None:
                continue
            if key == "replicas":
                count_replicas += 1
                has_replicas = True
            else:
                has_capacity = True
                if key == "maxReplicas":
                    count_max += 1
            try:
                parsed[key] = parse_subset_replicas(expected, values[key])
            except SubsetReplicasError as error:
                # Go keeps the (0) value ParseSubsetReplicas returned with its error.
                parsed[key] = 0
                errors.append(FieldError(FieldError.INVALID, "%s[%d].%s" % (path, index, key), str(error), values[key]))
        sum_replicas += parsed["replicas"]
        sum_min += parsed["minReplicas"]
        sum_max += parsed["maxReplicas"]
        if parsed["minReplicas"] > parsed["maxReplicas"]:
            errors.append(FieldError(FieldError.INVALID, "%s[%d].minReplicas" % (path, index),
                                     "subset[%d].minReplicas must be less than or equal to maxReplicas" % index,
                                     values["minReplicas"]))
    if has_replicas and has_capacity:
        errors.append(FieldError(FieldError.INVALID, path,
                                 "subset.Replicas and subset.MinReplicas/subset.MaxReplicas are mutually exclusive "
                                 "in a UnitedDeployment", subsets))
        return errors
    if has_capacity:
        if expected == -1:
            errors.append(FieldError(FieldError.INVALID, path,
                                     "spec.replicas must be not empty if you set subset.minReplicas/maxReplicas", expected))
        if count_max >= len(subsets):
            errors.append(FieldError(FieldError.INVALID, path, "at least one subset.maxReplicas must be empty", count_max))
        if sum_min > sum_max:
            errors.append(FieldError(FieldError.INVALID, path,
                                     "sum of indicated subset.minReplicas should not be greater than sum of "
                                     "indicated subset.maxReplicas", sum_min))
    elif expected != -1:
        # Kruise formats the second number from a pointer (%d of *int32 prints an address); the
        # value it means is spec.replicas, which is what this message says.
        if sum_replicas > expected:
            errors.append(FieldError(FieldError.INVALID, path,
                                     "sum of indicated subset replicas %d should not be greater than UnitedDeployment "
                                     "replicas %d" % (sum_replicas, expected), sum_replicas))
        if count_replicas > 0 and count_replicas == len(subsets) and sum_replicas != expected:
            errors.append(FieldError(FieldError.INVALID, path,
                                     "if replicas of all subsets are provided, the sum of indicated subset replicas %d "
                                     "should equal UnitedDeployment replicas %d" % (sum_replicas, expected), sum_replicas))
    elif count_replicas != len(subsets):
        errors.append(FieldError(FieldError.INVALID, path,
                                 "if UnitedDeployment replicas is not provided, replicas of all subsets should be provided",
                                 sum_replicas))
    return errors


def allocate(spec_replicas, subsets, current=None, schedule_strategy=None):
    """``NewReplicaAllocator(ud).Alloc(existing)``: {subset: next replicas}.

    ``current``: {subset: spec.replicas of its existing workload} (missing means no workload yet).
    Values the webhook would refuse are treated as the controller treats them (ignored or 0).
    Raises KruiseAllocationError with the allocator's message when it refuses the spec.
    """
    expected = _check_spec_replicas(spec_replicas)
    subsets = _check_subsets(subsets)
    current = current or {}
    if not isinstance(current, dict):
        raise KruiseAllocationError("current must be a mapping of subset name to its workload's replicas")
    for name, count in current.items():
        if not _is_int(count) or not INT32_MIN <= count <= INT32_MAX:
            raise KruiseAllocationError("current replicas of subset %r must be an integer, got %r" % (name, count))
    schedule_type, strategy = _schedule_type(schedule_strategy)
    adaptive = strategy.get("adaptive") or {}
    if adaptive.get("reserveUnschedulablePods") or schedule_type == "Adaptive":
        raise KruiseAllocationError(
            "scheduleStrategy Adaptive (and reserveUnschedulablePods) allocates from the live subsets' pod "
            "status, which is not predicted here; use the Fixed strategy")
    for index, subset in enumerate(subsets):
        _subset_name(subset, index)
        for key in ("replicas", "minReplicas", "maxReplicas"):
            _check_int_or_string(subset, key, index)
    if any(s.get("minReplicas") is not None or s.get("maxReplicas") is not None for s in subsets):
        return _min_max_allocate(spec_replicas, subsets)
    return _specific_allocate(expected, subsets, current)


def _specific_allocate(expected, subsets, current):
    """``specificAllocator.Alloc``."""
    infos = [[_subset_name(s, i), current.get(_subset_name(s, i), 0), False] for i, s in enumerate(subsets)]
    # sort.Sort(subsetInfos): current replicas ascending, then strings.Compare (byte order).
    infos.sort(key=lambda info: (info[1], info[0].encode("utf-8")))
    specified = {}
    for subset in subsets:
        if subset.get("replicas") is None:
            continue
        try:
            specified[subset["name"]] = parse_subset_replicas(expected, subset["replicas"])
        except SubsetReplicasError:
            pass  # the controller only logs it
    total = sum(specified.values())
    count = sum(1 for info in infos if info[0] in specified)
    if expected != -1:
        if total > expected:
            raise KruiseAllocationError(
                "specified subsets' replica (%d) is greater than UnitedDeployment replica (%d)" % (total, expected))
        if total < expected and count == len(infos):
            raise KruiseAllocationError(
                "specified subsets' replica (%d) is less than UnitedDeployment replica (%d)" % (total, expected))
    elif count != len(infos):
        raise KruiseAllocationError("all subsets must be specified when UnitedDeployment replica is unspecified")
    # normalAllocate sums again over the subsets, so a duplicated name counts twice there (the
    # webhook refuses duplicates; the controller alone does this).
    total = 0
    for info in infos:
        if info[0] in specified:
            info[1] = specified[info[0]]
            info[2] = True
            total += info[1]
    left = len(infos) - count
    if left:
        rest = expected - total
        # Go's int division truncates toward zero (rest < 0 is possible with duplicated names).
        average = abs(rest) // left * (1 if rest >= 0 else -1)
        remainder = rest - average * left
        for info in reversed(infos):
            if info[2]:
                continue
            if remainder > 0:
                info[1] = average + 1
                remainder -= 1
            else:
                info[1] = average
            left -= 1
            if left == 0:
                break
    # toSubsetReplicaMap: a later duplicate name overwrites an earlier one, as in the Go map.
    result = {}
    for info in infos:
        result[info[0]] = info[1]
    return result


def _min_max_allocate(spec_replicas, subsets):
    """``minMaxAllocator.Alloc`` (v1.9.0: spec.replicas unset counts as 0)."""
    replicas = spec_replicas if spec_replicas is not None else 0
    mins, maxs = {}, {}
    for index, subset in enumerate(subsets):
        name = subset["name"]
        minimum, maximum = 0, INT32_MAX
        if subset.get("minReplicas") is not None:
            minimum = _parse_or_zero(replicas, subset["minReplicas"])
        if subset.get("maxReplicas") is not None:
            maximum = _parse_or_zero(replicas, subset["maxReplicas"])
        mins[name], maxs[name] = minimum, maximum
        if minimum > maximum:
            raise KruiseAllocationError(
                "subset[%d].maxReplicas(%d) must be more than or equal to minReplicas(%d)" % (index, maximum, minimum))
    result = {}
    allocated = 0
    for subset in subsets:
        add = max(min(mins[subset["name"]], replicas - allocated), 0)
        result[subset["name"]] = add
        allocated += add
    if allocated >= replicas:
        return result
    for subset in subsets:
        name = subset["name"]
        add = max(min(maxs[name] - mins[name], replicas - allocated), 0)
        result[name] += add
        allocated += add
    return result


def _parse_or_zero(replicas, value):
    try:
        return parse_subset_replicas(replicas, value)
    except SubsetReplicasError:
        return 0


def subset_replicas(spec_replicas, subsets, current=None, schedule_strategy=None, update_strategy=None):
    """Validate as the webhook does, then allocate: {subset: replicas}.

    Raises KruiseAllocationError listing the webhook's field errors, or the allocator's refusal.
    """
    errors = validate_topology(spec_replicas, subsets, schedule_strategy, update_strategy)
    if errors:
        raise KruiseAllocationError(
            "Kruise's webhook would refuse this UnitedDeployment: " + "; ".join(str(error) for error in errors))
    return allocate(spec_replicas, subsets, current, schedule_strategy)


def next_partitions(subsets, next_replicas, update_strategy=None):
    """``calcNextPartitions``: {subset: min(manualUpdate.partitions[subset] or 0, its next replicas)}.

    (Deployment subsets ignore the partition; that is the caller's concern.)
    """
    strategy = update_strategy or {}
    partitions = {}
    # The controller wants type Manual exactly; members' mutating webhook defaults "" to Manual.
    if (strategy.get("type") or "Manual") == "Manual":
        partitions = (strategy.get("manualUpdate") or {}).get("partitions") or {}
    result = {}
    for index, subset in enumerate(subsets):
        name = _subset_name(subset, index)
        partition = partitions.get(name, 0)
        if name in next_replicas:
            partition = min(partition, next_replicas[name])
        result[name] = partition
    return result


def apply_defaults(spec_replicas, subsets):
    """What the mutating webhook sets before validation (``SetDefaultsUnitedDeploymentV1beta1``).

    ``spec.replicas`` unset becomes 1; when some subset has minReplicas/maxReplicas and none has
    replicas, every subset without minReplicas gets minReplicas 0. Returns (replicas, new subsets).
    Member clusters run this webhook; a Karmada control plane without Kruise's webhooks does not.
    """
    if spec_replicas is None:
        spec_replicas = 1
    subsets = [dict(subset) if isinstance(subset, dict) else subset for subset in (subsets or [])]
    mappings = [subset for subset in subsets if isinstance(subset, dict)]
    has_replicas = any(subset.get("replicas") is not None for subset in mappings)
    has_capacity = any(subset.get("minReplicas") is not None or subset.get("maxReplicas") is not None
                       for subset in mappings)
    if has_capacity and not has_replicas:
        for subset in mappings:
            if subset.get("minReplicas") is None:
                subset["minReplicas"] = 0
    return spec_replicas, subsets

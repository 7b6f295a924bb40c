# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Karmada's static-weight replica division, as plain functions on plain data.

Upstream (karmada-io/karmada, paths at tag v1.18.2 unless noted):

- ``pkg/scheduler/core/assignment.go`` ``assignByStaticWeightStrategy``: no weightPreference means
  one rule of weight 1 per candidate cluster (``util.go`` ``getDefaultWeightPreference``).
- ``pkg/scheduler/core/division_algorithm.go`` ``getStaticWeightInfoList``: a candidate's weight is
  the largest weight of the rules that match it; candidates matching no rule are left out; when no
  candidate matches any rule, every candidate gets weight 1 (an even split).
- ``pkg/util/helper/binding.go`` ``AllocateByWeight`` / ``tieBreakerByUID`` and
  ``pkg/util/helper/webstermethod.go`` ``AllocateWebsterSeats`` (v1.16.0 and later): Webster /
  Sainte-Lague seats handed out one at a time to the highest ``votes / (2 * seats + 1)``; exact
  float64 ties go to fewer seats, then to the smaller name, or to the larger name when FNV-32a of
  the resource template's UID is odd.
- ``pkg/util/helper/binding.go`` ``Dispenser.TakeByWeight`` (v1.15.x and earlier; read at v1.7.0
  and v1.8.0): ``floor(weight * N / sum)`` each, the remainder one by one in the order weight
  descending, then name ascending (up to v1.7) or previous replicas descending then *random*
  (``crypto/rand`` inside ``sort.Less``, v1.8.0 to v1.15.x).
- ``pkg/scheduler/core/common.go`` ``assignReplicasToClusters`` / ``util.go``
  ``removeZeroReplicasCluster``: clusters that get 0 replicas are dropped from the result.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math
import re
from fractions import Fraction

try:  # Python 3.5+; math.gcd replaces fractions.gcd
    from math import gcd
except ImportError:  # pragma: no cover
    from fractions import gcd  # pylint: disable=deprecated-method

DEFAULT_KARMADA_VERSION = "v1.18.2"
# Oldest release whose division code was read (v1.7.0); releases before it are not claimed.
OLDEST_SUPPORTED = (1, 7)
# Newest minor whose division code was read (v1.19.0-rc.0 / master match v1.18.2 there).
NEWEST_SUPPORTED = (1, 19)

WEBSTER = "webster"
LEGACY_NAME_ORDER = "largest-weight-name-order"
LEGACY_RANDOM_TIES = "largest-weight-random-ties"

INT32_MAX = 2 ** 31 - 1
INT64_MAX = 2 ** 63 - 1

_VERSION_RE = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+][0-9A-Za-z.+-]*)?$")


class DivisionError(ValueError):
    """Input that Karmada would not accept, or that the division cannot handle."""


def fnv32a(data):
    """FNV-1a, 32 bits (Go ``hash/fnv`` ``New32a``)."""
    value = 0x811C9DC5
    for byte in bytearray(data):
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def uid_prefers_larger_names(uid):
    """True when Karmada's tie-breaker for this resource UID favours the larger cluster name.

    ``tieBreakerByUID``: an empty UID, or an even FNV-32a of its bytes, favours the smaller name.
    """
    if not uid:
        return False
    return fnv32a(uid.encode("utf-8")) & 1 == 1


def parse_karmada_version(version):
    """``"v1.18.2"`` -> ``(1, 18, 2)``; raises DivisionError for anything else or an unsupported one."""
    if not isinstance(version, str):
        raise DivisionError("karmada_version must be a string such as 'v1.18.2', got %r" % (version,))
    match = _VERSION_RE.match(version.strip())
    if not match:
        raise DivisionError("karmada_version %r is not a version such as 'v1.18.2'" % version)
    parsed = (int(match.group(1)), int(match.group(2)), int(match.group(3) or 0))
    if parsed[:2] < OLDEST_SUPPORTED or parsed[:2] > NEWEST_SUPPORTED:
        raise DivisionError(
            "Karmada %s is not supported: the static-weight division is known for v%d.%d.0 to v%d.%d.x "
            "(Webster from v1.16.0, largest weight with random ties v1.8.0-v1.15.x, largest weight "
            "with name order v1.7.x)" % ((version,) + OLDEST_SUPPORTED + NEWEST_SUPPORTED))
    return parsed


def division_method(version):
    """Name of the static-weight algorithm that the given Karmada version runs."""
    parsed = parse_karmada_version(version)
    if parsed[:2] >= (1, 16):
        return WEBSTER
    if parsed[:2] >= (1, 8):
        return LEGACY_RANDOM_TIES
    return LEGACY_NAME_ORDER


def _check_int(value, what, minimum, maximum):
    if isinstance(value, bool) or not isinstance(value, int):
        raise DivisionError("%s must be an integer, got %r" % (what, value))
    if value < minimum or value > maximum:
        raise DivisionError("%s must be between %d and %d, got %d" % (what, minimum, maximum, value))
    return value


def _check_name(name):
    if not isinstance(name, str) or not name:
        raise DivisionError("cluster names must be non-empty strings, got %r" % (name,))
    return name


def effective_weights(weights):
    """The weight of every candidate cluster as ``getStaticWeightInfoList`` leaves it.

    ``weights`` maps each candidate cluster to the largest weight of the staticWeightList rules that
    match it, or to 0/None when no rule matches it. Clusters without a weight are left out, unless no
    candidate has one: then every candidate gets 1 (Karmada's even split).
    """
    if not isinstance(weights, dict):
        raise DivisionError("weights must be a mapping of cluster name to weight, got %s" % type(weights).__name__)
    kept = {}
    for name, weight in weights.items():
        _check_name(name)
        if weight is None:
            continue
        _check_int(weight, "the weight of cluster %r" % name, 0, INT64_MAX)
        if weight > 0:
            kept[name] = weight
    if not kept:
        return dict((name, 1) for name in weights)
    return kept


def _int32(value):
    """Wrap like Go int32 arithmetic (only reached for absurd replica counts)."""
    value &= 0xFFFFFFFF
    return value - 0x100000000 if value & 0x80000000 else value


def webster_seats(new_seats, votes, initial=None, uid=""):
    """``helper.AllocateWebsterSeats`` with ``tieBreakerByUID(uid)``: {party: seats}, every party included."""
    parties = {}
    for name, seats in (initial or {}).items():
        parties[name] = [0, seats]
    for name, vote in votes.items():
        parties.setdefault(name, [0, 0])[0] = vote
    if not parties:
        return {}
    larger_name_wins = uid_prefers_larger_names(uid)

    def priority(name):
        vote, seats = parties[name]
        # Go: float64(Votes) / float64(2*Seats+1), both operands rounded to float64 first.
        return float(vote) / float(_int32(2 * seats + 1))

    def better(a, b):
        pa, pb = priority(a), priority(b)
        if pa != pb:
            return pa > pb
        sa, sb = parties[a][1], parties[b][1]
        if sa != sb:
            return sa < sb
        return a > b if larger_name_wins else a < b

    # The tie-breaker makes the order total, so a linear scan picks what Go's container/heap pops.
    names = sorted(parties)
    priorities = dict((name, priority(name)) for name in names)
    for _seat in range(new_seats):
        best = names[0]
        for name in names[1:]:
            pn, pb = priorities[name], priorities[best]
            if pn > pb or (pn == pb and better(name, best)):
                best = name
        parties[best][1] += 1
        priorities[best] = priority(best)
    return dict((name, parties[name][1]) for name in names)


def _legacy_division(replicas, weights, previous, random_ties):
    """``Dispenser.TakeByWeight`` (v1.15.x and earlier): result with zeros, and the tied groups.

    Go sorts the weight list with ``sort.Sort``; its Less is a total order up to v1.7 (weight
    descending, name ascending), and from v1.8 weight descending, previous replicas descending, then
    a coin toss. The order among equal keys is then arbitrary, so the canonical prediction takes
    names in ascending order and reports the groups whose clusters the remainder splits.
    """
    total = sum(weights.values())
    if random_ties:
        known_previous = previous is not None

        def key(name):
            last = (previous or {}).get(name, 0) if known_previous else 0
            return (-weights[name], -last)
    else:
        def key(name):
            return (-weights[name],)
    ordered = sorted(weights, key=lambda name: (key(name), name))
    result = dict((name, weights[name] * replicas // total) for name in ordered)
    remain = replicas - sum(result.values())
    lucky = ordered[:remain]
    for name in lucky:
        result[name] += 1
    tied = []
    if random_ties:
        groups = {}
        for name in ordered:
            groups.setdefault(key(name), []).append(name)
        for members in groups.values():
            winners = [name for name in members if name in lucky]
            if winners and len(winners) < len(members):
                tied.append(sorted(members))
    return result, sorted(tied)


def divide_replicas(replicas, weights, uid="", karmada_version=DEFAULT_KARMADA_VERSION, previous=None):
    """Karmada's static-weight division of ``replicas`` over candidate clusters.

    ``weights``: {cluster: weight} of every candidate cluster (see ``effective_weights``).
    ``uid``: the resource template's UID (``ResourceBinding.spec.resource.uid``), v1.16.0+.
    ``previous``: {cluster: replicas} of the binding before this scheduling (v1.8-v1.15 sort equal
    weights by it before drawing lots); None when unknown.

    Returns ``{"replicas": {cluster: n > 0}, "tied": [[cluster, ...]], "method": name}``. Within a
    tied group Karmada may hand the predicted counts to the group's clusters in any order (their
    order was drawn at random); a cluster named there but absent from ``replicas`` is predicted 0.
    """
    method = division_method(karmada_version)
    _check_int(replicas, "replicas", 0, INT32_MAX)
    if uid is None:
        uid = ""
    if not isinstance(uid, str):
        raise DivisionError("uid must be a string, got %r" % (uid,))
    if previous is not None:
        if not isinstance(previous, dict):
            raise DivisionError("previous must be a mapping of cluster name to replicas")
        for name, count in previous.items():
            _check_name(name)
            _check_int(count, "previous replicas of cluster %r" % name, 0, INT32_MAX)
    effective = effective_weights(weights)
    if not effective:
        raise DivisionError("no candidate clusters: Karmada reports 'no clusters available to schedule'")
    if method == WEBSTER:
        seats = webster_seats(replicas, effective, None, uid)
        tied = []
    else:
        seats, tied = _legacy_division(replicas, effective, previous, method == LEGACY_RANDOM_TIES)
    return {
        "replicas": dict((name, seats[name]) for name in sorted(seats) if seats[name] > 0),
        "tied": tied,
        "method": method,
    }


def divide(replicas, weights, uid="", karmada_version=DEFAULT_KARMADA_VERSION, previous=None):
    """Only the {cluster: replicas} part of ``divide_replicas``."""
    return divide_replicas(replicas, weights, uid, karmada_version, previous)["replicas"]


def compare_division(expected, actual):
    """Differences between a ``divide_replicas`` result and the replicas Karmada scheduled.

    ``actual``: {cluster: replicas} (clusters with 0 may be absent). Inside a tied group any
    permutation of the predicted counts is accepted. Returns a list of human-readable problems.
    """
    predicted = expected["replicas"]
    problems = []
    in_groups = set()
    for group in expected.get("tied", []):
        in_groups.update(group)
        want = sorted(predicted.get(name, 0) for name in group)
        got = sorted(actual.get(name, 0) for name in group)
        if want != got:
            problems.append(
                "clusters %s (tied, any order) should get %s, got %s"
                % (", ".join(group), want, [actual.get(name, 0) for name in group]))
    for name in sorted(set(predicted) | set(actual)):
        if name in in_groups:
            continue
        if predicted.get(name, 0) != actual.get(name, 0):
            problems.append("cluster %s should get %d replicas, got %d"
                            % (name, predicted.get(name, 0), actual.get(name, 0)))
    return problems


def _as_fraction(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DivisionError("the share of cluster %r must be a number, got %r" % (name, value))
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        raise DivisionError("the share of cluster %r must be finite, got %r" % (name, value))
    if value < 0:
        raise DivisionError("the share of cluster %r must not be negative, got %r" % (name, value))
    # A float is taken as the decimal the user wrote (0.1 -> 1/10), not its binary expansion.
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


def _smallest_proportional(shares):
    """Smallest positive integers proportional to the positive fractions in ``shares``."""
    positive = dict((name, share) for name, share in shares.items() if share > 0)
    denominator = 1
    for share in positive.values():
        denominator = denominator * share.denominator // gcd(denominator, share.denominator)
    ints = dict((name, int(share * denominator)) for name, share in positive.items())
    divisor = 0
    for value in ints.values():
        divisor = gcd(divisor, value)
    return dict((name, value // divisor) for name, value in ints.items())


def _weight_ranges(counts, anchor, anchor_weight, cap):
    """Integer weight range for each cluster that can possibly yield its count next to the anchor.

    Both algorithms give a cluster ``count - 1``..``count + 1`` of its exact quota at most, so
    ``w_i / w_a`` lies within ``(c_i - 1) / (c_a + 1)`` .. ``(c_i + 1) / (c_a - 1)``. The forward
    division decides; these ranges only have to contain every solution.
    """
    ranges = {}
    c_a = counts[anchor]
    for name, count in counts.items():
        if name == anchor:
            continue
        low = max(1, (anchor_weight * (count - 1)) // (c_a + 1))
        if c_a > 1:
            high = -((-anchor_weight * (count + 1)) // (c_a - 1))
        else:
            high = cap
        ranges[name] = (low, min(high, cap))
    return ranges


def _reproduces(weights, counts, uid_options, karmada_version):
    for uid in uid_options:
        division = divide_replicas(sum(counts.values()), weights, uid, karmada_version, {})
        if division["tied"] or division["replicas"] != counts:
            return False
    return True


# Two UIDs from Karmada's own tests (pkg/util/helper/binding_test.go): FNV-32a even and odd.
EVEN_UID = "4858ca61-3ff8-4095-8267-f3d059d8074c"
ODD_UID = "d43fdeeb-d750-4e2b-bee3-64eb94534f4c"


def static_weights(desired, replicas=None, uid=None, karmada_version=DEFAULT_KARMADA_VERSION):
    """Smallest integer weights for which Karmada divides ``replicas`` exactly as ``desired``.

    ``desired``: {cluster: replica count} (integers), or {cluster: share} (ratios; any number).
    Counts are used as they are when they are all integers and add up to ``replicas`` (or
    ``replicas`` is not given). Otherwise the values are ratios: with ``replicas`` they must split it
    into whole numbers, which are then the counts; without ``replicas`` the result is just the
    smallest integers in those ratios.

    ``uid``: the resource template's UID; None means the weights must give the split whatever the
    UID is (no tie-break decides it). Clusters that should get 0 are left out of the list, so they
    match no rule and get nothing.

    Returns ``{cluster: weight}``; "smallest" is the least total weight, then the first in cluster
    name order. Raises DivisionError saying why when the input cannot be reproduced.
    """
    method = division_method(karmada_version)
    if not isinstance(desired, dict) or not desired:
        raise DivisionError("the desired split must be a non-empty mapping of cluster name to replicas or share")
    shares = {}
    for name, value in desired.items():
        _check_name(name)
        shares[name] = _as_fraction(value, name)
    if replicas is not None:
        _check_int(replicas, "replicas", 0, INT32_MAX)
    all_ints = all(not isinstance(v, (bool, float)) for v in desired.values())
    total = sum(shares.values())
    if all_ints and (replicas is None or total == replicas):
        counts = dict((name, int(share)) for name, share in shares.items())
    elif total == 0:
        raise DivisionError("the desired shares are all 0: nothing to divide by")
    elif replicas is None:
        return _smallest_proportional(shares)
    else:
        exact = dict((name, share * replicas / total) for name, share in shares.items())
        fractional = sorted(name for name, value in exact.items() if value.denominator != 1)
        if fractional:
            raise DivisionError(
                "the ratios %s do not split %d replicas into whole numbers (%s); give the replica "
                "count per cluster instead" % (
                    ", ".join("%s=%s" % (n, desired[n]) for n in sorted(desired)), replicas,
                    ", ".join("%s would get %s" % (n, float(exact[n])) for n in fractional)))
        counts = dict((name, int(value)) for name, value in exact.items())
    if sum(counts.values()) > INT32_MAX:
        raise DivisionError("the desired counts add up to more than %d replicas" % INT32_MAX)

    positive = dict((name, count) for name, count in counts.items() if count > 0)
    if not positive:
        # 0 replicas: any weights give nothing to everybody.
        return dict((name, 1) for name in counts)
    if uid is None:
        uid_options = [EVEN_UID, ODD_UID]
    elif not isinstance(uid, str):
        raise DivisionError("uid must be a string, got %r" % (uid,))
    else:
        uid_options = [uid]

    divisor = 0
    for count in positive.values():
        divisor = gcd(divisor, count)
    # Weights equal to the counts over their gcd always reproduce them, with no tie to break:
    # an upper bound for the search, and the answer when nothing smaller works.
    best = dict((name, count // divisor) for name, count in positive.items())
    if not _reproduces(best, positive, uid_options, karmada_version):  # pragma: no cover - proven above
        raise DivisionError("no static weights reproduce %r (method %s)" % (positive, method))
    best_key = (sum(best.values()), [best[name] for name in sorted(best)])
    cap = best_key[0]

    anchor = max(sorted(positive), key=lambda name: positive[name])
    others = sorted(name for name in positive if name != anchor)
    for anchor_weight in range(1, cap + 1):
        ranges = _weight_ranges(positive, anchor, anchor_weight, cap)
        if anchor_weight + sum(ranges[name][0] for name in others) > best_key[0]:
            break
        for candidate in _combinations(others, ranges, best_key[0] - anchor_weight):
            candidate[anchor] = anchor_weight
            key = (sum(candidate.values()), [candidate[name] for name in sorted(candidate)])
            if key >= best_key:
                continue
            if _reproduces(candidate, positive, uid_options, karmada_version):
                best, best_key = candidate, key
    return dict((name, best[name]) for name in sorted(best))


def _combinations(names, ranges, budget):
    """Every {name: weight} within ``ranges`` whose total is at most ``budget``."""
    if not names:
        yield {}
        return
    first, rest = names[0], names[1:]
    rest_min = sum(ranges[name][0] for name in rest)
    low, high = ranges[first]
    for weight in range(low, min(high, budget - rest_min) + 1):
        for tail in _combinations(rest, ranges, budget - weight):
            tail = dict(tail)
            tail[first] = weight
            yield tail


def static_weight_list(weights):
    """{cluster: weight} -> Karmada's ``staticWeightList`` (one rule per cluster, by name)."""
    return [
        {"targetCluster": {"clusterNames": [name]}, "weight": weights[name]}
        for name in sorted(weights)
    ]


def weights_from_static_weight_list(static_weight_list, clusters):
    """{cluster: weight} of the candidate clusters under a ``staticWeightList`` (``getStaticWeightInfoList``).

    ``clusters``: candidate cluster names, or Cluster objects (``metadata.name``). Each rule's
    ``targetCluster`` is matched as ``util.ClusterMatches`` does for ``exclude`` and ``clusterNames``
    (empty ``clusterNames`` matches every cluster); a rule with a ``labelSelector`` or
    ``fieldSelector`` raises DivisionError, since matching those needs more than names. A cluster
    takes the largest weight of the rules matching it, 0 when none does. ``None`` as the list means
    no weightPreference: weight 1 each.
    """
    names = []
    for cluster in clusters or []:
        if isinstance(cluster, dict):
            cluster = (cluster.get("metadata") or {}).get("name")
        names.append(_check_name(cluster))
    if static_weight_list is None:
        return dict((name, 1) for name in names)
    if not isinstance(static_weight_list, list):
        raise DivisionError("staticWeightList must be a list, got %s" % type(static_weight_list).__name__)
    weights = dict((name, 0) for name in names)
    for index, rule in enumerate(static_weight_list):
        if not isinstance(rule, dict):
            raise DivisionError("staticWeightList[%d] must be a mapping" % index)
        weight = _check_int(rule.get("weight"), "staticWeightList[%d].weight" % index, 1, INT64_MAX)
        target = rule.get("targetCluster") or {}
        for unsupported in ("labelSelector", "fieldSelector"):
            if target.get(unsupported):
                raise DivisionError(
                    "staticWeightList[%d].targetCluster.%s is not supported here: give each rule clusterNames"
                    % (index, unsupported))
        exclude = target.get("exclude") or []
        cluster_names = target.get("clusterNames") or []
        for name in names:
            if name in exclude:
                continue
            if cluster_names and name not in cluster_names:
                continue
            weights[name] = max(weights[name], weight)
    return weights

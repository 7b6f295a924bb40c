# -*- coding: utf-8 -*-
# Copyright: multicloud.federation contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run the Lua scripts of a Karmada ResourceInterpreterCustomization offline, as Karmada would.

Karmada runs them in gopher-lua (a Lua 5.1); this runs them in Lua 5.1 through ``lupa`` with the
same environment. Upstream (karmada-io/karmada, paths at tag v1.18.2):

- ``pkg/resourceinterpreter/customized/declarative/luavm/lua.go``: libraries package, base, table,
  string (safe), math and os (safe: ``time`` and ``date`` only, ``pkg/util/lifted/lua/oslib_safe.go``);
  ``collectgarbage dofile getfenv getmetatable load loadfile loadstring rawequal rawget rawset
  setfenv setmetatable module newproxy`` replaced by functions that raise an error; a one-second
  timeout per call; ``RunScript`` runs ``DoString(script)`` and then calls the named global
  function in a state taken from a *pool* (globals survive into the next call).
- ``.../luavm/kube.go``: the ``kube`` library (``resourceAdd``, ``accuratePodRequirements``,
  ``getPodDependencies``, ``getResourceQuantity``), on top of ``pkg/util/helper/binding.go``
  ``GenerateReplicaRequirements`` / ``GenerateNodeClaimByPodSpec``, ``pkg/util/resource.go``
  ``AddPodTemplateRequest`` / ``ResourceList`` and ``pkg/util/helper/pod.go``
  ``GetDependenciesFromPodTemplate`` (``pkg/util/lifted/visitpod.go`` for the secret and configmap
  references).
- ``.../luavm/lua_convert.go``: results go through JSON (layeh.com/gopher-json: an empty table is
  ``[]``, a table with number keys must be a sequence) and ``convertEmptySliceToEmptyStructPartly``
  turns ``[]`` back into ``{}`` where the reference objects had ``{}``, and drops it where they had
  neither; ``ConvertLuaResultToInt`` / ``ConvertLuaResultToBool`` check the type.
- ``pkg/util/interpreter/rule.go``: the operation names and what ``karmadactl interpret`` prints
  for each (``replica``/``requires``, ``revised``, ``retained``, ``status``, ``aggregatedStatus``,
  ``healthy``, ``dependencies``).

Beyond Karmada, ``check_customization`` reports globals a script leaves behind (Karmada's pooled
states carry them from one object to the next) and runs every script twice in one state to catch
results that depend on an earlier call.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json
import re
import time
from fractions import Fraction

from ansible_collections.multicloud.federation.plugins.module_utils.federalize.objects import pod_dependencies

try:
    from lupa import lua51 as _lupa
    HAS_LUPA = True
    LUPA_IMPORT_ERROR = None
except ImportError as _error:  # pragma: no cover - reported by the module
    _lupa = None
    HAS_LUPA = False
    LUPA_IMPORT_ERROR = _error

# spec.customizations key -> (operation, Lua function, karmadactl result names)
CUSTOMIZATIONS = {
    "retention": ("Retain", "Retain"),
    "replicaResource": ("InterpretReplica", "GetReplicas"),
    "replicaRevision": ("ReviseReplica", "ReviseReplica"),
    "statusReflection": ("InterpretStatus", "ReflectStatus"),
    "statusAggregation": ("AggregateStatus", "AggregateStatus"),
    "healthInterpretation": ("InterpretHealth", "InterpretHealth"),
    "dependencyInterpretation": ("InterpretDependency", "GetDependencies"),
}
# The order karmadactl interpret --check lists them (pkg/util/interpreter/rule.go AllResourceInterpreterCustomizationRules).
CUSTOMIZATION_ORDER = (
    "retention", "replicaResource", "replicaRevision", "statusReflection",
    "statusAggregation", "healthInterpretation", "dependencyInterpretation",
)
OPERATION_KEYS = dict((op, key) for key, (op, _fn) in CUSTOMIZATIONS.items())

FORBIDDEN_FUNCTIONS = (
    "collectgarbage", "dofile", "getfenv", "getmetatable", "load", "loadfile", "loadstring",
    "rawequal", "rawget", "rawset", "setfenv", "setmetatable", "module", "newproxy",
)
CALL_TIMEOUT_SECONDS = 1.0
# gopher-lua LValueType numbers, as Karmada prints them with %#v.
_LUA_TYPE_NUMBERS = {"nil": 0, "boolean": 1, "number": 2, "string": 3, "function": 4, "userdata": 5, "thread": 6, "table": 7}
_LUA_TYPE_BY_NUMBER = dict((number, name) for name, number in _LUA_TYPE_NUMBERS.items())
_LUA_TYPE_NAMES = {"nil": "nil", "boolean": "boolean", "number": "number", "string": "string",
                   "function": "function", "userdata": "userdata", "thread": "thread", "table": "table"}


class LuaScriptError(Exception):
    """A script failed (Lua error, wrong result type, leaked global); the message says which and why."""

    def __init__(self, customization, message):
        self.customization = customization
        self.message = message
        Exception.__init__(self, "%s.luaScript: %s" % (customization, message))


class _KubeError(Exception):
    pass


# --- resource.Quantity (k8s.io/apimachinery/pkg/api/resource/quantity.go), enough for requests ---

_BINARY_SUFFIXES = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_BY_EXPONENT = dict((v, k) for k, v in _DECIMAL_SUFFIXES.items())
_BINARY_BY_EXPONENT = dict((v, k) for k, v in _BINARY_SUFFIXES.items())
_QUANTITY_RE = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(.*)$")
BINARY_SI = "BinarySI"
DECIMAL_SI = "DecimalSI"
DECIMAL_EXPONENT = "DecimalExponent"


def parse_quantity(text):
    """``resource.ParseQuantity``: (exact value as a Fraction, format)."""
    if not isinstance(text, str) or not text:
        raise _KubeError("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    match = _QUANTITY_RE.match(text)
    if not match:
        raise _KubeError("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    number, suffix = match.group(1), match.group(2)
    value = Fraction(number)
    if suffix in _BINARY_SUFFIXES:
        return value * (1024 ** _BINARY_SUFFIXES[suffix]), BINARY_SI
    if suffix in _DECIMAL_SUFFIXES:
        return value * Fraction(10) ** _DECIMAL_SUFFIXES[suffix], DECIMAL_SI
    exponent = re.match(r"^[eE]([+-]?[0-9]+)$", suffix)
    if exponent:
        return value * Fraction(10) ** int(exponent.group(1)), DECIMAL_EXPONENT
    raise _KubeError("unable to parse quantity's suffix")


def _ceil_fraction(value):
    return -((-value.numerator) // value.denominator)


def format_quantity(value, fmt):
    """``Quantity.String()`` (``CanonicalizeBytes``) for an exact value and a format."""
    value = Fraction(value)
    if value == 0:
        return "0"
    if fmt == BINARY_SI and not (-1024 < value < 1024) and value.denominator == 1:
        integer = int(value)
        exponent = 0
        while exponent < 6 and integer % 1024 == 0:
            integer //= 1024
            exponent += 1
        return "%d%s" % (integer, _BINARY_BY_EXPONENT.get(exponent, ""))
    # Decimal: the value is rounded up to nano units, then written as an integer times 10^(3k)
    # with the largest such k (AsCanonicalBytes).
    nanos = _ceil_fraction(value * 10 ** 9)
    exponent = -9
    while nanos % 1000 == 0 and exponent < 18 and nanos != 0:
        nanos //= 1000
        exponent += 3
    if fmt == DECIMAL_EXPONENT:
        return "%de%d" % (nanos, exponent) if exponent else "%d" % nanos
    return "%d%s" % (nanos, _DECIMAL_BY_EXPONENT[exponent])


def _milli_value(text):
    value, _fmt = parse_quantity(text)
    return _ceil_fraction(value * 1000)


def _int_value(text):
    value, _fmt = parse_quantity(text)
    return _ceil_fraction(value)


def _is_scalar_resource(name):
    # lifted.IsScalarResourceName: extended resources, hugepages-*, attachable-volumes-*,
    # requests.*-prefixed native names excluded.
    if name.startswith("hugepages-") or name.startswith("attachable-volumes-"):
        return True
    if "/" in name and not name.startswith("kubernetes.io/") and not name.startswith("requests."):
        return True
    return False


def pod_effective_requests(pod_spec):
    """``util.EmptyResource().AddPodTemplateRequest(spec).ResourceList()`` as quantity strings."""
    totals = {"cpu": 0, "memory": 0, "ephemeral-storage": 0, "pods": 0}
    scalars = {}

    def requests_of(container):
        resources = container.get("resources") or {}
        requests = dict(resources.get("requests") or {})
        for key, value in (resources.get("limits") or {}).items():
            requests.setdefault(key, value)
        return requests

    def amounts(requests):
        result = {}
        for name, quantity in requests.items():
            if name == "cpu":
                result[name] = _milli_value(quantity)
            elif name in ("memory", "pods", "ephemeral-storage") or _is_scalar_resource(name):
                result[name] = _int_value(quantity)
        return result

    for container in pod_spec.get("containers") or []:
        for name, amount in amounts(requests_of(container)).items():
            if name in totals:
                totals[name] += amount
            else:
                scalars[name] = scalars.get(name, 0) + amount
    for container in pod_spec.get("initContainers") or []:
        for name, amount in amounts(requests_of(container)).items():
            if name in totals:
                totals[name] = max(totals[name], amount)
            else:
                scalars[name] = max(scalars.get(name, 0), amount)
    for name, amount in amounts(pod_spec.get("overhead") or {}).items():
        if name in totals:
            totals[name] += amount
        else:
            scalars[name] = scalars.get(name, 0) + amount

    result = {}
    if totals["cpu"] > 0:
        result["cpu"] = format_quantity(Fraction(totals["cpu"], 1000), DECIMAL_SI)
    if totals["memory"] > 0:
        result["memory"] = format_quantity(totals["memory"], BINARY_SI)
    if totals["ephemeral-storage"] > 0:
        result["ephemeral-storage"] = format_quantity(totals["ephemeral-storage"], BINARY_SI)
    if totals["pods"] > 0:
        result["pods"] = format_quantity(totals["pods"], DECIMAL_SI)
    for name, amount in scalars.items():
        if amount > 0:
            result[name] = format_quantity(amount, BINARY_SI if name.startswith("hugepages-") else DECIMAL_SI)
    return result or None


def _prune_empty(value):
    """Drop nulls and empty maps/lists, as ``omitempty`` typed structs serialise."""
    if isinstance(value, dict):
        pruned = {}
        for key, item in value.items():
            item = _prune_empty(item)
            if item is None or item == {} or item == [] or item == "":
                continue
            pruned[key] = item
        return pruned
    if isinstance(value, list):
        return [_prune_empty(item) for item in value]
    return value


def replica_requirements(pod_template):
    """``helper.GenerateReplicaRequirements`` for a PodTemplateSpec (a dict), or None."""
    spec = (pod_template or {}).get("spec") or {}
    node_claim = {}
    if spec.get("nodeSelector"):
        node_claim["nodeSelector"] = spec["nodeSelector"]
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution"))
    if required is not None:
        node_claim["hardNodeAffinity"] = _prune_empty(required)
    if spec.get("tolerations"):
        node_claim["tolerations"] = _prune_empty(spec["tolerations"])
    requests = pod_effective_requests(spec)
    if not node_claim and requests is None:
        return None
    requirements = {}
    if node_claim:
        requirements["nodeClaim"] = node_claim
    if requests is not None:
        requirements["resourceRequest"] = requests
    return requirements


# --- JSON conversion (layeh.com/gopher-json and lua_convert.go) -----------------------------------

def _lua_type(value):
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, (str, bytes)):
        return "string"
    return _lupa.lua_type(value) or "userdata"


def lua_to_json(value, _seen=None):
    """gopher-json's Encode of a Lua value, as Python data."""
    kind = _lua_type(value)
    if kind == "nil":
        return None
    if kind in ("boolean", "string"):
        return value.decode("utf-8") if isinstance(value, bytes) else value
    if kind == "number":
        if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 63:
            return int(value)
        return value
    if kind != "table":
        raise LuaScriptError("", "cannot encode %s to JSON" % kind)
    seen = _seen or set()
    marker = id(value)
    items = list(value.items())
    if not items:
        return []
    keys = [key for key, _item in items]
    if all(isinstance(key, (int, float)) and not isinstance(key, bool) for key in keys):
        ordered = sorted(items, key=lambda pair: pair[0])
        if [key for key, _item in ordered] != list(range(1, len(ordered) + 1)):
            raise LuaScriptError("", "cannot encode sparse array")
        return [lua_to_json(item, seen | {marker}) for _key, item in ordered]
    if all(isinstance(key, (str, bytes)) for key in keys):
        result = {}
        for key, item in items:
            if isinstance(key, bytes):
                key = key.decode("utf-8")
            result[key] = lua_to_json(item, seen | {marker})
        return result
    raise LuaScriptError("", "cannot encode mixed or invalid key types")


def _empty_fields(value, path, slices, structs):
    """``traverseToFindEmptyField``: paths (array indices left out) of empty lists and maps."""
    if isinstance(value, dict):
        children = [(_escape(key), item) for key, item in value.items()]
    elif isinstance(value, list):
        children = [(None, item) for item in value]
    else:
        return
    for key, item in children:
        child_path = path + [key] if key is not None else path
        if isinstance(item, list) and not item:
            slices.add(".".join(child_path))
        elif isinstance(item, dict) and not item:
            structs.add(".".join(child_path))
        elif isinstance(item, (list, dict)):
            _empty_fields(item, child_path, slices, structs)


def _escape(key):
    return str(key).replace(".", "\\.").replace(":", "\\:")


def restore_empty_objects(result, references, is_struct=True):
    """``convertEmptySliceToEmptyStructPartly``: ``[]`` that was ``{}`` in a reference becomes ``{}``;
    ``[]`` found in no reference is dropped; the top level ``[]`` is ``{}`` for struct targets."""
    if result == []:
        return {} if is_struct else []
    slices, structs = set(), set()
    for reference in references:
        _empty_fields(reference, [], slices, structs)

    def walk(value, path):
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                child_path = path + [_escape(key)]
                if isinstance(item, list) and not item:
                    joined = ".".join(child_path)
                    if joined in structs:
                        out[key] = {}
                    elif joined in slices:
                        out[key] = []
                    continue
                out[key] = walk(item, child_path)
            return out
        if isinstance(value, list):
            out = []
            for item in value:
                if isinstance(item, list) and not item:
                    joined = ".".join(path)
                    if joined in structs:
                        out.append({})
                    elif joined in slices:
                        out.append([])
                    # an element Karmada would delete from the array: sjson removes it
                    continue
                out.append(walk(item, path))
            return out
        return value

    return walk(result, [])


# --- the Lua VM -----------------------------------------------------------------------------------

_ENVIRONMENT = r"""
local kubeFunctions, pythonHook = ...
local clock = os.clock
local sethook = debug.sethook
local osTime, osDate = os.time, os.date

-- Karmada opens package, base, table, string, math and a safe os; no io, debug or coroutine.
io = nil
debug = nil
coroutine = nil
gcinfo = nil
python = nil
os = {time = osTime, date = osDate}
package.loaded.io = nil
package.loaded.debug = nil
package.loaded.coroutine = nil
package.loaded.os = os
package.path = ""
package.cpath = ""
package.loaders = {package.loaders[1]}
package.loadlib = function() error("loadlib is not supported") end

local function wrap(name)
  local fn = kubeFunctions[name]
  return function(...)
    local ok, result = fn(select("#", ...), ...)
    if not ok then
      error(result, 2)
    end
    return result
  end
end
local kube = {
  resourceAdd = wrap("resourceAdd"),
  accuratePodRequirements = wrap("accuratePodRequirements"),
  getPodDependencies = wrap("getPodDependencies"),
  getResourceQuantity = wrap("getResourceQuantity"),
}
package.preload["kube"] = function() return kube end

local deadline = 0
local function timeout()
  if clock() > deadline then
    sethook()
    error("context deadline exceeded", 2)
  end
end
local function arm(seconds)
  if seconds == nil then
    sethook()
  else
    deadline = clock() + seconds
    sethook(timeout, "", 10000)
  end
end
return arm
"""


class KarmadaLuaVM(object):
    """One Lua state set up like a Karmada luavm state (reused between calls, like Karmada's pool)."""

    def __init__(self, timeout=CALL_TIMEOUT_SECONDS):
        if not HAS_LUPA:
            raise RuntimeError("the Python library lupa is required (pip install lupa): %s" % LUPA_IMPORT_ERROR)
        self.timeout = timeout
        self.runtime = _lupa.LuaRuntime(unpack_returned_tuples=True, register_eval=False, register_builtins=False)
        kube = self.runtime.table_from({
            "resourceAdd": self._resource_add,
            "accuratePodRequirements": self._accurate_pod_requirements,
            "getPodDependencies": self._get_pod_dependencies,
            "getResourceQuantity": self._get_resource_quantity,
        })
        self._arm = self.runtime.execute(_ENVIRONMENT, kube, None, name="=karmada-luavm")
        for name in FORBIDDEN_FUNCTIONS:
            self.runtime.execute(
                "function %s() error('call function %s is not supported in karmada customized resourceinterpreter.') end"
                % (name, name), name="=karmada-luavm")
        self.baseline_globals = set(self.global_names())

    # kube library -----------------------------------------------------------------------------
    def _resource_add(self, count, *args):
        try:
            total, fmt = Fraction(0), ""
            for index in range(count):
                item = args[index] if index < len(args) else None
                if item is None:
                    continue
                if not isinstance(item, (str, bytes)):
                    return False, "bad argument #%d to resourceAdd (string expected, got %s)" % (index + 1, _lua_type(item))
                value, item_fmt = parse_quantity(item.decode() if isinstance(item, bytes) else item)
                if total == 0:
                    fmt = item_fmt
                total += value
            return True, format_quantity(total, fmt or DECIMAL_SI)
        except _KubeError as error:
            return False, str(error)

    def _get_resource_quantity(self, count, *args):
        if count != 1:
            return False, "getResourceQuantity only accepts one argument"
        item = args[0] if args else None
        if item is None:
            return True, 0
        try:
            value, _fmt = parse_quantity(item.decode() if isinstance(item, bytes) else item)
        except _KubeError as error:
            return False, str(error)
        if value < 0:
            return False, "int approximation unexpectedly returned a negative value"
        return True, float(value)

    def _table_argument(self, args, index, function):
        item = args[index] if index < len(args) else None
        if _lua_type(item) != "table":
            raise _KubeError("bad argument #%d to %s (table expected, got %s)"
                             % (index + 1, function, _LUA_TYPE_NAMES.get(_lua_type(item), "userdata")))
        return lua_to_json(item)

    def _accurate_pod_requirements(self, count, *args):
        if count != 1:
            return False, "getPodRequirements only accepts one argument"
        try:
            template = self._table_argument(args, 0, "accuratePodRequirements")
            if template == []:
                template = {}
            return True, self.to_lua(replica_requirements(template))
        except (_KubeError, LuaScriptError) as error:
            return False, "fail to convert lua value to PodTemplateSpec: %s" % error

    def _get_pod_dependencies(self, count, *args):
        if count != 2:
            return False, "getPodDependencies only accepts two argument"
        try:
            template = self._table_argument(args, 0, "getPodDependencies")
        except (_KubeError, LuaScriptError) as error:
            return False, str(error)
        namespace = args[1] if len(args) > 1 else None
        if namespace is None:
            namespace = "default"
        elif isinstance(namespace, (int, float)) and not isinstance(namespace, bool):
            namespace = "%g" % namespace
        elif not isinstance(namespace, (str, bytes)):
            return False, "bad argument #2 to getPodDependencies (string expected, got %s)" % _lua_type(namespace)
        if isinstance(namespace, bytes):
            namespace = namespace.decode()
        if template == []:
            template = {}
        # kube.go returns nil, not an empty table, for a pod that uses nothing.
        return True, self.to_lua(pod_dependencies(template, namespace) or None)

    # conversion -------------------------------------------------------------------------------
    def to_lua(self, value):
        """``decodeValue``: Python data as Lua values (nulls leave the key unset)."""
        if isinstance(value, dict):
            table = self.runtime.table()
            for key, item in value.items():
                if item is not None:
                    table[key] = self.to_lua(item)
            return table
        if isinstance(value, (list, tuple)):
            table = self.runtime.table()
            for index, item in enumerate(value, 1):
                table[index] = self.to_lua(item)
            return table
        return value

    def global_names(self):
        return [key.decode() if isinstance(key, bytes) else key for key in self.runtime.globals().keys()]

    # running ----------------------------------------------------------------------------------
    def call(self, script, function, args, chunk_name, results=1):
        """DoString(script), then call the global ``function``; Lua values come back raw."""
        try:
            self._arm(self.timeout)
            try:
                self.runtime.execute(script, name="=" + chunk_name)
                fn = self.runtime.globals()[function]
                if fn is None:
                    raise LuaScriptError(chunk_name, "not found function %s" % function)
                if _lua_type(fn) != "function":
                    raise LuaScriptError(chunk_name, "%s is not a function: %s" % (function, _lua_type(fn)))
                returned = fn(*[self.to_lua(arg) for arg in args])
            finally:
                self._arm(None)
        except _lupa.LuaError as error:
            raise LuaScriptError(chunk_name, _lua_error_text(error))
        except _lupa.LuaSyntaxError as error:  # pragma: no cover - LuaSyntaxError subclasses LuaError
            raise LuaScriptError(chunk_name, _lua_error_text(error))
        if not isinstance(returned, tuple):
            returned = (returned,)
        returned = tuple(returned) + (None,) * (results - len(returned))
        return returned[:results]

    def leaked_globals(self, script_functions):
        """Globals other than the environment's and the scripts' own functions."""
        leaked = []
        for name in self.global_names():
            if name in self.baseline_globals or name in script_functions:
                continue
            leaked.append(name)
        return sorted(leaked)


def _lua_error_text(error):
    text = str(error)
    # lupa appends a traceback; Karmada's message is the first line.
    return text.partition("\nstack traceback:")[0].strip()


def _as_json(customization, value):
    try:
        return lua_to_json(value)
    except LuaScriptError as error:
        raise LuaScriptError(customization, "encode lua result to json failed: %s" % error.message)


def run_operation(vm, customization, script, desired=None, observed=None, status_items=None, desired_replica=None):
    """Run one customization's script like ``karmadactl interpret --operation``; the result is what it prints.

    Returns a list of (name, value) pairs: InterpretReplica gives ``replica`` and ``requires``,
    ReviseReplica ``revised``, Retain ``retained``, InterpretStatus ``status``, AggregateStatus
    ``aggregatedStatus``, InterpretHealth ``healthy``, InterpretDependency ``dependencies``.
    """
    if customization not in CUSTOMIZATIONS:
        raise LuaScriptError(customization, "unknown customization (one of %s)" % ", ".join(CUSTOMIZATION_ORDER))
    _operation, function = CUSTOMIZATIONS[customization]
    if customization == "replicaResource":
        replica, requires = vm.call(script, function, [desired], customization, results=2)
        if _lua_type(replica) != "number":
            raise LuaScriptError(customization, "result type %d is not number" % _LUA_TYPE_NUMBERS.get(_lua_type(replica), 5))
        replica = int(replica)  # int32(LNumber) truncates
        kind = _lua_type(requires)
        if kind == "nil":
            requirement = None
        elif kind == "table":
            requirement = _prune_empty(restore_empty_objects(_as_json(customization, requires), []))
        else:
            raise LuaScriptError(customization, "expect the returned requires type is table but got %s" % kind)
        return [("replica", replica), ("requires", requirement)]
    if customization == "replicaRevision":
        (revised,) = vm.call(script, function, [desired, desired_replica], customization)
        return [("revised", _object_result(customization, revised, [desired]))]
    if customization == "retention":
        (retained,) = vm.call(script, function, [desired, observed], customization)
        return [("retained", _object_result(customization, retained, [desired, observed]))]
    if customization == "statusReflection":
        (status,) = vm.call(script, function, [observed], customization)
        if _lua_type(status) != "table":
            raise LuaScriptError(customization, "expect the returned replica type is table but got %s" % _lua_type(status))
        # The target is a runtime.RawExtension, a struct: an empty table becomes {}.
        return [("status", restore_empty_objects(_as_json(customization, status), []))]
    if customization == "statusAggregation":
        items = [_status_item(item) for item in (status_items or [])]
        (aggregated,) = vm.call(script, function, [desired, items], customization)
        return [("aggregatedStatus", _object_result(customization, aggregated, []))]
    if customization == "healthInterpretation":
        (healthy,) = vm.call(script, function, [observed], customization)
        if _lua_type(healthy) != "boolean":
            raise LuaScriptError(customization, "result type %d is not bool" % _LUA_TYPE_NUMBERS.get(_lua_type(healthy), 5))
        return [("healthy", bool(healthy))]
    (dependencies,) = vm.call(script, function, [desired], customization)
    if _lua_type(dependencies) != "table":
        raise LuaScriptError(customization, "expect the returned requires type is table but got %s" % _lua_type(dependencies))
    refs = restore_empty_objects(_as_json(customization, dependencies), [], is_struct=False)
    if not isinstance(refs, list):
        raise LuaScriptError(customization, "json unmarshal obj failed: cannot unmarshal object into a list of DependentObjectReference")
    return [("dependencies", [_prune_empty(ref) for ref in refs])]


def _object_result(customization, value, references):
    kind = _lua_type(value)
    if kind != "table":
        raise LuaScriptError(customization, "expect the returned requires type is table but got %s" % kind)
    result = restore_empty_objects(_as_json(customization, value), references)
    if not isinstance(result, dict):
        raise LuaScriptError(customization, "json unmarshal obj failed: the result is a list, not an object")
    return result


def _status_item(item):
    """An AggregatedStatusItem as Karmada hands it to Lua (json, omitempty fields dropped)."""
    out = {"clusterName": item.get("clusterName", "")}
    if item.get("status") is not None:
        out["status"] = item["status"]
    if item.get("applied"):
        out["applied"] = True
    if item.get("appliedMessage"):
        out["appliedMessage"] = item["appliedMessage"]
    if item.get("health"):
        out["health"] = item["health"]
    return out


def customization_scripts(definition):
    """{customization: script} of a ResourceInterpreterCustomization, in karmadactl's order."""
    spec = (definition or {}).get("spec") or {}
    customizations = spec.get("customizations") or {}
    scripts = []
    for key in CUSTOMIZATION_ORDER:
        script = (customizations.get(key) or {}).get("luaScript")
        if script:
            scripts.append((key, script))
    return scripts


_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def definition_errors(definition):
    """What the API server or Karmada's webhook would refuse in the object itself (not the Lua)."""
    errors = []
    if not isinstance(definition, dict):
        return ["the ResourceInterpreterCustomization must be a mapping"]
    if definition.get("apiVersion") != "config.karmada.io/v1alpha1":
        errors.append("apiVersion must be config.karmada.io/v1alpha1, got %r" % definition.get("apiVersion"))
    if definition.get("kind") != "ResourceInterpreterCustomization":
        errors.append("kind must be ResourceInterpreterCustomization, got %r" % definition.get("kind"))
    name = (definition.get("metadata") or {}).get("name") or ""
    if len(name) > 253 or not _DNS1123_SUBDOMAIN.match(name):
        errors.append(
            "metadata.name %r is not a valid object name: a lowercase RFC 1123 subdomain must consist of lower case "
            "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character" % name)
    target = ((definition.get("spec") or {}).get("target") or {})
    if not target.get("apiVersion") or not target.get("kind"):
        errors.append("spec.target needs apiVersion and kind")
    if not customization_scripts(definition):
        errors.append("spec.customizations has no luaScript")
    unknown = sorted(set(((definition.get("spec") or {}).get("customizations") or {})) - set(CUSTOMIZATIONS)
                     - {"componentResource"})
    if unknown:
        errors.append("spec.customizations has unknown keys: %s" % ", ".join(unknown))
    return errors


def _arguments_for(customization, sample):
    return {
        "desired": copy.deepcopy(sample.get("desired")),
        "observed": copy.deepcopy(sample.get("observed")),
        "status_items": copy.deepcopy(sample.get("status_items")),
        "desired_replica": sample.get("desired_replica"),
    }


def _needs(customization):
    return {
        "retention": ("desired", "observed"),
        "replicaResource": ("desired",),
        "replicaRevision": ("desired", "desired_replica"),
        "statusReflection": ("observed",),
        "statusAggregation": ("desired", "status_items"),
        "healthInterpretation": ("observed",),
        "dependencyInterpretation": ("desired",),
    }[customization]


def check_customization(definition, samples, forbid_globals=True, timeout=CALL_TIMEOUT_SECONDS):
    """Run every script of ``definition`` on every sample, fresh and in a reused state.

    ``samples``: list of {"name", "desired", "observed", "status_items", "desired_replica"}; a
    script runs on the samples that carry the inputs its operation takes.
    Returns {"results": {customization: [{"sample", "result": {name: value}}]}, "ran": n};
    raises LuaScriptError with the first failure.
    """
    errors = definition_errors(definition)
    if errors:
        raise LuaScriptError("spec", "; ".join(errors))
    scripts = customization_scripts(definition)
    functions = set(CUSTOMIZATIONS[key][1] for key, _script in scripts)
    shared = KarmadaLuaVM(timeout)
    results = {}
    ran = 0
    for key, script in scripts:
        usable = [s for s in samples if all(s.get(arg) is not None for arg in _needs(key))]
        if not usable:
            raise LuaScriptError(key, "no sample object provides %s for this operation" % " and ".join(_needs(key)))
        results[key] = []
        for sample in usable:
            fresh = KarmadaLuaVM(timeout)
            started = time.time()
            first = run_operation(fresh, key, script, **_arguments_for(key, sample))
            elapsed = time.time() - started
            if forbid_globals:
                leaked = fresh.leaked_globals(functions)
                if leaked:
                    raise LuaScriptError(key, "assigns the global variable(s) %s; Karmada reuses Lua states between "
                                              "objects, so declare them local" % ", ".join(leaked))
            results[key].append({"sample": sample.get("name", ""), "result": dict(first),
                                 "seconds": round(elapsed, 4)})
            ran += 1
        # The same calls again in one state that has already run every other sample: the result
        # must not depend on what ran before (Karmada's pooled states).
        for sample in usable + list(reversed(usable)):
            run_operation(shared, key, script, **_arguments_for(key, sample))
        for index, sample in enumerate(usable):
            again = dict(run_operation(shared, key, script, **_arguments_for(key, sample)))
            if _canonical(again) != _canonical(results[key][index]["result"]):
                raise LuaScriptError(key, "gives a different result for sample %r when the Lua state has run other "
                                          "objects before (state leaks between calls): %s != %s"
                                     % (sample.get("name", ""), _canonical(again), _canonical(results[key][index]["result"])))
    return {"results": results, "ran": ran}


def _canonical(value):
    return json.dumps(value, sort_keys=True)


# --- why a customization is refused, line by line (the check's message) ---------------------------
# A script that hands the kube library ``spec.template`` of a UnitedDeployment: that is the subset
# template ({statefulSet,advancedStatefulSet,cloneSet,deployment}Template), not a PodTemplateSpec, and
# the library's JSON conversion ignores what it does not know, so it finds nothing there.
_SPEC_TEMPLATE_CALL = re.compile(r"kube\.(accuratePodRequirements|getPodDependencies)\(\s*[\w.]*\.spec\.template\s*[,)]")
_SPEC_TEMPLATE_WHY = {
    "accuratePodRequirements": "the scheduler gets no resource requests for it (the estimators cannot size it)",
    "getPodDependencies": "propagateDeps sends none of its ConfigMaps, Secrets, ServiceAccount and PVCs",
}


def _lines(script, numbers):
    lines = script.splitlines()
    return [(number, lines[number - 1].strip()) for number in numbers if 0 < number <= len(lines)]


def _assignments(script, name):
    """The lines of ``script`` that assign the global ``name`` (not a ``local`` declaration)."""
    pattern = re.compile(r"(?<![\w.])%s\s*=(?!=)" % re.escape(name))
    return _lines(script, [number for number, text in enumerate(script.splitlines(), 1)
                           if pattern.search(text) and not re.match(r"^\s*local\b", text)])


def _returns(script, function):
    """The ``return`` lines of the global ``function`` (to its first top-level ``end``)."""
    numbers, inside = [], False
    for number, text in enumerate(script.splitlines(), 1):
        if re.match(r"^\s*function\s+%s\s*\(" % re.escape(function), text):
            inside = True
        elif inside and re.match(r"^end\b", text):
            break
        elif inside and re.search(r"\breturn\b", text):
            numbers.append(number)
    return _lines(script, numbers)


def _failure_lines(customization, script, message):
    """Where a failure points: the line a Lua error names, else the function's returns."""
    found = re.match(r"^%s:(\d+):" % re.escape(customization), message)
    if found:
        return _lines(script, [int(found.group(1))])
    return _returns(script, CUSTOMIZATIONS[customization][1])


def _name_finding(definition):
    name = (definition.get("metadata") or {}).get("name") or ""
    if name and name != name.lower() and _DNS1123_SUBDOMAIN.match(name.lower()) and len(name) <= 253:
        return {"customization": "metadata.name", "lines": [], "problem": (
            "%r has capitals, which the API server refuses in an object name (a lowercase RFC 1123 subdomain): "
            "write %s" % (name, name.lower()))}
    return None


def script_findings(definition, samples, forbid_globals=True, timeout=CALL_TIMEOUT_SECONDS):
    """Everything wrong with ``definition``, for the check's message: [{customization, lines, problem}],
    ``lines`` the (number, text) of the script lines at fault. Unlike ``check_customization``, which
    stops at the first failure, every script runs on every sample that fits it, in a fresh state."""
    findings = []
    named = _name_finding(definition)
    for error in definition_errors(definition):
        if named is not None and error.startswith("metadata.name"):
            findings.append(named)
        else:
            findings.append({"customization": "spec", "lines": [], "problem": error})
    scripts = customization_scripts(definition)
    functions = set(CUSTOMIZATIONS[key][1] for key, _script in scripts)
    united_deployment = ((definition.get("spec") or {}).get("target") or {}).get("kind") == "UnitedDeployment"
    for key, script in scripts:
        usable = [s for s in samples if all(s.get(arg) is not None for arg in _needs(key))]
        if not usable:
            findings.append({"customization": key, "lines": [], "problem": "no sample object provides %s for this "
                             "operation" % " and ".join(_needs(key))})
            continue
        failures, leaked = {}, set()
        for sample in usable:
            vm = KarmadaLuaVM(timeout)
            try:
                run_operation(vm, key, script, **_arguments_for(key, sample))
            except LuaScriptError as error:
                failures.setdefault(error.message, []).append(sample.get("name", ""))
            if forbid_globals:
                leaked.update(vm.leaked_globals(functions))
        for name in sorted(leaked):
            findings.append({"customization": key, "lines": _assignments(script, name), "problem": (
                "assigns the global variable %s: Karmada reuses Lua states between objects, so the value one object "
                "leaves there is seen by the next; declare it local" % name)})
        for message, names in sorted(failures.items()):
            on = ("on every sample (%d)" % len(names) if len(names) == len(usable)
                  else "on sample(s) %s" % ", ".join(names))
            # gopher-lua's type numbers, as Karmada prints them: say which type it was.
            named = re.sub(r"result type (\d+) ", lambda m: "result type %s (%s) " % (
                m.group(1), _LUA_TYPE_BY_NUMBER.get(int(m.group(1)), "?")), message)
            findings.append({"customization": key, "lines": _failure_lines(key, script, message),
                             "problem": "fails %s, as Karmada would: %s" % (on, named)})
        if united_deployment:
            for number, text in enumerate(script.splitlines(), 1):
                call = _SPEC_TEMPLATE_CALL.search(text)
                if call:
                    findings.append({"customization": key, "lines": _lines(script, [number]), "problem": (
                        "hands kube.%s spec.template, which in a UnitedDeployment is the subset template "
                        "(statefulSetTemplate, cloneSetTemplate, ...), not a pod template: the library finds nothing "
                        "in it, so %s" % (call.group(1), _SPEC_TEMPLATE_WHY[call.group(1)]))})
    return findings


def refusal_message(definition, findings, replacements=None, first=None):
    """The check's refusal: ``first`` (the check's own error, as it stopped), each finding with the lines at
    fault and why, then, with ``replacements`` ({customization: script name}), the scripts that serve the
    target instead."""
    name = ((definition or {}).get("metadata") or {}).get("name")
    target = (((definition or {}).get("spec") or {}).get("target") or {}).get("kind") or "the target"
    replacements = replacements or {}
    grouped = []
    for finding in findings:
        if not grouped or grouped[-1][0] != finding["customization"]:
            grouped.append((finding["customization"], []))
        lines = ", ".join("line %d `%s`" % line for line in finding["lines"])
        grouped[-1][1].append("%s%s" % (lines + ": " if lines else "", finding["problem"]))
    parts = []
    for index, (customization, problems) in enumerate(grouped, 1):
        if customization in replacements:
            problems = problems + ["%s replaces it" % replacements[customization]]
        parts.append("(%d) %s - %s" % (index, customization, "; ".join(problems)))
    message = "ResourceInterpreterCustomization %s refused before applying: %s%s." % (
        name, "%s. Line by line: " % first if first else "", ". ".join(parts))
    if replacements:
        message += (" The collection's own scripts serve %s instead: %s - leave the runbook's scripts out (the role's "
                    "resource_interpreter_scripts) and they are applied."
                    % (target, ", ".join("%s for %s" % (replacements[key], key) for key in CUSTOMIZATION_ORDER
                                         if key in replacements)))
    return message


def explain_refusal(definition, samples, error, forbid_globals=True, timeout=CALL_TIMEOUT_SECONDS, replacements=None):
    """The message of a customization ``check_customization`` refused with ``error``: every finding,
    line by line, and what replaces it."""
    findings = script_findings(definition, samples, forbid_globals, timeout)
    if not findings or "state leaks between calls" in error.message:
        # What only a reused state shows (check_customization's second pass): the error is the finding.
        findings.append({"customization": error.customization, "lines": [], "problem": error.message})
        return refusal_message(definition, findings, replacements)
    # The check's own error first, as it stopped (what a log search or an earlier run's message names).
    return refusal_message(definition, findings, replacements, first=str(error))


def load_samples(documents):
    """Samples from a list of documents ``{name, desired?, observed?, statusItems?, desiredReplica?}``."""
    samples = []
    for index, document in enumerate(documents or []):
        if not isinstance(document, dict):
            raise ValueError("sample %d must be a mapping" % index)
        samples.append({
            "name": document.get("name") or "sample-%d" % index,
            "desired": document.get("desired"),
            "observed": document.get("observed"),
            "status_items": document.get("statusItems", document.get("status_items")),
            "desired_replica": document.get("desiredReplica", document.get("desired_replica")),
        })
    return samples


__all__ = [
    "CUSTOMIZATIONS", "CUSTOMIZATION_ORDER", "HAS_LUPA", "KarmadaLuaVM", "LuaScriptError",
    "check_customization", "customization_scripts", "definition_errors", "explain_refusal", "format_quantity",
    "load_samples", "lua_to_json", "parse_quantity", "refusal_message", "replica_requirements",
    "restore_empty_objects", "run_operation", "script_findings",
]

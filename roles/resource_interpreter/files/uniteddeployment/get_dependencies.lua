-- InterpretDependency: the ConfigMaps, Secrets, ServiceAccount and PVCs the pods use, so that
-- propagateDeps sends them along. They are read from the pod template inside the subset template
-- (passing spec.template itself finds nothing; passing nil is a Lua error). Sorted, so that the
-- list is the same on every run (Karmada collects them from Go maps).
local kube = require("kube")

local templateKinds = {"statefulSetTemplate", "advancedStatefulSetTemplate", "cloneSetTemplate", "deploymentTemplate"}

local function podTemplate(obj)
  local template = obj.spec and obj.spec.template
  if template == nil then
    return nil
  end
  for _, kind in ipairs(templateKinds) do
    local workload = template[kind]
    if workload ~= nil and workload.spec ~= nil and workload.spec.template ~= nil then
      return workload.spec.template
    end
  end
  return nil
end

local function before(a, b)
  if a.kind ~= b.kind then
    return a.kind < b.kind
  end
  return a.name < b.name
end

function GetDependencies(desiredObj)
  local refs = {}
  local template = podTemplate(desiredObj)
  if template == nil then
    return refs
  end
  local namespace = desiredObj.metadata and desiredObj.metadata.namespace
  local found = kube.getPodDependencies(template, namespace)
  if found == nil then
    return refs
  end
  for _, ref in ipairs(found) do
    table.insert(refs, ref)
  end
  table.sort(refs, before)
  return refs
end

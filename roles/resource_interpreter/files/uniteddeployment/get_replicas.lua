-- InterpretReplica for apps.kruise.io UnitedDeployment.
-- Karmada's scheduler divides the number returned here (it must be a number: a nil gives
-- "result type 0 is not number", karmada-io/karmada#3271) and sizes clusters with the requirement.
-- The pod template is inside the subset template (statefulSetTemplate, advancedStatefulSetTemplate,
-- cloneSetTemplate or deploymentTemplate: kruise apis/apps/v1alpha1/uniteddeployment_types.go);
-- spec.template itself is not a PodTemplateSpec, so kube.accuratePodRequirements would silently
-- find nothing in it. Every variable is local: Karmada reuses Lua states between objects.
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

-- Without spec.replicas Kruise runs the sum of the subsets' replicas, which then must all be
-- integers (uniteddeployment allocator: "all subsets must be specified"); anything else runs nothing.
local function specifiedSubsetReplicas(obj)
  local topology = obj.spec and obj.spec.topology
  local subsets = topology and topology.subsets
  if subsets == nil then
    return 0
  end
  local sum = 0
  for _, subset in ipairs(subsets) do
    if type(subset.replicas) ~= "number" then
      return 0
    end
    sum = sum + subset.replicas
  end
  return sum
end

function GetReplicas(obj)
  local replica = obj.spec and obj.spec.replicas
  if type(replica) ~= "number" then
    replica = specifiedSubsetReplicas(obj)
  end
  local requirement = nil
  local template = podTemplate(obj)
  if template ~= nil then
    requirement = kube.accuratePodRequirements(template)
  end
  return replica, requirement
end

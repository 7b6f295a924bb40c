-- AggregateStatus: the control plane's UnitedDeployment status, summed over the members.
-- The status is rebuilt from the members on every call (nothing stale survives from an earlier
-- aggregation) and nothing is global: Karmada runs every object's script in pooled Lua states, so a
-- global assigned for one UnitedDeployment would be read back for the next.
-- observedGeneration moves to metadata.generation only when every member reports the current
-- resource template generation and has observed its own generation (the rule of Karmada's
-- built-in workload interpreters); otherwise the previous value stays.
local function sameForAll(values, count)
  if count == 0 or #values ~= count then
    return nil
  end
  for i = 2, #values do
    if values[i] ~= values[1] then
      return nil
    end
  end
  return values[1]
end

-- Kruise's CRD requires status.currentRevision (both versions' status.required): an aggregate
-- without it is refused by the API server, and the control plane keeps a stale status until some
-- member's status changes again. Every member's revision when they agree; while they differ (a
-- rollout under way, or partitions holding one member back), the control plane's previous revision
-- as long as some member still reports it (the federation has not finished moving, the rule of
-- observedGeneration); else the lowest one, so that the result does not depend on the members' order.
-- Before any member reports a revision there is none to give: the previous one (nil on a new object).
-- With none at all, AggregateStatus leaves the status as it is: Karmada skips the update when the status
-- is unchanged (v1.18.2 pkg/controllers/status/common.go updateResourceStatus, reflect.DeepEqual), where
-- an aggregate without the revision would be refused, logged as a reconcile error, retried with backoff
-- and recorded as an AggregateStatusFailed event, over and over until Kruise writes the members' first
-- revision. What the control plane ends up storing is the same.
local function currentRevisionOf(revisions, count, previous)
  local same = sameForAll(revisions, count)
  if same ~= nil then
    return same
  end
  for _, revision in ipairs(revisions) do
    if revision == previous then
      return previous
    end
  end
  if #revisions == 0 then
    return previous
  end
  local sorted = {}
  for index, revision in ipairs(revisions) do
    sorted[index] = revision
  end
  table.sort(sorted)
  return sorted[1]
end

-- Adds one member's subset counters to the sums by subset name.
local function addSubset(subsets, name, replicas, readyReplicas, partition)
  if name == nil then
    return
  end
  local sums = subsets[name]
  if sums == nil then
    sums = {name = name, replicas = 0, readyReplicas = 0, partition = 0}
    subsets[name] = sums
  end
  sums.replicas = sums.replicas + (replicas or 0)
  sums.readyReplicas = sums.readyReplicas + (readyReplicas or 0)
  sums.partition = sums.partition + (partition or 0)
end

function AggregateStatus(desiredObj, statusItems)
  local generation = (desiredObj.metadata and desiredObj.metadata.generation) or 0
  local previous = desiredObj.status or {}
  local status = {
    replicas = 0,
    readyReplicas = 0,
    updatedReplicas = 0,
    updatedReadyReplicas = 0,
    observedGeneration = previous.observedGeneration or 0,
  }
  local items = statusItems or {}
  if #items == 0 then
    if previous.currentRevision == nil then
      return desiredObj
    end
    status.observedGeneration = generation
    status.currentRevision = previous.currentRevision
    desiredObj.status = status
    return desiredObj
  end

  local subsets = {}
  local conditions = {}
  local conditionIndex = {}
  local revisions = {}
  local updatedRevisions = {}
  local observedMembers = 0
  local labelSelector = nil
  for _, item in ipairs(items) do
    local member = item.status
    if member ~= nil then
      status.replicas = status.replicas + (member.replicas or 0)
      status.readyReplicas = status.readyReplicas + (member.readyReplicas or 0)
      status.updatedReplicas = status.updatedReplicas + (member.updatedReplicas or 0)
      status.updatedReadyReplicas = status.updatedReadyReplicas + (member.updatedReadyReplicas or 0)
      -- Per subset: v1alpha1 members report subsetReplicas (and currentPartitions), v1beta1
      -- members (Kruise v1.9.0) subsetStatuses.
      if member.subsetStatuses ~= nil then
        for _, subset in ipairs(member.subsetStatuses) do
          addSubset(subsets, subset.name, subset.replicas, subset.readyReplicas, subset.partition)
        end
      elseif member.subsetReplicas ~= nil then
        for name, replicas in pairs(member.subsetReplicas) do
          local partition = nil
          if member.currentPartitions ~= nil then
            partition = member.currentPartitions[name]
          end
          addSubset(subsets, name, replicas, nil, partition)
        end
      end
      if member.conditions ~= nil then
        for _, condition in ipairs(member.conditions) do
          local index = conditionIndex[condition.type]
          if index == nil then
            table.insert(conditions, condition)
            conditionIndex[condition.type] = #conditions
          elseif condition.status ~= "True" then
            -- A condition that is not True in some member is what the control plane reports.
            conditions[index] = condition
          end
        end
      end
      if member.currentRevision ~= nil then
        table.insert(revisions, member.currentRevision)
      end
      if member.updatedRevision ~= nil then
        table.insert(updatedRevisions, member.updatedRevision)
      end
      if labelSelector == nil then
        labelSelector = member.labelSelector
      end
      if (member.resourceTemplateGeneration or 0) == generation
          and (member.generation or 0) == (member.observedGeneration or 0) then
        observedMembers = observedMembers + 1
      end
    end
  end

  if observedMembers == #items then
    status.observedGeneration = generation
  end
  -- In the shape of the template's own apiVersion: the API server prunes fields its schema lacks.
  local v1alpha1 = desiredObj.apiVersion == "apps.kruise.io/v1alpha1"
  local names = {}
  for name, _ in pairs(subsets) do
    table.insert(names, name)
  end
  -- Sorted, so every Lua implementation builds the same list.
  table.sort(names)
  if #names > 0 then
    if v1alpha1 then
      local subsetReplicas = {}
      for _, name in ipairs(names) do
        subsetReplicas[name] = subsets[name].replicas
      end
      status.subsetReplicas = subsetReplicas
    else
      local subsetStatuses = {}
      for _, name in ipairs(names) do
        table.insert(subsetStatuses, subsets[name])
      end
      status.subsetStatuses = subsetStatuses
    end
  end
  if #conditions > 0 then
    status.conditions = conditions
  end
  status.currentRevision = currentRevisionOf(revisions, #items, previous.currentRevision)
  if status.currentRevision == nil then
    return desiredObj
  end
  -- The updated revision only when every member runs the same one (the field is optional).
  local updatedRevision = sameForAll(updatedRevisions, #items)
  if updatedRevision ~= nil then
    if v1alpha1 then
      status.updateStatus = {updatedRevision = updatedRevision}
    else
      status.updatedRevision = updatedRevision
    end
  end
  status.labelSelector = labelSelector
  desiredObj.status = status
  return desiredObj
end

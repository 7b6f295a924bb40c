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
    status.observedGeneration = generation
    desiredObj.status = status
    return desiredObj
  end

  local subsetReplicas = {}
  local subsetNames = {}
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
      if member.subsetReplicas ~= nil then
        for _, name in ipairs(subsetNames) do
          subsetReplicas[name] = subsetReplicas[name] + (member.subsetReplicas[name] or 0)
        end
        -- New names in a fixed order (sorted), so every Lua implementation builds the same list.
        local added = {}
        for name, _ in pairs(member.subsetReplicas) do
          if subsetReplicas[name] == nil then
            table.insert(added, name)
          end
        end
        table.sort(added)
        for _, name in ipairs(added) do
          table.insert(subsetNames, name)
          subsetReplicas[name] = member.subsetReplicas[name]
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
  if #subsetNames > 0 then
    status.subsetReplicas = subsetReplicas
  end
  if #conditions > 0 then
    status.conditions = conditions
  end
  -- A revision is reported only when every member runs the same one.
  status.currentRevision = sameForAll(revisions, #items)
  local updatedRevision = sameForAll(updatedRevisions, #items)
  if updatedRevision ~= nil then
    status.updateStatus = {updatedRevision = updatedRevision}
  end
  status.labelSelector = labelSelector
  desiredObj.status = status
  return desiredObj
end

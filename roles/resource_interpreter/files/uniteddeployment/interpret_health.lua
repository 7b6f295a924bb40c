-- InterpretHealth: healthy when the member's controller has observed the current spec, runs the
-- desired number of pods, all of them ready, and has updated every pod that the Manual partitions
-- do not hold back. Only fields a UnitedDeployment status has (Karmada's built-in script compares
-- availableReplicas, which UnitedDeployment lacks, and fails on nil).
function InterpretHealth(observedObj)
  if observedObj == nil or observedObj.status == nil or observedObj.metadata == nil or observedObj.spec == nil then
    return false
  end
  local status = observedObj.status
  if status.observedGeneration == nil or status.observedGeneration ~= observedObj.metadata.generation then
    return false
  end
  local desired = observedObj.spec.replicas
  if type(desired) ~= "number" then
    desired = status.replicas or 0
  end
  if (status.replicas or 0) ~= desired or (status.readyReplicas or 0) < desired then
    return false
  end
  local heldBack = 0
  if status.subsetStatuses ~= nil then
    -- v1beta1 (Kruise v1.9.0): the current partition of each subset.
    for _, subset in ipairs(status.subsetStatuses) do
      heldBack = heldBack + (subset.partition or 0)
    end
  elseif status.updateStatus ~= nil and status.updateStatus.currentPartitions ~= nil then
    for _, partition in pairs(status.updateStatus.currentPartitions) do
      heldBack = heldBack + partition
    end
  end
  return (status.updatedReplicas or 0) >= desired - heldBack
end

-- InterpretStatus: what each member reports into the ResourceBinding's aggregatedStatus.
-- Only fields a UnitedDeployment status has (kruise apis/apps/v1alpha1 and, from Kruise v1.9.0,
-- v1beta1 UnitedDeploymentStatus; there is no availableReplicas), plus the member object's generation and the resource template
-- generation Karmada stamps on it (annotation resourcetemplate.karmada.io/generation), which
-- AggregateStatus needs to tell whether every member has seen the current template.
function ReflectStatus(observedObj)
  local status = {}
  if observedObj == nil or observedObj.status == nil then
    return status
  end
  local observed = observedObj.status
  status.replicas = observed.replicas
  status.readyReplicas = observed.readyReplicas
  status.updatedReplicas = observed.updatedReplicas
  status.updatedReadyReplicas = observed.updatedReadyReplicas
  status.observedGeneration = observed.observedGeneration
  status.currentRevision = observed.currentRevision
  status.subsetReplicas = observed.subsetReplicas
  status.labelSelector = observed.labelSelector
  status.conditions = observed.conditions
  if observed.updateStatus ~= nil then
    status.updatedRevision = observed.updateStatus.updatedRevision
    status.currentPartitions = observed.updateStatus.currentPartitions
  end
  -- v1beta1 (Kruise v1.9.0) has no subsetReplicas and no updateStatus: the updated revision is at the
  -- top and each subset's replicas, ready replicas and partition are in subsetStatuses. Their
  -- conditions stay in the member: the control plane sums counters only.
  if observed.updatedRevision ~= nil then
    status.updatedRevision = observed.updatedRevision
  end
  if observed.subsetStatuses ~= nil then
    local subsets = {}
    for _, subset in ipairs(observed.subsetStatuses) do
      table.insert(subsets, {name = subset.name, replicas = subset.replicas or 0,
                             readyReplicas = subset.readyReplicas or 0, partition = subset.partition or 0})
    end
    if #subsets > 0 then
      status.subsetStatuses = subsets
    end
  end
  local metadata = observedObj.metadata
  if metadata ~= nil then
    status.generation = metadata.generation
    if metadata.annotations ~= nil then
      local templateGeneration = tonumber(metadata.annotations["resourcetemplate.karmada.io/generation"])
      if templateGeneration ~= nil then
        status.resourceTemplateGeneration = templateGeneration
      end
    end
  end
  return status
end

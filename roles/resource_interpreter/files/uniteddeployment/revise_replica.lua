-- ReviseReplica: the member's UnitedDeployment runs the share Karmada assigned to that cluster.
-- Subset replicas given as percentages follow; absolute ones do not (the united_deployment role
-- refuses those for divided placements).
function ReviseReplica(obj, desiredReplica)
  obj.spec.replicas = desiredReplica
  return obj
end

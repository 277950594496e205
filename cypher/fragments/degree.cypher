// How many facts touch the entity n (current, past and expired alike): its relationship count,
// read without walking them.
indegree(n, 'FACT') + outdegree(n, 'FACT')

// Neo4j form of ../../fragments/degree.cypher (no indegree/outdegree): a COUNT subquery, which the
// planner answers from the node's relationship counts.
COUNT { (n)-[:FACT]-() }

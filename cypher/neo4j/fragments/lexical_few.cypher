// Neo4j's: fragments/lexical_each as it is (it asks stem by stem with an UNWIND: no slots to leave out).
{{lexical_each}}

// Neo4j's: fragments/term_hits as it is (it asks term by term with an UNWIND: no slots to leave out).
{{term_hits}}

// The scope's state (scope/scope_state) with whether it holds any fact record (recall reads the facts around
// the entities a question names only then: the first one found ends the search) in one row whose term is null,
// then how many of the scope's names each term of the question matches (up to $cap), a row a term that matches
// any (fragments/term_hits, each dialect's own): recall's and search's first round trip, in one statement.
{{state_and_facts_row}}
UNION ALL
{{term_hits}}

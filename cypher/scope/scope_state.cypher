// Version, counters and stored rules of one scope, as one map; a scope never written reads as version 0
// (the rules it has not stored come back null, and the library's defaults apply).
{{scope_state_for_read}}
RETURN {{scope_state_map}} AS state

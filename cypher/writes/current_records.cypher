// Current records (not expired) of the given trust states for each key {slot, subject, predicate,
// object, since_at, a and b: node ids of both entities, when known}: the planner's input, as one row (one
// value to decode, not a row per record).
// A null object asks for every object of the (subject, predicate) (fragments/current_of_keys).
WITH [] AS single
{{current_of_keys}}
RETURN by_id + by_pair + by_slot AS records

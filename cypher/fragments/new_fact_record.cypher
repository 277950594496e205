// The properties of a new fact record r, created from x: x.props and x.shared are a row of
// engine/writes.py apply's creates (record_props, its repeated values apart).
// Instants are set one by one: the Neo4j form turns them into DATETIME values.
SET r = x.props, r.valid_at = x.props.valid_at, r.invalid_at = x.props.invalid_at,
    r.recorded_at = x.props.recorded_at, r.expired_at = x.props.expired_at,
    r.confirmed_at = x.props.confirmed_at
{{shared_fact_strings}}

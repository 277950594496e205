// The properties of a new fact record r, created from x: x.props and x.shared are a row of
// engine/writes.py apply's creates (record_props, its repeated values apart).
// Instants are set one by one: a dialect may store them as a type of its own (Neo4j: DATETIME).
SET r = x.props, r.valid_at = {{instant(x.props.valid_at)}}, r.invalid_at = {{instant(x.props.invalid_at)}},
    r.recorded_at = {{instant(x.props.recorded_at)}}, r.expired_at = {{instant(x.props.expired_at)}},
    r.confirmed_at = {{instant(x.props.confirmed_at)}}
{{shared_fact_strings}}

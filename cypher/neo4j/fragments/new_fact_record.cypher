// Neo4j form of ../../fragments/new_fact_record.cypher: instants arrive as ISO-8601 text inside a list
// (see backends/neo4j.py) and are stored as DATETIME values.
SET r = x.props, r.valid_at = datetime(x.props.valid_at), r.invalid_at = datetime(x.props.invalid_at),
    r.recorded_at = datetime(x.props.recorded_at), r.expired_at = datetime(x.props.expired_at),
    r.confirmed_at = datetime(x.props.confirmed_at)
{{shared_fact_strings}}

// An audit entry x in brief (Memory.audit(brief=$brief)): the first $brief keys of the entities it touched and of
// its stored record ids, with their counts (a bulk write touches thousands); its detail is read for its records'
// count when it stores no ids of its own (engine/rows.py audit).
{id: x.id, at: x.at, action: x.action, client: x.client, source: x.source, model: x.model,
 session: x.session, entities: x.entities[..$brief], entity_count: size(x.entities), facts: x.facts[..$brief],
 fact_count: size(x.facts), detail: CASE WHEN x.facts IS NULL THEN x.detail END, secrets: x.secrets, brief: true}

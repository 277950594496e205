// Recall's vector leg by an exact scan (recall/memory_lexical asks the vector indexes): for each kind of
// $kinds ('observation', 'fact'), the scope's current memories of it (fact records believed and valid at
// $as_of; recorded by $known_at if given) nearest to $vector by the cosine of their embeddings by $model, the
// best $k, whole, with their stems. Read when the indexes' answer held too few of a larger scope's (other scopes'
// memories crowded it).
{{vector_scan}}

"""The rooms behind the facade: each module one responsibility, every operation written once (sans I/O).

``io`` drives operations; ``context`` and ``scope`` hold what every operation knows; ``inputs``
checks what the caller gave; ``rows`` turns database rows into models; ``reads``, ``recall``,
``writes`` (the write engine), ``planning`` (upsert, retract, merges), ``trust`` (review, feedback,
audit), ``transfer`` (export, import), ``scope_rules`` and ``migrations`` are the operations.
"""

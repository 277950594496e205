"""The golden memory and questions of the recall evaluation (written for it, fictional).

Kestrel Systems, a small software company, 2016-2024: people with their homes, teams,
roles and managers; teams; services named as developers name them (``billingService``,
``user_auth_service``, ``search-indexer``, ``notifications.dispatcher``,
``InvoiceGenerator``); datastores, vendors, projects, decisions, incidents, cities.

Built in to test recall, not to flatter it:

- changes over time: moves, team and job changes, people leaving, owners and on-call
  engineers changing, statuses moving on, decisions reversed (``billingService DECIDED
  use Stripe`` until 2024, then ``use Adyen``);
- aliases: nicknames (``Dee``, ``Sammy``, ``Marc``, ``Tom``) and abbreviations (``UAS``,
  ``APIGW``, ``k8s``, ``ES``), some of them first written as entities of their own and
  merged later (``SAME_AS``);
- distractors: similar names (``billingService`` vs ``billing-report job`` and
  ``billing_reconciler``; ``user_auth_service`` vs ``auth-proxy``; ``search-indexer`` vs
  ``search-ui``) and two people called Sam (``Sam Okafor``, ``Sam Lindqvist``).

Facts are lines ``valid_at | subject | PREDICATE | object`` (``valid_at..invalid_at`` for
an explicit end). Predicates in :data:`SINGLE_VALUED` hold one value at a time, so a later
value closes the earlier one. The memory is loaded in valid-time order, then the aliases.

Cases were written from the facts before any measurement: ``must`` facts have to come
back, ``must_not`` facts must not (stale values - not valid at ``as_of`` - and
distractors), ``relevant`` facts are acceptable extra answers (they count for
precision). ``as_of=None`` means "now".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from synapse_graph.rules.predicates import DEFAULT_SINGLE_VALUED

Triple3 = tuple[str, str, str]

SINGLE_VALUED: frozenset[str] = DEFAULT_SINGLE_VALUED | {
    "MEMBER_OF", "OWNED_BY", "LED_BY", "ON_CALL", "HOSTED_ON", "HEADQUARTERED_IN",
}

FACTS_TEXT = """
# --- people ---------------------------------------------------------------------------------
2019-03-01 | Dana Whitfield | WORKS_AT | Kestrel Systems
2019-03-01 | Dana Whitfield | LIVES_IN | Berlin
2023-09-01 | Dana Whitfield | LIVES_IN | Lisbon
2019-03-01 | Dana Whitfield | MEMBER_OF | Platform Team
2022-05-01 | Dana Whitfield | MEMBER_OF | Payments Team
2019-03-01 | Dana Whitfield | HAS_ROLE | Backend Engineer
2022-05-01 | Dana Whitfield | HAS_ROLE | Staff Engineer
2024-07-01 | Dana Whitfield | HAS_ROLE | Engineering Manager
2019-03-01 | Dana Whitfield | REPORTS_TO | Marcus Chen
2022-05-01 | Dana Whitfield | REPORTS_TO | Priya Raman
2019-03-01 | Dana Whitfield | SPEAKS | German
2019-03-01 | Dana Whitfield | SPEAKS | English
2023-10-02 | Dana Whitfield | SPEAKS | Portuguese

2017-01-09 | Marcus Chen | WORKS_AT | Kestrel Systems
2024-02-01 | Marcus Chen | WORKS_AT | Corvid Analytics
2017-01-09 | Marcus Chen | LIVES_IN | Toronto
2017-01-09..2024-02-01 | Marcus Chen | MEMBER_OF | Platform Team
2017-01-09 | Marcus Chen | HAS_ROLE | Engineering Manager
2024-02-01 | Marcus Chen | HAS_ROLE | VP Engineering
2017-01-09..2024-02-01 | Marcus Chen | REPORTS_TO | Elena Petrova

2018-06-04 | Priya Raman | WORKS_AT | Kestrel Systems
2018-06-04 | Priya Raman | LIVES_IN | Amsterdam
2018-06-04 | Priya Raman | MEMBER_OF | Payments Team
2018-06-04 | Priya Raman | HAS_ROLE | Engineering Manager
2024-07-01 | Priya Raman | HAS_ROLE | Director of Engineering
2018-06-04 | Priya Raman | REPORTS_TO | Elena Petrova

2016-05-02 | Elena Petrova | WORKS_AT | Kestrel Systems
2016-05-02 | Elena Petrova | LIVES_IN | Berlin
2016-05-02 | Elena Petrova | HAS_ROLE | CTO
2016-05-02 | Elena Petrova | REPORTS_TO | Victor Alves

2016-05-02 | Victor Alves | WORKS_AT | Kestrel Systems
2016-05-02 | Victor Alves | LIVES_IN | Lisbon
2016-05-02 | Victor Alves | HAS_ROLE | CEO
2016-05-02 | Victor Alves | FOUNDED | Kestrel Systems

2020-01-13 | Sam Okafor | WORKS_AT | Kestrel Systems
2020-01-13 | Sam Okafor | LIVES_IN | Toronto
2020-01-13 | Sam Okafor | MEMBER_OF | Payments Team
2020-01-13 | Sam Okafor | HAS_ROLE | Backend Engineer
2023-04-03 | Sam Okafor | HAS_ROLE | Senior Engineer
2020-01-13 | Sam Okafor | REPORTS_TO | Priya Raman

2019-08-19 | Sam Lindqvist | WORKS_AT | Kestrel Systems
2019-08-19 | Sam Lindqvist | LIVES_IN | Stockholm
2022-03-01 | Sam Lindqvist | LIVES_IN | Dublin
2019-08-19 | Sam Lindqvist | MEMBER_OF | Growth Team
2019-08-19 | Sam Lindqvist | HAS_ROLE | Product Designer
2019-08-19 | Sam Lindqvist | REPORTS_TO | Zoe Park

2018-02-05 | Tomás García | WORKS_AT | Kestrel Systems
2018-02-05 | Tomás García | LIVES_IN | Austin
2018-02-05 | Tomás García | MEMBER_OF | SRE Team
2018-02-05 | Tomás García | HAS_ROLE | Site Reliability Engineer
2023-01-09 | Tomás García | HAS_ROLE | SRE Lead
2018-02-05 | Tomás García | REPORTS_TO | Elena Petrova

2020-09-01 | Yuki Tanaka | WORKS_AT | Kestrel Systems
2020-09-01 | Yuki Tanaka | LIVES_IN | Singapore
2020-09-01 | Yuki Tanaka | MEMBER_OF | Data Team
2020-09-01 | Yuki Tanaka | HAS_ROLE | Data Engineer
2020-09-01 | Yuki Tanaka | REPORTS_TO | Hana Novak

2021-02-15 | Omar Haddad | WORKS_AT | Kestrel Systems
2021-02-15 | Omar Haddad | LIVES_IN | Amsterdam
2021-02-15 | Omar Haddad | MEMBER_OF | Security Team
2021-02-15 | Omar Haddad | HAS_ROLE | Security Engineer
2021-02-15 | Omar Haddad | REPORTS_TO | Greta Holm

2021-05-03 | Lena Fischer | WORKS_AT | Kestrel Systems
2021-05-03 | Lena Fischer | LIVES_IN | Berlin
2021-05-03 | Lena Fischer | MEMBER_OF | Mobile Team
2021-05-03 | Lena Fischer | HAS_ROLE | iOS Engineer
2021-05-03 | Lena Fischer | REPORTS_TO | Jonas Berg

2019-11-04 | Kofi Mensah | WORKS_AT | Kestrel Systems
2019-11-04 | Kofi Mensah | LIVES_IN | Nairobi
2019-11-04 | Kofi Mensah | MEMBER_OF | Platform Team
2019-11-04 | Kofi Mensah | HAS_ROLE | Backend Engineer
2019-11-04 | Kofi Mensah | REPORTS_TO | Marcus Chen
2024-02-01 | Kofi Mensah | REPORTS_TO | Ines Moreau

2018-09-03 | Ines Moreau | WORKS_AT | Kestrel Systems
2018-09-03 | Ines Moreau | LIVES_IN | Lisbon
2018-09-03 | Ines Moreau | MEMBER_OF | Platform Team
2018-09-03 | Ines Moreau | HAS_ROLE | Senior Engineer
2024-02-01 | Ines Moreau | HAS_ROLE | Engineering Manager
2018-09-03 | Ines Moreau | REPORTS_TO | Marcus Chen
2024-02-01 | Ines Moreau | REPORTS_TO | Elena Petrova

2019-04-01 | Ravi Kumar | WORKS_AT | Kestrel Systems
2019-04-01 | Ravi Kumar | LIVES_IN | Toronto
2022-08-15 | Ravi Kumar | LIVES_IN | Austin
2019-04-01 | Ravi Kumar | MEMBER_OF | Growth Team
2023-03-01 | Ravi Kumar | MEMBER_OF | Data Team
2019-04-01 | Ravi Kumar | HAS_ROLE | Frontend Engineer
2023-03-01 | Ravi Kumar | HAS_ROLE | Analytics Engineer
2019-04-01 | Ravi Kumar | REPORTS_TO | Zoe Park
2023-03-01 | Ravi Kumar | REPORTS_TO | Hana Novak

2019-01-07 | Hana Novak | WORKS_AT | Kestrel Systems
2019-01-07 | Hana Novak | LIVES_IN | Warsaw
2019-01-07 | Hana Novak | MEMBER_OF | Data Team
2019-01-07 | Hana Novak | HAS_ROLE | Data Lead
2019-01-07 | Hana Novak | REPORTS_TO | Elena Petrova

2020-06-01 | Bruno Costa | WORKS_AT | Kestrel Systems
2020-06-01 | Bruno Costa | LIVES_IN | Lisbon
2020-06-01 | Bruno Costa | MEMBER_OF | Payments Team
2020-06-01 | Bruno Costa | HAS_ROLE | QA Engineer
2022-01-10 | Bruno Costa | HAS_ROLE | Backend Engineer
2020-06-01 | Bruno Costa | REPORTS_TO | Priya Raman

2018-03-12 | Zoe Park | WORKS_AT | Kestrel Systems
2018-03-12 | Zoe Park | LIVES_IN | Seoul
2018-03-12 | Zoe Park | MEMBER_OF | Growth Team
2018-03-12 | Zoe Park | HAS_ROLE | Product Manager
2022-09-01 | Zoe Park | HAS_ROLE | Head of Product
2018-03-12 | Zoe Park | REPORTS_TO | Victor Alves

2021-10-04 | Felix Braun | WORKS_AT | Kestrel Systems
2021-10-04 | Felix Braun | LIVES_IN | Berlin
2021-10-04 | Felix Braun | MEMBER_OF | SRE Team
2021-10-04 | Felix Braun | HAS_ROLE | Site Reliability Engineer
2021-10-04 | Felix Braun | REPORTS_TO | Elena Petrova
2023-01-09 | Felix Braun | REPORTS_TO | Tomás García

2020-11-02 | Noor Aziz | WORKS_AT | Kestrel Systems
2020-11-02 | Noor Aziz | LIVES_IN | Dublin
2020-11-02 | Noor Aziz | MEMBER_OF | Security Team
2023-06-01 | Noor Aziz | MEMBER_OF | Payments Team
2020-11-02 | Noor Aziz | HAS_ROLE | Security Engineer
2023-06-01 | Noor Aziz | HAS_ROLE | Backend Engineer
2020-11-02 | Noor Aziz | REPORTS_TO | Greta Holm
2023-06-01 | Noor Aziz | REPORTS_TO | Priya Raman

2019-02-04 | Jonas Berg | WORKS_AT | Kestrel Systems
2019-02-04 | Jonas Berg | LIVES_IN | Stockholm
2019-02-04 | Jonas Berg | MEMBER_OF | Mobile Team
2019-02-04 | Jonas Berg | HAS_ROLE | Mobile Lead
2019-02-04 | Jonas Berg | REPORTS_TO | Elena Petrova

2022-02-07 | Mei Lin | WORKS_AT | Kestrel Systems
2022-02-07 | Mei Lin | LIVES_IN | Singapore
2022-02-07 | Mei Lin | MEMBER_OF | Mobile Team
2022-02-07 | Mei Lin | HAS_ROLE | Android Engineer
2022-02-07 | Mei Lin | REPORTS_TO | Jonas Berg

2021-01-11 | Aiko Sato | WORKS_AT | Kestrel Systems
2023-11-01 | Aiko Sato | WORKS_AT | Northwind Bank
2021-01-11 | Aiko Sato | LIVES_IN | Tokyo
2021-01-11..2023-11-01 | Aiko Sato | MEMBER_OF | Data Team
2021-01-11 | Aiko Sato | HAS_ROLE | Data Scientist
2021-01-11..2023-11-01 | Aiko Sato | REPORTS_TO | Hana Novak

2019-06-03 | Greta Holm | WORKS_AT | Kestrel Systems
2019-06-03 | Greta Holm | LIVES_IN | Copenhagen
2019-06-03 | Greta Holm | MEMBER_OF | Security Team
2019-06-03 | Greta Holm | HAS_ROLE | Security Lead
2019-06-03 | Greta Holm | REPORTS_TO | Elena Petrova

2022-04-04 | Carla Diaz | WORKS_AT | Kestrel Systems
2022-04-04 | Carla Diaz | LIVES_IN | Austin
2022-04-04 | Carla Diaz | MEMBER_OF | Growth Team
2022-04-04 | Carla Diaz | HAS_ROLE | Growth Marketer
2022-04-04 | Carla Diaz | REPORTS_TO | Zoe Park

# --- teams, departments, the company -----------------------------------------------------
2018-06-04 | Payments Team | LED_BY | Priya Raman
2018-01-02 | Payments Team | LOCATED_IN | Amsterdam
2018-01-02 | Payments Team | PART_OF | Engineering
2018-01-02 | Payments Team | HAS_CHANNEL | #payments-eng
2017-01-09 | Platform Team | LED_BY | Marcus Chen
2024-02-01 | Platform Team | LED_BY | Ines Moreau
2017-01-09 | Platform Team | LOCATED_IN | Berlin
2017-01-09 | Platform Team | PART_OF | Engineering
2017-01-09 | Platform Team | HAS_CHANNEL | #platform
2018-03-12 | Growth Team | LED_BY | Zoe Park
2018-03-12 | Growth Team | LOCATED_IN | Seoul
2018-03-12 | Growth Team | PART_OF | Product
2018-03-12 | Growth Team | HAS_CHANNEL | #growth
2019-01-07 | Data Team | LED_BY | Hana Novak
2019-01-07 | Data Team | LOCATED_IN | Warsaw
2019-01-07 | Data Team | PART_OF | Engineering
2019-01-07 | Data Team | HAS_CHANNEL | #data-eng
2019-02-04 | Mobile Team | LED_BY | Jonas Berg
2019-02-04 | Mobile Team | LOCATED_IN | Stockholm
2019-02-04 | Mobile Team | PART_OF | Engineering
2019-02-04 | Mobile Team | HAS_CHANNEL | #mobile
2019-06-03 | Security Team | LED_BY | Greta Holm
2019-06-03 | Security Team | LOCATED_IN | Copenhagen
2019-06-03 | Security Team | PART_OF | Engineering
2019-06-03 | Security Team | HAS_CHANNEL | #security
2018-02-05 | SRE Team | LED_BY | Elena Petrova
2023-01-09 | SRE Team | LED_BY | Tomás García
2018-02-05 | SRE Team | LOCATED_IN | Austin
2018-02-05 | SRE Team | PART_OF | Engineering
2018-02-05 | SRE Team | HAS_CHANNEL | #sre-oncall
2016-05-02 | Engineering | PART_OF | Kestrel Systems
2016-05-02 | Product | PART_OF | Kestrel Systems
2016-05-02 | Kestrel Systems | HEADQUARTERED_IN | Lisbon
2019-05-06 | Kestrel Systems | CONTRACT_WITH | PagerDuty
2020-01-06 | Kestrel Systems | CONTRACT_WITH | Twilio
2020-01-06..2023-05-01 | Kestrel Systems | CONTRACT_WITH | Mailgun
2023-05-01 | Kestrel Systems | CONTRACT_WITH | SendGrid
2020-02-03..2024-06-28 | Kestrel Systems | CONTRACT_WITH | Stripe
2024-03-01 | Kestrel Systems | CONTRACT_WITH | Adyen
2020-03-02..2024-06-03 | Kestrel Systems | CONTRACT_WITH | Datadog
2024-06-03 | Kestrel Systems | CONTRACT_WITH | Grafana Cloud
2022-07-04 | Kestrel Systems | CONTRACT_WITH | Confluent Cloud
2015-03-02 | Corvid Analytics | HEADQUARTERED_IN | Toronto
2001-04-02 | Northwind Bank | HEADQUARTERED_IN | Tokyo

# --- services ---------------------------------------------------------------------------------
2019-05-01 | billingService | OWNED_BY | Payments Team
2019-05-01 | billingService | WRITTEN_IN | Kotlin
2019-05-01 | billingService | USES_DATABASE | Postgres
2019-05-01 | billingService | DEPENDS_ON | user_auth_service
2019-05-01 | billingService | DEPENDS_ON | ledger_sync
2019-05-01 | billingService | DEPLOYED_ON | Kubernetes
2019-05-01 | billingService | HAS_STATUS | production
2020-02-03..2024-03-01 | billingService | DECIDED | use Stripe
2024-03-01 | billingService | DECIDED | use Adyen
2020-02-03..2024-03-01 | billingService | USES_VENDOR | Stripe
2024-03-01 | billingService | USES_VENDOR | Adyen
2021-01-04 | billingService | ON_CALL | Sammy
2024-09-02 | billingService | ON_CALL | Bruno Costa
2022-05-01 | billingService | MAINTAINED_BY | Dana Whitfield

2018-04-02 | user_auth_service | OWNED_BY | Platform Team
2023-04-03 | user_auth_service | OWNED_BY | Security Team
2018-04-02 | user_auth_service | WRITTEN_IN | Go
2018-04-02 | user_auth_service | USES_DATABASE | Postgres
2018-04-02 | user_auth_service | DEPENDS_ON | Redis
2018-04-02 | user_auth_service | DEPLOYED_ON | Kubernetes
2018-04-02 | user_auth_service | HAS_STATUS | production
2020-01-06 | user_auth_service | ON_CALL | Kofi Mensah
2023-04-03 | user_auth_service | ON_CALL | Omar Haddad

2020-10-05 | auth-proxy | OWNED_BY | Platform Team
2020-10-05 | auth-proxy | WRITTEN_IN | Rust
2020-10-05 | auth-proxy | DEPENDS_ON | user_auth_service
2020-10-05 | auth-proxy | DEPLOYED_ON | k8s
2020-10-05 | auth-proxy | HAS_STATUS | production
2020-10-05 | auth-proxy | MAINTAINED_BY | Kofi Mensah

2019-07-01 | search-indexer | OWNED_BY | Platform Team
2022-10-03 | search-indexer | OWNED_BY | Data Team
2019-07-01 | search-indexer | WRITTEN_IN | Java
2019-07-01 | search-indexer | USES_DATABASE | Elasticsearch
2019-07-01 | search-indexer | DEPENDS_ON | Kafka
2019-07-01 | search-indexer | HAS_STATUS | production
2019-11-04 | search-indexer | ON_CALL | Kofi Mensah
2022-10-03 | search-indexer | ON_CALL | Yuki Tanaka

2020-03-02 | search-ui | OWNED_BY | Growth Team
2020-03-02 | search-ui | WRITTEN_IN | TypeScript
2020-03-02 | search-ui | DEPENDS_ON | api.gateway
2020-03-02 | search-ui | DEPENDS_ON | search-indexer
2020-03-02 | search-ui | HAS_STATUS | production
2020-03-02..2023-03-01 | search-ui | MAINTAINED_BY | Ravi Kumar

2020-01-06 | notifications.dispatcher | OWNED_BY | Mobile Team
2020-01-06 | notifications.dispatcher | WRITTEN_IN | Python
2020-01-06 | notifications.dispatcher | DEPENDS_ON | Kafka
2020-01-06 | notifications.dispatcher | HAS_STATUS | production
2020-01-06 | notifications.dispatcher | USES_VENDOR | Twilio
2020-01-06..2023-05-01 | notifications.dispatcher | USES_VENDOR | Mailgun
2023-05-01 | notifications.dispatcher | USES_VENDOR | SendGrid
2020-01-06..2022-02-07 | notifications.dispatcher | MAINTAINED_BY | Jonas Berg
2022-02-07 | notifications.dispatcher | MAINTAINED_BY | Mei Lin

2018-04-02 | api.gateway | OWNED_BY | Platform Team
2018-04-02 | api.gateway | WRITTEN_IN | Go
2018-04-02 | api.gateway | DEPENDS_ON | user_auth_service
2018-04-02 | api.gateway | DEPLOYED_ON | Kubernetes
2018-04-02 | api.gateway | HAS_STATUS | production
2018-04-02 | api.gateway | ON_CALL | Tomás García

2020-06-01 | InvoiceGenerator | OWNED_BY | Payments Team
2020-06-01 | InvoiceGenerator | WRITTEN_IN | Kotlin
2020-06-01 | InvoiceGenerator | DEPENDS_ON | billingService
2020-06-01 | InvoiceGenerator | USES_DATABASE | Postgres
2020-06-01 | InvoiceGenerator | HAS_STATUS | production
2020-06-01 | InvoiceGenerator | MAINTAINED_BY | Bruno Costa

2019-05-01 | ledger_sync | OWNED_BY | Payments Team
2019-05-01 | ledger_sync | WRITTEN_IN | Python
2019-05-01..2023-02-01 | ledger_sync | USES_DATABASE | MySQL
2023-02-01 | ledger_sync | USES_DATABASE | Postgres
2019-05-01 | ledger_sync | DEPENDS_ON | Kafka
2019-05-01 | ledger_sync | HAS_STATUS | production
2022-10-03 | ledger_sync | DECIDED | migrate to Postgres
2020-01-13..2023-06-01 | ledger_sync | MAINTAINED_BY | Sam Okafor
2023-06-01 | ledger_sync | MAINTAINED_BY | Noor Aziz

2022-03-07 | fraud-scorer | OWNED_BY | Security Team
2024-01-15 | fraud-scorer | OWNED_BY | Data Team
2022-03-07 | fraud-scorer | WRITTEN_IN | Python
2022-03-07 | fraud-scorer | USES_DATABASE | Redis
2022-03-07 | fraud-scorer | DEPENDS_ON | billingService
2022-03-07 | fraud-scorer | HAS_STATUS | beta
2023-09-04 | fraud-scorer | HAS_STATUS | production
2022-03-07..2024-01-15 | fraud-scorer | MAINTAINED_BY | Omar Haddad
2024-01-15 | fraud-scorer | MAINTAINED_BY | Yuki Tanaka

2020-09-01 | reportBuilder | OWNED_BY | Data Team
2020-09-01 | reportBuilder | WRITTEN_IN | Scala
2020-09-01..2023-01-16 | reportBuilder | USES_DATABASE | BigQuery
2023-01-16 | reportBuilder | USES_DATABASE | Snowflake
2020-09-01 | reportBuilder | DEPENDS_ON | ledger_sync
2020-09-01 | reportBuilder | HAS_STATUS | production
2020-09-01 | reportBuilder | MAINTAINED_BY | Yuki Tanaka

2021-03-01 | billing-report job | OWNED_BY | Data Team
2021-03-01 | billing-report job | WRITTEN_IN | Python
2021-03-01..2023-01-16 | billing-report job | USES_DATABASE | BigQuery
2023-01-16 | billing-report job | USES_DATABASE | Snowflake
2021-03-01 | billing-report job | RUNS_ON | Airflow
2021-03-01 | billing-report job | DEPENDS_ON | reportBuilder
2021-03-01 | billing-report job | HAS_STATUS | production

2019-09-02 | billing_reconciler | OWNED_BY | Payments Team
2019-09-02 | billing_reconciler | WRITTEN_IN | Go
2019-09-02 | billing_reconciler | USES_DATABASE | MySQL
2019-09-02 | billing_reconciler | DEPENDS_ON | ledger_sync
2019-09-02 | billing_reconciler | HAS_STATUS | production
2024-05-06 | billing_reconciler | HAS_STATUS | deprecated

2019-10-07 | checkout-web | OWNED_BY | Growth Team
2019-10-07 | checkout-web | WRITTEN_IN | TypeScript
2019-10-07 | checkout-web | DEPENDS_ON | billingService
2019-10-07 | checkout-web | DEPENDS_ON | api.gateway
2019-10-07 | checkout-web | HAS_STATUS | production
2019-10-07..2023-03-01 | checkout-web | MAINTAINED_BY | Ravi Kumar

2019-02-04 | kestrel-ios | OWNED_BY | Mobile Team
2019-02-04 | kestrel-ios | WRITTEN_IN | Swift
2019-02-04 | kestrel-ios | DEPENDS_ON | api.gateway
2019-02-04 | kestrel-ios | HAS_STATUS | production
2021-05-03 | kestrel-ios | MAINTAINED_BY | Lena Fischer

2019-02-04 | kestrel-android | OWNED_BY | Mobile Team
2019-02-04..2023-08-01 | kestrel-android | WRITTEN_IN | Java
2023-08-01 | kestrel-android | WRITTEN_IN | Kotlin
2019-02-04 | kestrel-android | DEPENDS_ON | api.gateway
2019-02-04 | kestrel-android | HAS_STATUS | production
2022-02-07 | kestrel-android | MAINTAINED_BY | Mei Lin

2020-03-02 | metricsCollector | OWNED_BY | SRE Team
2020-03-02 | metricsCollector | WRITTEN_IN | Go
2020-03-02 | metricsCollector | DEPLOYED_ON | k8s
2020-03-02..2024-06-03 | metricsCollector | SENDS_TO | Datadog
2024-06-03 | metricsCollector | SENDS_TO | Grafana Cloud
2021-10-04 | metricsCollector | MAINTAINED_BY | Felix Braun

2021-06-07 | feature_flags_api | OWNED_BY | Growth Team
2021-06-07 | feature_flags_api | WRITTEN_IN | TypeScript
2021-06-07 | feature_flags_api | USES_DATABASE | Redis
2021-06-07 | feature_flags_api | DEPENDS_ON | api.gateway
2021-06-07..2023-03-01 | feature_flags_api | MAINTAINED_BY | Ravi Kumar

# --- infrastructure and vendors -------------------------------------------------------------
2018-04-02 | Kubernetes | HOSTED_ON | AWS
2023-10-02 | Kubernetes | HOSTED_ON | GCP
2018-01-02 | Postgres | HOSTED_ON | AWS
2023-10-02 | Postgres | HOSTED_ON | GCP
2019-07-01 | Kafka | HOSTED_ON | AWS
2022-07-04 | Kafka | HOSTED_ON | Confluent Cloud
2019-07-01 | Elasticsearch | HOSTED_ON | AWS
2021-03-01 | Airflow | HOSTED_ON | GCP
2020-02-03 | Stripe | PROVIDES | card payments
2024-03-01 | Adyen | PROVIDES | card payments
2020-01-06 | Twilio | PROVIDES | SMS delivery
2020-01-06 | Mailgun | PROVIDES | email delivery
2023-05-01 | SendGrid | PROVIDES | email delivery
2020-03-02 | Datadog | PROVIDES | monitoring
2024-06-03 | Grafana Cloud | PROVIDES | monitoring
2019-05-06 | PagerDuty | PROVIDES | incident alerting
2022-07-04 | Confluent Cloud | PROVIDES | managed Kafka

# --- decisions ----------------------------------------------------------------------------
2019-11-04 | Payments Team | DECIDED | no deploys on Fridays
2021-09-06..2023-03-06 | Platform Team | DECIDED | adopt gRPC
2023-03-06 | Platform Team | DECIDED | keep REST for public APIs
2023-03-06 | keep REST for public APIs | MOTIVATED_BY | partner SDK compatibility
2020-05-04..2022-11-07 | Data Team | DECIDED | use BigQuery
2022-11-07 | Data Team | DECIDED | move warehouse to Snowflake
2022-11-07 | move warehouse to Snowflake | MOTIVATED_BY | query costs
2020-03-02..2024-06-03 | SRE Team | DECIDED | use Datadog
2024-06-03 | SRE Team | DECIDED | use Grafana Cloud
2024-06-03 | use Grafana Cloud | MOTIVATED_BY | Datadog pricing
2022-02-14 | Security Team | DECIDED | require hardware keys
2023-08-01 | Mobile Team | DECIDED | adopt Kotlin Multiplatform
2022-05-02 | Growth Team | DECIDED | weekly experiment review
2024-03-01 | use Adyen | MOTIVATED_BY | lower card fees
2020-02-03 | use Stripe | MOTIVATED_BY | fast integration

# --- projects ------------------------------------------------------------------------------
2023-01-09 | Project Falcon | LED_BY | Zoe Park
2023-01-09 | Project Falcon | INVOLVES | checkout-web
2023-01-09 | Project Falcon | INVOLVES | billingService
2023-01-09 | Project Falcon | HAS_STATUS | planning
2023-05-02 | Project Falcon | HAS_STATUS | in progress
2024-04-15 | Project Falcon | HAS_STATUS | shipped
2022-11-07 | Project Atlas | LED_BY | Hana Novak
2022-11-07 | Project Atlas | INVOLVES | reportBuilder
2022-11-07 | Project Atlas | INVOLVES | billing-report job
2022-11-07 | Project Atlas | HAS_STATUS | in progress
2024-02-05 | Project Atlas | HAS_STATUS | shipped
2023-05-02 | Project Heron | LED_BY | Omar Haddad
2023-05-02 | Project Heron | INVOLVES | user_auth_service
2023-05-02 | Project Heron | INVOLVES | auth-proxy
2023-05-02 | Project Heron | HAS_STATUS | in progress
2024-10-01 | Project Heron | HAS_STATUS | paused

# --- incidents ------------------------------------------------------------------------------
2023-11-14 | INC-2041 | AFFECTED | billingService
2023-11-14 | INC-2041 | CAUSED_BY | expired TLS certificate
2023-11-14 | INC-2041 | RESOLVED_BY | Sammy
2024-05-02 | INC-2107 | AFFECTED | search-indexer
2024-05-02 | INC-2107 | CAUSED_BY | Kafka consumer lag
2024-05-02 | INC-2107 | RESOLVED_BY | Yuki Tanaka
2024-09-20 | INC-2230 | AFFECTED | user_auth_service
2024-09-20 | INC-2230 | CAUSED_BY | Redis eviction
2024-09-20 | INC-2230 | RESOLVED_BY | Omar Haddad

# --- places ---------------------------------------------------------------------------------
2000-01-03 | Lisbon | LOCATED_IN | Portugal
2000-01-03 | Berlin | LOCATED_IN | Germany
2000-01-03 | Amsterdam | LOCATED_IN | Netherlands
2000-01-03 | Toronto | LOCATED_IN | Canada
2000-01-03 | Austin | LOCATED_IN | United States
2000-01-03 | Nairobi | LOCATED_IN | Kenya
2000-01-03 | Warsaw | LOCATED_IN | Poland
2000-01-03 | Dublin | LOCATED_IN | Ireland
2000-01-03 | Seoul | LOCATED_IN | South Korea
2000-01-03 | Stockholm | LOCATED_IN | Sweden
2000-01-03 | Copenhagen | LOCATED_IN | Denmark
2000-01-03 | Tokyo | LOCATED_IN | Japan
"""

# canonical name, alias. Written after the facts: "Sammy" and "k8s" were entities of their own by then.
ALIASES: tuple[tuple[str, str], ...] = (
    ("Dana Whitfield", "Dee"),
    ("Sam Okafor", "Sammy"),
    ("Marcus Chen", "Marc"),
    ("Tomás García", "Tom"),
    ("billingService", "BillSvc"),
    ("user_auth_service", "UAS"),
    ("notifications.dispatcher", "notif-dispatcher"),
    ("api.gateway", "APIGW"),
    ("Kubernetes", "k8s"),
    ("Postgres", "PostgreSQL"),
    ("Elasticsearch", "ES"),
    ("Payments Team", "PayTeam"),
    ("SRE Team", "Site Reliability Team"),
)

_TYPE_GROUPS: dict[str, str] = {
    "person": "Dana Whitfield|Marcus Chen|Priya Raman|Elena Petrova|Victor Alves|Sam Okafor|Sam Lindqvist|"
    "Tomás García|Yuki Tanaka|Omar Haddad|Lena Fischer|Kofi Mensah|Ines Moreau|Ravi Kumar|Hana Novak|"
    "Bruno Costa|Zoe Park|Felix Braun|Noor Aziz|Jonas Berg|Mei Lin|Aiko Sato|Greta Holm|Carla Diaz|Sammy",
    "team": "Payments Team|Platform Team|Growth Team|Data Team|Mobile Team|Security Team|SRE Team",
    "department": "Engineering|Product",
    "company": "Kestrel Systems|Corvid Analytics|Northwind Bank",
    "service": "billingService|user_auth_service|auth-proxy|search-indexer|search-ui|notifications.dispatcher|"
    "api.gateway|InvoiceGenerator|ledger_sync|fraud-scorer|reportBuilder|billing_reconciler|checkout-web|"
    "kestrel-ios|kestrel-android|metricsCollector|feature_flags_api",
    "batch job": "billing-report job",
    "datastore": "Postgres|MySQL|Redis|Elasticsearch|BigQuery|Snowflake|Kafka",
    "platform": "Kubernetes|Airflow|k8s",
    "cloud provider": "AWS|GCP",
    "vendor": "Stripe|Adyen|Twilio|SendGrid|Mailgun|Datadog|Grafana Cloud|PagerDuty|Confluent Cloud",
    "programming language": "Kotlin|Go|Rust|Java|TypeScript|Python|Scala|Swift",
    "spoken language": "German|English|Portuguese",
    "job title": "Backend Engineer|Staff Engineer|Engineering Manager|VP Engineering|Director of Engineering|CTO|"
    "CEO|Senior Engineer|Product Designer|Site Reliability Engineer|SRE Lead|Data Engineer|Security Engineer|"
    "iOS Engineer|Analytics Engineer|Frontend Engineer|Data Lead|QA Engineer|Product Manager|Head of Product|"
    "Mobile Lead|Android Engineer|Data Scientist|Security Lead|Growth Marketer",
    "status": "production|beta|deprecated|planning|in progress|shipped|paused",
    "decision": "use Stripe|use Adyen|no deploys on Fridays|adopt gRPC|keep REST for public APIs|use BigQuery|"
    "move warehouse to Snowflake|use Datadog|use Grafana Cloud|require hardware keys|adopt Kotlin Multiplatform|"
    "weekly experiment review|migrate to Postgres",
    "reason": "partner SDK compatibility|query costs|Datadog pricing|lower card fees|fast integration",
    "project": "Project Falcon|Project Atlas|Project Heron",
    "incident": "INC-2041|INC-2107|INC-2230",
    "root cause": "expired TLS certificate|Kafka consumer lag|Redis eviction",
    "capability": "card payments|SMS delivery|email delivery|monitoring|incident alerting|managed Kafka",
    "chat channel": "#payments-eng|#platform|#growth|#data-eng|#mobile|#security|#sre-oncall",
    "city": "Lisbon|Berlin|Amsterdam|Toronto|Austin|Nairobi|Warsaw|Dublin|Seoul|Stockholm|Copenhagen|Tokyo|"
    "Singapore",
    "country": "Portugal|Germany|Netherlands|Canada|United States|Kenya|Poland|Ireland|South Korea|Sweden|"
    "Denmark|Japan",
}
TYPES: dict[str, str] = {name: kind for kind, names in _TYPE_GROUPS.items() for name in names.split("|")}


@dataclass(frozen=True)
class GoldenFact:
    valid_at: str
    subject: str
    predicate: str
    object: str
    invalid_at: str | None = None


@dataclass(frozen=True)
class Case:
    """One question with the facts it must and must not return."""

    id: str
    question: str
    must: tuple[Triple3, ...]
    must_not: tuple[Triple3, ...] = ()
    relevant: tuple[Triple3, ...] = ()
    as_of: str | None = None
    """None: now (the time of the recall)."""
    hops: int = 1
    tags: tuple[str, ...] = field(default=())

    @property
    def relevant_set(self) -> set[Triple3]:
        """What counts as a correct answer for precision: the must facts and the acceptable extras."""
        return set(self.must) | set(self.relevant)


def _parse_facts(text: str) -> list[GoldenFact]:
    facts: list[GoldenFact] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("# "):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 4:
            raise ValueError(f"golden fact line {number} is not 'when | subject | PREDICATE | object': {raw!r}")
        when, subject, predicate, obj = parts
        start, _, end = when.partition("..")
        facts.append(GoldenFact(start, subject, predicate, obj, end or None))
    return facts


FACTS: list[GoldenFact] = _parse_facts(FACTS_TEXT)


def t(text: str) -> Triple3:
    """``"subject | PREDICATE | object"`` as a triple."""
    subject, predicate, obj = (p.strip() for p in text.split("|"))
    return subject, predicate, obj


def _ts(*texts: str) -> tuple[Triple3, ...]:
    return tuple(t(x) for x in texts)


CASES: tuple[Case, ...] = (
    # --- people: where, who, what role; now and in the past ---------------------------------
    Case("dana-lives-now", "Where does Dana Whitfield live?",
         must=_ts("Dana Whitfield | LIVES_IN | Lisbon"), must_not=_ts("Dana Whitfield | LIVES_IN | Berlin"),
         tags=("person", "now")),
    Case("dana-lives-2021", "Where did Dana Whitfield live in 2021?", as_of="2021-06-01",
         must=_ts("Dana Whitfield | LIVES_IN | Berlin"), must_not=_ts("Dana Whitfield | LIVES_IN | Lisbon"),
         tags=("person", "past")),
    Case("dana-works", "Where does Dana work?",
         must=_ts("Dana Whitfield | WORKS_AT | Kestrel Systems"),
         relevant=_ts("Dana Whitfield | MEMBER_OF | Payments Team", "Dana Whitfield | HAS_ROLE | Engineering Manager"),
         tags=("person", "predicate")),
    Case("dee-role", "What is Dee's role?",
         must=_ts("Dana Whitfield | HAS_ROLE | Engineering Manager"),
         must_not=_ts("Dana Whitfield | HAS_ROLE | Staff Engineer", "Dana Whitfield | HAS_ROLE | Backend Engineer"),
         tags=("alias", "now")),
    Case("dana-role-2023", "What was Dana Whitfield's role in 2023?", as_of="2023-06-01",
         must=_ts("Dana Whitfield | HAS_ROLE | Staff Engineer"),
         must_not=_ts("Dana Whitfield | HAS_ROLE | Engineering Manager",
                      "Dana Whitfield | HAS_ROLE | Backend Engineer"),
         tags=("person", "past")),
    Case("dana-reports-now", "Who does Dana Whitfield report to?",
         must=_ts("Dana Whitfield | REPORTS_TO | Priya Raman"),
         must_not=_ts("Dana Whitfield | REPORTS_TO | Marcus Chen"), tags=("person", "now")),
    Case("dana-manager-2020", "Who was Dana Whitfield's manager in 2020?", as_of="2020-06-01",
         must=_ts("Dana Whitfield | REPORTS_TO | Marcus Chen"),
         must_not=_ts("Dana Whitfield | REPORTS_TO | Priya Raman"), tags=("person", "past")),
    Case("dana-languages", "Which languages does Dana speak?",
         must=_ts("Dana Whitfield | SPEAKS | German", "Dana Whitfield | SPEAKS | English",
                  "Dana Whitfield | SPEAKS | Portuguese"), tags=("person", "multi")),
    Case("sam-okafor-lives", "Where does Sam Okafor live?",
         must=_ts("Sam Okafor | LIVES_IN | Toronto"), must_not=_ts("Sam Lindqvist | LIVES_IN | Dublin"),
         tags=("distractor",)),
    Case("sam-lindqvist-team", "Which team is Sam Lindqvist on?",
         must=_ts("Sam Lindqvist | MEMBER_OF | Growth Team"), must_not=_ts("Sam Okafor | MEMBER_OF | Payments Team"),
         tags=("distractor",)),
    Case("sammy-lives", "Where does Sammy live?",
         must=_ts("Sam Okafor | LIVES_IN | Toronto"), must_not=_ts("Sam Lindqvist | LIVES_IN | Dublin"),
         tags=("alias", "distractor")),
    Case("sam-lindqvist-lived-2021", "Where did Sam Lindqvist live in 2021?", as_of="2021-01-04",
         must=_ts("Sam Lindqvist | LIVES_IN | Stockholm"),
         must_not=_ts("Sam Lindqvist | LIVES_IN | Dublin", "Sam Okafor | LIVES_IN | Toronto"), tags=("past",)),
    Case("marcus-works-now", "Where does Marcus Chen work now?",
         must=_ts("Marcus Chen | WORKS_AT | Corvid Analytics"),
         must_not=_ts("Marcus Chen | WORKS_AT | Kestrel Systems"), tags=("person", "now")),
    Case("marc-employer-2022", "Who was Marc's employer in 2022?", as_of="2022-06-01",
         must=_ts("Marcus Chen | WORKS_AT | Kestrel Systems"),
         must_not=_ts("Marcus Chen | WORKS_AT | Corvid Analytics"), tags=("alias", "past")),
    Case("aiko-works", "Where does Aiko Sato work?",
         must=_ts("Aiko Sato | WORKS_AT | Northwind Bank"), must_not=_ts("Aiko Sato | WORKS_AT | Kestrel Systems"),
         tags=("person", "now")),
    Case("ravi-team-2021", "Which team did Ravi Kumar belong to in 2021?", as_of="2021-06-01",
         must=_ts("Ravi Kumar | MEMBER_OF | Growth Team"), must_not=_ts("Ravi Kumar | MEMBER_OF | Data Team"),
         tags=("person", "past")),
    Case("noor-team-now", "What team is Noor Aziz in?",
         must=_ts("Noor Aziz | MEMBER_OF | Payments Team"), must_not=_ts("Noor Aziz | MEMBER_OF | Security Team"),
         tags=("person", "now")),
    Case("felix-reports", "Who does Felix report to?",
         must=_ts("Felix Braun | REPORTS_TO | Tomás García"), must_not=_ts("Felix Braun | REPORTS_TO | Elena Petrova"),
         tags=("prefix", "now")),
    Case("reports-to-tom", "Who reports to Tom?",
         must=_ts("Felix Braun | REPORTS_TO | Tomás García"), tags=("alias",)),
    Case("toronto-people", "Which Kestrel people live in Toronto?",
         must=_ts("Sam Okafor | LIVES_IN | Toronto", "Marcus Chen | LIVES_IN | Toronto"),
         must_not=_ts("Ravi Kumar | LIVES_IN | Toronto"), tags=("multi", "now")),
    Case("dana-bruno-team", "Are Dana Whitfield and Bruno Costa on the same team?",
         must=_ts("Dana Whitfield | MEMBER_OF | Payments Team", "Bruno Costa | MEMBER_OF | Payments Team"),
         tags=("multi",)),
    # --- services: identifiers in several casings, owners, on-call, databases -------------------
    Case("billing-owner-camel", "Who owns billingService?",
         must=_ts("billingService | OWNED_BY | Payments Team"),
         must_not=_ts("billing-report job | OWNED_BY | Data Team", "billing_reconciler | OWNED_BY | Payments Team"),
         tags=("identifier", "distractor")),
    Case("billing-owner-kebab", "Which team owns the billing-service?",
         must=_ts("billingService | OWNED_BY | Payments Team"),
         must_not=_ts("billing-report job | OWNED_BY | Data Team"), tags=("identifier", "distractor")),
    Case("billing-oncall-dotted", "billing.service on-call engineer?",
         must=_ts("billingService | ON_CALL | Bruno Costa"), must_not=_ts("billingService | ON_CALL | Sam Okafor"),
         tags=("identifier", "now")),
    Case("billing-oncall-2023", "Who was on call for the billing service in 2023?", as_of="2023-06-01",
         must=_ts("billingService | ON_CALL | Sam Okafor"), must_not=_ts("billingService | ON_CALL | Bruno Costa"),
         tags=("identifier", "past")),
    Case("billing-database", "What database does billing service use?",
         must=_ts("billingService | USES_DATABASE | Postgres"),
         must_not=_ts("billing-report job | USES_DATABASE | Snowflake", "billing_reconciler | USES_DATABASE | MySQL"),
         tags=("identifier", "distractor")),
    Case("billing-decision-now", "What payment provider did billing_service decide on?",
         must=_ts("billingService | DECIDED | use Adyen"), must_not=_ts("billingService | DECIDED | use Stripe"),
         relevant=_ts("billingService | USES_VENDOR | Adyen"), tags=("decision", "now")),
    Case("billing-decision-2022", "Which payment provider had billingService decided on as of 2022?",
         as_of="2022-06-01",
         must=_ts("billingService | DECIDED | use Stripe"), must_not=_ts("billingService | DECIDED | use Adyen"),
         relevant=_ts("billingService | USES_VENDOR | Stripe"), tags=("decision", "past")),
    Case("adyen-why", "Why did billing switch to Adyen?",
         must=_ts("use Adyen | MOTIVATED_BY | lower card fees"),
         relevant=_ts("billingService | DECIDED | use Adyen", "billingService | USES_VENDOR | Adyen"),
         tags=("decision",)),
    Case("ledger-db-2021", "What database did ledger_sync use in 2021?", as_of="2021-06-01",
         must=_ts("ledger_sync | USES_DATABASE | MySQL"), must_not=_ts("ledger_sync | USES_DATABASE | Postgres"),
         tags=("identifier", "past")),
    Case("ledger-db-now", "ledgerSync database", must=_ts("ledger_sync | USES_DATABASE | Postgres"),
         must_not=_ts("ledger_sync | USES_DATABASE | MySQL"), tags=("identifier", "now")),
    Case("ledger-dependents", "Which services depend on ledger_sync?",
         must=_ts("billingService | DEPENDS_ON | ledger_sync", "reportBuilder | DEPENDS_ON | ledger_sync",
                  "billing_reconciler | DEPENDS_ON | ledger_sync"), tags=("identifier", "multi")),
    Case("search-indexer-owner-now", "Who owns the search indexer now?",
         must=_ts("search-indexer | OWNED_BY | Data Team"),
         must_not=_ts("search-indexer | OWNED_BY | Platform Team", "search-ui | OWNED_BY | Growth Team"),
         tags=("identifier", "now", "distractor")),
    Case("search-indexer-owner-2021", "Which team owned search-indexer in 2021?", as_of="2021-06-01",
         must=_ts("search-indexer | OWNED_BY | Platform Team"), must_not=_ts("search-indexer | OWNED_BY | Data Team"),
         tags=("identifier", "past")),
    Case("dispatcher-deps", "What does notifications.dispatcher depend on?",
         must=_ts("notifications.dispatcher | DEPENDS_ON | Kafka"), tags=("identifier",)),
    Case("dispatcher-email-now", "Which email vendor does the notif dispatcher use?",
         must=_ts("notifications.dispatcher | USES_VENDOR | SendGrid"),
         must_not=_ts("notifications.dispatcher | USES_VENDOR | Mailgun"),
         relevant=_ts("notifications.dispatcher | USES_VENDOR | Twilio", "SendGrid | PROVIDES | email delivery"),
         tags=("prefix", "now")),
    Case("dispatcher-email-2022", "Which email vendor did the notifications dispatcher use in 2022?",
         as_of="2022-06-01",
         must=_ts("notifications.dispatcher | USES_VENDOR | Mailgun"),
         must_not=_ts("notifications.dispatcher | USES_VENDOR | SendGrid"),
         relevant=_ts("notifications.dispatcher | USES_VENDOR | Twilio", "Mailgun | PROVIDES | email delivery"),
         tags=("identifier", "past")),
    Case("apigw-oncall", "Who is on call for APIGW?", must=_ts("api.gateway | ON_CALL | Tomás García"),
         tags=("alias",)),
    Case("k8s-workloads", "What runs on k8s?",
         must=_ts("billingService | DEPLOYED_ON | Kubernetes", "api.gateway | DEPLOYED_ON | Kubernetes",
                  "user_auth_service | DEPLOYED_ON | Kubernetes", "auth-proxy | DEPLOYED_ON | Kubernetes",
                  "metricsCollector | DEPLOYED_ON | Kubernetes"), tags=("alias", "multi")),
    Case("uas-owner-now", "Who owns UAS?", must=_ts("user_auth_service | OWNED_BY | Security Team"),
         must_not=_ts("user_auth_service | OWNED_BY | Platform Team", "auth-proxy | OWNED_BY | Platform Team"),
         tags=("alias", "now", "distractor")),
    Case("auth-owner-2022", "Who owned the user auth service in 2022?", as_of="2022-06-01",
         must=_ts("user_auth_service | OWNED_BY | Platform Team"),
         must_not=_ts("user_auth_service | OWNED_BY | Security Team"), tags=("identifier", "past")),
    Case("auth-oncall-now", "Who is on call for user_auth_service?",
         must=_ts("user_auth_service | ON_CALL | Omar Haddad"),
         must_not=_ts("user_auth_service | ON_CALL | Kofi Mensah"),
         tags=("identifier", "now")),
    Case("invoice-language", "What language is the invoice generator written in?",
         must=_ts("InvoiceGenerator | WRITTEN_IN | Kotlin"), tags=("identifier", "predicate")),
    Case("fraud-status-now", "What is the status of fraud-scorer?",
         must=_ts("fraud-scorer | HAS_STATUS | production"), must_not=_ts("fraud-scorer | HAS_STATUS | beta"),
         tags=("identifier", "now")),
    Case("fraud-status-2023", "fraud scorer status as of early 2023", as_of="2023-03-01",
         must=_ts("fraud-scorer | HAS_STATUS | beta"), must_not=_ts("fraud-scorer | HAS_STATUS | production"),
         tags=("identifier", "past")),
    Case("fraud-owner-now", "Who owns fraud_scorer?", must=_ts("fraud-scorer | OWNED_BY | Data Team"),
         must_not=_ts("fraud-scorer | OWNED_BY | Security Team"), tags=("identifier", "now")),
    Case("report-builder-db", "Which database does the report builder use?",
         must=_ts("reportBuilder | USES_DATABASE | Snowflake"),
         must_not=_ts("reportBuilder | USES_DATABASE | BigQuery"),
         tags=("identifier", "now")),
    Case("billing-report-runs-on", "What does the billing-report job run on?",
         must=_ts("billing-report job | RUNS_ON | Airflow"),
         must_not=_ts("billingService | DEPLOYED_ON | Kubernetes"), tags=("distractor",)),
    Case("reconciler-status", "Status of billing_reconciler", must=_ts("billing_reconciler | HAS_STATUS | deprecated"),
         must_not=_ts("billing_reconciler | HAS_STATUS | production"), tags=("identifier", "now")),
    Case("flags-database", "feature flags api database", must=_ts("feature_flags_api | USES_DATABASE | Redis"),
         tags=("identifier",)),
    Case("android-maintainer", "Who maintains kestrel-android?", must=_ts("kestrel-android | MAINTAINED_BY | Mei Lin"),
         tags=("identifier",)),
    Case("android-language-2022", "What was kestrel android written in in 2022?", as_of="2022-06-01",
         must=_ts("kestrel-android | WRITTEN_IN | Java"), must_not=_ts("kestrel-android | WRITTEN_IN | Kotlin"),
         tags=("identifier", "past")),
    # --- teams, decisions, projects, incidents -------------------------------------------------
    Case("platform-location", "Where is the Platform Team located?", must=_ts("Platform Team | LOCATED_IN | Berlin"),
         tags=("team", "predicate")),
    Case("platform-lead-now", "Who leads the Platform Team?", must=_ts("Platform Team | LED_BY | Ines Moreau"),
         must_not=_ts("Platform Team | LED_BY | Marcus Chen"), tags=("team", "now")),
    Case("platform-lead-2022", "Who led the Platform Team in 2022?", as_of="2022-06-01",
         must=_ts("Platform Team | LED_BY | Marcus Chen"), must_not=_ts("Platform Team | LED_BY | Ines Moreau"),
         tags=("team", "past")),
    Case("platform-grpc-now", "What did the Platform Team decide about gRPC?",
         must=_ts("Platform Team | DECIDED | keep REST for public APIs"),
         must_not=_ts("Platform Team | DECIDED | adopt gRPC"), tags=("decision", "now")),
    Case("platform-grpc-2022", "What had the Platform Team decided about APIs in 2022?", as_of="2022-06-01",
         must=_ts("Platform Team | DECIDED | adopt gRPC"),
         must_not=_ts("Platform Team | DECIDED | keep REST for public APIs"), tags=("decision", "past")),
    Case("sre-monitoring-now", "Which monitoring tool did the SRE team decide on?",
         must=_ts("SRE Team | DECIDED | use Grafana Cloud"), must_not=_ts("SRE Team | DECIDED | use Datadog"),
         relevant=_ts("Grafana Cloud | PROVIDES | monitoring"), tags=("decision", "now")),
    Case("data-warehouse", "What is the Data Team's decision on the data warehouse?",
         must=_ts("Data Team | DECIDED | move warehouse to Snowflake"),
         must_not=_ts("Data Team | DECIDED | use BigQuery"), tags=("decision", "now")),
    Case("friday-deploys", "What did the payments team decide about deploys on Fridays?",
         must=_ts("Payments Team | DECIDED | no deploys on Fridays"), tags=("decision",)),
    Case("falcon-status-2023", "Project Falcon status in mid 2023", as_of="2023-07-01",
         must=_ts("Project Falcon | HAS_STATUS | in progress"),
         must_not=_ts("Project Falcon | HAS_STATUS | shipped", "Project Falcon | HAS_STATUS | planning"),
         tags=("project", "past")),
    Case("heron-status", "Is Project Heron still running?", must=_ts("Project Heron | HAS_STATUS | paused"),
         must_not=_ts("Project Heron | HAS_STATUS | in progress"), tags=("project", "now")),
    Case("atlas-lead", "Who is leading Project Atlas?", must=_ts("Project Atlas | LED_BY | Hana Novak"),
         tags=("project",)),
    Case("inc-2041-cause", "What caused INC-2041?", must=_ts("INC-2041 | CAUSED_BY | expired TLS certificate"),
         relevant=_ts("INC-2041 | AFFECTED | billingService", "INC-2041 | RESOLVED_BY | Sam Okafor"),
         tags=("incident", "predicate")),
    Case("k8s-cloud-2021", "Which cloud was Kubernetes hosted on in 2021?", as_of="2021-06-01",
         must=_ts("Kubernetes | HOSTED_ON | AWS"), must_not=_ts("Kubernetes | HOSTED_ON | GCP"), tags=("past",)),
    Case("kestrel-contracts-now", "Which vendors does Kestrel Systems have contracts with?",
         must=_ts("Kestrel Systems | CONTRACT_WITH | PagerDuty", "Kestrel Systems | CONTRACT_WITH | Twilio",
                  "Kestrel Systems | CONTRACT_WITH | SendGrid", "Kestrel Systems | CONTRACT_WITH | Adyen",
                  "Kestrel Systems | CONTRACT_WITH | Grafana Cloud",
                  "Kestrel Systems | CONTRACT_WITH | Confluent Cloud"),
         must_not=_ts("Kestrel Systems | CONTRACT_WITH | Stripe", "Kestrel Systems | CONTRACT_WITH | Mailgun",
                      "Kestrel Systems | CONTRACT_WITH | Datadog"), tags=("multi", "now", "predicate")),
    # --- two hops -----------------------------------------------------------------------------
    Case("dana-country-now", "In which country does Dana Whitfield live?", hops=2,
         must=_ts("Dana Whitfield | LIVES_IN | Lisbon", "Lisbon | LOCATED_IN | Portugal"),
         must_not=_ts("Dana Whitfield | LIVES_IN | Berlin"), tags=("hops", "now")),
    Case("dana-country-2021", "In which country did Dana Whitfield live in 2021?", hops=2, as_of="2021-06-01",
         must=_ts("Dana Whitfield | LIVES_IN | Berlin", "Berlin | LOCATED_IN | Germany"),
         must_not=_ts("Dana Whitfield | LIVES_IN | Lisbon"), tags=("hops", "past")),
    Case("sam-team-city", "Which city is Sam Okafor's team based in?", hops=2,
         must=_ts("Sam Okafor | MEMBER_OF | Payments Team", "Payments Team | LOCATED_IN | Amsterdam"),
         must_not=_ts("Sam Lindqvist | MEMBER_OF | Growth Team"), tags=("hops", "distractor")),
    Case("redis-eviction-resolver", "Who resolved the Redis eviction incident?", hops=2,
         must=_ts("INC-2230 | RESOLVED_BY | Omar Haddad"), tags=("hops", "incident")),
    Case("certificate-outage-fixer", "Who fixed the certificate outage?", hops=2,
         must=_ts("INC-2041 | RESOLVED_BY | Sam Okafor"), tags=("hops", "incident")),
    Case("bruno-service-language", "What language is the service Bruno Costa maintains written in?", hops=2,
         must=_ts("InvoiceGenerator | MAINTAINED_BY | Bruno Costa", "InvoiceGenerator | WRITTEN_IN | Kotlin"),
         tags=("hops",)),
    # --- paraphrases without the entity's words (the vector leg's job) --------------------------
    Case("paraphrase-iphone-app", "What is the iPhone app written in?",
         must=_ts("kestrel-ios | WRITTEN_IN | Swift"), tags=("paraphrase",)),
    Case("paraphrase-container-cloud", "Which cloud runs our container orchestration now?",
         must=_ts("Kubernetes | HOSTED_ON | GCP"), must_not=_ts("Kubernetes | HOSTED_ON | AWS"),
         tags=("paraphrase", "now")),
    Case("paraphrase-chief-executive", "Who is the chief executive?", must=_ts("Victor Alves | HAS_ROLE | CEO"),
         tags=("paraphrase",)),
)


def check() -> None:
    """Sanity of the data itself (not of recall): unique case ids, typed entities, one value per slot."""
    ids = Counter(case.id for case in CASES)
    duplicated = [case_id for case_id, count in ids.items() if count > 1]
    if duplicated:
        raise ValueError(f"duplicate case ids: {duplicated}")
    names = {f.subject for f in FACTS} | {f.object for f in FACTS} | {a for pair in ALIASES for a in pair}
    untyped = sorted(n for n in names if n not in TYPES and n not in {a for _, a in ALIASES})
    if untyped:
        raise ValueError(f"entities without a type: {untyped}")
    slots = Counter((f.valid_at, f.subject, f.predicate) for f in FACTS if f.predicate in SINGLE_VALUED)
    clashes = [slot for slot, count in slots.items() if count > 1]
    if clashes:
        raise ValueError(f"two values of a single-valued predicate at one time: {clashes}")

-- counterattackd schema 2: the order log loses its index on idempotency keys.
-- The server keeps every game's keys in memory, rebuilt from the log when the
-- game loads, and checks them before an order is applied; the index was never
-- read, and it doubled the pages each commit writes.

DROP INDEX orders_by_key;

-- counterattackd schema 38: the finished games by when they ended (updated_unix,
-- written last by the end), for the public list of finished games, newest ended
-- first, a page at a time: each page is read from the index at its cursor, however
-- many games have finished. Only finished games are in it; an order writes none of its columns.
CREATE INDEX games_finished_by_end ON games(private, updated_unix) WHERE status = 'finished';

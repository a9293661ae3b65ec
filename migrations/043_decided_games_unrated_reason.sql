-- counterattackd schema 43: tournament games the organiser decided before the
-- server stored why they moved no rating get the reason it now stores for them,
-- so that lists read "not rated: decided by the organiser" for old and new alike.
UPDATE games
   SET unrated_reason = 'not rated: decided by the organiser without being played out'
 WHERE unrated_reason = ''
   AND tournament_id != ''
   AND result_reason LIKE 'Decided by %, the organiser of the tournament %';

-- counterattackd schema 20: each scenario's record of the sides in the rated
-- games that have moved ratings, kept as each such game ends, so that what the
-- German side is worth over the Soviet is read in one row, not counted anew.

CREATE TABLE side_records (
  scenario      TEXT PRIMARY KEY,
  games         INTEGER NOT NULL,
  soviet_points REAL NOT NULL      -- 1 a Soviet victory, 0.5 a draw
) WITHOUT ROWID;

INSERT INTO side_records (scenario, games, soviet_points)
SELECT g.scenario, COUNT(*), SUM(CASE g.result WHEN 'Soviet victory' THEN 1.0 WHEN 'Draw' THEN 0.5 ELSE 0 END)
FROM games g
WHERE g.rated != 0 AND g.status = 'finished' AND g.result IN ('Soviet victory', 'German victory', 'Draw')
  AND EXISTS (SELECT 1 FROM rating_changes r WHERE r.game_id = g.id)
GROUP BY g.scenario;

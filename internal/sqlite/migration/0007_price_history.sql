-- The odds history: a market's source probabilities every time they were
-- set (at creation and at every change), kept forever. outcomes is a JSON
-- array [{id, probability}] in the market's order; at is in microseconds.
CREATE TABLE betting_price_points (
    market_id TEXT NOT NULL REFERENCES betting_markets (id),
    at        INTEGER NOT NULL,
    outcomes  TEXT NOT NULL,
    PRIMARY KEY (market_id, at)
) WITHOUT ROWID;

-- Markets that existed before the history start with their probabilities
-- of now, dated their event's last change.
INSERT INTO betting_price_points (market_id, at, outcomes)
SELECT json_extract(m.value, '$.id'), e.updated_at,
       (SELECT json_group_array(json(p.point))
          FROM (SELECT json_object('id', json_extract(o.value, '$.id'), 'probability', json_extract(o.value, '$.probability')) AS point
                  FROM json_each(m.value, '$.outcomes') o
                 ORDER BY o.key) p)
  FROM betting_events e, json_each(e.doc, '$.markets') m;

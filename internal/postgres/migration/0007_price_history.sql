-- The odds history: a market's source probabilities every time they were
-- set (at creation and at every change), kept forever. outcomes is a JSON
-- array [{id, probability}] in the market's order.
CREATE TABLE betting_price_points (
    market_id UUID NOT NULL REFERENCES betting_markets (id),
    at        TIMESTAMPTZ NOT NULL,
    outcomes  JSONB NOT NULL,
    PRIMARY KEY (market_id, at)
);

-- Markets that existed before the history start with their probabilities
-- of now, dated their event's last change.
INSERT INTO betting_price_points (market_id, at, outcomes)
SELECT (m.market ->> 'id')::uuid, e.updated_at,
       (SELECT jsonb_agg(jsonb_build_object('id', o.outcome ->> 'id', 'probability', o.outcome ->> 'probability') ORDER BY o.n)
          FROM jsonb_array_elements(m.market -> 'outcomes') WITH ORDINALITY AS o (outcome, n))
  FROM betting_events e, jsonb_array_elements(e.doc -> 'markets') AS m (market);

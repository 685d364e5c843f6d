// The backoffice's sections, in the order of the navigation. path is the
// first segment of the URL's fragment; under marks a section reached from
// another one's page (its navigation link stays current); staff marks a
// section for platform staff only; operatorNav is the link's name for an
// operator's staff.

import * as audit from "./audit.js";
import * as bets from "./bets.js";
import * as markets from "./markets.js";
import * as operators from "./operators.js";
import * as tickets from "./tickets.js";

export const sections = [
  { path: "markets", nav: "Markets", title: "Markets", render: markets.list },
  { path: "events", under: "markets", title: "Event", render: markets.event },
  { path: "bets", nav: "Bets", title: "Bets", render: bets.renderBets },
  { path: "bettors", nav: "Bettors", title: "Bettors", render: bets.renderBettors },
  { path: "operators", nav: "Operators", operatorNav: "Operator", title: "Operators", render: operators.render },
  { path: "audit", nav: "Audit", title: "Audit trail", render: audit.render },
  { path: "tickets", nav: "Ticket service", title: "Ticket service", staff: true, render: tickets.render },
];

// The backoffice's sections, in the order of the navigation. path is the
// first segment of the URL's fragment; under marks a section reached from
// another one's page (its navigation link stays current).

import { h } from "./dom.js";

function home(ctx, view) {
  view.append(h("h1", {}, "Backoffice"), h("p", {}, "Choose a section above."));
}

export const sections = [
  { path: "home", title: "Backoffice", render: home },
];

// Building a page from data without ever parsing it as HTML: every text
// goes in through text nodes and attributes, never as markup. The widget
// and the backoffice share this module (internal/webpage).

const PROPERTIES = new Set(["value", "checked", "disabled", "hidden", "selected", "required", "readOnly", "open", "indeterminate"]);

// h creates an element: props sets attributes ("class", "for", aria-*,
// data-*), DOM properties (value, checked, disabled, …) and listeners
// ("onclick": fn); an attribute that is undefined, null or false is left
// out, true sets it empty. children are nodes, strings and numbers (as
// text), arrays of them, or null, undefined and false (skipped).
export function h(tag, props = {}, ...children) {
  return fill(document.createElement(tag), props, children);
}

const SVG_NS = "http://www.w3.org/2000/svg";

// s creates an SVG element, like h.
export function s(tag, props = {}, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), props, children);
}

function fill(el, props, children) {
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v === undefined || v === null || v === false && !PROPERTIES.has(k)) continue;
    if (k.startsWith("on") && typeof v === "function") {
      el.addEventListener(k.slice(2), v);
    } else if (PROPERTIES.has(k)) {
      el[k] = v;
    } else {
      el.setAttribute(k, v === true ? "" : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// replace empties el and appends children (as h takes them).
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

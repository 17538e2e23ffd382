// Drawing into one of the page's inline <svg> charts: the chart's <title> stays, the rest
// is redrawn each time. Text goes in as text, never as markup.
const NS = 'http://www.w3.org/2000/svg';

/** A new SVG element with attributes `attrs` and, when given, `text` (set as text). */
export function svgElement(tag, attrs = {}, text = undefined) {
  const n = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
  if (text !== undefined) n.textContent = text;
  return n;
}

/** Empties `svg` but for its <title>; returns `el(tag, attrs, text?)`, which appends an element to it. */
export function canvas(svg) {
  [...svg.querySelectorAll(':not(title)')].forEach((n) => n.remove());
  return (tag, attrs, text) => svg.appendChild(svgElement(tag, attrs, text));
}

/** Appends a <tspan> with `text` and `attrs` to an SVG <text> element (a raised or lowered run: dy). */
export function tspan(parent, text, attrs = {}) {
  return parent.appendChild(svgElement('tspan', attrs, text));
}

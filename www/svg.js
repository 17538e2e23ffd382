// Drawing into one of the page's inline <svg> charts: the chart's <title> stays, the rest
// is redrawn each time. Text goes in as text, never as markup.
const NS = 'http://www.w3.org/2000/svg';

/** Empties `svg` but for its <title>; returns `el(tag, attrs, text?)`, which appends an element to it. */
export function canvas(svg) {
  [...svg.querySelectorAll(':not(title)')].forEach((n) => n.remove());
  return (tag, attrs, text) => {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    svg.append(n);
    return n;
  };
}

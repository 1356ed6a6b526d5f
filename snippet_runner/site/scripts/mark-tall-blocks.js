// Blocks matching `selector` (kept in one piece by print.css and print-site) that are taller than
// `limit` px get the class pdf-may-break, so that they may split across sheets instead of leaving
// the rest of the previous sheet blank. A listing and the output under it are kept together
// (print.css), so they count as one block.
([selector, limit]) => {
  let marked = 0;
  const scoped = selector.split(', ').map(s => '#print-site-page ' + s).join(', ');
  for (const el of document.querySelectorAll(scoped)) {
    let height = el.getBoundingClientRect().height;
    const next = el.nextElementSibling;
    const output = next && next.matches('.snippet-output') ? next : null;
    if (output) height += output.getBoundingClientRect().height;
    if (height > limit) {
      el.classList.add('pdf-may-break');
      if (output) output.classList.add('pdf-may-break');
      marked += 1;
    }
  }
  return marked;
}

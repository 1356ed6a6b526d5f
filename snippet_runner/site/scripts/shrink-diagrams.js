// A diagram cannot be split; one taller than `limit` px is scaled down to fit in it.
(limit) => {
  let shrunk = 0;
  for (const el of document.querySelectorAll('#print-site-page div.mermaid')) {
    const height = el.getBoundingClientRect().height;
    if (height > limit) { el.style.zoom = (limit / height).toFixed(3); shrunk += 1; }
  }
  return shrunk;
}

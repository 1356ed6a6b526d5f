// A listing's line anchors and the links of its line numbers lead nowhere on paper: they go, except
// where the prose links to a line. Returns [links removed, anchors removed].
() => {
  const line = /__codelineno-\d+-\d+$/;
  let links = 0, anchors = 0;
  for (const a of document.querySelectorAll('#print-site-page a[href*="__codelineno-"]')) {
    const href = a.getAttribute('href');
    if (!line.test(href) || !(a.closest('.linenos') || href === '#' + a.id)) continue;
    if (a.id) a.removeAttribute('href'); else a.replaceWith(...a.childNodes);
    links += 1;
  }
  const wanted = new Set([...document.querySelectorAll('a[href^="#"]')].map(a => a.getAttribute('href').slice(1)));
  for (const a of document.querySelectorAll('#print-site-page a[id*="__codelineno-"]')) {
    if (line.test(a.id) && !wanted.has(a.id) && a.childNodes.length === 0) { a.remove(); anchors += 1 }
  }
  return [links, anchors];
}

// Links the print-site plugin did not turn into in-page anchors (it leaves the exercises' .ipynb
// links alone) are pointed at the section that holds that page: "exercises/x.ipynb" -> "#exercises-x".
() => {
  let changed = 0;
  for (const a of document.querySelectorAll('#print-site-page a[href]')) {
    const href = a.getAttribute('href');
    if (/^(#|[a-z]+:|\/\/)/i.test(href)) continue;
    const [path, fragment] = href.split('#');
    const id = path.replace(/^(\.\/)+/, '').replace(/\.(ipynb|html|md)$/, '').replaceAll('/', '-');
    const section = document.getElementById(id);
    if (!section) continue;
    const target = fragment && document.getElementById(`${id}-${fragment}`) ? `${id}-${fragment}` : id;
    a.setAttribute('href', '#' + target);
    changed += 1;
  }
  return changed;
}

// The printed table of contents (print-site's #print-page-toc): each entry's link made a block as
// wide as the line, with room at its right end where the PDF step (pdf_contents.py) writes the page
// number after the print. Returns the ids the entries link to.
() => {
  const links = [...document.querySelectorAll('#print-page-toc a[href^="#"]')];
  for (const a of links) {
    a.style.display = 'flex';  // its link annotation then spans the line, up to the number
    a.style.paddingRight = '3em';  // so that a long title wraps before it
  }
  return links.map((a) => decodeURIComponent(a.getAttribute('href').slice(1)));
}

// The printed table of contents (print-site's #print-page-toc) gets each entry's page number, right
// aligned in a slot of fixed width, so that filling the slots moves nothing on any sheet.
// With `numbers` null: adds an empty slot to every entry and returns the ids the entries link to.
// With `numbers` ({id: sheet}, read from a first print): writes each number into its slot.
(numbers) => {
  const links = [...document.querySelectorAll('#print-page-toc a[href^="#"]')];
  const ids = [];
  for (const a of links) {
    const id = decodeURIComponent(a.getAttribute('href').slice(1));
    let slot = a.querySelector(':scope > .pdf-page-number');
    if (!slot) {
      slot = document.createElement('span');
      slot.className = 'pdf-page-number';
      slot.style.cssText = 'flex: none; width: 3em; margin-left: auto; text-align: right; font-variant-numeric: tabular-nums';
      a.style.display = 'flex';
      a.style.justifyContent = 'space-between';
      a.append(slot);
    }
    if (numbers && id in numbers) slot.textContent = String(numbers[id]);
    ids.push(id);
  }
  return ids;
}

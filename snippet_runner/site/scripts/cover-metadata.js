// Title, author, subject and keywords, as the cover template wrote them (data-pdf-* attributes).
() => {
  const cover = document.querySelector('[data-pdf-title]');
  const data = cover ? cover.dataset : {};
  return {Title: data.pdfTitle || '', Author: data.pdfAuthor || '', Subject: data.pdfSubject || '', Keywords: data.pdfKeywords || ''};
}

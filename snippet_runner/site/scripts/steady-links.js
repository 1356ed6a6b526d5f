// Every link gets a box of its own (position: relative, which moves nothing), so Chromium makes its
// PDF link rectangles from that box. Otherwise a link whose text has inline children (an <abbr>, a
// <code>) gets either one rectangle per child or one for the whole link, depending on what the
// page went through before printing (a hover, a scroll): two builds of one commit printed different
// bytes. :where() keeps it below any rule of the site's own.
() => {
  const style = document.createElement("style")
  style.textContent = ":where(a[href]) { position: relative }"
  document.head.append(style)
}

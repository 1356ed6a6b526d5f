// The backward pass of a graph picture, one step at a time (snippet_runner/pictures/steps.py).
// Each picture drawn from a run is followed by its steps as a numbered list, every number in it
// recorded by the run; each item names, in data-node, data-in and data-out, the ids of the SVG
// nodes and edges it lights up. This script turns that list into a player: Start, Back, Next, End
// (and the arrow, Home and End keys while focus is in it), the step's sentence in a polite live
// region, and the highlight on the picture. It reads nothing but the page and asks no host for
// anything. Without it the picture stays as drawn; on paper the list prints (backward-steps.css).
(() => {
  const LIT = ["snippet-step-node", "snippet-step-in", "snippet-step-out"]
  const KEYS = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }

  function button(label, title, onClick) {
    const b = document.createElement("button")
    b.type = "button"
    b.className = "snippet-player-button"
    b.textContent = label
    b.title = title
    b.addEventListener("click", onClick)
    return b
  }

  function setUp(box) {
    if (box.dataset.player === "1") return
    const figure = document.getElementById(box.dataset.picture) // the picture the list follows
    const svg = figure && figure.querySelector("svg.snippet-picture-svg")
    const steps = Array.from(box.querySelectorAll("ol.snippet-steps-list > li"))
    if (!svg || steps.length === 0) return
    box.dataset.player = "1"
    let at = 0
    let lit = []

    const text = document.createElement("p")
    text.className = "snippet-step-text"
    const controls = document.createElement("div")
    controls.className = "snippet-player-controls"
    const start = button("Start", "Before the first step (Home)", () => go(0))
    const back = button("◀ Back", "The step before (left arrow)", () => go(at - 1))
    const next = button("Next ▶", "The next step (right arrow)", () => go(at + 1))
    const end = button("End", "The last step: each leaf's .grad (End)", () => go(steps.length))
    controls.append(start, back, next, end)

    const player = document.createElement("div")
    player.className = "snippet-player"
    player.setAttribute("role", "group")
    player.setAttribute("aria-label", "Step through the backward pass of the picture above")
    player.append(controls, text)
    player.addEventListener("keydown", event => {
      let to = null
      if (event.key in KEYS) to = at + KEYS[event.key]
      else if (event.key === "Home") to = 0
      else if (event.key === "End") to = steps.length
      if (to === null || event.altKey || event.ctrlKey || event.metaKey) return
      event.preventDefault()
      go(to)
    })
    svg.after(player)

    function light(item) {
      for (const el of lit) el.classList.remove(...LIT)
      lit = []
      if (!item) return
      LIT.forEach((cls, i) => {
        const ids = item.dataset[["node", "in", "out"][i]]
        for (const id of ids ? ids.split(" ") : []) {
          const el = document.getElementById(id)
          if (el && svg.contains(el)) {
            el.classList.add(cls)
            lit.push(el)
          }
        }
      })
    }

    function go(to) {
      at = Math.max(0, Math.min(steps.length, to))
      const item = at > 0 ? steps[at - 1] : null
      light(item)
      player.dataset.step = String(at)
      text.textContent = item
        ? `Step ${at} of ${steps.length}: ${item.textContent}`
        : `The backward pass of this run, in ${steps.length} steps. Press Next to start.`
      for (const [b, off] of [[start, at === 0], [back, at === 0], [next, at === steps.length], [end, at === steps.length]])
        b.setAttribute("aria-disabled", String(off))
    }

    go(0)
    text.setAttribute("aria-live", "polite") // after the first text: only a reader's steps are announced
  }

  function setUpAll(root) {
    for (const box of root.querySelectorAll(".snippet-steps")) setUp(box)
  }

  if (typeof document$ !== "undefined") document$.subscribe(({ body }) => setUpAll(body))
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => setUpAll(document))
  else setUpAll(document)
})()

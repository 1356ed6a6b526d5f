// Graphviz compiled to WebAssembly (@viz-js/viz, from npm: package-lock.json), for vizjs.py beside it.
// One process serves a whole build: it reads one JSON request a line on stdin,
//   {"graph": <a viz.js graph object>}
// and answers each with one JSON line on stdout, {"svg": "..."} or {"error": "..."}.
// Graphviz's warnings (a character its text-width table lacks) are not errors, and are dropped.
import { createInterface } from "node:readline";
import { instance } from "@viz-js/viz";

const viz = await instance();
process.stdout.write(JSON.stringify({ ready: viz.graphvizVersion }) + "\n");

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  let answer;
  try {
    const result = viz.render(JSON.parse(line).graph, { format: "svg", engine: "dot" });
    if (result.status === "success") {
      answer = { svg: result.output };
    } else {
      const errors = result.errors.filter((e) => e.level !== "warning").map((e) => e.message.trim());
      answer = { error: errors.join("; ") || "Graphviz failed and said nothing" };
    }
  } catch (error) {
    answer = { error: String(error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}

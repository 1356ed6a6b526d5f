"""The backward pass of a graph picture in words, step by step: the list under the picture that
``plugins/runner/assets/backward-steps.js`` steps through and the PDF prints. The numbers and their order are the run's
(the approved ``steps``); each ``<li>`` names in ``data-node``, ``data-in`` and ``data-out`` the SVG ids it lights up.
"""

from __future__ import annotations

from html import escape

from snippet_runner.pictures.data import GraphData, Step


def sentences(data: GraphData) -> list[tuple[str, list[str], list[str], list[str]]]:
    """(sentence, node ids, in-edge ids, out-edge ids) per step: the seed, each node run, and the end."""
    steps = data.get("steps") or []
    if not steps:
        return []
    edges = data["edges"]
    label = {node["id"]: node["name"] for node in data["nodes"]}  # an AccumulateGrad by the leaf it fills:
    label |= {e["from"]: f"AccumulateGrad (for {label[e['to']]})" for e in edges if e["kind"] == "accumulate"}
    out: list[tuple[str, list[str], list[str], list[str]]] = []
    call = "torch.autograd.grad" if data.get("via") == "grad" else "backward()"
    seed = next((i for i, e in enumerate(edges) if e["kind"] == "seed"), None)
    if seed is not None:
        edge = edges[seed]
        name, grad = label[edge["from"]], edge["grad"]
        # a scalar's backward() starts from d name / d name = 1; any other start was passed to it
        start = f"d{name}/d{name} = 1" if grad == "1" else f"{grad}, the gradient it was given"
        sentence = f"{call} starts at {name} with {start}, and sends it to {label[edge['to']]}."
        out.append((sentence, [edge["from"]], [], [f"e{seed}"]))
    for step in steps:
        out.append((_sentence(step, edges, label), [step["node"]], _ids(step["in"]), _ids(_sent(step))))
    leaves = [n for n in data["nodes"] if n["type"] == "tensor" and (n["leaf"] or n.get("grad") is not None)]
    landed = [f"{n['name']}.grad = {n['grad']}" for n in leaves if n.get("grad") is not None]
    into = [f"e{i}" for i, e in enumerate(edges) if e["kind"] == "accumulate" and e["grad"] is not None]
    done = "backward() is done. " + ("; ".join(landed) + "." if landed else "No leaf received a gradient.")
    if call != "backward()":  # it returns what reached each input's AccumulateGrad, which does not run
        done = f"{call} is done: it returns the gradients that reached its inputs, and adds none to a .grad."
    out.append((done, [n["id"] for n in leaves], into, []))
    return out


def html(data: GraphData, prefix: str) -> str:
    """The steps as the ``<div>`` the player reads and the PDF prints, or "" without steps."""
    items = []
    for text, nodes, arriving, sent in sentences(data):
        attrs = {"data-node": nodes, "data-in": arriving, "data-out": sent}
        shown = " ".join(f'{key}="{escape(" ".join(f"{prefix}-{i}" for i in ids))}"' for key, ids in attrs.items())
        items.append(f"<li {shown}>{escape(text)}</li>")
    if not items:
        return ""
    return (
        f'<div class="snippet-steps" data-picture="{prefix}">'
        f'<p class="snippet-steps-heading" id="{prefix}-steps">The backward pass of this run, step by step:</p>'
        f'<ol class="snippet-steps-list" aria-labelledby="{prefix}-steps">{"".join(items)}</ol></div>'
    )


def _ids(items) -> list[str]:
    return [f"e{item['edge']}" for item in items]


def _sent(step: Step) -> list:
    return [item for item in step["sent"] if item["grad"] is not None]


def _sentence(step: Step, edges, label: dict[str, str]) -> str:
    name = label[step["node"]]
    arrived = step["in"]
    received = ", ".join("nothing" if g is None else g for g in step["received"])
    if len(arrived) > 1:
        parts = " and ".join(f"{a['grad']} from {label[edges[a['edge']]['from']]}" for a in arrived)
        plus = " + ".join(a["grad"] for a in arrived)
        intro, then = f"{name} receives {parts}; the engine adds them: {plus} = {received}", ". It"
    else:
        intro, then = f"{name} receives {received}", " and"
    if "leaf" in step:
        leaf = label[step["leaf"]]
        return f"{intro}{then} adds it to {leaf}.grad: {leaf}.grad is now {step.get('grad_after') or 'None'}."
    sent = _sent(step)
    if not sent:
        return f"{intro}{then} sends nothing on."
    factors = [item.get("factor") for item in sent]

    def target(item) -> str:
        return label[edges[item["edge"]]["to"]]

    if all(f == "1" for f in factors):  # a sum's, but also a product by 1's or a difference's first input
        targets = " and ".join(f"{item['grad']} to {target(item)}" for item in sent)
        why = (
            "the derivative of a sum with respect to each term is 1"
            if name == "AddBackward0"
            else "its local derivative is 1"
        )
        return f"{intro}{then} passes it on unchanged ({why}): it sends {targets}."
    if len(sent) == 1 and factors[0]:
        return f"{intro}{then} multiplies by {factors[0]}: it sends {sent[0]['grad']} to {target(sent[0])}."
    if all(factors):
        each = "; ".join(
            f"to {target(item)} it sends {received} times {item['factor']}, which is {item['grad']}" for item in sent
        )
        return f"{intro}: {each}."
    return f"{intro}{then} sends " + " and ".join(f"{item['grad']} to {target(item)}" for item in sent) + "."

// tape serve's one script: a live page appends what its stream sends
// (see web/live.go); a link to an entry inside a folded call opens it.
// The HTML it inserts was rendered and escaped by the server.
"use strict";

function openTarget() {
  const id = decodeURIComponent(location.hash.slice(1));
  const el = id && document.getElementById(id);
  for (let d = el && el.closest("details"); d; d = d.parentElement.closest("details")) {
    d.open = true;
  }
  if (el) el.scrollIntoView({ block: "center" });
}

function fragment(html) {
  const t = document.createElement("template");
  t.innerHTML = html;
  return t.content;
}

function live(box) {
  const status = document.getElementById("live-status");
  const say = (text, off) => {
    if (status) { status.textContent = text; status.classList.toggle("off", !!off); }
  };
  const stream = new EventSource(box.dataset.live);
  stream.addEventListener("entries", (ev) => {
    const nodes = fragment(ev.data);
    const added = Array.from(nodes.children);
    box.append(nodes);
    added.forEach((n) => n.classList.add("fresh"));
    document.body.dataset.appended = String(Number(document.body.dataset.appended || 0) + added.length);
    say("live: " + new Date().toLocaleTimeString() + ", " + added.length + " new");
  });
  stream.addEventListener("call", (ev) => {
    const node = fragment(ev.data).firstElementChild;
    const old = node && document.getElementById(node.id);
    if (old) { node.open = old.open; old.replaceWith(node); }
  });
  stream.addEventListener("reset", () => {
    stream.close();
    say("this tape changed under the page (a reset, or a file rewritten): reload to see it", true);
  });
  stream.onerror = () => say("live: reconnecting…", true);
  stream.onopen = () => say("live: new entries appear here as they are written");
}

document.addEventListener("DOMContentLoaded", () => {
  openTarget();
  const box = document.getElementById("entries");
  if (box && box.dataset.live) live(box);
});
window.addEventListener("hashchange", openTarget);

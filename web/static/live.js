// tape serve's one script: a live page appends what its stream sends
// (see web/live.go); a link to an entry inside a folded call opens it.
// The HTML it inserts was rendered and escaped by the server.
"use strict";

function openTarget() {
  let id = "";
  try {
    id = decodeURIComponent(location.hash.slice(1));
  } catch (e) {
    return; // a fragment that is no entry's: nothing to open
  }
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

// live follows the stream of box's page. A hidden tab closes its stream,
// which holds one of the six connections a browser opens to a server:
// the seventh tab of a tape would wait for one. Shown again, it resumes
// from the last place the stream sent (the event id: folder/offset/id,
// the id percent-encoded, so that no id can end the field it is in). It
// inserts as HTML only the data of entries and call events, which the
// server rendered from its templates; the id goes back only in the URL.
function live(box) {
  const status = document.getElementById("live-status");
  const say = (text, off) => {
    if (status) { status.textContent = text; status.classList.toggle("off", !!off); }
  };
  let stream = null;
  let last = "";
  let wait = 5000; // before trying again after a refusal, in ms
  let retry = null;
  const state = (s) => { box.dataset.stream = s; };
  const open = () => {
    const url = new URL(box.dataset.live, location.href);
    if (last) { // a place: folder/offset/id
      const folder = (p) => p.slice(0, p.indexOf("/"));
      if (folder(last) !== folder(url.searchParams.get("at") || "")) url.searchParams.set("from", "0");
      url.searchParams.set("at", last);
    }
    stream = new EventSource(url);
    state("open");
    stream.addEventListener("entries", (ev) => {
      last = ev.lastEventId || last;
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
      stream = null;
      state("ended");
      say("this tape changed under the page (a reset, or a file rewritten): reload to see it", true);
    });
    stream.onerror = () => {
      if (stream.readyState !== EventSource.CLOSED) { say("live: reconnecting…", true); return; }
      // Refused (the server follows as many live pages as it will: 503),
      // or gone: EventSource gives up, so the page tries again, later
      // each time, up to a minute apart.
      stream = null;
      state("waiting");
      say("live: the server is not following this page now; trying again in " + Math.round(wait / 1000) + " s", true);
      retry = setTimeout(() => { retry = null; if (!document.hidden) open(); else state("paused"); }, wait);
      wait = Math.min(2 * wait, 60000);
    };
    stream.onopen = () => { wait = 5000; say("live: new entries appear here as they are written"); };
  };
  document.addEventListener("visibilitychange", () => {
    if (document.hidden && stream) {
      stream.close();
      stream = null;
      state("paused");
      say("live: paused while the tab is hidden", true);
    } else if (!document.hidden && !stream && !retry && box.dataset.stream === "paused") {
      open();
    }
  });
  open();
}

document.addEventListener("DOMContentLoaded", () => {
  openTarget();
  const box = document.getElementById("entries");
  if (box && box.dataset.live) live(box);
});
window.addEventListener("hashchange", openTarget);

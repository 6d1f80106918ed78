// The live feed: follows /events/stream (the session cookie authenticates it), newest on top. The browser's
// EventSource reconnects by itself and sends Last-Event-ID, so the stream resumes with no gap and no duplicate;
// the page says when it reconnected. At most one render a frame, and a render adds only the rows of the events that
// came since the last one and drops those beyond the window (the whole window is rebuilt only when a filter
// changes or the feed resumes), so a thousand events a second keep the page responsive
// (deploy/bench/console.sh). Every value is set as text, never as markup.
const KEPT = 2000;
const SHOWN = 200;
const TYPES = ["audit", "agent.created", "agent.updated", "agent.suspended", "agent.resumed", "agent.revoked",
  "agent.rotated", "delegation.created", "delegation.revoked", "budget.exceeded", "anomaly.detected",
  "cost.recorded", "auth.signin", "auth.signout", "auth.failed"];

const rows = document.getElementById("rows");
const status = document.getElementById("status");
const pause = document.getElementById("pause");
const filters = {
  type: document.getElementById("filter-type"),
  agent: document.getElementById("filter-agent"),
  result: document.getElementById("filter-result"),
};
// Oldest first; trimmed to KEPT now and then (not on every event: that would move the whole array each time).
const events = [];
// Events not yet rendered, oldest first.
let fresh = [];
let paused = false;
let scheduled = false;
let rebuild = true;
let lost = false;

function summary(type, event) {
  const data = event.data || {};
  if (type === "audit" && data.entry) {
    const e = data.entry;
    return { agent: e.agentId || "", result: e.result || "", detail: `${e.action || ""} ${e.resource || ""} ${e.reason || ""}`.trim() };
  }
  return { agent: event.agentId || data.agentId || "", result: "", detail: JSON.stringify(data).slice(0, 200) };
}

function receive(message) {
  let event;
  try {
    event = JSON.parse(message.data);
  } catch (e) {
    return;
  }
  const e = { id: message.lastEventId, type: message.type, time: event.timestamp || "", ...summary(message.type, event) };
  events.push(e);
  if (events.length > KEPT * 1.5) {
    events.splice(0, events.length - KEPT);
  }
  fresh.push(e);
  if (fresh.length > SHOWN * 2) {
    fresh = fresh.slice(-SHOWN);
  }
  schedule();
}

function matches(e) {
  const type = filters.type.value.trim();
  const agent = filters.agent.value.trim();
  const result = filters.result.value;
  return (!type || e.type.includes(type)) && (!agent || e.agent.includes(agent)) && (!result || e.result === result);
}

function schedule() {
  if (!paused && !scheduled) {
    scheduled = true;
    requestAnimationFrame(render);
  }
}

function cell(text, className) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) {
    td.className = className;
  }
  return td;
}

function row(e) {
  const tr = document.createElement("tr");
  tr.dataset.eventId = e.id;
  tr.dataset.type = e.type;
  tr.append(cell(e.time), cell(e.type), cell(e.agent), cell(e.result, e.result ? `result-${e.result}` : ""), cell(e.detail));
  return tr;
}

// The newest events (of `from`, oldest first) that match, as rows newest first, at most SHOWN.
function rowsOf(from) {
  const fragment = document.createDocumentFragment();
  let shown = 0;
  for (let i = from.length - 1; i >= 0 && shown < SHOWN; i--) {
    if (matches(from[i])) {
      fragment.append(row(from[i]));
      shown++;
    }
  }
  return fragment;
}

function render() {
  scheduled = false;
  if (rebuild) {
    rebuild = false;
    rows.replaceChildren(rowsOf(events));
  } else {
    rows.prepend(rowsOf(fresh));
    while (rows.childElementCount > SHOWN) {
      rows.lastElementChild.remove();
    }
  }
  fresh = [];
}

pause.addEventListener("click", () => {
  paused = !paused;
  pause.setAttribute("aria-pressed", String(paused));
  pause.textContent = paused ? "Resume" : "Pause";
  status.textContent = paused ? "Paused: events are kept and shown when you resume." : "Live";
  rebuild = true;
  schedule();
});
for (const input of Object.values(filters)) {
  input.addEventListener("input", () => { rebuild = true; schedule(); });
}

const source = new EventSource("/events/stream");
source.addEventListener("open", () => {
  status.textContent = lost ? "Reconnected: the feed resumed from the last event it showed." : "Live";
  status.dataset.state = lost ? "reconnected" : "live";
});
source.addEventListener("error", () => {
  lost = true;
  status.textContent = "Connection lost: reconnecting…";
  status.dataset.state = "reconnecting";
});
for (const type of TYPES) {
  source.addEventListener(type, receive);
}

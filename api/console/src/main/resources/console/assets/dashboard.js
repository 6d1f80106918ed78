// The dashboard's live charts: follows /events/stream (the session cookie authenticates it) and counts the
// decisions it sees per second over the last two minutes (allowed, and denied or rate limited) and the denials by
// reason over the same window; a second stream replays the anomaly alerts of the last 24 hours and follows new ones.
// Redrawn once a second; every label is set as text.
const WINDOW = 120;
const WIDTH = 600;
const BASE = 120;
const ALERTS = 10;

const status = document.getElementById("live-status");
const allowedLine = document.getElementById("rate-allowed");
const deniedLine = document.getElementById("rate-denied");
const maxLabel = document.getElementById("rate-max");
const now = document.getElementById("rate-now");
const reasons = document.getElementById("reasons");
const anomalies = document.getElementById("anomalies");

// One slot a second: [second, allowed, denied, {reason: count}].
const slots = [];
let lost = false;

function slot(second) {
  let last = slots[slots.length - 1];
  if (!last || last.second !== second) {
    last = { second, allowed: 0, denied: 0, reasons: new Map() };
    slots.push(last);
    while (slots.length > 0 && slots[0].second <= second - WINDOW) {
      slots.shift();
    }
  }
  return last;
}

function decision(message) {
  let event;
  try {
    event = JSON.parse(message.data);
  } catch (e) {
    return;
  }
  const entry = (event.data || {}).entry;
  if (!entry || String(entry.action || "").startsWith("admin.")) {
    return;
  }
  const s = slot(Math.floor(Date.now() / 1000));
  if (entry.result === "allowed") {
    s.allowed++;
  } else {
    s.denied++;
    const reason = entry.reason || entry.result || "unknown";
    s.reasons.set(reason, (s.reasons.get(reason) || 0) + 1);
  }
}

function anomaly(message) {
  let event;
  try {
    event = JSON.parse(message.data);
  } catch (e) {
    return;
  }
  document.getElementById("no-anomalies")?.remove();
  const li = document.createElement("li");
  const data = event.data || {};
  li.textContent = `${event.timestamp || ""} ${event.agentId || data.agentId || ""} ${JSON.stringify(data).slice(0, 300)}`;
  anomalies.prepend(li);
  while (anomalies.children.length > ALERTS) {
    anomalies.lastElementChild.remove();
  }
}

function points(values, top) {
  const step = WIDTH / (WINDOW - 1);
  return values.map((v, i) => `${(i * step).toFixed(1)},${(BASE - (v * (BASE - 16)) / top).toFixed(1)}`).join(" ");
}

function draw() {
  const current = Math.floor(Date.now() / 1000);
  slot(current);
  const bySecond = new Map(slots.map((s) => [s.second, s]));
  const allowed = [];
  const denied = [];
  const totals = new Map();
  for (let second = current - WINDOW + 1; second <= current; second++) {
    const s = bySecond.get(second);
    allowed.push(s ? s.allowed : 0);
    denied.push(s ? s.denied : 0);
    if (s) {
      for (const [reason, count] of s.reasons) {
        totals.set(reason, (totals.get(reason) || 0) + count);
      }
    }
  }
  const top = Math.max(1, ...allowed, ...denied);
  allowedLine.setAttribute("points", points(allowed, top));
  deniedLine.setAttribute("points", points(denied, top));
  maxLabel.textContent = `${top}/s`;
  // The last whole second, so that the figure does not flicker with the second under way.
  now.textContent = String(allowed[WINDOW - 2] + denied[WINDOW - 2]);
  const most = Math.max(1, ...totals.values());
  const items = [...totals.entries()].sort((a, b) => b[1] - a[1]).map(([reason, count]) => {
    const li = document.createElement("li");
    li.dataset.reason = reason;
    const label = document.createElement("span");
    label.className = "reason";
    label.textContent = `${reason}: ${count}`;
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("width", "300");
    svg.setAttribute("height", "12");
    svg.setAttribute("aria-hidden", "true");
    const rect = document.createElementNS("http://www.w3.org/2000/svg", "rect");
    rect.setAttribute("class", "bar-denied");
    rect.setAttribute("height", "10");
    rect.setAttribute("width", String(Math.max(2, Math.round((count * 300) / most))));
    svg.append(rect);
    li.append(label, svg);
    return li;
  });
  if (items.length === 0) {
    const li = document.createElement("li");
    li.textContent = "No denials in the last two minutes.";
    items.push(li);
  }
  reasons.replaceChildren(...items);
}

const source = new EventSource("/events/stream");
source.addEventListener("open", () => {
  status.textContent = lost ? "Reconnected." : "Live";
  status.dataset.state = lost ? "reconnected" : "live";
});
source.addEventListener("error", () => {
  lost = true;
  status.textContent = "Connection lost: reconnecting…";
  status.dataset.state = "reconnecting";
});
source.addEventListener("audit", decision);
// Anomalies: replayed from 24 hours ago (`since`), newest kept on top; a reconnect resumes from Last-Event-ID.
const since = new Date(Date.now() - 24 * 3600 * 1000).toISOString();
const alerts = new EventSource(`/events/stream?types=anomaly.detected&since=${encodeURIComponent(since)}`);
alerts.addEventListener("anomaly.detected", anomaly);
draw();
setInterval(draw, 1000);
